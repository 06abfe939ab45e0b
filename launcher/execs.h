/* SPDX-License-Identifier: MIT */
/* execs.h — the files a ruling step may execute (execs.c says which, and why). */
#ifndef STEPGUARD_EXECS_H
#define STEPGUARD_EXECS_H

#include "lib/error.h"
#include "lib/root.h"
#include "policy/policy.h"

/*
 * Resolve the model CLI CLI (argv[0], found on PATH as execvpe() finds
 * it), its script interpreters, [model-cli] exec-allow, and the ELF
 * interpreter of each, into OUT: one entry per file (by identity), each
 * opened O_PATH.  An exec-allow name not found is kept with fd -1 (for
 * --check), and allows nothing.  0, or -errno with ERR filled: -ENOENT
 * only when the CLI itself is not found (ERR then holds strerror's text
 * alone, for the caller to name the command), -ENOEXEC for a missing
 * interpreter.  Free OUT with sg_roots_free().
 */
int sg_execs_resolve(const struct sg_policy *p, const char *cli, struct sg_roots *out,
		     struct sg_error *err);

#endif
