build-clang/launcher/roots.o: launcher/roots.c launcher/roots.h \
  launcher/options.h lib/opterr.h policy/policy.h lib/error.h lib/root.h \
  lib/cleanup.h policy/expand.h lib/env.h

launcher/roots.h:

launcher/options.h:

lib/opterr.h:

policy/policy.h:

lib/error.h:

lib/root.h:

lib/cleanup.h:

policy/expand.h:

lib/env.h:
