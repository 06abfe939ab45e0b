build-clang/audit/table.o: audit/table.c audit/audit.h

audit/audit.h:
