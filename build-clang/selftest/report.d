build-clang/selftest/report.o: selftest/report.c selftest/internal.h \
  confine/user.h lib/error.h policy/policy.h selftest/selftest.h \
  confine/confine.h lib/denial.h lib/log.h lib/vocab.h lib/root.h \
  lib/exitcodes.h lib/env.h

selftest/internal.h:

confine/user.h:

lib/error.h:

policy/policy.h:

selftest/selftest.h:

confine/confine.h:

lib/denial.h:

lib/log.h:

lib/vocab.h:

lib/root.h:

lib/exitcodes.h:

lib/env.h:
