// SPDX-License-Identifier: MIT
/*
 * stepguard supervisor — reading the step's state.
 *
 * Everything the supervisor learns about the calling task (its memory, its
 * descriptors, its working directory, its credentials) is read here.  A
 * pid names a task only while that task lives; the notification stays
 * valid only while the task waits in the notified call.  So every read or
 * open by number (/proc/TID, pidfd_open, process_vm_readv) is followed by
 * SECCOMP_IOCTL_NOTIF_ID_VALID before what it gave is used: "still valid
 * after the read" proves the read was of the task that made the call, not
 * of a task that got its pid number after it died.  Reads through a
 * descriptor so proved (t->proc, a pidfd) need no check of their own: the
 * descriptor holds the task's struct pid, and reads through it fail once
 * that task is gone.
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
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lib/cleanup.h"

/*
 * Linux 6.13: PIDFD_GET_INFO, a task's ids through its pidfd.  The first
 * version of the structure, which every later kernel still accepts.
 */
struct sg_pidfd_info {
	uint64_t mask;
	uint64_t cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;
};
#define SG_PIDFD_GET_INFO _IOWR(0xFF, 11, struct sg_pidfd_info)
#define SG_PIDFD_INFO_PID   1ULL
#define SG_PIDFD_INFO_CREDS 2ULL
/* Linux 6.11: a task's namespace, opened through its pidfd. */
#define SG_PIDFD_GET_USER_NAMESPACE _IO(0xFF, 9)

/* Linux 6.9: a pidfd for one thread, whose descriptor table pidfd_getfd reads. */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

int sg_target_valid(struct sg_target *t)
{
	uint64_t id = t->id;

	/*
	 * A write intent is only judged: our answer is the one thing done
	 * with what we read, and the kernel takes it only while the caller
	 * still waits in the call we were told of, so the reads were of
	 * that caller (sg_target.light; sg_supervisor_handle() records a
	 * refusal only once it was delivered).
	 */
	if (t->light)
		return 0;
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

/* ---- tasks kept open --------------------------------------------------- */

static void sg_task_drop(struct sg_task *e)
{
	if (e->cwd >= 0)
		close(e->cwd);
	if (e->pidfd >= 0)
		close(e->pidfd);
	if (e->status >= 0)
		close(e->status);
	if (e->proc >= 0)
		close(e->proc);
	memset(e, 0, sizeof(*e));
	e->proc = e->status = e->pidfd = e->cwd = -1;
}

void sg_tasks_free(struct sg_supervisor *s)
{
	for (size_t i = 0; i < SG_TASKS; i++)
		if (s->tasks[i].tid)
			sg_task_drop(&s->tasks[i]);
}

/* The slot of tid, or NULL; *lru: a free slot, else the least recently used. */
static struct sg_task *sg_task_find(struct sg_supervisor *s, pid_t tid,
				    struct sg_task **lru)
{
	*lru = &s->tasks[0];
	for (size_t i = 0; i < SG_TASKS; i++) {
		struct sg_task *e = &s->tasks[i];

		if (e->tid == tid)
			return e;
		if ((*lru)->tid && (!e->tid || e->used < (*lru)->used))
			*lru = e;
	}
	return NULL;
}

static int sg_pidfd_open(pid_t pid, unsigned int flags)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, flags);

	return fd < 0 ? -errno : fd;
}

/* Does PIDFD_GET_INFO answer with credentials here?  Asked of ourselves. */
bool sg_pidfd_info_works(void)
{
	struct sg_pidfd_info info = { .mask = SG_PIDFD_INFO_PID | SG_PIDFD_INFO_CREDS };
	_cleanup_close_ int fd = sg_pidfd_open(getpid(), 0);

	return fd >= 0 && ioctl(fd, SG_PIDFD_GET_INFO, &info) == 0 &&
	       (info.mask & SG_PIDFD_INFO_CREDS) && info.pid == (uint32_t)getpid();
}

/* The effective capabilities of thread tid (by number: checked after). */
static int sg_cap_eff(pid_t tid, uint64_t *eff)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3,
					      .pid = tid };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	*eff = (uint64_t)d[0].effective | (uint64_t)d[1].effective << 32;
	return 0;
}

/*
 * A kept task's credentials as they are now, into e->creds.
 *
 * The status file says everything, but procfs takes longer to write it
 * than the rest of a notification's work.  Where the kernel has
 * PIDFD_GET_INFO, the ids come through the kept pidfd (which, like
 * /proc/TID, answers only while the task exists) and the effective
 * capabilities from capget(2); what neither says is the supplementary
 * groups.  Those change only through setgroups(2), which the filter sends
 * here before the kernel runs it (sg_supervisor_handle() notes it, then
 * continues it), so until a task of the step has called it, the groups
 * read from the status file when this task was first seen are still its
 * groups.  From the first setgroups on, the file is read on every call.
 * The umask is read when a call needs it (sg_target_umask()).
 */
static int sg_task_refresh(const struct sg_supervisor *s, struct sg_task *e)
{
	struct sg_pidfd_info info = { .mask = SG_PIDFD_INFO_PID | SG_PIDFD_INFO_CREDS };
	int r;

	if (!s->pidfd_info || !e->thread_pidfd || s->groups_changed)
		return sg_creds_pread(e->status, s->status_buf, &e->creds);
	if (ioctl(e->pidfd, SG_PIDFD_GET_INFO, &info) < 0)
		return -errno;
	/* Its own number, in our namespace: else it is not the task we kept. */
	if (!(info.mask & SG_PIDFD_INFO_CREDS) || info.pid != (uint32_t)e->tid)
		return -ESRCH;
	r = sg_cap_eff(e->tid, &e->creds.cap_eff);
	if (r < 0)
		return r;
	e->creds.tgid = (pid_t)info.tgid;
	e->creds.fsuid = (uid_t)info.fsuid;
	e->creds.fsgid = (gid_t)info.fsgid;
	return 0;
}

/*
 * Open what we read a task through, or take it from the tasks kept open.
 *
 * Opening /proc/TID, its status and (later) a pidfd costs most of a
 * notification's own work, and a step makes its calls from few tasks, so
 * the last SG_TASKS tasks keep theirs open.  That is sound because each
 * descriptor holds that task's struct pid, whose number never changes: a
 * read through it succeeds only while that task exists (procfs answers
 * ESRCH once it is reaped), and while it exists no other task can have its
 * number.  So when a read through a kept descriptor succeeds and the call
 * is still valid afterwards, the task read is the caller: the caller held
 * that number the whole time, as the kept task did when it was read.  A
 * read that fails drops the slot and opens afresh: the task is gone, and
 * the number may now be the caller's.
 *
 * Fresh or kept, one SECCOMP_IOCTL_NOTIF_ID_VALID after the status read
 * covers the open by number too: a valid id at that point proves the caller
 * was alive, and so the owner of its number, since the notification.
 */
int sg_target_open(struct sg_target *t, struct sg_supervisor *s,
		   uint64_t id, pid_t tid, bool light)
{
	struct sg_task *e, *lru;
	char p[32];
	int r;

	memset(t, 0, sizeof(*t));
	t->s = s;
	t->id = id;
	t->tid = tid;
	t->proc = t->pidfd = t->pidfd_proc = -1;
	t->creds.tgid = tid;
	t->light = light;

	e = sg_task_find(s, tid, &lru);
	/*
	 * A write intent needs no credentials (nothing is done with them),
	 * so a kept task is taken as it is.  If it is gone and its number
	 * reused, reads through its /proc/TID fail, and the call goes to
	 * Landlock unjudged (intent.c opens the task afresh and tries once
	 * more).
	 */
	if (e && !light && sg_task_refresh(s, e) < 0) {
		sg_task_drop(e);
		lru = e;
		e = NULL;
	}
	if (!e) {
		e = lru;
		if (e->tid)
			sg_task_drop(e);
		else
			e->proc = e->status = e->pidfd = e->cwd = -1;
		/*
		 * /proc/TID works for any thread, leader or not, and the
		 * directory holds that task's struct pid (see above).
		 */
		snprintf(p, sizeof(p), "/proc/%d", (int)tid);
		e->proc = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (e->proc < 0)
			return sg_failed(t, errno);
		e->status = openat(e->proc, "status", O_RDONLY | O_CLOEXEC);
		if (e->status < 0) {
			r = errno;
			sg_task_drop(e);
			return sg_failed(t, r);
		}
		e->tid = tid;
		r = sg_creds_pread(e->status, s->status_buf, &e->creds);
		if (r < 0) {
			sg_task_drop(e);
			return sg_failed(t, -r);
		}
		/*
		 * The thread's own pidfd now, for sg_task_refresh() next
		 * time; where there is none (before 6.9) the status file it
		 * is, and sg_target_pidfd() opens what pidfd_getfd needs.
		 */
		if (s->pidfd_info) {
			r = sg_pidfd_open(tid, PIDFD_THREAD);
			if (r >= 0) {
				e->pidfd = r;
				e->thread_pidfd = true;
			}
		}
	}
	e->used = s->count;
	t->task = e;
	t->proc = e->proc;
	t->pidfd = e->pidfd;
	t->creds = e->creds;
	return sg_target_valid(t);
}

/* Drop the task kept for T, if any: it will be opened afresh. */
void sg_target_forget(struct sg_target *t)
{
	if (!t->task)
		return;
	sg_task_drop(t->task);
	t->task = NULL;
	t->proc = t->pidfd = -1;
}

void sg_target_close(struct sg_target *t)
{
	/* A kept task's descriptors stay with it (sg_target_open()). */
	if (!t->task) {
		if (t->pidfd >= 0)
			close(t->pidfd);
		if (t->proc >= 0)
			close(t->proc);
	}
	if (t->pidfd_proc >= 0)
		close(t->pidfd_proc);
	t->pidfd = t->pidfd_proc = t->proc = -1;
	t->task = NULL;
}

/*
 * process_vm_readv on the thread id: threads share their memory, and the
 * call needs the same ptrace access as /proc/PID/mem without an open.
 */
/* The first read of a string (sg_target_read_str()). */
#define SG_READ_FIRST 256

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
		/*
		 * Most paths are short: a first read of 256 bytes, not the
		 * rest of the page, copies less (each read costs its length).
		 */
		if (got == 0 && chunk > SG_READ_FIRST)
			chunk = SG_READ_FIRST;
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

/*
 * Write into the caller's memory (prlimit64's old limit, sched.c).  Not by
 * number, as the reads are: a read of the wrong task is caught by the
 * validity check after it, a write cannot be taken back.  So through
 * /proc/TID/mem opened from t->proc, which sg_target_open() proved is the
 * caller's and which fails once that task is gone.  0, -EFAULT (the
 * step's bad pointer), -ESRCH or -EPERM.
 */
int sg_target_write(struct sg_target *t, uint64_t addr, const void *buf, size_t len)
{
	_cleanup_close_ int mem = -1;
	ssize_t n;

	if (len == 0)
		return 0;
	if (addr > (uint64_t)INT64_MAX - len)
		return -EFAULT;
	mem = openat(t->proc, "mem", O_WRONLY | O_CLOEXEC);
	if (mem < 0)
		return sg_failed(t, errno == ENOENT ? ESRCH : errno);
	n = pwrite(mem, buf, len, (off_t)addr);
	if (n < 0)
		return errno == EIO || errno == EFAULT ? -EFAULT : sg_failed(t, errno);
	return (size_t)n == len ? 0 : -EFAULT;
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
	if (t->task)
		t->task->pidfd = fd; /* kept with the task from now on */
	/* Now the pidfd is bound to a task; prove it is the caller. */
	r = sg_target_valid(t);
	return r;
}

/*
 * Through a pidfd already proved to be the caller's (sg_target_pidfd(),
 * sg_target_getfd_proc()): the descriptor comes from that task's table,
 * no number is involved, so no validity check is needed after it.
 */
static int sg_getfd(struct sg_target *t, int pidfd, int fd)
{
	int nfd = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);

	if (nfd < 0) {
		/* No such descriptor in the step: the kernel's answer too. */
		if (errno == EBADF)
			return -EBADF;
		return sg_failed(t, errno);
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

/*
 * The caller's working directory (per thread: CLONE_FS may differ).
 *
 * For a write intent, which is only judged, a kept task keeps it open:
 * opening /proc/TID/cwd is most of such a call's own work.  It is valid
 * until the step's next chdir or fchdir, which the filter sends here first
 * (cwd_gen).  A stale one can only be wrong for the log, never for the
 * filter (Landlock decides underneath), and intent.c judges again with a
 * fresh one before it refuses anything (sg_target.cwd_kept), so it never
 * makes a refusal.
 */
int sg_target_cwd(struct sg_target *t)
{
	struct sg_task *e = t->task;
	int fd, r;

	if (t->light && e && e->cwd >= 0 && e->cwd_gen == t->s->cwd_gen) {
		fd = fcntl(e->cwd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return sg_failed(t, errno);
		/* Kept from an earlier call, not opened for this one. */
		if (!t->cwd_fresh)
			t->cwd_kept = true;
		t->cwd_beneath = e->cwd_beneath;
		return fd;
	}
	fd = openat(t->proc, "cwd", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return sg_failed(t, errno);
	r = sg_target_valid(t);
	if (r < 0) {
		close(fd);
		return r;
	}
	t->cwd_fresh = true;
	if (t->light) {
		/*
		 * Whether it lies beneath a root, walked up once here rather
		 * than for every call from it: tools work from directories
		 * inside the work dir (git from its work tree).  A directory
		 * the step cannot move out of the roots stays beneath them
		 * (Landlock refuses the rename), and a stale answer costs only
		 * a record, as above.
		 */
		t->cwd_beneath = sg_dir_beneath(t->s, fd) > 0;
		if (e) {
			/* Kept for the next write intent; not keeping it only costs time. */
			if (e->cwd >= 0)
				close(e->cwd);
			e->cwd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
			e->cwd_gen = t->s->cwd_gen;
			e->cwd_beneath = t->cwd_beneath;
		}
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

static int sg_creds_parse(char *text, struct sg_creds *c);

/* At start, for ourselves: the same parse, from a buffer of its own. */
int sg_creds_read(int proc_fd, struct sg_creds *c)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;

	fd = openat(proc_fd, "status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	text = malloc(SG_STATUS_MAX + 1);
	if (!text)
		return -ENOMEM;
	return sg_creds_pread(fd, text, c);
}

/*
 * Read a status file from its start (procfs makes it afresh for a read at
 * offset 0, so a descriptor kept open reads the task as it is now) into
 * buf, SG_STATUS_MAX + 1 bytes, and parse it.
 */
int sg_creds_pread(int status_fd, char *buf, struct sg_creds *c)
{
	size_t len = 0;

	for (;;) {
		ssize_t n = pread(status_fd, buf + len, SG_STATUS_MAX - len, (off_t)len);

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
	buf[len] = '\0';
	return sg_creds_parse(buf, c);
}

static int sg_creds_parse(char *text, struct sg_creds *c)
{
	unsigned long long v;
	const char *g;
	int r;

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

/*
 * Read through t->proc only, which sg_target_open() proved is the caller's:
 * no validity check of its own is needed.
 */
int sg_target_view(struct sg_target *t, struct sg_view *v, unsigned int what)
{
	struct stat user = { 0 };
	bool user_done = false;
	int r;

	/*
	 * The user namespace through the thread's pidfd (6.11), which opens
	 * it without the lookup of /proc/TID/ns/user; where that fails for
	 * any reason but the task's end, the lookup it is.
	 */
	if ((what & SG_VIEW_USER) && t->task && t->task->thread_pidfd) {
		_cleanup_close_ int ns = ioctl(t->pidfd, SG_PIDFD_GET_USER_NAMESPACE, 0);

		if (ns < 0 && errno == ESRCH)
			return sg_failed(t, ESRCH);
		if (ns >= 0 && fstat(ns, &user) == 0) {
			user_done = true;
			what &= ~SG_VIEW_USER;
		}
	}
	r = sg_view_read(t->proc, v, what);
	if (r < 0)
		return sg_failed(t, -r);
	if (user_done) {
		v->user_dev = user.st_dev;
		v->user_ino = user.st_ino;
	}
	return 0;
}

/*
 * The caller's umask now: a task changes it without a system call we
 * see, so it is read from the status file whenever a call needs it.
 */
int sg_target_umask(struct sg_target *t, mode_t *mask)
{
	struct sg_creds c = { 0 };
	int r;

	if (!t->task) {
		*mask = t->creds.umask;
		return 0;
	}
	r = sg_creds_pread(t->task->status, t->s->status_buf, &c);
	if (r < 0)
		return sg_failed(t, -r);
	*mask = c.umask;
	return 0;
}

/*
 * Where the task's paths start: its root (device, inode, mount id), and
 * what else is asked: its mount namespace, its user namespace.  The mount namespace is read once,
 * for ourselves, and never compared per call: the root's mount settles it.
 * Mount ids of live mounts are unique on the machine, and a mount belongs
 * to one namespace, so a task whose root is on our root's mount, at our
 * root's inode, resolves every absolute path through our mount tree; a
 * task that unshared its mount namespace has a copy of that mount, with an
 * id of its own.  (Reading ns/mnt cost more than the rest of a call.)
 */
int sg_view_read(int proc_fd, struct sg_view *v, unsigned int what)
{
	struct statx sx;
	struct stat st;

	memset(v, 0, sizeof(*v));
	if (what & SG_VIEW_MNT) {
		if (fstatat(proc_fd, "ns/mnt", &st, 0) < 0)
			return -errno;
		v->mnt_dev = st.st_dev;
		v->mnt_ino = st.st_ino;
	}
	if (what & SG_VIEW_USER) {
		if (fstatat(proc_fd, "ns/user", &st, 0) < 0)
			return -errno;
		v->user_dev = st.st_dev;
		v->user_ino = st.st_ino;
	}
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
