build-clang/confine/landlock.o: confine/landlock.c confine/landlock.h \
  lib/root.h lib/error.h

confine/landlock.h:

lib/root.h:

lib/error.h:
