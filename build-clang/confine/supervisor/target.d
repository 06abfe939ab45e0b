build-clang/confine/supervisor/target.o: confine/supervisor/target.c \
  confine/supervisor/internal.h confine/supervisor/supervisor.h \
  lib/root.h lib/error.h lib/cleanup.h

confine/supervisor/internal.h:

confine/supervisor/supervisor.h:

lib/root.h:

lib/error.h:

lib/cleanup.h:
