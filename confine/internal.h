/* SPDX-License-Identifier: MIT */
/*
 * internal.h — struct sg_confine, shared by confine.c (prepare, apply)
 * and events.c (refusals, description) only; never by the launcher.
 */
#ifndef STEPGUARD_CONFINE_INTERNAL_H
#define STEPGUARD_CONFINE_INTERNAL_H

#include <seccomp.h>

#include "bpf/loader.h"
#include "confine/confine.h"
#include "confine/landlock.h"
#include "confine/seccomp.h"
#include "confine/supervisor/supervisor.h"

struct sg_confine {
	enum sg_filter backend;  /* what enforces */
	struct sg_landlock_info ll;
	int ruleset_fd;
	scmp_filter_ctx seccomp;
	struct sg_seccomp_prog prog; /* its BPF, generated before fork */
	const char *seccomp_why; /* NULL: prebuilt; else why it was generated at start */
	bool supervise;          /* notify rules in the filter, listener to the parent */
	bool audit;              /* Landlock in --mode audit: nothing refused, the supervisor records */
	int sock[2];             /* child [1] -> parent [0]: the listener */
	struct sg_supervisor *sup; /* once the step has started */
	unsigned gaps;           /* what nothing covers on this kernel (enum sg_gap) */
	unsigned accepted;       /* gaps the policy accepts */
	int keep_fds[SG_POLICY_MAX_KEEP_FDS]; /* inherited beyond 0-2 */
	size_t n_keep_fds;
	struct sg_root *roots;   /* the open roots, for Landlock and the supervisor */
	size_t n_roots;
	char why[1024];          /* for fallbacks: why a backend was skipped */
	const struct sg_user *user;
	const struct sg_roots *execs; /* a ruling step's exec allow-list; NULL: unrestricted */
	const struct sg_roots *sockets; /* [sockets] allow, resolved; NULL: none */
	uint64_t drop_caps;      /* what the step runs without (policy dropped_caps) */
	bool root_step;          /* the step runs as uid 0: drop_caps matters */
	bool ptys_root;          /* a writable root is a devpts directory (gap ptys on Landlock) */
	bool core_dumps;         /* [stepguard] core-dumps = yes: RLIMIT_CORE left alone */
	bool ipc_ns;             /* a private IPC namespace is to be made (root) */

	/* eBPF backends */
	struct sg_bpf *bpf;      /* the loaded or reused filter */
	struct sg_bpf_info binfo;
	uint32_t scope;          /* this step's scope in the filter */
	bool have_scope;
	int go[2];               /* parent [1] -> child [0]: "you are marked, go on" */
	uint64_t misses_before;  /* recursion misses when the child was marked */
	bool exec_by_landlock;   /* no exec hook: Landlock's EXECUTE enforces the list, unlogged */
};

bool sg_confine_is_bpf(const struct sg_confine *c);
uint64_t sg_confine_recursion_misses(struct sg_confine *c);

#endif
