/* SPDX-License-Identifier: MIT */
/*
 * root.h — a writable root: the one shape every backend and the launcher
 * share (Landlock's rules, the eBPF scope, the supervisor, the start line
 * and --check).
 *
 * The root is opened once, with O_PATH, and kept open: every filter is
 * built from the descriptor, so renaming or replacing the path afterwards
 * cannot redirect it.  The path is for people only.
 */
#ifndef STEPGUARD_ROOT_H
#define STEPGUARD_ROOT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"

struct sg_root {
	const char *path;  /* realpath of the opened object, for messages; NULL if skipped */
	int fd;            /* O_PATH|O_CLOEXEC; -1: a "?" root that does not exist, skipped */
	bool is_dir;
	char *given;       /* as written (expanded), for --check */
	char what[160];    /* "work directory", "--allow-write", "[writes] dev-null", "[step:x] write.y" */
	struct sg_origin origin; /* for [writes] entries */
};

struct sg_roots {
	struct sg_root *v;
	size_t n;
};

/* Is A the same path as B or one of its ancestors?  (Both canonical.) */
bool sg_path_covers(const char *a, const char *b);

#endif
