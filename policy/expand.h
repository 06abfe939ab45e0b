/* SPDX-License-Identifier: MIT */
/*
 * expand.h — ${WORKDIR}, ${HOME} and ${env:NAME} in policy values.
 *
 * Pure string work.  An unset or empty variable is an error, never an
 * empty string: "${env:CACHE}/x" with CACHE unset must not become "/x",
 * and "${HOME}" with HOME unset must not become "" (the current
 * directory) or "/".
 */
#ifndef STEPGUARD_EXPAND_H
#define STEPGUARD_EXPAND_H

#include <stddef.h>

#include "lib/env.h" /* sg_env_get(), which callers use to fill the vars */

struct sg_expand_vars {
	const char *workdir;  /* NULL: ${WORKDIR} is an error */
	const char *home;     /* NULL or "": ${HOME} is an error */
	char *const *envp;    /* for ${env:NAME} */
};

/*
 * Expand IN into a new string (*OUT, caller frees).  With VARS == NULL
 * only the syntax is checked and *OUT is left NULL (OUT may be NULL).
 * Returns 0, -EINVAL with a message in MSG, or -ENOMEM.
 */
int sg_expand(const char *in, const struct sg_expand_vars *vars, char **out,
	      char *msg, size_t msglen);

#endif
