build-clang/selftest/area.o: selftest/area.c selftest/selftest.h \
  policy/policy.h lib/error.h confine/confine.h confine/user.h \
  lib/denial.h lib/log.h lib/vocab.h lib/root.h lib/exitcodes.h \
  lib/env.h selftest/internal.h

selftest/selftest.h:

policy/policy.h:

lib/error.h:

confine/confine.h:

confine/user.h:

lib/denial.h:

lib/log.h:

lib/vocab.h:

lib/root.h:

lib/exitcodes.h:

lib/env.h:

selftest/internal.h:
