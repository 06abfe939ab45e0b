build-clang/lib/root.o: lib/root.c lib/root.h lib/error.h

lib/root.h:

lib/error.h:
