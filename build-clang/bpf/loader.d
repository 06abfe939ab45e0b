build-clang/bpf/loader.o: bpf/loader.c bpf/loader_internal.h bpf/loader.h \
  bpf/events.h lib/vocab.h bpf/pins.h lib/cleanup.h \
  build-clang/bpf/stepguard.skel.h

bpf/loader_internal.h:

bpf/loader.h:

bpf/events.h:

lib/vocab.h:

bpf/pins.h:

lib/cleanup.h:

build-clang/bpf/stepguard.skel.h:
