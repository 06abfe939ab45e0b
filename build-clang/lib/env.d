build-clang/lib/env.o: lib/env.c lib/env.h

lib/env.h:
