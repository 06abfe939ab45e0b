/* SPDX-License-Identifier: MIT */
/* step.h — run one confined step (see step.c for the order and why). */
#ifndef STEPGUARD_STEP_H
#define STEPGUARD_STEP_H

#include "launcher/options.h"
#include "launcher/roots.h"
#include "confine/user.h"
#include "policy/policy.h"

struct sg_step_ctx {
	const struct sg_options *o;
	const struct sg_policy *p;
	const struct sg_settings *eff;
	const struct sg_roots *roots;
	const struct sg_user *user;
	char **env;                /* the step's environment */
	char policy_digest[80];    /* "sha256:...", filled by sg_step_run when it logs */
};

/*
 * The log's path (--log / STEPGUARD_LOG, else the policy's, expanded), or
 * NULL for none.  Refused (-EPERM) inside a writable root, where the step
 * could rewrite it; -ENOENT if its directory does not exist.  MSG says why.
 */
int sg_step_log_path(const struct sg_step_ctx *s, char **out, char *msg, size_t len);

/* Prints its own errors; returns stepguard's exit status. */
int sg_step_run(struct sg_step_ctx *s);

/* sha256 of the merged policy's canonical dump, as "sha256:HEX". */
int sg_policy_digest(const struct sg_policy *p, char *buf, size_t len);

#endif
