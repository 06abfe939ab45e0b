build-clang/confine/supervisor/ops.o: confine/supervisor/ops.c \
  confine/supervisor/internal.h confine/supervisor/supervisor.h \
  lib/root.h lib/error.h lib/cleanup.h lib/vocab.h

confine/supervisor/internal.h:

confine/supervisor/supervisor.h:

lib/root.h:

lib/error.h:

lib/cleanup.h:

lib/vocab.h:
