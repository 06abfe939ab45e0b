build-clang/gen/default_policy.o: build-clang/gen/default_policy.c \
  policy/default_policy.h

policy/default_policy.h:
