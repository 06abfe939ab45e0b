/* SPDX-License-Identifier: MIT */
/*
 * roots.h — the step's writable roots, resolved once.
 *
 * Each root is expanded, opened with O_PATH and kept open: the write
 * filter is built from these descriptors, so renaming or replacing a
 * path after this point cannot redirect it.  The resolved path is only
 * for people (--check, the start line).
 */
#ifndef STEPGUARD_ROOTS_H
#define STEPGUARD_ROOTS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "launcher/options.h"
#include "lib/root.h"
#include "policy/policy.h"

/*
 * Resolve the work directory (first entry), --allow-write and the step's
 * [writes].  A "?"-prefixed [writes] path that does not exist is kept as
 * a skipped entry (fd -1) so --check can show it.  Returns 0 or -errno
 * with ERR filled.
 */
int sg_roots_resolve(const struct sg_policy *p, const struct sg_step *step,
		     const struct sg_options *o, char *const envp[], struct sg_roots *out,
		     struct sg_error *err);
void sg_roots_free(struct sg_roots *r);

/*
 * The home directory no root may contain, resolved into BUF: $HOME of
 * ENVP, else the password database's home of the effective user.  NULL
 * when neither resolves.  sg_roots_resolve() refuses by it, and the
 * summary at the end of a step (launcher/summary.h) never suggests it.
 */
const char *sg_roots_home(char *const envp[], char buf[PATH_MAX]);

/*
 * Open [sockets] allow: each an existing UNIX socket (a "?" one that is
 * missing is kept with fd -1), by identity.  0 or -errno with ERR filled.
 */
int sg_sockets_resolve(const struct sg_policy *p, struct sg_roots *out, struct sg_error *err);

/*
 * Add a directory stepguard made itself (the step's temporary
 * directory), by its descriptor DIRFD; PATH is for people.  0 or -errno.
 */
int sg_roots_add_made(struct sg_roots *r, int dirfd, const char *path, const char *what);


#endif
