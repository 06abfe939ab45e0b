build-clang/bpf/scope.o: bpf/scope.c bpf/loader_internal.h bpf/loader.h \
  bpf/events.h lib/vocab.h lib/cleanup.h

bpf/loader_internal.h:

bpf/loader.h:

bpf/events.h:

lib/vocab.h:

lib/cleanup.h:
