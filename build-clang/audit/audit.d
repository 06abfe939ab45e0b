build-clang/audit/audit.o: audit/audit.c audit/audit.h

audit/audit.h:
