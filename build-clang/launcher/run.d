build-clang/launcher/run.o: launcher/run.c launcher/run.h lib/exitcodes.h

launcher/run.h:

lib/exitcodes.h:
