build-clang/policy/gaps.o: policy/gaps.c policy/policy.h lib/error.h

policy/policy.h:

lib/error.h:
