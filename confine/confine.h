/* SPDX-License-Identifier: MIT */
/*
 * confine.h — the one interface to every backend (bpf-lsm, bpf-fmod,
 * landlock with or without the supervisor).  The orchestration (launcher/)
 * asks it to prepare, apply in the child, describe itself and hand over
 * its refusals, and never learns which backend runs: struct sg_confine is
 * private to confine/.
 *
 * The order of a step, and who does what:
 *   parent  sg_confine_prepare()     choose the backend, build every filter
 *           sg_confine_become_user() Landlock: drop to the step's user here
 *   fork
 *   child   sg_confine_child()       no_new_privs, the write filter, seccomp
 *   parent  sg_confine_forked()      eBPF: mark the child, let it go on
 *           sg_confine_started()     the supervisor takes its listener (before
 *                                    the child's execve returns: it may ask)
 *           sg_confine_event_fd(), sg_confine_drain()   while the step runs
 *           sg_confine_finish()      the last events and the counts
 *           sg_confine_free()
 */
#ifndef STEPGUARD_CONFINE_H
#define STEPGUARD_CONFINE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "confine/user.h"
#include "lib/denial.h"
#include "lib/root.h"
#include "policy/policy.h"

struct sg_confine;

struct sg_confine_req {
	const struct sg_policy *policy;
	enum sg_filter want;          /* auto tries bpf-lsm, bpf-fmod, landlock */
	enum sg_mode mode;
	const struct sg_roots *roots;
	const struct sg_user *user;   /* who the step runs as */
	/*
	 * A ruling step: the only files its processes may execute (entries
	 * with fd -1 allow nothing); NULL: execution is not restricted.
	 * Kept, not copied: it must outlive the confinement.
	 */
	const struct sg_roots *execs;
	/*
	 * [sockets] allow, opened: the pathname UNIX sockets outside the
	 * roots the step may connect or send to (entries with fd -1 allow
	 * nothing).  Kept, not copied.  NULL: none.
	 */
	const struct sg_roots *sockets;
};

/*
 * Choose the backend and build the Landlock ruleset and the seccomp
 * filter.  Refuses (-EOPNOTSUPP and a message in MSG) what cannot be
 * enforced as asked: a backend this kernel or build lacks, audit mode
 * without an eBPF backend, a gap the policy does not accept.  ERR->msg
 * says why (about no file).  On success *OUT is the new confinement,
 * freed with sg_confine_free().
 */
int sg_confine_prepare(struct sg_confine **out, const struct sg_confine_req *req,
		       struct sg_error *err);

/*
 * In the parent, before the fork: become the step's user where the
 * backend needs stepguard to (Landlock: the supervisor in this process
 * acts for the step and must hold no more rights than it).  On eBPF
 * stepguard stays root, to read the filter's events and remove the scope
 * at the end; the child drops once marked.  Before either, as root: a
 * private IPC namespace, and RLIMIT_CORE 1, which the child inherits.
 * 0, or -errno with *STAGE naming what failed.
 */
int sg_confine_become_user(struct sg_confine *c, const char **stage);

/* In the child, between fork and exec (struct sg_child_ops.confine). */
int sg_confine_child(void *ctx, const char **stage);

/*
 * In the parent, right after fork, before the child may exec: mark the
 * child as confined (eBPF backends) and let it go on.  On failure the
 * child is told nothing and exits without running the step.
 */
int sg_confine_forked(struct sg_confine *c, pid_t pid);

/*
 * In the parent once the child is confined, before its execve has
 * returned (in a ruling step the supervisor answers that exec): start
 * supervising it.  0 or -errno.
 */
int sg_confine_started(struct sg_confine *c);

/* A descriptor that becomes readable when refusals wait, or -1. */
int sg_confine_event_fd(const struct sg_confine *c);

/*
 * Hand each refusal waiting to FN, as one backend-neutral record.
 * 0, or -errno when the backend can no longer report or answer (the
 * caller must stop the step: fail closed).
 */
typedef void (*sg_denial_fn)(const struct sg_denial *d, void *ctx);
int sg_confine_drain(struct sg_confine *c, sg_denial_fn fn, void *ctx);

/* What the step's end record says of the backend. */
struct sg_confine_end {
	uint64_t lost;             /* refusals that could not be reported (ring full) */
	bool vouched;              /* false: some check may have been skipped */
	uint64_t recursion_misses; /* eBPF fmod_ret: checks the kernel skipped while the step ran */
	bool has_misses;           /* recursion_misses applies to this backend */
};

/* After the step: the refusals still waiting go to FN, then the counts. */
void sg_confine_finish(struct sg_confine *c, sg_denial_fn fn, void *ctx, struct sg_confine_end *end);

/* The name the start line and the log use: bpf-lsm, bpf-fmod, landlock+supervisor, landlock. */
const char *sg_confine_backend_name(const struct sg_confine *c);

/*
 * One description for the start line and --check: "bpf-fmod (pinned
 * programs reused, 14 programs)", "landlock+supervisor (Landlock ABI 7)".
 */
const char *sg_confine_summary(const struct sg_confine *c, char *buf, size_t len);

/* Gaps nothing covers on this kernel (enum sg_gap), and those the policy accepts. */
unsigned sg_confine_gaps(const struct sg_confine *c);
unsigned sg_confine_accepted(const struct sg_confine *c);

/* Why the eBPF backends were passed over under auto ("" when they were not). */
const char *sg_confine_fallback_why(const struct sg_confine *c);

/*
 * Why the seccomp filter was generated at start rather than taken
 * prebuilt ("" when it was prebuilt): for -v, since the difference is
 * time, not what is enforced.
 */
const char *sg_confine_seccomp_why(const struct sg_confine *c);

/* The backend's notes for the start line ("stepguard: note: ..." lines). */
void sg_confine_print_notes(const struct sg_confine *c, FILE *f);

/* The backend's fields of the start record (docs/log-format.md, "start"). */
void sg_confine_start_record(const struct sg_confine *c, json_object *rec);

void sg_confine_free(struct sg_confine *c);

#endif
