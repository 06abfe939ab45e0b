build-clang/bpf/events.o: bpf/events.c bpf/loader.h bpf/events.h \
  lib/vocab.h

bpf/loader.h:

bpf/events.h:

lib/vocab.h:
