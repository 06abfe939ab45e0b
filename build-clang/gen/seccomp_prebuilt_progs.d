build-clang/gen/seccomp_prebuilt_progs.o: \
  build-clang/gen/seccomp_prebuilt_progs.c confine/seccomp_internal.h \
  confine/seccomp.h

confine/seccomp_internal.h:

confine/seccomp.h:
