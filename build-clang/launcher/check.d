build-clang/launcher/check.o: launcher/check.c launcher/check.h \
  launcher/plan.h confine/user.h lib/error.h launcher/execs.h lib/root.h \
  policy/policy.h launcher/options.h lib/opterr.h launcher/policy_load.h \
  launcher/roots.h launcher/tmpdir.h policy/ruling.h confine/confine.h \
  lib/denial.h lib/log.h lib/vocab.h lib/exitcodes.h

launcher/check.h:

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
