build-clang/confine/supervisor/calls.o: confine/supervisor/calls.c \
  confine/supervisor/internal.h confine/supervisor/supervisor.h \
  lib/root.h lib/error.h lib/vocab.h

confine/supervisor/internal.h:

confine/supervisor/supervisor.h:

lib/root.h:

lib/error.h:

lib/vocab.h:
