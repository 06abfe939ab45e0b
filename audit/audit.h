/* SPDX-License-Identifier: MIT */
/*
 * audit.h — `stepguard audit`: read the JSON lines of docs/log-format.md
 * and summarise them by step, operation, process and path prefix, for a
 * person (text), a machine (--json) or a GitHub workflow (--github).
 *
 * audit.c parses and counts (it reads a FILE * and makes no other
 * syscalls), in the tables of audit/table.c; audit/strings.c makes the
 * log's strings safe to show; audit/report.c formats what was counted;
 * audit/main.c parses the options, opens the logs and appends to
 * $GITHUB_STEP_SUMMARY.
 * Usage, output and exit statuses: docs/audit.md.
 */
#ifndef STEPGUARD_AUDIT_H
#define STEPGUARD_AUDIT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Paths are grouped by their directory cut to this many components:
 * /home/u/.bashrc → /home/u, /tmp/x → /tmp, /x → /. */
#define SG_AUDIT_PREFIX_DEPTH 2
/* A line longer than this is refused, not truncated: a record holds at
 * most two paths of PATH_MAX bytes escaped ×4, far below it. */
#define SG_AUDIT_LINE_MAX 1048576 /* 1 MiB; an int (printed with %d) */
/* What a denial without a path (bpf(2), a signal) is listed under. */
#define SG_AUDIT_NO_PATH "(no path)"
/* Problem lines kept with their file, line and reason (all are counted). */
#define SG_AUDIT_PROBLEMS_KEPT 5
/* GitHub shows few annotations per step; more than this become one notice. */
#define SG_AUDIT_GITHUB_MAX 50
/* Rows of the "top paths" list in the job summary and in the text output. */
#define SG_AUDIT_TOP_PATHS 10
/* Pids listed after a process's name in the text ("+N more" after them);
 * --json lists them all. */
#define SG_AUDIT_PIDS_SHOWN 4

/* Exit statuses of `stepguard audit` beyond lib/exitcodes.h (sysexits(3)). */
enum sg_audit_exit {
	SG_AUDIT_EXIT_DATAERR = 65, /* a line could not be read as a record (EX_DATAERR) */
	SG_AUDIT_EXIT_NOMEM = 71,   /* out of memory (EX_OSERR) */
	SG_AUDIT_EXIT_IOERR = 74,   /* the output or the step summary could not be written (EX_IOERR) */
};

/* Denial records, split by their decision. */
struct sg_count {
	uint64_t denied, audited;
};

/* A string → entry table (open addressing); NAME is owned. */
struct sg_entry {
	char *name;
	struct sg_count c;
	size_t ix;      /* runs, steps, hits: index into the matching array */
	unsigned flags; /* runs: SG_RUN_STARTED, SG_RUN_ENDED */
};
struct sg_table {
	struct sg_entry *v;
	size_t n, cap;
	uint32_t *slot; /* 0 empty, else index + 1 */
	size_t nslots;
};

enum { SG_RUN_STARTED = 1, SG_RUN_ENDED = 2 };

/* The entry named NAME, added (all zero) if absent; NULL: out of memory.
 * The pointer is good until the next call on T. */
struct sg_entry *sg_table_get(struct sg_table *t, const char *name, bool *added);
void sg_table_free(struct sg_table *t);

/* How the runs of a step ended: "status N" or "signal N" of an end record. */
enum sg_outcome_kind { SG_OUTCOME_STATUS, SG_OUTCOME_SIGNAL, SG_OUTCOME_UNKNOWN };
struct sg_outcome {
	enum sg_outcome_kind kind;
	long long value;
	uint64_t n;
};

struct sg_audit_step {
	char *name;
	uint64_t runs;       /* distinct (run, pid) among its start and end records */
	uint64_t unfinished; /* runs with a start record and no end record */
	struct sg_count c;   /* its denial records */
	uint64_t lost;       /* sum of "lost" of its end records */
	uint64_t end_denials; /* sum of "denials" of its end records */
	uint64_t recursion_misses; /* sum of "recursion_misses" of its end records */
	uint64_t missing;    /* sum of sg_audit_missing() over its run ids */
	struct sg_outcome *outcomes;
	size_t n_outcomes;
	char **backends; /* of its start and end records, in order of appearance */
	size_t n_backends;
};

/*
 * The records of one step under one run id: one stepguard run, unless
 * STEPGUARD_RUN_ID was shared.  This is where the log is held against
 * what the step's end records say the backend saw.
 */
struct sg_audit_runid {
	char *step, *run;    /* run: "" when the records had none */
	size_t step_ix;      /* into steps */
	uint64_t runs;       /* distinct (run, pid) among its start and end records */
	uint64_t unfinished; /* of those, started and not ended */
	uint64_t held;       /* its denial records in the log */
	uint64_t end_denials; /* sum of "denials" of its end records */
	bool counted;        /* an end record gave "denials" (else --json says null) */
	uint64_t lost, recursion_misses; /* sums over its end records */
};

/*
 * What a backend could not see, or the log does not hold, for one run id:
 * each is a line of the text, a field of --json and a warning of --github.
 */
enum sg_audit_gap {
	SG_GAP_MISSING,    /* end records count more denials than the log holds */
	SG_GAP_LOST,       /* "lost": the ring buffer was full */
	SG_GAP_SKIPPED,    /* "recursion_misses": the kernel skipped the eBPF filter */
	SG_GAP_UNFINISHED, /* a start record and no end record */
};
#define SG_AUDIT_GAPS (SG_GAP_UNFINISHED + 1)

/* One distinct (decision, step, operation, path): one annotation. */
struct sg_hit {
	bool audited;
	bool truncated; /* a record said "path_truncated" */
	char *step, *op, *path;
	char *path2;   /* of its first record, or NULL */
	long long pid; /* of its first record, or -1 */
	char *comm;    /* of its first record, or NULL */
	uint64_t procs; /* distinct (run, pid) among its records that have a pid */
	uint64_t n;
};

/* Who tried: one process name, or one pid when its records had no comm
 * (older logs; Landlock writes "" for a process that has exited). */
struct sg_audit_proc {
	char *comm;      /* NULL: no comm recorded; shown by its pid */
	long long *pids; /* distinct, in the order first seen */
	size_t n_pids;
	struct sg_count c;
};

struct sg_problem {
	char *file;
	uint64_t line;
	char *reason;
};

struct sg_audit {
	const char *only_step; /* --step: other steps are counted in other_steps only */

	uint64_t lines;       /* lines read */
	uint64_t records;     /* records counted in the summary */
	uint64_t unknown;     /* well-formed records of an event we do not know */
	uint64_t other_steps; /* records left out by --step */
	uint64_t unparsable;  /* lines that are not a record: never counted */
	uint64_t torn;        /* last lines without a newline (counted if whole) */
	uint64_t problem_lines; /* unparsable and torn lines: each is one problem */
	struct sg_problem problems[SG_AUDIT_PROBLEMS_KEPT];
	size_t n_problems;

	char **files; /* names as given, for the JSON document */
	size_t n_files;

	struct sg_table step_ix, runs, ops, prefixes, hit_ix, proc_ix;
	struct sg_table proc_pids, hit_pids; /* sets: (process, pid), (hit, run, pid) */
	struct sg_audit_step *steps;
	size_t n_steps;
	struct sg_hit *hits;
	size_t n_hits;
	struct sg_audit_proc *procs;
	size_t n_procs;
	struct sg_table runid_ix; /* (step, run id) → index into runids */
	struct sg_audit_runid *runids;
	size_t n_runids;

	void *tok; /* json_tokener, reused line after line */
};

int sg_audit_init(struct sg_audit *a, const char *only_step);
void sg_audit_free(struct sg_audit *a);

/*
 * One line of FILE, without its newline (BUF[LEN] must be readable and is
 * the terminator handed to the parser).  NO_NEWLINE: the last line of the
 * file, which had none.  A line that is not a record is counted and kept
 * as a problem, not returned as an error.  0, or -ENOMEM.
 */
int sg_audit_line(struct sg_audit *a, const char *file, uint64_t lineno, char *buf, size_t len,
		  bool no_newline);
/* Every line of F, named NAME in problems.  0, -ENOMEM or -errno of a read. */
int sg_audit_read(struct sg_audit *a, FILE *f, const char *name);

/* The kept problems as "NAME:LINE: reason" lines for stderr, with a total. */
void sg_audit_print_problems(const struct sg_audit *a, FILE *err);
/* What a person reads.  0 or -EIO. */
int sg_audit_print_text(const struct sg_audit *a, FILE *out);
/* The same summary as one JSON document, or NULL (out of memory). */
json_object *sg_audit_json(const struct sg_audit *a);
/* ::error / ::warning / ::notice workflow commands.  0 or -EIO. */
int sg_audit_print_github(const struct sg_audit *a, FILE *out);
/* The Markdown appended to $GITHUB_STEP_SUMMARY.  0 or -EIO. */
int sg_audit_print_markdown(const struct sg_audit *a, FILE *out);

/*
 * Denial records R's end records count and the log does not hold.  A lower
 * bound: records of a run whose end record is absent, or gave no count,
 * stand in for missing ones, so it never says more are missing than are.
 */
uint64_t sg_audit_missing(const struct sg_audit_runid *r);
/* R has a gap of some kind: missing, lost, skipped or unfinished. */
bool sg_audit_incomplete(const struct sg_audit_runid *r);

/* Sorted views, most denials first, then by name; free() the array. */
const struct sg_entry **sg_audit_sorted(const struct sg_table *t);
const struct sg_audit_step **sg_audit_sorted_steps(const struct sg_audit *a);
const struct sg_hit **sg_audit_sorted_hits(const struct sg_audit *a);
/* Processes: most denials first, then those with a comm (by name) before
 * those shown by their pid (by pid). */
const struct sg_audit_proc **sg_audit_sorted_procs(const struct sg_audit *a);
/* The incomplete run ids, *N of them: in the order of their steps (as
 * sg_audit_sorted_steps), then as first seen. */
const struct sg_audit_runid **sg_audit_sorted_incomplete(const struct sg_audit *a, size_t *n);

/*
 * A string from the log made safe to print: bytes that are not valid
 * UTF-8, control characters (C0, DEL, C1), bidi overrides and NUL become
 * \xNN, as the writer does; a backslash stays (it starts the writer's own
 * escapes).  malloc'd, NULL on ENOMEM.
 */
char *sg_audit_display(const char *s, size_t n);
/* The directory of PATH cut to DEPTH components, into BUF; returns BUF. */
char *sg_audit_prefix(const char *path, unsigned depth, char *buf, size_t len);
/* GitHub workflow command escaping of S: % \r \n, and : , in a PROPERTY. */
char *sg_audit_gh_escape(const char *s, bool property);

/* `stepguard audit ...`: ARGV[0] is "audit".  Returns the exit status. */
int sg_audit_main(int argc, char **argv, char *const envp[]);

#endif
