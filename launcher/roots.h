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

#include <stdbool.h>
#include <stddef.h>

#include "launcher/options.h"
#include "policy/policy.h"

struct sg_root_entry {
	char *given;    /* as written (expanded, for [writes]) */
	char *resolved; /* realpath of the opened object; NULL if skipped */
	int fd;         /* O_PATH|O_CLOEXEC, or -1 if skipped */
	bool is_dir;
	char what[96];  /* "work directory", "--allow-write", "[writes] dev-null" */
	struct sg_origin origin; /* for [writes] entries */
};

struct sg_roots {
	struct sg_root_entry *v;
	size_t n;
};

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

/* Is A the same path as B or one of its ancestors?  (Both canonical.) */
bool sg_path_covers(const char *a, const char *b);

#endif
