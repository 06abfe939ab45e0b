// SPDX-License-Identifier: MIT
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "launcher/tmpdir.h"

#include <dirent.h>
#include <sys/syscall.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/env.h"
#include "policy/expand.h"

/* Deeper than any honest step nests its temporary files; a step that does more is told. */
#define TMPDIR_MAX_DEPTH 128

int sg_tmpdir_plan(struct sg_tmpdir *t, const struct sg_settings *eff, char *const env[],
		   const char *workdir, uid_t step_uid, struct sg_error *err)
{
	struct sg_expand_vars vars = { workdir, sg_env_get(env, "HOME"), env };
	_cleanup_free_ char *expanded = NULL;
	const char *base, *runner_temp = sg_env_get(env, "RUNNER_TEMP");
	const char *file = NULL; /* the policy line at fault, if any */
	unsigned line = 0;
	struct stat st;

	memset(t, 0, sizeof(*t));
	t->fd = t->base_fd = -1;
	t->on = eff->tmpdir != SG_NO;
	t->keep = eff->keep_tmpdir == SG_YES;
	t->origin = eff->tmpdir == SG_NO ? eff->tmpdir_origin : eff->keep_tmpdir_origin;
	if (!t->on)
		return 0;

	/*
	 * The base: the policy's, else the runner's own temporary directory
	 * (GitHub removes $RUNNER_TEMP after each job, so nothing a step
	 * leaves outlives the job), else /tmp.  A base that is named but
	 * unusable is an error, never a silent fall back to /tmp.
	 */
	if (eff->tmpdir_base.set && *eff->tmpdir_base.s) {
		char m[256];

		file = eff->tmpdir_base.origin.file;
		line = eff->tmpdir_base.origin.line;
		if (sg_expand(eff->tmpdir_base.s, &vars, &expanded, m, sizeof(m)) < 0)
			return sg_errorf(err, -EINVAL, file, line, "tmpdir-base: %s", m);
		if (expanded[0] != '/')
			return sg_errorf(err, -EINVAL, file, line,
					 "tmpdir-base: \"%s\" is not an absolute path", expanded);
		base = expanded;
		snprintf(t->base_why, sizeof(t->base_why), "tmpdir-base, %s:%u",
			 eff->tmpdir_base.origin.file, eff->tmpdir_base.origin.line);
	} else if (runner_temp && *runner_temp) {
		base = runner_temp;
		snprintf(t->base_why, sizeof(t->base_why), "$RUNNER_TEMP");
	} else {
		base = "/tmp";
		snprintf(t->base_why, sizeof(t->base_why), "the default");
	}

	if (!realpath(base, t->base) || stat(t->base, &st) < 0) {
		int errnum = errno;

		return sg_errorf(err, -errnum, file, line,
				 "the step's temporary directory: its base %s (%s): %s; "
				 "set [stepguard] tmpdir-base to a directory, or tmpdir = no",
				 base, t->base_why, strerror(errnum));
	}
	if (!S_ISDIR(st.st_mode))
		return sg_errorf(err, -ENOTDIR, file, line,
				 "the step's temporary directory: its base %s (%s) is not a directory",
				 base, t->base_why);
	/*
	 * Whoever may rename entries of the base may swap the step's
	 * directory for one of theirs after it is made: its owner, and
	 * anyone who may write it unless it is sticky.  So the owner must be
	 * root, stepguard's caller or the step's user, and a base others may
	 * write must be sticky, as /tmp is.
	 */
	if (st.st_uid != 0 && st.st_uid != geteuid() && st.st_uid != step_uid)
		return sg_errorf(err, -EPERM, file, line,
				 "the step's temporary directory: its base %s (%s) belongs to uid %u, "
				 "who could replace the step's directory; choose another base with "
				 "[stepguard] tmpdir-base",
				 t->base, t->base_why, (unsigned)st.st_uid);
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
		return sg_errorf(err, -EPERM, file, line,
				 "the step's temporary directory: its base %s (%s) is writable by others "
				 "and not sticky (mode %04o), so another user could replace the step's "
				 "directory; choose another base with [stepguard] tmpdir-base, or make it "
				 "sticky",
				 t->base, t->base_why, (unsigned)(st.st_mode & 07777));
	return 0;
}

/* Letters a name may hold, from whatever the step's name is. */
static void name_part(char *out, size_t len, const char *step)
{
	size_t n = 0;

	for (const char *p = step && *step ? step : "step"; *p && n + 1 < len && n < 32; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '-' || c == '_';

		if (!ok)
			c = '_';
		out[n++] = c;
	}
	out[n] = '\0';
}

int sg_tmpdir_make(struct sg_tmpdir *t, const char *step, uid_t uid, gid_t gid,
		   struct sg_error *err)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	char part[40], name[80];
	struct stat st;
	int errnum = 0;

	if (!t->on)
		return 0;
	/* Held from here to the removal: every name below is relative to it, never a path again. */
	t->base_fd = open(t->base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->base_fd < 0) {
		errnum = errno;
		return sg_errorf(err, -errnum, NULL, 0,
				 "cannot open %s, the base of the step's temporary directory: %s",
				 t->base, strerror(errnum));
	}
	name_part(part, sizeof(part), step);
	for (int tries = 0; tries < 64; tries++) {
		unsigned char rnd[8];

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
			errnum = errno ? errno : EIO;
			break;
		}
		snprintf(name, sizeof(name), "stepguard-%s-", part);
		for (size_t i = 0, o = strlen(name); i < sizeof(rnd) && o + 1 < sizeof(name); i++, o++) {
			name[o] = alphabet[rnd[i] % (sizeof(alphabet) - 1)];
			name[o + 1] = '\0';
		}
		/* mkdir fails on any existing name, a planted link included: the directory is new. */
		if (mkdirat(t->base_fd, name, 0700) == 0) {
			errnum = 0;
			break;
		}
		errnum = errno;
		if (errnum != EEXIST)
			break;
	}
	if (errnum)
		return sg_errorf(err, -errnum, NULL, 0,
				 "cannot make the step's temporary directory under %s (%s): %s; set "
				 "[stepguard] tmpdir-base to a directory stepguard may write, or tmpdir = no",
				 t->base, t->base_why, strerror(errnum));
	if (asprintf(&t->path, "%s%s%s", t->base, strcmp(t->base, "/") ? "/" : "", name) < 0) {
		t->path = NULL;
		unlinkat(t->base_fd, name, AT_REMOVEDIR);
		return -ENOMEM;
	}
	t->fd = openat(t->base_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->fd < 0 || fstat(t->fd, &st) < 0 || st.st_uid != geteuid()) {
		/* Ours a moment ago; anything else means someone swapped it: do not use it. */
		errnum = t->fd < 0 ? errno : EPERM;
		return sg_errorf(err, -errnum, NULL, 0,
				 "the step's temporary directory %s changed under stepguard as it was "
				 "made: %s",
				 t->path, strerror(errnum));
	}
	/* 0700 whatever the umask; then the step's user's, so it can write what it owns. */
	if (fchmod(t->fd, 0700) < 0 || (st.st_uid != uid && fchown(t->fd, uid, gid) < 0)) {
		errnum = errno;
		unlinkat(t->base_fd, name, AT_REMOVEDIR);
		return sg_errorf(err, -errnum, NULL, 0,
				 "cannot give the step's temporary directory %s to uid %u: %s", t->path,
				 (unsigned)uid, strerror(errnum));
	}
	return 0;
}

struct rm_state {
	dev_t dev;
	int errnum;
	char what[PATH_MAX];
};

static void rm_fail(struct rm_state *s, int errnum, const char *what, const char *name)
{
	if (s->errnum)
		return; /* the first reason is the one said */
	s->errnum = errnum;
	snprintf(s->what, sizeof(s->what), "%s %s", what, name);
}

/* One entry, by name relative to DFD, and what it holds. */
static void rm_entry(int dfd, const char *name, int depth, struct rm_state *s);

/*
 * Empty the directory DFD: every entry by name, relative to DFD.  The
 * entries are read with getdents64() into a buffer on the stack, not with
 * readdir(), which allocates: a step that ends out of memory (RLIMIT_AS,
 * RLIMIT_DATA) must not leave its directory behind for want of a malloc.
 * Entries are removed while the directory is read, which the kernel
 * allows; one it did not return is taken by the second pass.
 */
static void rm_contents(int dfd, int depth, struct rm_state *s) // NOLINT(misc-no-recursion): depth bounded by TMPDIR_MAX_DEPTH, one open directory per level
{
	/* Its own descriptor, so that the offset of DFD is not the reader's. */
	int lfd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char buf[2048] __attribute__((aligned(8)));
	long n;

	if (lfd < 0) {
		rm_fail(s, errno, "cannot list", "a directory");
		return;
	}
	while ((n = syscall(SYS_getdents64, lfd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *e = (struct dirent64 *)(void *)(buf + off);

			off += e->d_reclen;
			if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
				rm_entry(dfd, e->d_name, depth, s);
		}
	}
	if (n < 0)
		rm_fail(s, errno, "cannot list", "a directory");
	close(lfd);
}

static void rm_entry(int dfd, const char *name, int depth, struct rm_state *s) // NOLINT(misc-no-recursion): as rm_contents()
{
	struct stat st;
	int sub;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			rm_fail(s, errno, "cannot stat", name);
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		/* A link is removed, never followed: unlinkat() acts on the name. */
		if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
			rm_fail(s, errno, "cannot remove", name);
		return;
	}
	if (st.st_dev != s->dev) {
		/* Something is mounted there: its files are not the step's to remove. */
		rm_fail(s, EXDEV, "a file system is mounted on", name);
		return;
	}
	if (depth >= TMPDIR_MAX_DEPTH) {
		rm_fail(s, ELOOP, "too deep to remove:", name);
		return;
	}
	/* O_NOFOLLOW: a directory swapped for a link since the stat is not entered. */
	sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0 && errno == EACCES && fchmodat(dfd, name, 0700, AT_SYMLINK_NOFOLLOW) == 0)
		/* A directory the step made unreadable: it is its user's, as are we. */
		sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0) {
		if (errno != ENOENT)
			rm_fail(s, errno, "cannot open", name);
		return;
	}
	/*
	 * Its entries cannot be removed without write and search on it.  This
	 * fails on one not ours (a root step's chown); the unlinks then say why.
	 */
	(void)fchmod(sub, 0700);
	rm_contents(sub, depth + 1, s);
	close(sub);
	if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		rm_fail(s, errno, "cannot remove", name);
}

int sg_tmpdir_remove(const struct sg_tmpdir *t, char *msg, size_t len)
{
	struct rm_state s = { 0 };
	const char *name;
	struct stat st;

	if (!t->on || t->fd < 0 || t->keep)
		return 0;
	if (fstat(t->fd, &st) < 0)
		return -errno;
	s.dev = st.st_dev;
	/*
	 * A process the step left behind may still be writing here: a
	 * second pass takes what it made during the first, and what is left
	 * after that is reported, not fought over.
	 */
	for (int pass = 0; pass < 2; pass++) {
		s.errnum = 0;
		rm_contents(t->fd, 0, &s);
		name = strrchr(t->path, '/') + 1;
		if (unlinkat(t->base_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
			return 0;
		if (!s.errnum)
			rm_fail(&s, errno, "cannot remove", "it");
	}
	snprintf(msg, len, "%s: %s: %s", t->path, s.what, strerror(s.errnum));
	return -s.errnum;
}

void sg_tmpdir_free(struct sg_tmpdir *t)
{
	free(t->path);
	if (t->fd >= 0)
		close(t->fd);
	if (t->base_fd >= 0)
		close(t->base_fd);
	t->path = NULL;
	t->fd = t->base_fd = -1;
}
