build-clang/launcher/plan.o: launcher/plan.c launcher/plan.h \
  confine/user.h lib/error.h launcher/execs.h lib/root.h policy/policy.h \
  launcher/options.h lib/opterr.h launcher/policy_load.h \
  launcher/roots.h launcher/tmpdir.h policy/ruling.h lib/env.h \
  policy/expand.h

launcher/plan.h:

confine/user.h:

lib/error.h:

launcher/execs.h:

lib/root.h:

policy/policy.h:

launcher/options.h:

lib/opterr.h:

launcher/policy_load.h:

launcher/roots.h:

launcher/tmpdir.h:

policy/ruling.h:

lib/env.h:

policy/expand.h:
