/* SPDX-License-Identifier: MIT */
/* run.h — start the step as our child, forward signals, pass its status on. */
#ifndef STEPGUARD_RUN_H
#define STEPGUARD_RUN_H

#include <stddef.h>

#include "launcher/options.h"
#include "launcher/roots.h"
#include "policy/policy.h"

/* Called in the child between fork and execve; returns 0 or -errno. */
struct sg_child_ops {
	int (*confine)(void *ctx, const char **stage);
	void *ctx;
};

/*
 * Fork, confine the child with OPS, execute ARGV (searching PATH), and
 * wait for it while forwarding SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1,
 * SIGUSR2 and SIGWINCH.  Returns the exit status stepguard should exit
 * with: the step's, 128+N for signal N, or one of sg_exit for a failure
 * before the step ran (then MSG says why).
 */
int sg_spawn(char *const argv[], char *const envp[], const struct sg_child_ops *ops,
	     char *msg, size_t msglen);

/* Choose and prepare the write filter, then sg_spawn; prints its errors. */
int sg_run_step(const struct sg_options *o, const struct sg_policy *p,
		const struct sg_settings *eff, const struct sg_roots *roots,
		char *const envp[]);

#endif
