// SPDX-License-Identifier: MIT
/*
 * pins.c — the pin directory: its entries, the maps in it, the programs
 * its links hold, and removing it (unloading the filter).  See loader.c
 * for the layout.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bpf/loader_internal.h"

const char *const sgb_map_names[M__N] = {
	"sg_task", "sg_registrar", "sg_scopes", "sg_roots", "sg_rings", "sg_stats",
};

int sgb_fail(char *why, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return err;
}

const char *sgb_mode_dir(enum sg_bpf_mode mode)
{
	return mode == SG_BPF_LSM ? "lsm" : "fmod";
}

int sgb_remove_tree(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
		    unlinkat(fd, de->d_name, 0) < 0 && errno != ENOENT && r == 0)
			r = -errno;
	closedir(d);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && r == 0)
		r = -errno;
	return r;
}

void sgb_list_stale(int rootfd, const char *ours, char *out, size_t len)
{
	int fd = openat(rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	size_t o = 0;
	DIR *d;

	out[0] = '\0';
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) && o < len) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, ours) == 0)
			continue;
		o += (size_t)snprintf(out + o, len - o, "%s%s", o ? " " : "", de->d_name);
	}
	closedir(d);
}

int sgb_count_entries(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

int sgb_open_maps(struct sg_bpf *b, char *why, size_t len)
{
	for (int i = 0; i < M__N; i++) {
		char path[192];

		snprintf(path, sizeof(path), "%s/%s", b->dir, sgb_map_names[i]);
		b->maps[i] = bpf_obj_get(path);
		if (b->maps[i] < 0)
			return sgb_fail(why, len, -errno, "cannot open the pinned map %s: %s", path,
					strerror(errno));
	}
	return 0;
}

int sg_bpf_progs(struct sg_bpf *b, struct sg_bpf_prog *progs, size_t max, size_t *n)
{
	char path[256];
	struct dirent *de;
	DIR *d;
	int fd;

	*n = 0;
	snprintf(path, sizeof(path), "%s/%s", b->dir, sgb_mode_dir(b->mode));
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d)) && *n < max) {
		struct bpf_link_info li = { 0 };
		struct bpf_prog_info pi = { 0 };
		__u32 ll = sizeof(li), pl = sizeof(pi);
		struct sg_bpf_prog *p = &progs[*n];
		char lp[512];
		int lfd, pfd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(lp, sizeof(lp), "%s/%s", path, de->d_name);
		lfd = bpf_obj_get(lp);
		if (lfd < 0)
			continue;
		memset(p, 0, sizeof(*p));
		snprintf(p->name, sizeof(p->name), "%.63s", de->d_name);
		if (bpf_obj_get_info_by_fd(lfd, &li, &ll) == 0) {
			p->id = li.prog_id;
			pfd = bpf_prog_get_fd_by_id(li.prog_id);
			if (pfd >= 0) {
				if (bpf_obj_get_info_by_fd(pfd, &pi, &pl) == 0) {
					p->verified_insns = pi.verified_insns;
					p->recursion_misses = pi.recursion_misses;
				}
				close(pfd);
			}
			(*n)++;
		}
		close(lfd);
	}
	closedir(d);
	return 0;
}

int sg_bpf_unload(const char *version_dir, bool force, char *why, size_t len)
{
	const char *name = version_dir ? version_dir : sg_bpf_version();
	char path[256];
	int rootfd, verfd, r = 0;
	struct dirent *de;
	DIR *d;

	if (strchr(name, '/') || name[0] == '.' || !name[0])
		return sgb_fail(why, len, -EINVAL, "not a pin directory name: %s", name);
	rootfd = open(SG_BPF_PIN_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (rootfd < 0)
		return sgb_fail(why, len, -errno, "%s: %s", SG_BPF_PIN_ROOT, strerror(errno));
	if (flock(rootfd, LOCK_EX) < 0) {
		r = sgb_fail(why, len, -errno, "flock %s: %s", SG_BPF_PIN_ROOT, strerror(errno));
		close(rootfd);
		return r;
	}
	verfd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (verfd < 0) {
		r = sgb_fail(why, len, -errno, "%s/%s: %s", SG_BPF_PIN_ROOT, name, strerror(errno));
		close(rootfd);
		return r;
	}
	if (!force) {
		/* Running steps would lose their filter: refuse while scopes exist. */
		int sfd;
		uint32_t k;

		snprintf(path, sizeof(path), "%s/%s/sg_scopes", SG_BPF_PIN_ROOT, name);
		sfd = bpf_obj_get(path);
		if (sfd >= 0) {
			bool busy = bpf_map_get_next_key(sfd, NULL, &k) == 0;

			close(sfd);
			if (busy) {
				r = sgb_fail(why, len, -EBUSY,
					     "%s/%s: steps are still confined by it (scope %" PRIu32 ")",
					     SG_BPF_PIN_ROOT, name, k);
				goto out;
			}
		}
	}
	d = fdopendir(dup(verfd));
	if (!d) {
		r = sgb_fail(why, len, -errno, "%s/%s: %s", SG_BPF_PIN_ROOT, name, strerror(errno));
		goto out;
	}
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
	closedir(d);
	if (r == 0 && unlinkat(rootfd, name, AT_REMOVEDIR) < 0)
		r = sgb_fail(why, len, -errno, "rmdir %s/%s: %s", SG_BPF_PIN_ROOT, name,
			     strerror(errno));
out:
	close(verfd);
	close(rootfd);
	return r;
}
