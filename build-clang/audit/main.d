build-clang/audit/main.o: audit/main.c audit/audit.h lib/exitcodes.h \
  lib/opterr.h lib/env.h

audit/audit.h:

lib/exitcodes.h:

lib/opterr.h:

lib/env.h:
