build-clang/confine/supervisor/exec.o: confine/supervisor/exec.c \
  confine/supervisor/internal.h confine/supervisor/supervisor.h \
  lib/root.h lib/error.h

confine/supervisor/internal.h:

confine/supervisor/supervisor.h:

lib/root.h:

lib/error.h:
