build-clang/confine/supervisor/intent.o: confine/supervisor/intent.c \
  confine/supervisor/internal.h confine/supervisor/supervisor.h \
  lib/root.h lib/error.h lib/vocab.h

confine/supervisor/internal.h:

confine/supervisor/supervisor.h:

lib/root.h:

lib/error.h:

lib/vocab.h:
