// SPDX-License-Identifier: MIT
/*
 * scope.c — scopes: add one (its policy, its ring buffer, its roots
 * registered through the filter's own hook), restrict what it may
 * execute (its exec files, registered the same way), mark a task with
 * it, read its events and counters, remove it, and collect the ones
 * whose stepguard died.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bpf/loader_internal.h"
#include "lib/cleanup.h"

static int pidfd_self(void)
{
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	return fd < 0 ? -errno : fd;
}

/*
 * Delete every entry of SCOPE from MAP, whose keys (KEY_SIZE bytes) start
 * with the scope id: sg_roots, sg_execs and sg_socks.
 */
static int remove_keyed(int map, size_t key_size, uint32_t scope)
{
	unsigned char key[32], next[32], *victims = NULL;
	size_t n = 0, cap = 0;
	int r = 0;
	void *prev = NULL;

	if (key_size > sizeof(key) || key_size < sizeof(uint32_t))
		return -EINVAL;
	/* Collect first: deleting while iterating a hash map restarts the walk. */
	while (bpf_map_get_next_key(map, prev, next) == 0) {
		uint32_t id;

		memcpy(&id, next, sizeof(id));
		if (id == scope) {
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 64;
				unsigned char *v = realloc(victims, ncap * key_size);

				if (!v) {
					free(victims);
					return -ENOMEM;
				}
				victims = v;
				cap = ncap;
			}
			memcpy(victims + n++ * key_size, next, key_size);
		}
		memcpy(key, next, key_size);
		prev = key;
	}
	for (size_t i = 0; i < n; i++)
		if (bpf_map_delete_elem(map, victims + i * key_size) < 0 && errno != ENOENT &&
		    r == 0)
			r = -errno;
	free(victims);
	return r;
}

/*
 * Delete every entry of MAP (sg_ptys, sg_listens: a u64 key, a u32 scope
 * value) whose value is SCOPE.  An entry that changes between the walk
 * and the delete was claimed again by someone's unlock or listen:
 * deleting it costs that maker its next open or connect (deny), never
 * lets anyone else in.
 */
static int remove_valued(int map, uint32_t scope)
{
	uint64_t key, next, *victims = NULL;
	size_t n = 0, cap = 0;
	void *prev = NULL;
	int r = 0;

	while (bpf_map_get_next_key(map, prev, &next) == 0) {
		uint32_t v;

		if (bpf_map_lookup_elem(map, &next, &v) == 0 && v == scope) {
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 64;
				uint64_t *nv = realloc(victims, ncap * sizeof(*nv));

				if (!nv) {
					free(victims);
					return -ENOMEM;
				}
				victims = nv;
				cap = ncap;
			}
			victims[n++] = next;
		}
		key = next;
		prev = &key;
	}
	for (size_t i = 0; i < n; i++)
		if (bpf_map_delete_elem(map, &victims[i]) < 0 && errno != ENOENT && r == 0)
			r = -errno;
	free(victims);
	return r;
}

/*
 * The order matters: the policy goes first, so that from this moment the
 * scope's tasks are refused everything (no scope: deny), and no walk
 * can meet a half-removed root set as "allowed".
 */
static int drop_scope(struct sg_bpf *b, uint32_t scope)
{
	int r = 0;

	if (bpf_map_delete_elem(b->maps[M_SCOPES], &scope) < 0 && errno != ENOENT)
		r = -errno;
	if (bpf_map_delete_elem(b->maps[M_RINGS], &scope) < 0 && errno != ENOENT && r == 0)
		r = -errno;
	{
		int rr = remove_keyed(b->maps[M_ROOTS], sizeof(struct sg_root_key), scope);

		if (rr < 0 && r == 0)
			r = rr;
		/*
		 * After the policy: a restricted task whose policy is gone is
		 * refused every exec, so no exec can meet half a list either.
		 */
		rr = remove_keyed(b->maps[M_EXECS], sizeof(struct sg_exec_key), scope);
		if (rr < 0 && r == 0)
			r = rr;
		/* Likewise: a task whose policy is gone reaches no socket. */
		rr = remove_keyed(b->maps[M_SOCKS], sizeof(struct sg_exec_key), scope);
		if (rr < 0 && r == 0)
			r = rr;
		/*
		 * And opens no pty (sg_pty_open()); the scope's claims go, so
		 * that a later scope given the same random id inherits none.
		 */
		rr = remove_valued(b->maps[M_PTYS], scope);
		if (rr < 0 && r == 0)
			r = rr;
		/* Likewise its listeners (sg_connect_abstract()). */
		rr = remove_valued(b->maps[M_LISTENS], scope);
		if (rr < 0 && r == 0)
			r = rr;
	}
	return r;
}

int sg_bpf_remove_scope(struct sg_bpf *b, uint32_t scope)
{
	return drop_scope(b, scope);
}

/* Is /proc/self/ns/NAME the initial namespace (inode INO)? */
static bool in_initial_ns(const char *name, unsigned long ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	return stat(path, &st) == 0 && st.st_ino == ino;
}

/*
 * Is TGID, started at START_NS (boot time, as the kernel recorded it),
 * still running?  /proc/<tgid>/stat field 22 is the same start time in
 * clock ticks.  1 alive, 0 gone, -errno when it cannot tell.
 */
static int owner_alive(uint32_t tgid, uint64_t start_ns)
{
	char path[64], buf[1024], *p, *end;
	long hz = sysconf(_SC_CLK_TCK);
	unsigned long long ticks;
	ssize_t n;
	int fd, field;

	if (hz <= 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/stat", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n == 0 ? 0 : -errno;
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: count fields after the last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return -EBADMSG;
	for (field = 2; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	/* strtoull, not sscanf: a number out of range is an error, not undefined */
	errno = 0;
	ticks = strtoull(p, &end, 10);
	if (end == p || errno)
		return -EBADMSG;
	return ticks == start_ns / (1000000000ULL / (unsigned long long)hz);
}

int sg_bpf_gc(struct sg_bpf *b)
{
	uint32_t key, next, *dead = NULL;
	size_t n = 0, cap = 0;
	void *prev = NULL;
	int removed = 0;

	/* PROC_PID_INIT_INO and PROC_TIME_INIT_INO: the kernel's ids of the initial namespaces */
	if (!in_initial_ns("pid", 0xEFFFFFFCUL) ||
	    (access("/proc/self/ns/time", F_OK) == 0 && !in_initial_ns("time", 0xEFFFFFFAUL)))
		return 0;
	while (bpf_map_get_next_key(b->maps[M_SCOPES], prev, &next) == 0) {
		struct sg_scope s;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(b->maps[M_SCOPES], &next, &s) < 0 || !s.owner_tgid)
			continue; /* being set up right now: no owner recorded yet */
		if (owner_alive(s.owner_tgid, s.owner_start_ns) != 0)
			continue; /* alive, or cannot tell: keep */
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			uint32_t *v = realloc(dead, ncap * sizeof(*v));

			if (!v) {
				free(dead);
				return -ENOMEM;
			}
			dead = v;
			cap = ncap;
		}
		dead[n++] = next;
	}
	for (size_t i = 0; i < n; i++)
		if (drop_scope(b, dead[i]) == 0)
			removed++;
	free(dead);
	return removed;
}

static int ring_sample(void *ctx, void *data, size_t size)
{
	struct sg_bpf *b = ctx;

	if (sg_bpf_event_check(data, size) < 0)
		return 0; /* not ours to read: skip it, keep the others */
	if (b->fn && !b->fn_stop)
		b->fn_stop = b->fn(data, b->fn_ctx);
	return 0;
}

/* What makes the filter's hook register FD, as KIND: 0 or an errno. */
static int registration_call(uint32_t kind, int fd)
{
	long r;

	if (kind == SG_REG_ROOTS)
		/* -1, -1: "change no owner"; the hook cancels it anyway */
		r = fchownat(fd, "", (uid_t)-1, (gid_t)-1, AT_EMPTY_PATH);
	else
		/*
		 * F_GETFD changes nothing if the hook is not there; syscall(),
		 * not fcntl(3), so that the argument surely reaches the kernel.
		 */
		r = syscall(SYS_fcntl, fd, F_GETFD, (unsigned long)SG_REG_EXEC_MAGIC);
	return r < 0 ? errno : 0;
}

/*
 * Register each of FDS for SCOPE through the filter's own hook: roots
 * (SG_REG_ROOTS) through path_chown (see sg_register()), exec files
 * (SG_REG_EXECS) and allowed sockets (SG_REG_SOCKS) through file_fcntl
 * (see sg_register_ident()).
 */
static int register_objects(struct sg_bpf *b, uint32_t scope, uint32_t kind, const int *fds,
			    size_t n, size_t *failed)
{
	struct sg_registrar reg = { .scope = scope, .kind = kind };
	_cleanup_close_ int pidfd = -1;
	int r = 0;

	if ((pid_t)syscall(SYS_gettid) != getpid())
		return -EINVAL; /* the pidfd names the main thread, which must do the calls */
	pidfd = pidfd_self();
	if (pidfd < 0)
		return pidfd;
	if (bpf_map_update_elem(b->maps[M_REGISTRAR], &pidfd, &reg, BPF_ANY) < 0)
		return -errno;
	for (size_t i = 0; i < n && r == 0; i++) {
		uint32_t before;
		int tries = 0, e = 0;

		if (bpf_map_lookup_elem(b->maps[M_REGISTRAR], &pidfd, &reg) < 0) {
			r = -errno;
			break;
		}
		before = reg.count;
		do {
			e = registration_call(kind, fds[i]);
			if (bpf_map_lookup_elem(b->maps[M_REGISTRAR], &pidfd, &reg) < 0) {
				r = -errno;
				break;
			}
			/* 6.1: the hook's storage lookup can fail when the lock is busy; retry */
		} while (r == 0 && reg.count == before && e == 0 && ++tries < 3);
		if (r)
			break;
		if (reg.err) {
			r = reg.err;
		} else if (reg.count == before + 1) { // NOLINT(bugprone-branch-clone): registered, and EROFS below, are two different reasons to go on
			continue;
		} else if (kind == SG_REG_ROOTS && e == EROFS) {
			/* Read-only: the VFS refuses writes there before any hook. */
			continue;
		} else if (e == 0 || e == ECANCELED) {
			/* The call went through untouched: our hooks are not running. */
			r = -EOPNOTSUPP;
		} else {
			r = -e;
		}
		if (failed)
			*failed = i;
	}
	if (bpf_map_delete_elem(b->maps[M_REGISTRAR], &pidfd) < 0 && r == 0)
		r = -errno;
	return r;
}

/*
 * A scope being added: every failure drops it again (drop_scope()), so
 * that no scope that no step will use is left in the maps.
 */
struct scope_undo {
	struct sg_bpf *b;
	uint32_t id; /* 0: nothing to drop */
};

static void scope_undo_drop(const struct scope_undo *u)
{
	if (u->id)
		(void)drop_scope(u->b, u->id);
}

int sg_bpf_add_scope(struct sg_bpf *b, const int *root_fds, size_t n, uint32_t mode,
		     uint32_t *scope, size_t *failed)
{
	struct sg_scope pol = { .mode = mode };
	_cleanup_close_ int ring_fd = -1;
	SGB_CLEANUP(scope_undo_drop) struct scope_undo undo = { .b = b };
	uint32_t id = 0;
	int r;

	if (failed)
		*failed = n;
	if (mode != SG_BPF_ENFORCE && mode != SG_BPF_AUDIT)
		return -EINVAL;
	if (b->n_scopes == SG_MAX_SCOPES)
		return -EMFILE;
	(void)sg_bpf_gc(b); /* best effort: a failure leaves rings, not holes */

	/* A random id: concurrent stepguards pick without talking to each other. */
	for (int tries = 0;; tries++) {
		if (getrandom(&id, sizeof(id), 0) != sizeof(id))
			return -errno;
		id &= 0x7fffffff;
		if (id == 0)
			continue;
		if (bpf_map_update_elem(b->maps[M_SCOPES], &id, &pol, BPF_NOEXIST) == 0)
			break;
		if (errno == E2BIG || errno == ENOMEM)
			return -ENOSPC; /* scopes map full: no step can start */
		if (errno != EEXIST || tries > 16)
			return -errno;
	}
	undo.id = id;

	ring_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "sg_ring", 0, 0, SG_RING_SIZE, NULL);
	if (ring_fd < 0)
		return -errno;
	if (bpf_map_update_elem(b->maps[M_RINGS], &id, &ring_fd, BPF_NOEXIST) < 0)
		return errno == E2BIG ? -ENOSPC : -errno;
	r = register_objects(b, id, SG_REG_ROOTS, root_fds, n, failed);
	if (r < 0)
		return r;

	if (!b->rb) {
		b->rb = ring_buffer__new(ring_fd, ring_sample, b, NULL);
		if (!b->rb)
			return -errno;
	} else if (ring_buffer__add(b->rb, ring_fd, ring_sample, b) < 0) {
		return -errno;
	}
	undo.id = 0; /* complete: the handle's until sg_bpf_remove_scope() */
	b->scopes[b->n_scopes].id = id;
	b->scopes[b->n_scopes].ring_fd = steal_fd(&ring_fd);
	b->scopes[b->n_scopes].confined = false;
	b->scopes[b->n_scopes].socks = false;
	b->n_scopes++;
	*scope = id;
	return 0;
}

/* The index of SCOPE in the handle's scopes, or -ENOENT. */
static int scope_slot(const struct sg_bpf *b, uint32_t scope)
{
	for (size_t i = 0; i < b->n_scopes; i++)
		if (b->scopes[i].id == scope)
			return (int)i;
	return -ENOENT;
}

int sg_bpf_scope_exec_allow(struct sg_bpf *b, uint32_t scope, const int *exec_fds, size_t n)
{
	struct sg_scope pol;
	int slot = scope_slot(b, scope);

	if (slot < 0)
		return slot;
	if (!b->has_exec)
		return -EOPNOTSUPP;
	/*
	 * A task marked already carries the mark it got, without the
	 * restriction, and so would all it forks: too late.
	 */
	if (b->scopes[slot].confined)
		return -EBUSY;
	if (n && !exec_fds)
		return -EINVAL;
	/*
	 * Exec files are regular files.  Anything else is a caller's
	 * mistake (a symlink opened with O_NOFOLLOW would register the
	 * link, which exec never loads): refused before anything changes.
	 */
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (fstat(exec_fds[i], &st) < 0)
			return -errno;
		if (!S_ISREG(st.st_mode))
			return -EINVAL;
	}
	if (bpf_map_lookup_elem(b->maps[M_SCOPES], &scope, &pol) < 0)
		return -errno;
	if (pol.flags & SG_SCOPE_EXEC)
		return -EEXIST; /* the list is fixed before the step starts */
	/*
	 * Restricted first, files second: a failure below leaves a scope
	 * that refuses more than its list, never one that refuses nothing.
	 * Writing the whole record is safe: no task is marked yet, so no
	 * program is counting in it.
	 */
	pol.flags |= SG_SCOPE_EXEC;
	if (bpf_map_update_elem(b->maps[M_SCOPES], &scope, &pol, BPF_EXIST) < 0)
		return -errno;
	return register_objects(b, scope, SG_REG_EXECS, exec_fds, n, NULL);
}

int sg_bpf_scope_sockets_allow(struct sg_bpf *b, uint32_t scope, const int *fds, size_t n)
{
	int slot = scope_slot(b, scope);

	if (slot < 0)
		return slot;
	if (!b->has_reg)
		return -EOPNOTSUPP;
	/*
	 * A task marked already may have been refused a socket the list
	 * would allow, and the list is part of what the step was started
	 * with: fixed before it starts, as the exec list is.
	 */
	if (b->scopes[slot].confined)
		return -EBUSY;
	if (b->scopes[slot].socks)
		return -EEXIST;
	if (n && !fds)
		return -EINVAL;
	/*
	 * Sockets only: registering a directory or a regular file would
	 * name nothing a connect ever reaches, and is a caller's mistake.
	 */
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (fstat(fds[i], &st) < 0)
			return -errno;
		if (!S_ISSOCK(st.st_mode))
			return -EINVAL;
	}
	b->scopes[slot].socks = true;
	return register_objects(b, scope, SG_REG_SOCKS, fds, n, NULL);
}

int sg_bpf_confine_pid(struct sg_bpf *b, int pidfd, uint32_t scope)
{
	struct sg_mark mark = { .scope = scope };
	struct sg_scope pol;
	int slot = scope_slot(b, scope);

	/* From the first attempt on, restricting exec would come too late. */
	if (slot >= 0)
		b->scopes[slot].confined = true;
	if (bpf_map_lookup_elem(b->maps[M_SCOPES], &scope, &pol) < 0)
		return -errno;
	/*
	 * The mark carries the exec restriction: the hook reads it there,
	 * because the mark outlives the policy (events.h, SG_SCOPE_EXEC).
	 */
	mark.flags = pol.flags & SG_SCOPE_EXEC;
	/* NOEXIST: a mark is set once, and never moved to another scope. */
	if (bpf_map_update_elem(b->maps[M_TASK], &pidfd, &mark, BPF_NOEXIST) < 0)
		return -errno;
	return 0;
}

int sg_bpf_scope_counts(struct sg_bpf *b, uint32_t scope, struct sg_bpf_counts *out)
{
	struct sg_scope s;

	if (bpf_map_lookup_elem(b->maps[M_SCOPES], &scope, &s) < 0)
		return -errno;
	out->denied = s.denied;
	out->audited = s.audited;
	out->lost = s.lost;
	out->nroots = s.nroots;
	out->mode = s.mode;
	out->nexecs = s.nexecs;
	out->nsocks = s.nsocks;
	out->exec_restricted = (s.flags & SG_SCOPE_EXEC) != 0;
	return 0;
}

int sg_bpf_poll(struct sg_bpf *b, int timeout_ms, sg_bpf_event_fn fn, void *ctx)
{
	int r;

	if (!b->rb)
		return -ENOENT;
	b->fn = fn;
	b->fn_ctx = ctx;
	b->fn_stop = 0;
	r = ring_buffer__poll(b->rb, timeout_ms);
	return r < 0 ? (r == -EINTR ? 0 : r) : r;
}

int sg_bpf_epoll_fd(const struct sg_bpf *b)
{
	return b->rb ? ring_buffer__epoll_fd(b->rb) : -ENOENT;
}
