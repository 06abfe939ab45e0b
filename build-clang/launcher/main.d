build-clang/launcher/main.o: launcher/main.c audit/audit.h \
  launcher/check.h launcher/plan.h confine/user.h lib/error.h \
  launcher/execs.h lib/root.h policy/policy.h launcher/options.h \
  lib/opterr.h launcher/policy_load.h launcher/roots.h launcher/tmpdir.h \
  policy/ruling.h launcher/step.h launcher/unload.h lib/exitcodes.h \
  selftest/selftest.h

audit/audit.h:

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

launcher/step.h:

launcher/unload.h:

lib/exitcodes.h:

selftest/selftest.h:
