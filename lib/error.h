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

struct sg_error {
	char file[256];
	unsigned line; /* 0: the error is about the file as a whole */
	char msg[512];
};

#endif
