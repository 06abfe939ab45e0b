build-clang/policy/policy.o: policy/policy.c policy/policy.h lib/error.h \
  policy/internal.h

policy/policy.h:

lib/error.h:

policy/internal.h:
