/* SPDX-License-Identifier: MIT */
/*
 * tmpdir.h — the step's private temporary directory.
 *
 * /tmp is refused to every step (the trial's probe writes there), yet
 * compilers, configure scripts, sort, mktemp and the model CLI need a
 * temporary directory.  So each step gets its own, on by default: made
 * under a base just before the step, mode 0700 and owned by the step's
 * user, a writable root of the step, named by TMPDIR, TMP, TEMP and
 * TEMPDIR, and removed when the step ends unless the policy keeps it.
 * The base itself, and /tmp, stay refused.  docs/design.md, "The step's
 * temporary directory", says why each choice.
 */
#ifndef STEPGUARD_TMPDIR_H
#define STEPGUARD_TMPDIR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/error.h"
#include "policy/policy.h"

struct sg_tmpdir {
	bool on;                 /* the step gets one */
	bool keep;               /* left in place at the end */
	char base[PATH_MAX];     /* the base, resolved (realpath) */
	char base_why[128];      /* "[stepguard] tmpdir-base (FILE:LINE)", "$RUNNER_TEMP", "the default" */
	struct sg_origin origin; /* of the key that turned it off or kept it, for --check */
	/* sg_tmpdir_make() */
	char *path;              /* BASE/stepguard-STEP-XXXXXXXX */
	int fd;                  /* O_DIRECTORY of it; -1 before */
	int base_fd;             /* O_DIRECTORY of the base, held from the check to the removal */
};

/*
 * Decide from the effective settings and the step's environment (ENV):
 * on or off, kept or not, and which base.  The base must exist, be a
 * directory, belong to root, the caller or STEP_UID, and not be
 * writable by others unless sticky (another user could otherwise replace
 * the step's directory).  Makes nothing.
 * Returns 0 or -errno with ERR filled.
 */
int sg_tmpdir_plan(struct sg_tmpdir *t, const struct sg_settings *eff, char *const env[],
		   const char *workdir, uid_t step_uid, struct sg_error *err);

/*
 * Make it under the base, for the step's user UID:GID (a new name each
 * time, so concurrent steps never share one).  STEP: the step's name
 * or NULL, for people reading the name.  Returns 0 or -errno with ERR.
 */
int sg_tmpdir_make(struct sg_tmpdir *t, const char *step, uid_t uid, gid_t gid,
		   struct sg_error *err);

/*
 * Remove it and everything the step left in it, without following a
 * symbolic link or entering another file system.  Returns 0, or -errno
 * with MSG saying what is left and why.
 */
int sg_tmpdir_remove(const struct sg_tmpdir *t, char *msg, size_t len);

void sg_tmpdir_free(struct sg_tmpdir *t);

#endif
