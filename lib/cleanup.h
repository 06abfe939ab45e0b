/* SPDX-License-Identifier: MIT */
/* cleanup.h — scope-bound release of memory and descriptors. */
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

static inline void *sg_steal_pointer(void *pp)
{
	void **p = pp, *v = *p;

	*p = NULL;
	return v;
}
#define steal_pointer(pp) sg_steal_pointer(pp)

static inline int steal_fd(int *fd)
{
	int v = *fd;

	*fd = -1;
	return v;
}

#endif
