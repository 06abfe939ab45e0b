build-clang/bpf/pins.o: bpf/pins.c bpf/pins.h bpf/loader_internal.h \
  bpf/loader.h bpf/events.h lib/vocab.h lib/cleanup.h

bpf/pins.h:

bpf/loader_internal.h:

bpf/loader.h:

bpf/events.h:

lib/vocab.h:

lib/cleanup.h:
