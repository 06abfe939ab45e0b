build-clang/selftest/selftest.o: selftest/selftest.c selftest/selftest.h \
  policy/policy.h lib/error.h lib/exitcodes.h selftest/internal.h \
  confine/user.h

selftest/selftest.h:

policy/policy.h:

lib/error.h:

lib/exitcodes.h:

selftest/internal.h:

confine/user.h:
