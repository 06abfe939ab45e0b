/* SPDX-License-Identifier: MIT */
/*
 * pins.h — the pin directory's housekeeping (pins.c), for loader.c.
 *
 * pins.c knows the layout under SG_BPF_PIN_ROOT but not which build it
 * belongs to: the caller names the version directory.  Only loader.c,
 * which embeds the object, knows this build's name (sg_bpf_version()),
 * so the calls go one way, loader.c to pins.c.
 */
#ifndef SG_BPF_PINS_H
#define SG_BPF_PINS_H

#include <stdbool.h>
#include <stddef.h>

#include "bpf/loader_internal.h"

/* "lsm" or "fmod": the links' directory under the version directory. */
const char *sgb_mode_dir(enum sg_bpf_mode mode);

/* Unlink everything in directory NAME under AT, then the directory. */
int sgb_remove_tree(int at, const char *name);

/* Names under the pin root other than OURS, space-separated. */
void sgb_list_stale(int rootfd, const char *ours, char *out, size_t len);

/* The number of entries (pinned links) in directory NAME under AT. */
int sgb_count_entries(int at, const char *name);

/* Open every pinned map of b->dir into b->maps. */
int sgb_open_maps(struct sg_bpf *b, char *why, size_t len);

/*
 * sg_bpf_unload() of the version directory NAME (never NULL: the caller
 * resolves "this build").
 */
int sgb_unload(const char *name, bool force, char *why, size_t len);

#endif /* SG_BPF_PINS_H */
