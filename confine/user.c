// SPDX-License-Identifier: MIT
#include "confine/user.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/env.h"

static int parse_id(const char *s, unsigned long *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || *end || *out >= (unsigned long)(uid_t)-1)
		return -EINVAL;
	return 0;
}

static int fill_from_passwd(struct sg_user *u, const struct passwd *pw, gid_t gid)
{
	int n = SG_MAX_GROUPS;

	snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	snprintf(u->home, sizeof(u->home), "%s", pw->pw_dir ? pw->pw_dir : "");
	u->uid = pw->pw_uid;
	u->gid = gid;
	if (getgrouplist(pw->pw_name, gid, u->groups, &n) < 0)
		return -E2BIG;
	u->n_groups = n;
	return 0;
}

int sg_user_resolve(const char *spec, char *const envp[], struct sg_user *u,
		    struct sg_error *err)
{
	const char *sudo_uid = sg_env_get(envp, "SUDO_UID");
	const char *sudo_gid = sg_env_get(envp, "SUDO_GID");
	uid_t self = getuid();
	struct passwd *pw = NULL;
	unsigned long id;
	gid_t gid;

	memset(u, 0, sizeof(*u));
	if (spec) {
		errno = 0;
		pw = parse_id(spec, &id) == 0 ? getpwuid((uid_t)id) : getpwnam(spec);
		if (!pw)
			return sg_errorf(err, -ENOENT, NULL, 0, "--user %s: no such user in the password database", spec);
		gid = pw->pw_gid;
		u->why = "--user";
	} else if (self == 0 && sudo_uid && *sudo_uid) {
		if (parse_id(sudo_uid, &id) < 0)
			return sg_errorf(err, -EINVAL, NULL, 0, "SUDO_UID=\"%s\" is not a user id", sudo_uid);
		pw = getpwuid((uid_t)id);
		if (!pw)
			return sg_errorf(err, -ENOENT, NULL, 0, "SUDO_UID=%lu is not in the password database", id);
		gid = pw->pw_gid;
		if (sudo_gid && *sudo_gid) {
			if (parse_id(sudo_gid, &id) < 0)
				return sg_errorf(err, -EINVAL, NULL, 0, "SUDO_GID=\"%s\" is not a group id", sudo_gid);
			gid = (gid_t)id;
		}
		u->why = "SUDO_UID";
	} else {
		pw = getpwuid(self);
		u->why = "the calling user";
		u->uid = self;
		u->gid = getgid();
		if (pw) {
			snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
			snprintf(u->home, sizeof(u->home), "%s", pw->pw_dir ? pw->pw_dir : "");
		}
		return 0; /* nothing changes: keep our own groups too */
	}

	if (self != 0 && pw->pw_uid != self)
		return sg_errorf(err, -EPERM, NULL, 0,
				 "--user %s: only root can run a step as another user (stepguard is never setuid)",
				 spec);
	if (fill_from_passwd(u, pw, gid) < 0)
		return sg_errorf(err, -E2BIG, NULL, 0, "user %s is in more than %d groups", pw->pw_name, SG_MAX_GROUPS);
	u->drop = self == 0 && u->uid != 0;
	if (self == 0 && u->uid == 0)
		u->drop = false; /* root asked for root: nothing to change */
	return 0;
}

int sg_user_drop(const struct sg_user *u)
{
	uid_t r, e, s;

	if (!u->drop)
		return 0;
	if (setgroups((size_t)u->n_groups, u->groups) < 0)
		return -errno;
	if (setresgid(u->gid, u->gid, u->gid) < 0)
		return -errno;
	if (setresuid(u->uid, u->uid, u->uid) < 0)
		return -errno;
	/* A drop that can be undone is no drop: prove it cannot. */
	if (getresuid(&r, &e, &s) < 0 || r != u->uid || e != u->uid || s != u->uid)
		return -EPERM;
	if (u->uid != 0 && setuid(0) == 0)
		return -EPERM;
	return 0;
}

char **sg_user_env(const struct sg_user *u, char *const envp[])
{
	size_t n = 0;
	char **env;

	while (envp[n])
		n++;
	env = calloc(n + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		env[i] = strdup(envp[i]);
		if (!env[i]) {
			sg_env_free(env);
			return NULL;
		}
	}
	if (u->drop && (sg_env_set(&env, "HOME", u->home) < 0 ||
			sg_env_set(&env, "USER", u->name) < 0 ||
			sg_env_set(&env, "LOGNAME", u->name) < 0)) {
		sg_env_free(env);
		return NULL;
	}
	return env;
}

void sg_env_free(char **env)
{
	if (!env)
		return;
	for (size_t i = 0; env[i]; i++)
		free(env[i]);
	free(env);
}
