build-clang/selftest/prepare.o: selftest/prepare.c selftest/internal.h \
  confine/user.h lib/error.h policy/policy.h selftest/selftest.h \
  lib/env.h lib/exitcodes.h

selftest/internal.h:

confine/user.h:

lib/error.h:

policy/policy.h:

selftest/selftest.h:

lib/env.h:

lib/exitcodes.h:
