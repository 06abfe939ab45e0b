build-clang/policy/words.o: policy/words.c policy/policy.h lib/error.h \
  policy/internal.h

policy/policy.h:

lib/error.h:

policy/internal.h:
