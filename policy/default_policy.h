/* SPDX-License-Identifier: MIT */
/*
 * default_policy.h — the shipped rules.d, compiled in.
 *
 * The array is generated at build time from the rules.d files by
 * policy/embed.sh, so the files are the one source of truth; a unit test
 * checks that the compiled-in text equals the files.
 */
#ifndef STEPGUARD_DEFAULT_POLICY_H
#define STEPGUARD_DEFAULT_POLICY_H

#include <stddef.h>

struct sg_fragment {
	const char *name; /* "built-in:10-defaults.ini" */
	const char *text;
	size_t len;
};

extern const struct sg_fragment sg_default_fragments[];
extern const size_t sg_n_default_fragments;

#endif
