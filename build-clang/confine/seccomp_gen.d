build-clang/confine/seccomp_gen.o: confine/seccomp_gen.c \
  confine/seccomp.h

confine/seccomp.h:
