build-clang/selftest/launch.o: selftest/launch.c selftest/internal.h \
  confine/user.h lib/error.h policy/policy.h selftest/selftest.h \
  lib/exitcodes.h

selftest/internal.h:

confine/user.h:

lib/error.h:

policy/policy.h:

selftest/selftest.h:

lib/exitcodes.h:
