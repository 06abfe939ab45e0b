/* SPDX-License-Identifier: MIT */
/*
 * denial.h — one refusal, as every backend reports it.
 *
 * The eBPF filter's events and the supervisor's refusals are both turned
 * into this record by their backend (confine/), and only sg_denial_log()
 * and sg_denial_print() turn it into text, so the two backends cannot
 * drift apart in what they log (docs/log-format.md, "denial").
 */
#ifndef STEPGUARD_DENIAL_H
#define STEPGUARD_DENIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "lib/log.h"
#include "lib/vocab.h"

struct sg_denial {
	unsigned op;            /* enum sg_op */
	unsigned decision;      /* enum sg_decision */
	unsigned reason;        /* enum sg_ev_reason */
	int error;              /* the errno the process got (positive); 0 when audited */
	long long pid;          /* the process that tried */
	long long uid;
	const char *comm;       /* its name, NUL-terminated; NULL: unknown */
	const char *path;       /* bytes, PATH_LEN of them, no NUL needed; NULL: none */
	size_t path_len;
	const char *path2;      /* likewise; NULL: this backend has no second path */
	size_t path2_len;
	bool truncated;         /* path or path2 lacks its leading components */
	bool has_time;
	struct timespec when;   /* CLOCK_REALTIME of the refusal, when has_time */
	const char *backend;    /* the log's name for who refused */
	long long target;       /* kill, ptrace, proc, sched: the other process's
	                         * tgid; 0 when none or unknown */
};

/* The other process a guard refusal of OP aimed at, from its event's ARG. */
long long sg_denial_target(unsigned op, unsigned long long arg);

/* One "denial" record (docs/log-format.md).  0 or -errno. */
int sg_denial_log(struct sg_log *l, const struct sg_denial *d);

/* The line a person sees on stderr: "stepguard: refused OP PATH (pid N, REASON)". */
void sg_denial_print(FILE *f, const struct sg_denial *d);

#endif
