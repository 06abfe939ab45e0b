/* SPDX-License-Identifier: MIT */
/*
 * error.h — the one error carrier.
 *
 * Code below the launcher returns -errno and, where a person needs more
 * than strerror(), fills a struct sg_error: the file and line at fault (a
 * policy file, or none) and a sentence.  Only the launcher prints it, once.
 */
#ifndef STEPGUARD_ERROR_H
#define STEPGUARD_ERROR_H

#include <stdarg.h>

/* Where something was said: a policy file and line (file NULL: nowhere). */
struct sg_origin {
	const char *file; /* owned by the policy (sg_policy.files) */
	unsigned line;
};

struct sg_error {
	char file[256];
	unsigned line; /* 0: the error is about the file as a whole */
	char msg[1024]; /* room for a long reason: a verifier log tail, an rlimit hint */
};

/*
 * The one formatter: fill ERR (FILE NULL or "": about no file; LINE 0: the
 * file as a whole) and return E, the -errno the caller returns with it:
 *     return sg_errorf(err, -EINVAL, file, line, "unknown key \"%s\"", key);
 * ERR may be NULL (nobody wants the text).
 */
int sg_errorf(struct sg_error *err, int e, const char *file, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
int sg_verrorf(struct sg_error *err, int e, const char *file, unsigned line, const char *fmt,
	       va_list ap) __attribute__((format(printf, 5, 0)));

#endif
