/* SPDX-License-Identifier: MIT */
/*
 * loader_internal.h — what loader.c (probe, load, open), pins.c (the pin
 * directory: listing, unloading) and scope.c (scopes, registration,
 * events) share.  Not for the launcher: it uses bpf/loader.h.
 */
#ifndef SG_BPF_LOADER_INTERNAL_H
#define SG_BPF_LOADER_INTERNAL_H

#include <bpf/libbpf.h>

#include "bpf/loader.h"

/* The ring of each scope: must equal struct sg_ring's max_entries. */
#define SG_RING_SIZE (1U << 20)

/* Scopes one handle may add (a launcher adds one). */
#define SG_MAX_SCOPES 16

/* The maps user space needs, by pin name (sgb_map_names). */
enum { M_TASK, M_REGISTRAR, M_SCOPES, M_ROOTS, M_RINGS, M_STATS, M__N };
extern const char *const sgb_map_names[M__N];

struct sg_bpf {
	enum sg_bpf_mode mode;
	char dir[128];  /* the version directory */
	int maps[M__N];
	struct ring_buffer *rb;
	struct {
		uint32_t id;
		int ring_fd;
	} scopes[SG_MAX_SCOPES];
	size_t n_scopes;
	sg_bpf_event_fn fn; /* set by sg_bpf_poll() for ring_sample() */
	void *fn_ctx;
	int fn_stop;
};

/* Write the reason to WHY (if any) and return ERR. */
int sgb_fail(char *why, size_t len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "lsm" or "fmod": the links' directory under the version directory. */
const char *sgb_mode_dir(enum sg_bpf_mode mode);

/* Unlink everything in directory NAME under DIRFD, then the directory. */
int sgb_remove_tree(int dirfd, const char *name);

/* Names under the pin root other than OURS, space-separated. */
void sgb_list_stale(int rootfd, const char *ours, char *out, size_t len);

/* The number of entries (pinned links) in directory NAME under DIRFD. */
int sgb_count_entries(int dirfd, const char *name);

/* Open every pinned map of b->dir into b->maps. */
int sgb_open_maps(struct sg_bpf *b, char *why, size_t len);

#endif /* SG_BPF_LOADER_INTERNAL_H */
