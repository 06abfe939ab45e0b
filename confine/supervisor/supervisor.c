// SPDX-License-Identifier: MIT
/*
 * stepguard supervisor — the filter rules and the listener.
 *
 * The step's filter sends the calls Landlock does not mediate to
 * stepguard; this file adds those rules, checks at start that the kernel
 * has everything the supervisor needs (refusing to start otherwise, never
 * running with a hole), receives each notification and sends the answer.
 * What happens in between is in ops.c.
 *
 * It never answers SECCOMP_USER_NOTIF_FLAG_CONTINUE.  CONTINUE lets the
 * kernel run the step's call as the step made it: the kernel then reads
 * the path from the step's memory and looks it up again, and a second
 * thread of the step can swap the path, or a symlink in it, between our
 * check and that lookup.  So the supervisor performs allowed calls itself,
 * on the descriptor it resolved and judged, and answers with their result.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "confine/supervisor/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/vocab.h"

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SG_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#else
#define SG_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOCTL_NOTIF_SET_FLAGS
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SG_USER_NOTIF_FD_SYNC_WAKE_UP 1UL
#else
#define SG_USER_NOTIF_FD_SYNC_WAKE_UP ((unsigned long)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP)
#endif

/*
 * Calls refused with ENOSYS rather than supervised.  Their arguments sit
 * in a structure we would have to copy and interpret (openat2's open_how,
 * setxattrat's xattr_args, file_setattr's file_attr), and libc and tools
 * treat ENOSYS as "older kernel" and fall back to calls we do supervise
 * (openat, setxattr/lsetxattr).  file_setattr (6.17) sets inode flags and
 * project ids, metadata Landlock does not mediate either; its fallback, the
 * FS_IOC_FSSETXATTR ioctl, is a gap of its own (docs/supervisor.md, Limits).  A name this libseccomp cannot
 * resolve already gets ENOSYS from sg_seccomp_build()'s guard above its
 * table.
 */
static const char *const sg_enosys_always[] = {
	"setxattrat", "removexattrat", "file_setattr", NULL,
};

static int sg_rule(scmp_filter_ctx ctx, uint32_t action, int nr,
		   unsigned int n_args, const struct scmp_arg_cmp *cmp)
{
	int r = seccomp_rule_add_array(ctx, action, nr, n_args, cmp);

	/*
	 * A syscall that already has an unconditional rule keeps it:
	 * libseccomp 2.5 drops the new rule and returns 0, other versions
	 * say -EEXIST.  Here that is a policy [seccomp] deny of the same
	 * call, and a refusal is stricter than supervision, so keep it
	 * either way (the unit test checks the exported filter).
	 */
	return r == -EEXIST ? 0 : r;
}

static int sg_add_open_rules(scmp_filter_ctx ctx)
{
	/*
	 * Landlock checks write_file when a file is opened for writing, and
	 * the kernel truncates only after that check, so O_WRONLY|O_TRUNC and
	 * O_RDWR|O_TRUNC are already refused outside the roots.  The hole is
	 * an access mode without FMODE_WRITE: O_RDONLY (0), and 3, which
	 * opens for ioctls only.  O_PATH makes the kernel ignore O_TRUNC.  So
	 * notify exactly flags & (O_ACCMODE|O_TRUNC|O_PATH) == O_TRUNC | mode
	 * for mode 0 and 3: fopen("w") and creat() never reach stepguard.
	 * The kernel reads the flags as an int; the mask lies in the low 32
	 * bits, so junk above them changes nothing.
	 */
	/*
	 * And the write intents (intent.c): an open that writes or may
	 * create.  The supervisor only tells a refusal apart, to record it,
	 * and lets the rest through to Landlock, which decides.  So these are
	 * opens with access mode O_WRONLY or O_RDWR, or with O_CREAT, and
	 * never O_PATH (the kernel then ignores every other flag).  O_TMPFILE
	 * needs a writing access mode, so it is among them.  Read-only opens
	 * without O_CREAT or O_TRUNC stay off the listener: they are most
	 * opens.  Overlapping compares (O_RDONLY|O_CREAT|O_TRUNC) notify once.
	 */
	static const struct { uint64_t mask, want; } rules[] = {
		{ O_ACCMODE | O_TRUNC | O_PATH, O_TRUNC },
		{ O_ACCMODE | O_TRUNC | O_PATH, O_TRUNC | O_ACCMODE },
		{ O_ACCMODE | O_PATH, O_WRONLY },
		{ O_ACCMODE | O_PATH, O_RDWR },
		{ O_CREAT | O_PATH, O_CREAT },
	};
	int nr = seccomp_syscall_resolve_name("open");
	int r;

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		struct scmp_arg_cmp open_cmp = SCMP_A1(SCMP_CMP_MASKED_EQ, rules[i].mask, rules[i].want);
		struct scmp_arg_cmp openat_cmp = SCMP_A2(SCMP_CMP_MASKED_EQ, rules[i].mask,
							 rules[i].want);

		/* arm64 and the other generic-table arches have no open(2). */
		if (nr >= 0) {
			r = sg_rule(ctx, SCMP_ACT_NOTIFY, nr, 1, &open_cmp);
			if (r < 0)
				return r;
		}
		r = sg_rule(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(openat), 1, &openat_cmp);
		if (r < 0)
			return r;
	}
	/*
	 * An argument rule makes every openat run the filter instead of the
	 * kernel's allow cache.  No priority is asked for: the filter is a
	 * binary tree of syscall numbers (seccomp.c), which ignores
	 * seccomp_syscall_priority(), and finds openat in as many compares
	 * as any other number.
	 */
	return 0;
}

/*
 * mknod of a regular file, FIFO or socket (type 0 is a regular file):
 * the write intents of mknod.  Device nodes are refused by the seccomp
 * filter itself (EPERM, sg_seccomp_build()) before any listener is
 * asked, and these masked compares never overlap that rule.  The kernel
 * reads the mode as an unsigned int: the mask lies in the low half.
 */
static int sg_add_mknod_rules(scmp_filter_ctx ctx)
{
	static const uint64_t types[] = { 0, S_IFREG, S_IFIFO, S_IFSOCK };
	static const struct { const char *name; unsigned int arg; } calls[] = {
		{ "mknod", 1 }, { "mknodat", 2 },
	};
	int r;

	for (size_t c = 0; c < sizeof(calls) / sizeof(calls[0]); c++) {
		int nr = seccomp_syscall_resolve_name(calls[c].name);

		if (nr < 0) /* no mknod(2) on the generic-table arches */
			continue;
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
			struct scmp_arg_cmp cmp = { .arg = calls[c].arg, .op = SCMP_CMP_MASKED_EQ,
						    .datum_a = S_IFMT, .datum_b = types[i] };

			r = sg_rule(ctx, SCMP_ACT_NOTIFY, nr, 1, &cmp);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/*
 * A step must not stack a user-notification filter of its own.  Of several
 * filters that answer USER_NOTIF, the kernel notifies only the newest one's
 * listener, and a CONTINUE from it runs the call without asking ours: the
 * step would answer its own chmod.  (A patch from late 2025, "seccomp:
 * handle multiple listeners case", makes the kernel ask every listener in
 * turn; kernels without it are common.)  A filter without a listener cannot
 * notify at all (the kernel answers ENOSYS), so refusing
 * SECCOMP_FILTER_FLAG_NEW_LISTENER is enough; filters without it (a CLI's
 * own sandbox) load as before.  The kernel reads the flags as an unsigned
 * int: the mask lies in the low half.
 */
static int sg_add_listener_rule(scmp_filter_ctx ctx)
{
	struct scmp_arg_cmp cmp = SCMP_A1(SCMP_CMP_MASKED_EQ,
					  SECCOMP_FILTER_FLAG_NEW_LISTENER,
					  SECCOMP_FILTER_FLAG_NEW_LISTENER);

	return sg_rule(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(seccomp), 1, &cmp);
}

int sg_supervisor_add_rules(scmp_filter_ctx ctx)
{
	int r;

	if (!ctx)
		return -EINVAL;
	/* The argument layouts in ops.c are the 64-bit ones. */
	if (sizeof(long) != 8)
		return -EOPNOTSUPP;
	/* API level 5: SCMP_ACT_NOTIFY, in both libseccomp and the kernel. */
	if (seccomp_api_get() < 5)
		return -EOPNOTSUPP;

	for (size_t i = 0; i < sg_n_calls; i++) {
		const struct sg_call *c = &sg_calls[i];
		int nr;

		/*
		 * setgroups is among these: not judged, only noted, so the
		 * supervisor knows when a task's groups may have changed.
		 */
		if (c->kind == SG_K_OPEN || c->kind == SG_K_TRUNCATE || c->kind == SG_K_EXEC ||
		    c->kind == SG_K_MKNOD || c->kind == SG_K_SCHED || c->kind == SG_K_CONNECT ||
		    c->kind == SG_K_SENDTO)
			continue;
		nr = seccomp_syscall_resolve_name(c->name);
		if (nr < 0) /* not on this architecture (chmod on arm64) */
			continue;
		r = sg_rule(ctx, SCMP_ACT_NOTIFY, nr, 0, NULL);
		if (r < 0)
			return r;
	}

	r = sg_add_listener_rule(ctx);
	if (r < 0)
		return r;

	for (const char *const *p = sg_enosys_always; *p; p++) {
		int nr = seccomp_syscall_resolve_name(*p);

		if (nr < 0)
			continue;
		r = sg_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0, NULL);
		if (r < 0)
			return r;
	}

	/*
	 * Truncation by a call that does not open for writing: Landlock's
	 * WRITE_FILE never sees it, and stepguard leaves Landlock's TRUNCATE
	 * right (ABI 3) unhandled because it makes every read-only open walk
	 * to / (see sg_landlock_rights_for_abi()).  So on every ABI:
	 * truncate(2) and O_TRUNC without write access come here.
	 */
	r = sg_rule(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(truncate), 0, NULL);
	if (r < 0)
		return r;
	r = sg_add_open_rules(ctx);
	if (r < 0)
		return r;
	r = sg_add_mknod_rules(ctx);
	if (r < 0)
		return r;
	/*
	 * Scheduling and limits of other processes (sched.c): the self
	 * forms stay off the listener, every other form is notified.
	 */
	r = sg_sched_add_rules(ctx);
	if (r < 0)
		return r;
	/*
	 * Sockets (connect.c): every connect, and sendto with an address;
	 * a pathname UNIX socket outside the roots is refused.
	 */
	r = sg_connect_add_rules(ctx);
	if (r < 0)
		return r;
	/*
	 * openat2 carries its flags in memory, where no filter can look, and
	 * supervising every openat2 would mean replaying every open with its
	 * RESOLVE_* flags.  ENOSYS sends its users (systemd, runc, libpathrs)
	 * to their openat fallback, which the rules above see.
	 */
	return sg_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0, NULL);
}

int sg_supervisor_add_exec_rules(scmp_filter_ctx ctx)
{
	int r;

	if (!ctx)
		return -EINVAL;
	/*
	 * Every execve and execveat of a ruling step comes here, so that a
	 * refused one is reported.  Landlock's EXECUTE right refuses it
	 * underneath either way (sg_landlock_build_exec()): the supervisor
	 * only answers early what Landlock would refuse, and lets every
	 * other exec run (CONTINUE), which is safe for that reason alone.
	 */
	r = sg_rule(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(execve), 0, NULL);
	if (r == 0)
		r = sg_rule(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(execveat), 0, NULL);
	return r;
}

/* ---- start ---------------------------------------------------------- */

/*
 * SECCOMP_ADDFD_FLAG_SEND (5.14) installs a descriptor and answers the call
 * with its number in one step; without it, the step could see the number
 * before the descriptor exists, or a signal could leave a descriptor
 * behind.  Probe it without a notification: the kernel checks the flags
 * before it looks at srcfd, so a known flag gets EBADF for srcfd -1, an
 * unknown one (or no ADDFD at all, before 5.9) EINVAL.
 */
static int sg_probe_addfd_send(int listener)
{
	struct seccomp_notif_addfd a = {
		.id = 0,
		.flags = SECCOMP_ADDFD_FLAG_SEND,
		.srcfd = (uint32_t)-1,
	};

	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a) == 0)
		return -EIO; /* cannot succeed with srcfd -1 */
	return errno == EBADF ? 0 : -EOPNOTSUPP;
}

/* openat2 (5.6) and pidfd_open/pidfd_getfd (5.6), on ourselves. */
static int sg_probe_calls(int listener)
{
	_cleanup_close_ int root = -1, pidfd = -1, dup = -1;

	root = sg_openat2(AT_FDCWD, "/", O_PATH | O_CLOEXEC, RESOLVE_NO_MAGICLINKS);
	if (root < 0)
		return root == -ENOSYS ? -EOPNOTSUPP : root;
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0)
		return errno == ENOSYS ? -EOPNOTSUPP : -errno;
	dup = (int)syscall(SYS_pidfd_getfd, pidfd, listener, 0);
	if (dup < 0)
		return errno == ENOSYS ? -EOPNOTSUPP : -errno;
	return 0;
}

/*
 * The descriptor must be a seccomp listener: the launcher receives it from
 * a socket, and answering notifications on anything else would be a bug
 * that fails open.  /proc must be mounted: the supervisor reads the step
 * through it and acts through /proc/self/fd.
 */
static int sg_check_listener(int fd)
{
	char p[SG_FD_PATH_MAX], name[64];
	struct statfs sf;
	ssize_t n;

	if (statfs("/proc/self/fd", &sf) < 0 || sf.f_type != PROC_SUPER_MAGIC)
		return -EOPNOTSUPP;
	n = readlink(sg_fd_path(p, fd), name, sizeof(name) - 1);
	if (n < 0)
		return errno == ENOENT ? -EBADF : -errno;
	name[n] = '\0';
	return strcmp(name, "anon_inode:seccomp notify") == 0 ? 0 : -EINVAL;
}

/*
 * Is /proc the procfs of our pid namespace?  Then the caller's numbers,
 * which the kernel gives us in our namespace, are its names there, and
 * its "/proc/self" can be spelled "/proc/TGID" (resolve.c).  If not, its
 * /proc/self paths stay refused.
 */
static bool sg_proc_is_ours(void)
{
	char link[32], want[32];
	ssize_t n = readlink("/proc/self", link, sizeof(link) - 1);

	if (n < 0)
		return false;
	link[n] = '\0';
	snprintf(want, sizeof(want), "%d", (int)getpid());
	return strcmp(link, want) == 0;
}

/*
 * fchmodat2(fd, "", mode, AT_EMPTY_PATH) (6.6) changes the mode of the
 * descriptor's own inode, O_PATH included, without the lookup through
 * /proc/self/fd that chmod of a descriptor needs otherwise (ops.c).  Probed
 * on a descriptor of /proc/self: procfs refuses every mode change of a
 * process directory with EPERM, root's too, after the lookup, so EPERM
 * means the flag works and nothing changed; ENOSYS means no fchmodat2,
 * EINVAL or ENOENT a kernel that does not take the empty path.
 */
static bool sg_probe_fchmodat2_empty(void)
{
	_cleanup_close_ int fd = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	long r;

	if (fd < 0)
		return false;
	r = syscall(SG_SYS_fchmodat2, fd, "", 0555, AT_EMPTY_PATH);
	return r < 0 && errno == EPERM;
}

/*
 * SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (6.6): the step's thread waits while
 * we work, so the kernel may switch to us on its CPU and back, instead of
 * waking us elsewhere; a round trip costs about a third less here.  Purely
 * a scheduling hint: without it (older kernel) everything works the same.
 */
static void sg_sync_wake_up(int listener)
{
	(void)ioctl(listener, SG_IOCTL_NOTIF_SET_FLAGS, SG_USER_NOTIF_FD_SYNC_WAKE_UP);
}

static int sg_take_roots(struct sg_supervisor *s, const struct sg_root *roots,
			 size_t n)
{
	if (n && !roots)
		return -EINVAL;
	s->roots = calloc(n ? n : 1, sizeof(*s->roots));
	if (!s->roots)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct sg_sup_root *r = &s->roots[i];
		struct stat st;

		r->fd = -1;
		if (roots[i].fd < 0 || fstat(roots[i].fd, &st) < 0)
			return -EINVAL;
		/* Same refusal as the Landlock backend: a rule on a link is a mistake. */
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		/*
		 * Our own duplicate keeps the inode alive, so its number cannot
		 * be reused by another file while we judge by it.
		 */
		r->fd = fcntl(roots[i].fd, F_DUPFD_CLOEXEC, 3);
		if (r->fd < 0)
			return -errno;
		s->n_roots = i + 1;
		r->dev = st.st_dev;
		r->ino = st.st_ino;
		r->dir = S_ISDIR(st.st_mode);
		r->device = S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode);
		/*
		 * A directory root's path, for resolving beneath it: only a
		 * shortcut (resolve.c checks it still names the root, and
		 * resolves from our descriptor), so a root we cannot name
		 * just takes the walk up.
		 */
		if (r->dir) {
			char link[SG_FD_PATH_MAX], p[PATH_MAX];
			ssize_t len = readlink(sg_fd_path(link, r->fd), p, sizeof(p) - 1);

			if (len > 0 && p[0] == '/') {
				p[len] = '\0';
				r->path = strdup(p);
				if (!r->path)
					return -ENOMEM;
			}
		}
	}
	return 0;
}

int sg_supervisor_set_execs(struct sg_supervisor *s, const struct sg_root *execs, size_t n)
{
	if (!s || (n && !execs) || s->execs)
		return -EINVAL;
	s->execs = calloc(n ? n : 1, sizeof(*s->execs));
	if (!s->execs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct sg_sup_root *e = &s->execs[s->n_execs];
		struct stat st;

		if (execs[i].fd < 0) /* an exec-allow name this machine lacks */
			continue;
		if (fstat(execs[i].fd, &st) < 0)
			return -errno;
		/* Our duplicate keeps the inode, and so its number, the file's. */
		e->fd = fcntl(execs[i].fd, F_DUPFD_CLOEXEC, 3);
		if (e->fd < 0)
			return -errno;
		e->dev = st.st_dev;
		e->ino = st.st_ino;
		s->n_execs++;
	}
	return 0;
}

int sg_supervisor_set_sockets(struct sg_supervisor *s, const struct sg_root *v, size_t n)
{
	if (!s || (n && !v) || s->sockets)
		return -EINVAL;
	s->sockets = calloc(n ? n : 1, sizeof(*s->sockets));
	if (!s->sockets)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct sg_sup_root *e = &s->sockets[s->n_sockets];
		struct stat st;

		if (v[i].fd < 0) /* a [sockets] allow name this machine lacks */
			continue;
		if (fstat(v[i].fd, &st) < 0)
			return -errno;
		/* Only a socket: a listed directory would not mean "every socket in it". */
		if (!S_ISSOCK(st.st_mode))
			return -EINVAL;
		/* Our duplicate keeps the inode, and so its number, the socket's. */
		e->fd = fcntl(v[i].fd, F_DUPFD_CLOEXEC, 3);
		if (e->fd < 0)
			return -errno;
		e->dev = st.st_dev;
		e->ino = st.st_ino;
		s->n_sockets++;
	}
	return 0;
}

static int sg_alloc_bufs(struct sg_supervisor *s)
{
	struct seccomp_notif_sizes sz;

	/* The kernel's structures may be larger than our headers' (newer kernel). */
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) < 0)
		return -errno;
	s->req_size = sz.seccomp_notif > sizeof(*s->req) ? sz.seccomp_notif
							 : sizeof(*s->req);
	s->resp_size = sz.seccomp_notif_resp > sizeof(*s->resp)
			       ? sz.seccomp_notif_resp : sizeof(*s->resp);
	s->req = calloc(1, s->req_size);
	s->resp = calloc(1, s->resp_size);
	return s->req && s->resp ? 0 : -ENOMEM;
}

int sg_supervisor_new(struct sg_supervisor **out, int listener_fd,
		      const struct sg_root *roots, size_t n_roots)
{
	_cleanup_close_ int listener = listener_fd;
	_cleanup_close_ int self = -1;
	struct sg_supervisor *s;
	int r;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (sizeof(long) != 8)
		return -EOPNOTSUPP;
	if (listener < 0)
		return -EBADF;

	r = sg_check_listener(listener);
	if (r == 0)
		r = sg_probe_addfd_send(listener);
	if (r == 0)
		r = sg_probe_calls(listener);
	if (r < 0)
		return r;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->listener = -1;
	s->page_size = sysconf(_SC_PAGESIZE);
	s->arch = seccomp_arch_native();

	r = sg_take_roots(s, roots, n_roots);
	if (r == 0)
		r = sg_alloc_bufs(s);
	if (r == 0) {
		s->status_buf = malloc(SG_STATUS_MAX + 1);
		s->hint = calloc(1, sizeof(*s->hint));
		if (!s->status_buf || !s->hint)
			r = -ENOMEM;
	}
	if (r == 0) {
		s->nr = calloc(sg_n_calls, sizeof(*s->nr));
		if (!s->nr)
			r = -ENOMEM;
	}
	if (r == 0) {
		/* Who we are and where our paths start: compared per call. */
		self = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
		r = self < 0 ? -errno : sg_creds_read(self, &s->self);
		if (r == 0)
			r = sg_view_read(self, &s->view, SG_VIEW_MNT | SG_VIEW_USER);
	}
	/* != 0, the same test as the steps above: no path reaches s->nr unset */
	if (r != 0) {
		sg_supervisor_free(s);
		return r;
	}
	for (size_t i = 0; i < sg_n_calls; i++)
		s->nr[i] = seccomp_syscall_resolve_name(sg_calls[i].name);
	s->proc_ours = sg_proc_is_ours();
	s->fchmodat2_empty = sg_probe_fchmodat2_empty();
	s->pidfd_info = sg_pidfd_info_works();
	sg_sync_wake_up(listener);

	s->listener = steal_fd(&listener);
	*out = s;
	return 0;
}

int sg_supervisor_fd(const struct sg_supervisor *s)
{
	return s ? s->listener : -EBADF;
}

unsigned long sg_supervisor_count(const struct sg_supervisor *s)
{
	return s ? s->count : 0;
}

void sg_supervisor_free(struct sg_supervisor *s)
{
	if (!s)
		return;
	/* The workers answer through the listener: stopped before it closes. */
	sg_connect_free(s);
	if (s->listener >= 0)
		close(s->listener);
	for (size_t i = 0; i < s->n_roots; i++) {
		if (s->roots[i].fd >= 0)
			close(s->roots[i].fd);
		free(s->roots[i].path);
	}
	free(s->roots);
	for (size_t i = 0; i < s->n_execs; i++)
		close(s->execs[i].fd);
	free(s->execs);
	for (size_t i = 0; i < s->n_sockets; i++)
		close(s->sockets[i].fd);
	free(s->sockets);
	sg_tasks_free(s);
	free(s->status_buf);
	free(s->hint);
	free(s->req);
	free(s->resp);
	free(s->nr);
	free(s);
}

/* ---- one notification ------------------------------------------------ */

/* -ENOENT: the call is gone (a signal, or the task died); else 0 or fatal. */
static int sg_send(struct sg_supervisor *s, uint64_t id, const struct sg_reply *rep)
{
	struct seccomp_notif_resp *resp = s->resp;

	memset(resp, 0, s->resp_size);
	resp->id = id;
	resp->error = rep->error ? -rep->error : 0;
	resp->val = rep->error ? 0 : rep->val;
	/*
	 * Never SECCOMP_USER_NOTIF_FLAG_CONTINUE for what we judge: a path
	 * checked here and looked up again by the kernel can be swapped in
	 * between.  Two exceptions judge nothing.  An exec of a ruling step,
	 * which no process can perform for another: Landlock's EXECUTE right,
	 * decided by the kernel on the file it opens, is what refuses it; we
	 * only log the refusals we can see coming
	 * (sg_supervisor_add_exec_rules()).  And setgroups(2), which we only
	 * note (sg_supervisor_handle()).
	 */
	resp->flags = rep->cont ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0;
	if (rep->cont) { /* the kernel wants both zero with CONTINUE */
		resp->error = 0;
		resp->val = 0;
	}
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, resp) == 0)
		return 0;
	return -errno;
}

/*
 * Install our descriptor in the step and answer with its number, in one
 * ioctl.  If the install fails (the step's table is full), the kernel
 * leaves the call pending, and we answer it with that error.
 */
static int sg_send_fd_reply(struct sg_supervisor *s, uint64_t id,
			    struct sg_reply *rep)
{
	struct seccomp_notif_addfd a = {
		.id = id,
		.flags = SECCOMP_ADDFD_FLAG_SEND,
		.srcfd = (uint32_t)rep->addfd,
		.newfd_flags = rep->addfd_flags,
	};
	int r = ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);

	if (r >= 0)
		return 0;
	if (errno == ENOENT)
		return -ENOENT;
	rep->error = errno;
	return sg_send(s, id, rep);
}

int sg_supervisor_handle(struct sg_supervisor *s, struct sg_sup_event *ev)
{
	struct pollfd p = { .fd = s ? s->listener : -1, .events = POLLIN };
	struct sg_reply rep = { .addfd = -1 };
	const struct seccomp_data *d;
	const struct sg_call *c = NULL;
	struct sg_target t;
	int r, ret;

	if (!s || !ev)
		return -EINVAL;

	/*
	 * RECV blocks while nothing is pending, so look first: a caller
	 * woken by POLLHUP alone (every task under the filter has exited)
	 * gets 0, not a hang.
	 */
	r = poll(&p, 1, 0);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (p.revents & POLLNVAL)
		return -EBADF;
	if (!(p.revents & POLLIN))
		return 0;

	memset(s->req, 0, s->req_size); /* the kernel wants it zeroed */
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, s->req) < 0) {
		/* ENOENT: the caller died between poll and receive. */
		if (errno == EINTR || errno == ENOENT)
			return 0;
		return -errno;
	}
	s->count++;
	d = &s->req->data;

	if (d->arch == s->arch)
		for (size_t i = 0; i < sg_n_calls; i++)
			if (s->nr[i] >= 0 && s->nr[i] == d->nr)
				c = &sg_calls[i];

	ret = 0;
	if (c && c->kind == SG_K_CHDIR) {
		/*
		 * A working directory is about to change, perhaps of every
		 * thread sharing it (CLONE_FS): those kept for write intents
		 * are stale from now on (target.c, sg_target_cwd()).  The call
		 * is the kernel's, as it would be without us.
		 */
		s->cwd_gen++;
		rep.cont = true;
	} else if (c && c->kind == SG_K_SETGROUPS) {
		/*
		 * Noted before the kernel runs it, so every call we handle
		 * from now on reads the groups afresh (target.c,
		 * sg_task_refresh()); the call itself is the kernel's to
		 * judge, as it would be without us.
		 */
		s->groups_changed = true;
		rep.cont = true;
	} else if (!c) {
		/*
		 * Only our rules notify this listener; anything else is a bug
		 * in the filter.  Refuse it, and say so.
		 */
		memset(ev, 0, sizeof(*ev));
		snprintf(ev->op, sizeof(ev->op), "nr:%d", d->nr);
		ev->pid = (pid_t)s->req->pid;
		ev->result = -ENOSYS;
		ev->why = SG_SUP_FAILED;
		rep.error = ENOSYS;
		ret = 1;
	} else {
		bool intent = sg_call_is_intent(c, (const uint64_t *)d->args);

		r = sg_target_open(&t, s, s->req->id, (pid_t)s->req->pid, intent);
		if (intent) {
			/*
			 * Judged only; whatever we could not read, Landlock
			 * decides (intent.c).  A kept task taken without a
			 * check may be one that ended: a read through it
			 * fails, and the task is opened afresh, once.
			 */
			ret = r < 0 ? -EAGAIN : sg_sup_intent(&t, c, (const uint64_t *)d->args,
							      ev, &rep);
			if (ret == -EAGAIN && r != -ESRCH) {
				sg_target_forget(&t);
				sg_target_close(&t);
				r = sg_target_open(&t, s, s->req->id, (pid_t)s->req->pid, true);
				ret = r < 0 ? -EAGAIN : sg_sup_intent(&t, c, (const uint64_t *)d->args,
								      ev, &rep);
			}
			if (r == -ESRCH) {
				rep.gone = true;
				ret = 0;
			} else if (ret == -EAGAIN) {
				rep = (struct sg_reply){ .cont = true, .addfd = -1 };
				ret = 0;
			}
		} else if (r == -ESRCH) {
			rep.gone = true;
		} else if (r < 0) {
			memset(ev, 0, sizeof(*ev));
			snprintf(ev->op, sizeof(ev->op), "%s", sg_kind_op(c->kind));
			ev->pid = (pid_t)s->req->pid;
			ev->result = -sg_kind_refusal(c->kind);
			ev->why = SG_SUP_FAILED;
			rep.error = -ev->result;
			ret = 1;
		} else {
			ret = sg_sup_run(&t, c, d, ev, &rep);
		}
		sg_target_close(&t);
	}

	if (s->audit && !rep.gone) {
		/*
		 * Audit mode: the kernel runs every call as the step made it,
		 * and what we would have refused is recorded as audited.
		 * Nothing was performed for the step: every act in ops.c
		 * comes after sg_decide(), which stops there in audit mode.
		 */
		if (rep.addfd >= 0)
			close(rep.addfd);
		rep = (struct sg_reply){ .cont = true, .addfd = -1 };
		if (ret == 1) {
			ev->audited = true;
			ev->result = 0;
		}
	}
	if (rep.gone) {
		if (rep.addfd >= 0)
			close(rep.addfd);
		return ret;
	}
	/* A worker performs it and answers (connect.c); nothing refused to record. */
	if (rep.async)
		return ret;
	if (rep.addfd >= 0) {
		r = sg_send_fd_reply(s, s->req->id, &rep);
		close(rep.addfd);
	} else {
		r = sg_send(s, s->req->id, &rep);
	}
	/*
	 * The step was interrupted or died while we worked: no one got the
	 * answer, so there is nothing to record (a restarted call comes
	 * again, and is recorded then).  That also makes a write intent's
	 * record sound without a validity check after each read
	 * (sg_target.light): the answer lands only while the caller still
	 * waits in the call we read.
	 */
	if (r == -ENOENT)
		return 0;
	return r < 0 ? r : ret;
}

void sg_supervisor_set_audit(struct sg_supervisor *s)
{
	if (s)
		s->audit = true;
}

void sg_supervisor_set_no_refer(struct sg_supervisor *s)
{
	if (s)
		s->no_refer = true;
}
