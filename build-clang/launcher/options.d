build-clang/launcher/options.o: launcher/options.c launcher/options.h \
  lib/opterr.h policy/policy.h lib/error.h lib/env.h

launcher/options.h:

lib/opterr.h:

policy/policy.h:

lib/error.h:

lib/env.h:
