build-clang/launcher/policy_load.o: launcher/policy_load.c \
  launcher/policy_load.h launcher/options.h lib/opterr.h policy/policy.h \
  lib/error.h lib/cleanup.h confine/seccomp.h policy/default_policy.h \
  lib/env.h

launcher/policy_load.h:

launcher/options.h:

lib/opterr.h:

policy/policy.h:

lib/error.h:

lib/cleanup.h:

confine/seccomp.h:

policy/default_policy.h:

lib/env.h:
