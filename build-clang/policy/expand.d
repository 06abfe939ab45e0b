build-clang/policy/expand.o: policy/expand.c policy/expand.h lib/env.h \
  lib/strbuf.h

policy/expand.h:

lib/env.h:

lib/strbuf.h:
