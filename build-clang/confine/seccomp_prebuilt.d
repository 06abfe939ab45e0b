build-clang/confine/seccomp_prebuilt.o: confine/seccomp_prebuilt.c \
  confine/seccomp.h confine/seccomp_internal.h

confine/seccomp.h:

confine/seccomp_internal.h:
