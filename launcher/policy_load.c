// SPDX-License-Identifier: MIT
#include "launcher/policy_load.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "confine/seccomp.h"
#include "policy/default_policy.h"
#include "lib/env.h"

static int add_source(struct sg_sources *s, const char *name, const char *state)
{
	struct sg_source *v;

	if (!s)
		return 0;
	v = realloc(s->v, (s->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->v = v;
	v[s->n].name = strdup(name);
	if (!v[s->n].name)
		return -ENOMEM;
	v[s->n].state = state;
	s->n++;
	return 0;
}

void sg_sources_free(struct sg_sources *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/*
 * Whoever can write the policy decides what the step may write, so only
 * root and the user who runs stepguard may own it (under sudo, also the
 * user sudo was invoked by: the step runs as that user anyway), and
 * nobody else may be able to write it (as doas refuses its config).
 */
int sg_policy_owner_ok(uid_t owner, mode_t mode, uid_t uid, const char *sudo_uid,
		       const char **why)
{
	if (mode & (S_IWGRP | S_IWOTH)) {
		*why = "is writable by group or others; fix: chmod go-w";
		return -EPERM;
	}
	if (owner == 0 || owner == uid)
		return 0;
	if (uid == 0 && sudo_uid && *sudo_uid) {
		char *end;
		unsigned long su;

		errno = 0;
		su = strtoul(sudo_uid, &end, 10);
		if (!errno && !*end && su == owner)
			return 0;
	}
	*why = "is owned by another user; fix: chown it to root or to the user running stepguard";
	return -EPERM;
}

static int check_owner(const struct stat *st, char *const envp[], const char *path,
		       struct sg_error *err)
{
	const char *why;
	char msg[320];

	if (sg_policy_owner_ok(st->st_uid, st->st_mode, getuid(),
			       sg_env_get(envp, "SUDO_UID"), &why) < 0) {
		snprintf(msg, sizeof(msg), "refused: %s (mode %04o, owner uid %u)", why,
			 (unsigned)(st->st_mode & 07777), (unsigned)st->st_uid);
		sg_errorf(err, 0, path, 0, "%s", msg);
		return -EPERM;
	}
	return 0;
}

/* Read one policy file; -ENOENT is returned quietly for the caller to judge. */
static int read_file(int dirfd, const char *path, const char *display, char *const envp[],
		     char **text, size_t *len, struct sg_error *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t n = 0;

	*len = 0; /* set on every path, not only on success */
	/*
	 * O_NONBLOCK: opening a FIFO (or a device) named as a policy must not
	 * hang the launcher before the check below refuses it; a regular
	 * file ignores the flag.
	 */
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		int e = errno;

		if (e != ENOENT)
			sg_errorf(err, 0, display, 0, "cannot open: %s", strerror(e));
		return -e;
	}
	/* Judge the file we opened, not the name: no window to swap it. */
	if (fstat(fd, &st) < 0) {
		/* fstat's errno, not whatever file_error leaves: -ENOENT means "absent" */
		int e = errno;

		sg_errorf(err, 0, display, 0, "cannot stat: %s", strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		sg_errorf(err, 0, display, 0, "%s", "refused: not a regular file");
		return -EINVAL;
	}
	if (check_owner(&st, envp, display, err) < 0)
		return -EPERM;
	if (st.st_size > SG_POLICY_MAX_SIZE) {
		sg_errorf(err, 0, display, 0, "%s", "refused: larger than 1 MiB");
		return -EFBIG;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r = read(fd, buf + n, (size_t)st.st_size + 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			sg_errorf(err, 0, display, 0, "cannot read: %s", strerror(errno));
			return -EIO;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > (size_t)st.st_size) {
			sg_errorf(err, 0, display, 0, "%s", "refused: the file grew while being read");
			return -EINVAL;
		}
	}
	*text = steal_pointer(&buf);
	*len = n;
	return 0;
}

static int parse_into(struct sg_policy *p, const char *name, const char *text, size_t len,
		      struct sg_error *err)
{
	return sg_policy_parse(p, name, text, len, sg_seccomp_known_syscall, err);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_dropin(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 4 && strcmp(name + n - 4, ".ini") == 0;
}

static int load_dir(const char *dir, bool must_exist, char *const envp[], struct sg_policy *p,
		    struct sg_sources *srcs, struct sg_error *err)
{
	_cleanup_close_ int dfd = -1;
	DIR *d;
	struct dirent *de;
	struct stat st;
	char **names = NULL;
	size_t n = 0;
	int r = 0;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		int e = errno;

		if (e == ENOENT && !must_exist)
			return add_source(srcs, dir, "absent");
		sg_errorf(err, 0, dir, 0, "cannot open the drop-in directory: %s", strerror(e));
		return -e;
	}
	/* Whoever can add a file here can change the policy. */
	if (fstat(dfd, &st) < 0 || check_owner(&st, envp, dir, err) < 0)
		return -EPERM;
	d = fdopendir(dup(dfd));
	if (!d) {
		sg_errorf(err, 0, dir, 0, "cannot read the drop-in directory: %s", strerror(errno));
		return -EIO;
	}
	while ((errno = 0, de = readdir(d))) {
		char **v;

		if (!is_dropin(de->d_name))
			continue;
		v = realloc(names, (n + 1) * sizeof(*v));
		if (!v || !(v[n] = strdup(de->d_name))) {
			if (v)
				names = v;
			r = -ENOMEM;
			goto out;
		}
		names = v;
		n++;
	}
	if (errno) {
		sg_errorf(err, 0, dir, 0, "cannot read the drop-in directory: %s", strerror(errno));
		r = -EIO;
		goto out;
	}
	/* Lexical order in the C locale, whatever readdir returned. */
	if (n > 0) /* names is NULL when there are none, and qsort's base must not be */
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *text = NULL, *display = NULL;
		size_t len;

		if (asprintf(&display, "%s/%s", dir, names[i]) < 0) {
			display = NULL;
			r = -ENOMEM;
			goto out;
		}
		r = read_file(dfd, names[i], display, envp, &text, &len, err);
		if (r == -ENOENT) /* removed since readdir */
			sg_errorf(err, 0, display, 0, "%s", "vanished while the policy was read");
		if (r < 0)
			goto out;
		r = parse_into(p, display, text, len, err);
		if (r < 0)
			goto out;
		r = add_source(srcs, display, "read");
		if (r < 0)
			goto out;
	}
out:
	closedir(d);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

/*
 * "[seccomp] allow" removes names from the default deny list; a name not on
 * it is a typo or a misunderstanding, and clone3 cannot be removed (its
 * flags are out of the filter's sight).  Say so with the file and line now,
 * not when the filter is built.
 */
static int check_seccomp_allow(const struct sg_policy *p, struct sg_error *err)
{
	const char *const *deny = sg_seccomp_default_deny();

	for (size_t i = 0; i < p->seccomp_allow.n; i++) {
		const char *name = p->seccomp_allow.v[i];
		bool listed = false;

		for (const char *const *d = deny; *d; d++)
			if (strcmp(*d, name) == 0)
				listed = true;
		if (listed && strcmp(name, "clone3") != 0)
			continue;
		snprintf(err->file, sizeof(err->file), "%s", p->seccomp_allow.origin.file);
		err->line = p->seccomp_allow.origin.line;
		snprintf(err->msg, sizeof(err->msg),
			 strcmp(name, "clone3") == 0
				 ? "[seccomp] allow: clone3 cannot be allowed: its flags are in memory where the filter cannot check them (it is answered ENOSYS so libc uses clone)"
				 : "[seccomp] allow: \"%s\" is not on the default deny list (see docs/seccomp.md); nothing to remove",
			 name);
		return -EINVAL;
	}
	return 0;
}

int sg_policy_load(const struct sg_options *o, char *const envp[], struct sg_policy *p,
		   struct sg_sources *srcs, struct sg_error *err)
{
	const char *main_file = o->policy ? o->policy : SG_DEFAULT_POLICY;
	const char *dir;
	int r;

	for (size_t i = 0; i < sg_n_default_fragments; i++) {
		const struct sg_fragment *f = &sg_default_fragments[i];

		r = parse_into(p, f->name, f->text, f->len, err);
		if (r < 0)
			return r;
		r = add_source(srcs, f->name, "built-in");
		if (r < 0)
			return r;
	}

	{
		_cleanup_free_ char *text = NULL;
		size_t len;

		r = read_file(AT_FDCWD, main_file, main_file, envp, &text, &len, err);
		if (r == -ENOENT) {
			if (o->policy_explicit) {
				sg_errorf(err, 0, main_file, 0, "%s",
					   "cannot open: No such file or directory");
				return r;
			}
			r = add_source(srcs, main_file, "absent");
		} else if (r == 0) {
			r = parse_into(p, main_file, text, len, err);
			if (r == 0)
				r = add_source(srcs, main_file, "read");
		}
		if (r < 0)
			return r;
	}

	/*
	 * --rules-dir names the drop-ins.  Without it, the system directory
	 * goes with the system policy; an explicit --policy stands alone,
	 * so a test or a step with its own policy is not changed by whatever
	 * /etc holds.
	 */
	if (o->rules_dir)
		dir = o->rules_dir;
	else if (!o->policy_explicit)
		dir = SG_DEFAULT_RULES_DIR;
	else
		dir = NULL;
	if (dir) {
		r = load_dir(dir, o->rules_dir != NULL, envp, p, srcs, err);
		if (r < 0)
			return r;
	}
	r = sg_policy_validate(p, err);
	if (r < 0)
		return r;
	return check_seccomp_allow(p, err);
}
