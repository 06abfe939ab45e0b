build-clang/confine/seccomp.o: confine/seccomp.c confine/seccomp.h \
  confine/seccomp_internal.h lib/cleanup.h

confine/seccomp.h:

confine/seccomp_internal.h:

lib/cleanup.h:
