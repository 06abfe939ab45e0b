/* SPDX-License-Identifier: MIT */
/*
 * confine.h — choose the write filter, prepare it in the parent, apply it
 * in the child.
 *
 * The child applies, in this order: no_new_privs, the write filter,
 * seccomp (with the supervisor's notify rules), then hands the notify
 * listener to the parent; run.c then restores the signal mask and execs.
 */
#ifndef STEPGUARD_CONFINE_H
#define STEPGUARD_CONFINE_H

#include <seccomp.h>
#include <stdbool.h>

#include "bpf/loader.h"
#include "confine/seccomp.h"
#include "confine/landlock.h"
#include "launcher/roots.h"
#include "confine/user.h"
#include "policy/policy.h"

/* Gaps a backend may leave; the names are the policy's accept-gaps words. */
enum sg_gap {
	SG_GAP_ATTRIBUTES = 1 << 0, /* chmod, chown, utimes, xattr */
	SG_GAP_TRUNCATE = 1 << 1,   /* truncate(2), O_TRUNC on read-only opens */
	SG_GAP_IOCTL_DEV = 1 << 2,  /* ioctl on device files */
	SG_GAP_SCOPING = 1 << 3,    /* signals and abstract sockets out of the step */
	SG_GAP_ABSTRACT = 1 << 4,   /* eBPF: abstract sockets out of the step */
};

struct sg_confine {
	enum sg_filter backend;  /* what enforces */
	struct sg_landlock_info ll;
	int ruleset_fd;
	scmp_filter_ctx seccomp;
	struct sg_seccomp_prog prog; /* its BPF, generated before fork */
	bool supervise;          /* notify rules in the filter, listener to the parent */
	int sock[2];             /* child [1] -> parent [0]: the listener */
	unsigned gaps;           /* what nothing covers on this kernel (enum sg_gap) */
	unsigned accepted;       /* gaps the policy accepts */
	int keep_fds[SG_POLICY_MAX_KEEP_FDS]; /* inherited beyond 0-2 */
	size_t n_keep_fds;
	struct sg_root *roots;   /* the open roots, for Landlock and the supervisor */
	size_t n_roots;
	char why[1024];          /* for fallbacks: why a backend was skipped */

	/* eBPF backends */
	struct sg_bpf *bpf;      /* the loaded or reused filter */
	struct sg_bpf_info binfo;
	uint32_t scope;          /* this step's scope in the filter */
	bool have_scope;
	int go[2];               /* parent [1] -> child [0]: "you are marked, go on" */
	const struct sg_user *user; /* dropped to in the child (eBPF: the parent stays root) */
};

/*
 * Choose the backend for WANT (auto tries bpf-lsm, bpf-fmod, landlock),
 * build the Landlock ruleset and the seccomp filter from P and ROOTS.
 * Refuses (-EOPNOTSUPP and a message) what cannot be enforced as asked:
 * a backend this kernel or build lacks, audit mode without an eBPF
 * backend, a gap the policy does not accept.
 */
int sg_confine_prepare(struct sg_confine *c, const struct sg_policy *p, enum sg_filter want,
		       enum sg_mode mode, const struct sg_roots *roots, char *msg, size_t len);

/* In the child, between fork and exec (struct sg_child_ops.confine). */
int sg_confine_child(void *ctx, const char **stage);

/* In the parent, after fork: the supervisor's listener, or -errno. */
int sg_confine_listener(struct sg_confine *c);

/*
 * In the parent, right after fork, before the child may exec: mark the
 * child as confined (eBPF backends) and let it go on.  On failure the
 * child is told nothing and exits without running the step.
 */
int sg_confine_forked(struct sg_confine *c, pid_t pid);

/* Is the backend one of the eBPF ones? */
bool sg_confine_is_bpf(const struct sg_confine *c);

/* The name the start line and the log use: bpf-lsm, bpf-fmod, landlock+supervisor, landlock. */
const char *sg_confine_backend_name(const struct sg_confine *c);

void sg_confine_free(struct sg_confine *c);

/* "chmod/chown/utimes/xattr, truncate" for a gap mask. */
const char *sg_gaps_str(unsigned gaps, char *buf, size_t len);
int sg_gap_parse(const char *word, unsigned *out);
/* The I-th gap's name and bit, in the order of the log (NULL and 0 past the last). */
const char *sg_gap_name(unsigned i);
unsigned sg_gap_bit(unsigned i);

#endif
