build-clang/policy/ruling.o: policy/ruling.c policy/ruling.h \
  policy/policy.h lib/error.h

policy/ruling.h:

policy/policy.h:

lib/error.h:
