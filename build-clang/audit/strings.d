build-clang/audit/strings.o: audit/strings.c audit/audit.h

audit/audit.h:
