build-clang/launcher/unload.o: launcher/unload.c launcher/unload.h \
  launcher/options.h lib/opterr.h policy/policy.h lib/error.h \
  bpf/loader.h bpf/events.h lib/vocab.h lib/exitcodes.h

launcher/unload.h:

launcher/options.h:

lib/opterr.h:

policy/policy.h:

lib/error.h:

bpf/loader.h:

bpf/events.h:

lib/vocab.h:

lib/exitcodes.h:
