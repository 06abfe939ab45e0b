build-clang/confine/seccomp_variant.o: confine/seccomp_variant.c \
  confine/seccomp.h confine/supervisor/supervisor.h lib/root.h \
  lib/error.h

confine/seccomp.h:

confine/supervisor/supervisor.h:

lib/root.h:

lib/error.h:
