build-clang/lib/log.o: lib/log.c lib/log.h lib/env.h

lib/log.h:

lib/env.h:
