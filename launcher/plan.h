/* SPDX-License-Identifier: MIT */
/*
 * plan.h — everything a step is decided from, computed once: options,
 * the merged policy, the effective settings, the user and the step's
 * environment, the ruling, the writable roots and the log's path.
 * --check, --self-test and the run all read the same plan, so what
 * --check reports is what the run does.
 *
 * Data flows one way: options → plan → confinement → exec → events → log.
 */
#ifndef STEPGUARD_PLAN_H
#define STEPGUARD_PLAN_H

#include "confine/user.h"
#include "launcher/execs.h"
#include "launcher/options.h"
#include "launcher/policy_load.h"
#include "launcher/roots.h"
#include "launcher/tmpdir.h"
#include "lib/error.h"
#include "policy/policy.h"
#include "policy/ruling.h"

struct sg_plan {
	const struct sg_options *o;
	struct sg_policy policy;
	struct sg_sources sources;
	const struct sg_step *step;  /* its [step:NAME] section, or NULL */
	struct sg_settings eff;      /* the policy's settings for the step, the command line's over them */
	struct sg_user user;         /* who the step runs as */
	char **env;                  /* the step's environment */

	/* sg_plan_step() */
	struct sg_ruling ruling;
	struct sg_roots roots;
	struct sg_roots sockets;     /* [sockets] allow, opened (its errors are the roots') */
	int roots_r;                 /* 0, or -errno: the roots are invalid */
	struct sg_error roots_err;   /* what to print when roots_r < 0 (not -ENOMEM) */
	/*
	 * A ruling step (ruling 1 or 2 applies, and allows the command) may
	 * execute only these files (launcher/execs.c): the kernel refuses
	 * every other execve of the step and its descendants.
	 */
	bool exec_restricted;
	/*
	 * The command as it is executed: the options' argv, with the ruling
	 * options ([model-cli] ruling-options) added in a ruling step
	 * (sg_ruling_argv()); NULL until sg_plan_step(), or when out of memory.
	 */
	char **argv;
	int argc;
	struct sg_roots execs;
	int execs_r;                 /* 0, or -errno: they cannot be resolved (-ENOENT: no CLI) */
	struct sg_error execs_err;
	/*
	 * The step's temporary directory (launcher/tmpdir.h): decided here,
	 * made by sg_plan_make_tmpdir() just before the run, which adds it
	 * to the roots and the environment.
	 */
	struct sg_tmpdir tmp;
	int tmp_r;                   /* 0, or -errno: it cannot be had (with valid roots) */
	struct sg_error tmp_err;
	int log_r;                   /* 0, or -errno: the log path is invalid (with valid roots) */
	char log_msg[512];           /* what to print when log_r < 0 (not -ENOMEM): an sg_error's msg */
	char *log_path;              /* NULL: no log */
};

/*
 * The policy, the settings, the user and the environment.  On failure
 * ERR says why (a policy error names its file and line); -errno.
 */
int sg_plan_base(struct sg_plan *pl, const struct sg_options *o, char *const envp[],
		 struct sg_error *err);

/*
 * The ruling, the roots and the log path.  Never fails itself: a root or
 * log error is kept (roots_r, log_r), since --check reports it alongside
 * the rest and the run refuses by the ruling first.
 */
void sg_plan_step(struct sg_plan *pl);

/*
 * Make the step's temporary directory (when the plan has one), add it to
 * the roots and point TMPDIR, TMP, TEMP and TEMPDIR at it.  Only the run
 * calls this: --check makes nothing.  0 or -errno with ERR.
 */
int sg_plan_make_tmpdir(struct sg_plan *pl, struct sg_error *err);

void sg_plan_free(struct sg_plan *pl);

/*
 * The log path: --log / STEPGUARD_LOG, else the policy's, expanded, or
 * NULL for none.  Refused (-EPERM) inside a writable root, where the step
 * could rewrite it; -ENOENT if its directory does not exist.  MSG says why.
 */
int sg_plan_log_path(const struct sg_plan *pl, char **out, char *msg, size_t len);

/* Print ERR once, as every stepguard error is printed: "stepguard: FILE:LINE: MSG". */
void sg_plan_print_error(const struct sg_error *err);

#endif
