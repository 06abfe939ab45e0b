build-clang/launcher/step.o: launcher/step.c launcher/step.h \
  launcher/plan.h confine/user.h lib/error.h launcher/execs.h lib/root.h \
  policy/policy.h launcher/options.h lib/opterr.h launcher/policy_load.h \
  launcher/roots.h launcher/tmpdir.h policy/ruling.h confine/confine.h \
  lib/denial.h lib/log.h lib/vocab.h lib/exitcodes.h launcher/run.h \
  policy/expand.h lib/env.h

launcher/step.h:

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

confine/confine.h:

lib/denial.h:

lib/log.h:

lib/vocab.h:

lib/exitcodes.h:

launcher/run.h:

policy/expand.h:

lib/env.h:
