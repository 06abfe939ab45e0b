build-clang/confine/seccomp_deny.o: confine/seccomp_deny.c \
  confine/seccomp.h confine/seccomp_internal.h

confine/seccomp.h:

confine/seccomp_internal.h:
