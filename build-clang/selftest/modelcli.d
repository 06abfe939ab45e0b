build-clang/selftest/modelcli.o: selftest/modelcli.c selftest/internal.h \
  confine/user.h lib/error.h policy/policy.h selftest/selftest.h \
  lib/env.h lib/exitcodes.h selftest/stubapi.h

selftest/internal.h:

confine/user.h:

lib/error.h:

policy/policy.h:

selftest/selftest.h:

lib/env.h:

lib/exitcodes.h:

selftest/stubapi.h:
