build-clang/confine/supervisor/resolve.o: confine/supervisor/resolve.c \
  confine/supervisor/internal.h confine/supervisor/supervisor.h \
  lib/root.h lib/error.h lib/cleanup.h

confine/supervisor/internal.h:

confine/supervisor/supervisor.h:

lib/root.h:

lib/error.h:

lib/cleanup.h:
