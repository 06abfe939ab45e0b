build-clang/lib/opterr.o: lib/opterr.c lib/opterr.h

lib/opterr.h:
