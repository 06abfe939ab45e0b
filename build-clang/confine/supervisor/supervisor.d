build-clang/confine/supervisor/supervisor.o: \
  confine/supervisor/supervisor.c confine/supervisor/internal.h \
  confine/supervisor/supervisor.h lib/root.h lib/error.h lib/cleanup.h \
  lib/vocab.h

confine/supervisor/internal.h:

confine/supervisor/supervisor.h:

lib/root.h:

lib/error.h:

lib/cleanup.h:

lib/vocab.h:
