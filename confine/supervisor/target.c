// SPDX-License-Identifier: MIT
/*
 * stepguard supervisor — reading the step's state.
 *
 * Everything the supervisor learns about the calling task (its memory, its
 * descriptors, its working directory, its credentials) is read here, and
 * every read is followed by SECCOMP_IOCTL_NOTIF_ID_VALID.  A pid names a
 * task only while that task lives; the notification stays valid only while
 * the task waits in the notified call.  So "still valid after the read"
 * proves the read was of the task that made the call, not of a task that
 * got its pid number after it died.
 *
 * Failures of our own (no ptrace access to the task, /proc unreadable) are
 * recorded in t->failed and reported as -EPERM; the caller answers the step
 * with a refusal and says the supervisor failed.  -ESRCH: the call is gone.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "confine/supervisor/internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/cleanup.h"

/* Linux 6.9: a pidfd for one thread, whose descriptor table pidfd_getfd reads. */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* /proc/PID/status is ~1.5 KiB; a huge Groups: line is the only way past this. */
#define SG_STATUS_MAX ((size_t)64 * 1024)

int sg_target_valid(struct sg_target *t)
{
	uint64_t id = t->id;

	if (ioctl(t->s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0)
		return 0;
	if (errno == ENOENT)
		return -ESRCH;
	t->failed = errno;
	return -EPERM;
}

/*
 * A read of the step's state failed.  If the call is gone (the task died,
 * which also makes its /proc entries vanish), that is not a failure:
 * nobody is left to answer.  Otherwise it is ours, and the call is refused.
 */
static int sg_failed(struct sg_target *t, int err)
{
	int r = sg_target_valid(t);

	if (err == ESRCH || r == -ESRCH)
		return -ESRCH;
	if (!t->failed)
		t->failed = err;
	return -EPERM;
}

int sg_target_open(struct sg_target *t, const struct sg_supervisor *s,
		   uint64_t id, pid_t tid)
{
	char p[32];
	int r;

	memset(t, 0, sizeof(*t));
	t->s = s;
	t->id = id;
	t->tid = tid;
	t->pidfd = t->pidfd_proc = -1;
	t->creds.tgid = tid;

	/*
	 * /proc/TID works for any thread, leader or not.  The directory fd
	 * holds a reference to that task's pid: once the task is gone, reads
	 * through it fail instead of reaching a newer task with the same
	 * number.  Checking validity once after opening it ties every later
	 * read through it to the caller.
	 */
	snprintf(p, sizeof(p), "/proc/%d", (int)tid);
	t->proc = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->proc < 0)
		return sg_failed(t, errno);
	r = sg_target_valid(t);
	if (r < 0)
		return r;

	r = sg_creds_read(t->proc, &t->creds);
	if (r < 0)
		return sg_failed(t, -r);
	return sg_target_valid(t);
}

void sg_target_close(struct sg_target *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	if (t->pidfd_proc >= 0)
		close(t->pidfd_proc);
	if (t->proc >= 0)
		close(t->proc);
	t->pidfd = t->pidfd_proc = t->proc = -1;
}

/*
 * process_vm_readv on the thread id: threads share their memory, and the
 * call needs the same ptrace access as /proc/PID/mem without an open.
 */
static ssize_t sg_vm_read(struct sg_target *t, uint64_t addr, void *buf,
			  size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, // NOLINT(performance-no-int-to-ptr): the tracee's address, only handed to the kernel
				.iov_len = len };

	return process_vm_readv(t->tid, &local, 1, &remote, 1, 0);
}

int sg_target_read(struct sg_target *t, uint64_t addr, void *buf, size_t len)
{
	ssize_t n;

	if (len == 0)
		return 0;
	n = sg_vm_read(t, addr, buf, len);
	if (n < 0) {
		/* A bad pointer is the step's mistake: answer it as the kernel would. */
		if (errno == EFAULT)
			return -EFAULT;
		return sg_failed(t, errno);
	}
	if ((size_t)n != len)
		return -EFAULT;
	return sg_target_valid(t);
}

/*
 * Read a NUL-terminated string that must fit in size bytes with its NUL.
 * Page by page: process_vm_readv stops at the first unmapped page, and a
 * short string may end right before one.  Returns the length, -EFAULT,
 * -ENAMETOOLONG (no NUL within size bytes; callers translate), or -EPERM
 * / -ESRCH.
 */
int sg_target_read_str(struct sg_target *t, uint64_t addr, char *buf,
		       size_t size)
{
	uint64_t page = (uint64_t)t->s->page_size;
	size_t got = 0;

	if (addr == 0)
		return -EFAULT;
	while (got < size) {
		uint64_t a = addr + got;
		size_t chunk = (size_t)(page - a % page);
		char *nul;
		ssize_t n;

		if (a < addr) /* wrapped around the address space */
			return -EFAULT;
		if (chunk > size - got)
			chunk = size - got;
		n = sg_vm_read(t, a, buf + got, chunk);
		if (n < 0) {
			if (errno == EFAULT)
				return -EFAULT;
			return sg_failed(t, errno);
		}
		if (n == 0)
			return -EFAULT;
		nul = memchr(buf + got, '\0', (size_t)n);
		if (nul) {
			int r = sg_target_valid(t);

			return r < 0 ? r : (int)(nul - buf);
		}
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

static int sg_pidfd_open(pid_t pid, unsigned int flags)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, flags);

	return fd < 0 ? -errno : fd;
}

static int sg_target_pidfd(struct sg_target *t)
{
	int fd, r;

	if (t->pidfd >= 0)
		return 0;
	/*
	 * A pidfd for the calling thread itself (6.9+), so pidfd_getfd reads
	 * that thread's descriptor table.  Older kernels take only a process
	 * (thread-group leader): fine for the leader, and for other threads
	 * the table they share with it (a thread that unshared its table is
	 * then served from the leader's: a wrong answer, never a wrong
	 * decision, since the decision is made on the file we act on).
	 */
	fd = sg_pidfd_open(t->tid, PIDFD_THREAD);
	if (fd == -EINVAL)
		fd = sg_pidfd_open(t->tid, 0);
	if (fd == -EINVAL && t->creds.tgid != t->tid)
		fd = sg_pidfd_open(t->creds.tgid, 0);
	if (fd < 0)
		return sg_failed(t, -fd);
	t->pidfd = fd;
	/* Now the pidfd is bound to a task; prove it is the caller. */
	r = sg_target_valid(t);
	return r;
}

static int sg_getfd(struct sg_target *t, int pidfd, int fd)
{
	int r, nfd;

	nfd = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (nfd < 0) {
		/* No such descriptor in the step: the kernel's answer too. */
		if (errno == EBADF)
			return -EBADF;
		return sg_failed(t, errno);
	}
	r = sg_target_valid(t);
	if (r < 0) {
		close(nfd);
		return r;
	}
	return nfd;
}

/* Our copy of the step's descriptor fd (close-on-exec), or -errno. */
int sg_target_getfd(struct sg_target *t, int fd)
{
	int r = sg_target_pidfd(t);

	return r < 0 ? r : sg_getfd(t, t->pidfd, fd);
}

/*
 * The same from the table of the caller's process, as /proc/TGID/fd (and
 * so /proc/self/fd) shows it: the thread-group leader's.  It differs from
 * the thread's only when that thread unshared its table (CLONE_FILES).
 */
int sg_target_getfd_proc(struct sg_target *t, int fd)
{
	int r;

	if (t->creds.tgid == t->tid)
		return sg_target_getfd(t, fd);
	if (t->pidfd_proc < 0) {
		int pfd = sg_pidfd_open(t->creds.tgid, 0);

		if (pfd < 0)
			return sg_failed(t, -pfd);
		t->pidfd_proc = pfd;
		/* Opened by number: prove the number was still the caller's. */
		r = sg_target_valid(t);
		if (r < 0)
			return r;
	}
	return sg_getfd(t, t->pidfd_proc, fd);
}

/*
 * Is DIR, a directory on procfs, one of the caller's descriptor tables as
 * the kernel reaches them: /proc/TGID/fd (the process's, which is what
 * /proc/self/fd names), /proc/TGID/task/TID/fd or /proc/TID/fd (the
 * thread's: /proc/thread-self/fd)?  Compared by identity with those
 * entries looked up now in the procfs that holds the caller's /proc/TID.
 * A table of another process, of another thread, or of stepguard (what
 * "/proc/self" is when stepguard follows it) matches none of them.
 * SG_TABLE_THREAD, SG_TABLE_PROCESS, 0 (none), or -errno.
 */
int sg_target_fd_table(struct sg_target *t, const struct stat *dir)
{
	_cleanup_close_ int root = -1;
	struct stat thr, task, proc;
	char p[64];
	int r;

	/* /proc/TID/..: the very procfs our /proc/TID is in. */
	root = openat(t->proc, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return sg_failed(t, errno);
	/* A missing entry (a dead leader's) is simply not a match. */
	memset(&thr, 0, sizeof(thr));
	memset(&task, 0, sizeof(task));
	memset(&proc, 0, sizeof(proc));
	if (fstatat(t->proc, "fd", &thr, 0) < 0 && errno != ENOENT)
		return sg_failed(t, errno);
	snprintf(p, sizeof(p), "%d/task/%d/fd", (int)t->creds.tgid, (int)t->tid);
	if (fstatat(root, p, &task, 0) < 0 && errno != ENOENT)
		return sg_failed(t, errno);
	snprintf(p, sizeof(p), "%d/fd", (int)t->creds.tgid);
	if (fstatat(root, p, &proc, 0) < 0 && errno != ENOENT)
		return sg_failed(t, errno);
	/* Looked up by number: prove the numbers were still the caller's. */
	r = sg_target_valid(t);
	if (r < 0)
		return r;
	if (proc.st_ino && dir->st_dev == proc.st_dev && dir->st_ino == proc.st_ino)
		return SG_TABLE_PROCESS;
	if ((thr.st_ino && dir->st_dev == thr.st_dev && dir->st_ino == thr.st_ino) ||
	    (task.st_ino && dir->st_dev == task.st_dev && dir->st_ino == task.st_ino))
		return SG_TABLE_THREAD;
	return 0;
}

/* The caller's working directory (per thread: CLONE_FS may differ). */
int sg_target_cwd(struct sg_target *t)
{
	int fd, r;

	fd = openat(t->proc, "cwd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return sg_failed(t, errno);
	r = sg_target_valid(t);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

/* ---- credentials and view ------------------------------------------ */

static int sg_cmp_gid(const void *a, const void *b)
{
	gid_t x = *(const gid_t *)a, y = *(const gid_t *)b;

	return x < y ? -1 : x > y;
}

/* The value after "Key:" on its own line, or NULL. */
static const char *sg_status_field(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, key, klen) == 0 && l[klen] == ':')
			return l + klen + 1;
	return NULL;
}

static int sg_parse_ul(const char **p, int base, unsigned long long *v)
{
	char *end;

	while (**p == ' ' || **p == '\t')
		(*p)++;
	if (!isxdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	*v = strtoull(*p, &end, base);
	if (errno || end == *p)
		return -EINVAL;
	*p = end;
	return 0;
}

/* The nth (0-based) number of a "Uid:"-style line. */
static int sg_status_nth(const char *text, const char *key, int n, int base,
			 unsigned long long *v)
{
	const char *p = sg_status_field(text, key);

	if (!p)
		return -EINVAL;
	for (int i = 0; i <= n; i++)
		if (sg_parse_ul(&p, base, v) < 0)
			return -EINVAL;
	return 0;
}

int sg_creds_read(int proc_fd, struct sg_creds *c)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;
	unsigned long long v;
	const char *g;
	size_t len = 0;
	int r;

	fd = openat(proc_fd, "status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	text = malloc(SG_STATUS_MAX + 1);
	if (!text)
		return -ENOMEM;
	for (;;) {
		ssize_t n = read(fd, text + len, SG_STATUS_MAX - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == SG_STATUS_MAX)
			return -E2BIG;
	}
	text[len] = '\0';

	memset(c, 0, sizeof(*c));
	/* Field 4 of Uid:/Gid: is the file-system id, which file access uses. */
	r = sg_status_nth(text, "Tgid", 0, 10, &v);
	if (r < 0)
		return r;
	c->tgid = (pid_t)v;
	r = sg_status_nth(text, "Umask", 0, 8, &v);
	if (r < 0)
		return r;
	c->umask = (mode_t)v;
	r = sg_status_nth(text, "Uid", 3, 10, &v);
	if (r < 0)
		return r;
	c->fsuid = (uid_t)v;
	r = sg_status_nth(text, "Gid", 3, 10, &v);
	if (r < 0)
		return r;
	c->fsgid = (gid_t)v;
	r = sg_status_nth(text, "CapEff", 0, 16, &v);
	if (r < 0)
		return r;
	c->cap_eff = v;

	g = sg_status_field(text, "Groups");
	if (!g)
		return -EINVAL;
	while (sg_parse_ul(&g, 10, &v) == 0) {
		if (c->n_groups == SG_GROUPS_MAX)
			return -E2BIG;
		c->groups[c->n_groups++] = (gid_t)v;
	}
	qsort(c->groups, c->n_groups, sizeof(gid_t), sg_cmp_gid);
	return 0;
}

int sg_target_view(struct sg_target *t, struct sg_view *v)
{
	int r = sg_view_read(t->proc, v);

	if (r < 0)
		return sg_failed(t, -r);
	return sg_target_valid(t);
}

int sg_view_read(int proc_fd, struct sg_view *v)
{
	struct statx sx;
	struct stat st;

	memset(v, 0, sizeof(*v));
	if (fstatat(proc_fd, "ns/mnt", &st, 0) < 0)
		return -errno;
	v->mnt_dev = st.st_dev;
	v->mnt_ino = st.st_ino;
	if (fstatat(proc_fd, "ns/user", &st, 0) < 0)
		return -errno;
	v->user_dev = st.st_dev;
	v->user_ino = st.st_ino;
	/* The mount id too: a bind mount of "/" has the same inode. */
	if (statx(proc_fd, "root", 0, STATX_INO | STATX_MNT_ID, &sx) < 0)
		return -errno;
	if (!(sx.stx_mask & STATX_MNT_ID))
		return -EOPNOTSUPP;
	v->root_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	v->root_ino = sx.stx_ino;
	v->root_mnt_id = sx.stx_mnt_id;
	return 0;
}

/*
 * May stepguard act for the step without more privilege than it has?
 * File access is checked with the fs uid and gid, the supplementary groups
 * and the effective capabilities.  Ids and groups must be equal: more
 * groups on either side changes some answer.  Capabilities must be a
 * subset, and only count in the same user namespace: the step's
 * capabilities in a namespace of its own give it nothing over files outside
 * it, so then stepguard must have none.
 */
bool sg_creds_no_more_than(const struct sg_creds *self,
			   const struct sg_creds *step, bool same_userns)
{
	if (self->fsuid != step->fsuid || self->fsgid != step->fsgid)
		return false;
	if (self->n_groups != step->n_groups ||
	    memcmp(self->groups, step->groups,
		   self->n_groups * sizeof(gid_t)) != 0)
		return false;
	if (same_userns)
		return (self->cap_eff & ~step->cap_eff) == 0;
	return self->cap_eff == 0;
}
