// SPDX-License-Identifier: MIT
/*
 * stepguard supervisor — a ruling step's execve and execveat: not
 * performed for the step (no process can), only told apart for the log.
 *
 * Landlock's EXECUTE right refuses the exec in the kernel, on the file it
 * opens (sg_landlock_build_exec()), so the only answers here are "refused,
 * and why" for a file that is not on the allow-list, and CONTINUE for
 * everything else, including what we cannot resolve (a /proc magic link
 * such as /proc/self/exe, which the CLI re-executes itself through):
 * Landlock then decides, and a refusal there goes unlogged.  A step racing
 * its own paths can make us continue a file Landlock then refuses
 * (unlogged) or refuse one it would run (never run: the exec fails
 * EACCES): the log can miss a refusal, the filter cannot.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "confine/supervisor/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

/* Is O one of the files the ruling step may execute? */
static bool sg_exec_allowed(const struct sg_supervisor *s, const struct sg_obj *o)
{
	for (size_t i = 0; i < s->n_execs; i++)
		if (s->execs[i].dev == o->st.st_dev && s->execs[i].ino == o->st.st_ino)
			return true;
	return false;
}

/* What the kernel would do with execveat's flags: anything else is its own EINVAL. */
static bool sg_exec_flags(const struct sg_call *c, const uint64_t *arg, unsigned int *how)
{
	int fl;

	if (c->atflags < 0)
		return true;
	fl = (int)arg[c->atflags];
	if (fl & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return false;
	if (fl & AT_SYMLINK_NOFOLLOW)
		*how |= SG_R_NOFOLLOW;
	if (fl & AT_EMPTY_PATH)
		*how |= SG_R_EMPTY;
	return true;
}

int sg_sup_exec(struct sg_target *t, const struct sg_call *c, const uint64_t *arg,
		struct sg_sup_event *ev, struct sg_reply *rep)
{
	int dirfd = c->dirfd >= 0 ? (int)arg[c->dirfd] : AT_FDCWD;
	unsigned int how = 0;
	struct sg_obj obj;
	char *path;
	int r;

	rep->cont = true;
	if (!sg_exec_flags(c, arg, &how))
		return 0; /* the kernel answers EINVAL itself */
	/* PATH_MAX of path, on the heap: the supervisor's stack stays small. */
	path = malloc(PATH_MAX);
	if (!path)
		return 0; /* Landlock decides, unlogged */
	sg_obj_init(&obj);
	r = sg_target_read_str(t, arg[c->path], path, PATH_MAX);
	if (r >= 0)
		r = sg_resolve_path(t, dirfd, path, how, &obj);
	if (r == -ESRCH) {
		/* The call is gone: nobody to answer. */
		rep->cont = false;
		rep->gone = true;
		r = 0;
	} else if (r < 0 || !obj.exists || !S_ISREG(obj.st.st_mode) ||
		   sg_exec_allowed(t->s, &obj)) {
		/* Not found, not resolved, not a file, or allowed: the kernel answers. */
		r = 0;
	} else {
		memset(ev, 0, sizeof(*ev));
		snprintf(ev->op, sizeof(ev->op), "%s", sg_kind_op(c->kind));
		ev->pid = t->creds.tgid;
		ev->result = -EACCES;
		ev->why = SG_SUP_NOT_ALLOWED;
		if (sg_obj_describe(&obj, ev->path, sizeof(ev->path)) < 0) {
			size_t n = strlen(path);

			/* Not described (too long): the step's own words, cut and said so. */
			ev->path_truncated = n >= sizeof(ev->path);
			memcpy(ev->path, path, ev->path_truncated ? sizeof(ev->path) - 1 : n);
			ev->path[ev->path_truncated ? sizeof(ev->path) - 1 : n] = '\0';
		}
		rep->cont = false;
		rep->error = EACCES;
		r = 1;
	}
	sg_obj_close(&obj);
	free(path);
	return r;
}
