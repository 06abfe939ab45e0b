/* SPDX-License-Identifier: MIT */
/*
 * loader_internal.h — struct sg_bpf, the handle bpf/loader.h keeps
 * opaque, and what the userspace files share: loader.c (probe, load,
 * open, close), pins.c (the pin directory; its interface to loader.c is
 * pins.h) and scope.c (scopes, registration, events).  Not for the
 * launcher: it uses bpf/loader.h.
 */
#ifndef SG_BPF_LOADER_INTERNAL_H
#define SG_BPF_LOADER_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include <bpf/libbpf.h>

#include "bpf/loader.h"

/* The ring of each scope: must equal struct sg_ring's max_entries. */
#define SG_RING_SIZE (1U << 20)

/* Scopes one handle may add (a launcher adds one). */
#define SG_MAX_SCOPES 16

/* The pinned maps user space opens, indexes of sg_bpf.maps (names: pins.c). */
enum { M_TASK, M_REGISTRAR, M_SCOPES, M_ROOTS, M_RINGS, M_STATS, M_EXECS, M_SOCKS, M_PTYS, M_LISTENS, M__N };

/*
 * The programs exec restriction needs, by pin name without the mode's
 * prefix ("lsm_", "fmod_"): the exec hook, and the hook its files are
 * registered through.  Both are optional per kernel (loader.c).
 */
#define SG_PROG_EXEC "bprm_check_security"
#define SG_PROG_EXEC_REG "file_fcntl"

struct sg_bpf {
	enum sg_bpf_mode mode;
	char dir[128];  /* the version directory */
	int maps[M__N];
	bool has_exec;  /* SG_PROG_EXEC and SG_PROG_EXEC_REG are attached */
	bool has_reg;   /* SG_PROG_EXEC_REG is: allowed sockets can be registered */
	struct ring_buffer *rb;
	struct {
		uint32_t id;
		int ring_fd;
		bool confined; /* a task was marked with it: too late to restrict exec */
		bool socks;    /* its allowed sockets were registered (once) */
	} scopes[SG_MAX_SCOPES];
	size_t n_scopes;
	sg_bpf_event_fn fn; /* set by sg_bpf_poll() for ring_sample() */
	void *fn_ctx;
	int fn_stop;
};

/*
 * systemd's DEFINE_TRIVIAL_CLEANUP_FUNC: FUNC##p(&x) calls FUNC(x) unless
 * x is NULL, for SGB_CLEANUP(FUNC##p) on a variable, so that what a
 * library allocates (a skeleton, a BTF, a DIR) is released on every
 * return, and handed on with steal_pointer() (lib/cleanup.h).
 */
#define SGB_DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)     \
	static inline void func##p(__typeof__(type) *p) \
	{                                               \
		if (*p)                                 \
			func(*p);                       \
	}
#define SGB_CLEANUP(fp) __attribute__((cleanup(fp)))

/* Write the reason to WHY (if any) and return ERR. */
static inline int sgb_fail(char *why, size_t len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static inline int sgb_fail(char *why, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return err;
}

#endif /* SG_BPF_LOADER_INTERNAL_H */
