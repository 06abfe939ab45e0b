build-clang/lib/error.o: lib/error.c lib/error.h

lib/error.h:
