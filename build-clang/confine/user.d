build-clang/confine/user.o: confine/user.c confine/user.h lib/error.h \
  lib/env.h

confine/user.h:

lib/error.h:

lib/env.h:
