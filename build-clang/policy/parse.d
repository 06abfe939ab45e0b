build-clang/policy/parse.o: policy/parse.c policy/policy.h lib/error.h \
  policy/expand.h lib/env.h policy/internal.h

policy/policy.h:

lib/error.h:

policy/expand.h:

lib/env.h:

policy/internal.h:
