build-clang/launcher/execs.o: launcher/execs.c launcher/execs.h \
  lib/error.h lib/root.h policy/policy.h lib/cleanup.h

launcher/execs.h:

lib/error.h:

lib/root.h:

policy/policy.h:

lib/cleanup.h:
