build-clang/lib/denial.o: lib/denial.c lib/denial.h lib/log.h lib/vocab.h

lib/denial.h:

lib/log.h:

lib/vocab.h:
