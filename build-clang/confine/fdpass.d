build-clang/confine/fdpass.o: confine/fdpass.c confine/fdpass.h

confine/fdpass.h:
