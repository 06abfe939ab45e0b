build-clang/policy/dump.o: policy/dump.c policy/internal.h \
  policy/policy.h lib/error.h

policy/internal.h:

policy/policy.h:

lib/error.h:
