// SPDX-License-Identifier: MIT
/*
 * pins.c — the pin directory: its entries, the maps in it, the programs
 * its links hold, and removing a version directory (unloading the
 * filter).  See loader.c for the layout.  Which version directory is this
 * build's is loader.c's to say: nothing here calls back (pins.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bpf/pins.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "lib/cleanup.h"

/* The pin names of the maps, as libbpf pins them (by name). */
static const char *const map_names[M__N] = {
	"sg_task", "sg_registrar", "sg_scopes", "sg_roots", "sg_rings", "sg_stats", "sg_execs",
	"sg_socks", "sg_ptys", "sg_listens",
};

SGB_DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)

/* Directory NAME under AT, read with readdir(3); NULL and errno on failure. */
static DIR *opendir_at(int at, const char *name)
{
	_cleanup_close_ int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (d)
		(void)steal_fd(&fd); /* closedir() closes it now */
	return d;
}

const char *sgb_mode_dir(enum sg_bpf_mode mode)
{
	return mode == SG_BPF_LSM ? "lsm" : "fmod";
}

/* Unlink every entry of D but . and ..: the first error, or 0. */
static int unlink_entries(DIR *d)
{
	struct dirent *de;
	int r = 0;

	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
		    unlinkat(dirfd(d), de->d_name, 0) < 0 && errno != ENOENT && r == 0)
			r = -errno;
	return r;
}

int sgb_remove_tree(int at, const char *name)
{
	DIR *d = opendir_at(at, name);
	int r;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	r = unlink_entries(d);
	closedir(d);
	if (unlinkat(at, name, AT_REMOVEDIR) < 0 && errno != ENOENT && r == 0)
		r = -errno;
	return r;
}

void sgb_list_stale(int rootfd, const char *ours, char *out, size_t len)
{
	SGB_CLEANUP(closedirp) DIR *d = opendir_at(rootfd, ".");
	struct dirent *de;
	size_t o = 0;

	out[0] = '\0';
	if (!d)
		return;
	while ((de = readdir(d)) && o < len) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, ours) == 0)
			continue;
		o += (size_t)snprintf(out + o, len - o, "%s%s", o ? " " : "", de->d_name);
	}
}

int sgb_count_entries(int at, const char *name)
{
	SGB_CLEANUP(closedirp) DIR *d = opendir_at(at, name);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	return n;
}

int sgb_open_maps(struct sg_bpf *b, char *why, size_t len)
{
	for (int i = 0; i < M__N; i++) {
		char path[192];

		snprintf(path, sizeof(path), "%s/%s", b->dir, map_names[i]);
		b->maps[i] = bpf_obj_get(path);
		if (b->maps[i] < 0)
			return sgb_fail(why, len, -errno, "cannot open the pinned map %s: %s", path,
					strerror(errno));
	}
	return 0;
}

/*
 * The program that the pinned link LP (named NAME) holds, into P; false
 * when there is no link to read.
 */
static bool read_link(const char *lp, const char *name, struct sg_bpf_prog *p)
{
	struct bpf_link_info li = { 0 };
	struct bpf_prog_info pi = { 0 };
	__u32 ll = sizeof(li), pl = sizeof(pi);
	_cleanup_close_ int lfd = bpf_obj_get(lp);
	_cleanup_close_ int pfd = -1;

	if (lfd < 0)
		return false;
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%.63s", name);
	if (bpf_obj_get_info_by_fd(lfd, &li, &ll) != 0)
		return false;
	p->id = li.prog_id;
	pfd = bpf_prog_get_fd_by_id(li.prog_id);
	if (pfd >= 0 && bpf_obj_get_info_by_fd(pfd, &pi, &pl) == 0) {
		p->verified_insns = pi.verified_insns;
		p->recursion_misses = pi.recursion_misses;
	}
	return true;
}

int sg_bpf_progs(struct sg_bpf *b, struct sg_bpf_prog *progs, size_t max, size_t *n)
{
	SGB_CLEANUP(closedirp) DIR *d = NULL;
	char path[256];
	struct dirent *de;

	*n = 0;
	snprintf(path, sizeof(path), "%s/%s", b->dir, sgb_mode_dir(b->mode));
	d = opendir_at(AT_FDCWD, path);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && *n < max) {
		char lp[512];

		if (de->d_name[0] == '.')
			continue;
		snprintf(lp, sizeof(lp), "%s/%s", path, de->d_name);
		if (read_link(lp, de->d_name, &progs[*n]))
			(*n)++;
	}
	return 0;
}

/* Running steps would lose their filter: -EBUSY while NAME has scopes. */
static int refuse_busy(const char *name, char *why, size_t len)
{
	_cleanup_close_ int sfd = -1;
	char path[256];
	uint32_t k;

	snprintf(path, sizeof(path), "%s/%s/%s", SG_BPF_PIN_ROOT, name, map_names[M_SCOPES]);
	sfd = bpf_obj_get(path);
	if (sfd >= 0 && bpf_map_get_next_key(sfd, NULL, &k) == 0)
		return sgb_fail(why, len, -EBUSY,
				"%s/%s: steps are still confined by it (scope %" PRIu32 ")",
				SG_BPF_PIN_ROOT, name, k);
	return 0;
}

/* Empty version directory NAME, open as VERFD: the first error, or 0. */
static int remove_pins(int verfd, const char *name, char *why, size_t len)
{
	SGB_CLEANUP(closedirp) DIR *d = opendir_at(verfd, ".");
	struct dirent *de;
	int r = 0;

	if (!d)
		return sgb_fail(why, len, -errno, "%s/%s: %s", SG_BPF_PIN_ROOT, name, strerror(errno));
	while ((de = readdir(d))) {
		struct stat st;
		int e;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(verfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		/* Links first (their directories), detaching the programs; then the maps. */
		e = S_ISDIR(st.st_mode) ? sgb_remove_tree(verfd, de->d_name)
					: (unlinkat(verfd, de->d_name, 0) < 0 ? -errno : 0);
		if (e < 0 && r == 0)
			r = sgb_fail(why, len, e, "cannot remove %s/%s/%s: %s", SG_BPF_PIN_ROOT, name,
				     de->d_name, strerror(-e));
	}
	return r;
}

int sgb_unload(const char *name, bool force, char *why, size_t len)
{
	_cleanup_close_ int rootfd = -1;
	_cleanup_close_ int verfd = -1;
	int r;

	if (strchr(name, '/') || name[0] == '.' || !name[0])
		return sgb_fail(why, len, -EINVAL, "not a pin directory name: %s", name);
	rootfd = open(SG_BPF_PIN_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (rootfd < 0)
		return sgb_fail(why, len, -errno, "%s: %s", SG_BPF_PIN_ROOT, strerror(errno));
	/* The loaders' lock: no stepguard is pinning into what we remove. */
	if (flock(rootfd, LOCK_EX) < 0)
		return sgb_fail(why, len, -errno, "flock %s: %s", SG_BPF_PIN_ROOT, strerror(errno));
	verfd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (verfd < 0)
		return sgb_fail(why, len, -errno, "%s/%s: %s", SG_BPF_PIN_ROOT, name, strerror(errno));
	if (!force) {
		r = refuse_busy(name, why, len);
		if (r < 0)
			return r;
	}
	r = remove_pins(verfd, name, why, len);
	if (r == 0 && unlinkat(rootfd, name, AT_REMOVEDIR) < 0)
		r = sgb_fail(why, len, -errno, "rmdir %s/%s: %s", SG_BPF_PIN_ROOT, name,
			     strerror(errno));
	return r;
}
