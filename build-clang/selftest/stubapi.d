build-clang/selftest/stubapi.o: selftest/stubapi.c selftest/stubapi.h

selftest/stubapi.h:
