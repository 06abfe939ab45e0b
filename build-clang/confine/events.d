build-clang/confine/events.o: confine/events.c confine/internal.h \
  bpf/loader.h bpf/events.h lib/vocab.h confine/confine.h confine/user.h \
  lib/error.h lib/denial.h lib/log.h lib/root.h policy/policy.h \
  confine/landlock.h confine/seccomp.h confine/supervisor/supervisor.h

confine/internal.h:

bpf/loader.h:

bpf/events.h:

lib/vocab.h:

confine/confine.h:

confine/user.h:

lib/error.h:

lib/denial.h:

lib/log.h:

lib/root.h:

policy/policy.h:

confine/landlock.h:

confine/seccomp.h:

confine/supervisor/supervisor.h:
