build-clang/policy/scan.o: policy/scan.c policy/internal.h \
  policy/policy.h lib/error.h

policy/internal.h:

policy/policy.h:

lib/error.h:
