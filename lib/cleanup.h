/* SPDX-License-Identifier: MIT */
/*
 * cleanup.h — scope-bound release of memory and descriptors, for every
 * directory (lib/ is below all of them).
 */
#ifndef STEPGUARD_CLEANUP_H
#define STEPGUARD_CLEANUP_H

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static inline void sg_freep(void *p)
{
	free(*(void **)p);
}

static inline void sg_closep(int *fd)
{
	if (*fd >= 0) {
		int e = errno; /* keep the errno the caller is reporting */
		close(*fd);
		errno = e;
	}
}

#define _cleanup_free_ __attribute__((cleanup(sg_freep)))  // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp): systemd's spelling, on purpose; no libc or compiler name
#define _cleanup_close_ __attribute__((cleanup(sg_closep))) // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp): as above

/*
 * Take the pointer out of *PP, leaving NULL, so its cleanup frees nothing.
 * Typed as systemd's TAKE_PTR is: the result has the type of *PP, so
 * assigning it to another pointer type is a compile error, and PP must
 * point to a pointer.  (bubblewrap's "0 ? *(pp) : f(pp)" checks only the
 * latter: in C a conditional with a void * operand is itself void *.)
 */
#define steal_pointer(pp)                                  \
	__extension__({                                    \
		__typeof__(*(pp)) *sg_pp_ = (pp);          \
		__typeof__(*(pp)) sg_v_ = *sg_pp_;         \
		*sg_pp_ = NULL;                            \
		sg_v_;                                     \
	})

static inline int steal_fd(int *fd)
{
	int v = *fd;

	*fd = -1;
	return v;
}

#endif
