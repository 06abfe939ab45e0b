build-clang/audit/report.o: audit/report.c audit/audit.h

audit/audit.h:
