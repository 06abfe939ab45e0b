/* SPDX-License-Identifier: MIT */
/*
 * user.h — who the step runs as.
 *
 * stepguard is never setuid.  Started by root (CI runners use sudo), it
 * runs the step as the invoking user (SUDO_UID, SUDO_GID and that user's
 * groups) unless --user names another; started by anyone else, the step
 * runs as that user and --user may only name that same user.
 */
#ifndef STEPGUARD_USER_H
#define STEPGUARD_USER_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "lib/error.h"

#define SG_MAX_GROUPS 256

struct sg_user {
	bool drop;           /* credentials change before the step starts */
	uid_t uid;
	gid_t gid;
	gid_t groups[SG_MAX_GROUPS];
	int n_groups;
	char name[64];
	char home[PATH_MAX]; /* from the password database; "" if none */
	const char *why;     /* "--user", "SUDO_UID", "the calling user" */
};

/*
 * Decide the step's user from SPEC (--user NAME|UID, may be NULL) and
 * ENVP.  Returns 0, or -errno with the message in ERR (about no file).
 * Looks up the password and group databases; changes nothing.
 */
int sg_user_resolve(const char *spec, char *const envp[], struct sg_user *u,
		    struct sg_error *err);

/*
 * The same, except that a step that runs as the calling user (no --user,
 * no SUDO_UID as root) gets no NAME and no HOME (both ""): the password
 * database is then not read at all.  For a caller that prints neither
 * (stepguard -q); the uid, gid and groups are the same either way, and a
 * user who changes is always looked up (the groups come from there).
 */
int sg_user_resolve_unnamed(const char *spec, char *const envp[], struct sg_user *u,
			    struct sg_error *err);

/*
 * Become U for good: supplementary groups, then gid, then uid (the order
 * matters: after setresuid we could no longer change groups), and verify
 * that root cannot be regained.  0 or -errno.
 */
int sg_user_drop(const struct sg_user *u);

/*
 * The step's environment: ENVP with HOME, USER and LOGNAME set to U's
 * when the user changes (as su(1) does), so ${HOME} and the programs the
 * step runs see the step user's home, not root's.  NULL on ENOMEM; free
 * with sg_env_free.
 */
char **sg_user_env(const struct sg_user *u, char *const envp[]);
void sg_env_free(char **env);

#endif
