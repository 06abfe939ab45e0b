build-clang/launcher/tmpdir.o: launcher/tmpdir.c launcher/tmpdir.h \
  lib/error.h policy/policy.h lib/cleanup.h lib/env.h policy/expand.h

launcher/tmpdir.h:

lib/error.h:

policy/policy.h:

lib/cleanup.h:

lib/env.h:

policy/expand.h:
