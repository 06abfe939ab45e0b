build-clang/confine/confine.o: confine/confine.c confine/confine.h \
  confine/user.h lib/error.h lib/denial.h lib/log.h lib/vocab.h \
  lib/root.h policy/policy.h confine/fdpass.h confine/internal.h \
  bpf/loader.h bpf/events.h confine/landlock.h confine/seccomp.h \
  confine/supervisor/supervisor.h

confine/confine.h:

confine/user.h:

lib/error.h:

lib/denial.h:

lib/log.h:

lib/vocab.h:

lib/root.h:

policy/policy.h:

confine/fdpass.h:

confine/internal.h:

bpf/loader.h:

bpf/events.h:

confine/landlock.h:

confine/seccomp.h:

confine/supervisor/supervisor.h:
