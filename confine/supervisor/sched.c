// SPDX-License-Identifier: MIT
/*
 * stepguard supervisor — scheduling and resource limits of other processes
 * (issue 16: the step cannot reach outside itself through them).
 *
 * setpriority, ioprio_set, sched_setaffinity, sched_setscheduler,
 * sched_setparam, sched_setattr and prlimit64 (setting a limit) act on any
 * process of the caller's user: a step could renice the runner, pin it to
 * one CPU, or give it RLIMIT_FSIZE 0, which kills it at its next write.
 * Landlock has no word for any of this.  So:
 *
 *   - the self forms (pid or who 0; prlimit64 that only reads) stay plain
 *     ALLOW in the filter, with no notification: they are the common ones
 *     (nice(1), ulimit, a runtime pinning itself), and each notification
 *     costs a round trip;
 *   - every other form is notified; the supervisor checks that the target
 *     is a process of the step (a strict descendant of stepguard's own
 *     process, sg_sched_inside()), performs the call itself with the
 *     step's credentials and answers with its result; otherwise EPERM and
 *     a record (op sched, arg = target tgid << 32 | what).
 *
 * Never CONTINUE: the kernel would look the number up again, and the
 * supervisor acts only on what it checked.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "confine/supervisor/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/vocab.h"

/* include/uapi/linux/ioprio.h: the "which" of ioprio_set. */
#define SG_IOPRIO_WHO_PROCESS 1
#define SG_IOPRIO_WHO_PGRP    2
#define SG_IOPRIO_WHO_USER    3
/* The kernel's largest cpumask: NR_CPUS at most 8192 bits. */
#define SG_CPUMASK_MAX 1024
/* sched_attr's first published size (SCHED_ATTR_SIZE_VER0). */
#define SG_SCHED_ATTR_VER0 48

/* ---- the filter ------------------------------------------------------ */

/* Argument N differs from V (all 64 bits); spelled out for -Wmissing-field-initializers. */
#define SG_NE(n, v) ((struct scmp_arg_cmp){ .arg = (n), .op = SCMP_CMP_NE, \
					    .datum_a = (v), .datum_b = 0 })

static int sg_sched_rule(scmp_filter_ctx ctx, const char *name, unsigned int n,
			 const struct scmp_arg_cmp *cmp)
{
	int nr = seccomp_syscall_resolve_name(name);
	int r;

	if (nr < 0) /* not on this architecture */
		return 0;
	r = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, nr, n, cmp);
	/* A policy [seccomp] deny of the call keeps its refusal (sg_rule()). */
	return r == -EEXIST ? 0 : r;
}

/*
 * Notify every form but the self one.  The compares are on all 64 bits
 * (SCMP_CMP_NE), while the kernel reads these arguments as an int: junk
 * above the low half only notifies a call that is in fact a self form,
 * never the reverse, and the supervisor reads the int as the kernel does.
 * Several rules on one call are alternatives: the call is notified when
 * any of them matches.
 */
int sg_sched_add_rules(scmp_filter_ctx ctx)
{
	static const char *const by_pid[] = {
		"sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr",
	};
	struct scmp_arg_cmp cmp[2];
	int r;

	/* setpriority: only PRIO_PROCESS (0) with who 0 is the caller itself. */
	cmp[0] = SG_NE(0, PRIO_PROCESS);
	r = sg_sched_rule(ctx, "setpriority", 1, cmp);
	cmp[0] = SG_NE(1, 0);
	if (r == 0)
		r = sg_sched_rule(ctx, "setpriority", 1, cmp);
	/* ioprio_set: only IOPRIO_WHO_PROCESS (1) with who 0. */
	cmp[0] = SG_NE(0, SG_IOPRIO_WHO_PROCESS);
	if (r == 0)
		r = sg_sched_rule(ctx, "ioprio_set", 1, cmp);
	cmp[0] = SG_NE(1, 0);
	if (r == 0)
		r = sg_sched_rule(ctx, "ioprio_set", 1, cmp);
	/* The sched_set* calls: pid 0 is the calling thread. */
	cmp[0] = SG_NE(0, 0);
	for (size_t i = 0; r == 0 && i < sizeof(by_pid) / sizeof(by_pid[0]); i++)
		r = sg_sched_rule(ctx, by_pid[i], 1, cmp);
	/*
	 * prlimit64: pid 0 is the caller's process; a NULL new limit only
	 * reads (the kernel asks the same access as for /proc/PID/limits).
	 * Both conditions in one rule: notified only when both hold.
	 */
	cmp[0] = SG_NE(0, 0);
	cmp[1] = SG_NE(2, 0);
	if (r == 0)
		r = sg_sched_rule(ctx, "prlimit64", 2, cmp);
	return r;
}

/* ---- who is inside the step ------------------------------------------ */

/*
 * Tgid and PPid of the task behind status file fd, read afresh (procfs
 * writes the file on every read at offset 0).  Both are among the first
 * lines, so a short read is enough.  -ESRCH once the task is reaped.
 */
static int sg_task_ids(int status, pid_t *tgid, pid_t *ppid)
{
	char buf[1024];
	const char *p;
	ssize_t n = pread(status, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return errno == ESRCH || errno == ENOENT ? -ESRCH : -errno;
	if (n == 0)
		return -ESRCH;
	buf[n] = '\0';
	p = strstr(buf, "\nTgid:\t");
	if (!p)
		return -EIO;
	*tgid = (pid_t)strtol(p + 7, NULL, 10);
	p = strstr(buf, "\nPPid:\t");
	if (!p)
		return -EIO;
	*ppid = (pid_t)strtol(p + 7, NULL, 10);
	return 0;
}

/* /proc/PID and its status file: the directory pins that task's struct pid. */
static int sg_task_status(pid_t pid, int *status)
{
	char p[32];
	_cleanup_close_ int dir = -1;

	if (pid <= 0)
		return -ESRCH;
	snprintf(p, sizeof(p), "/proc/%d", (int)pid);
	dir = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	*status = openat(dir, "status", O_RDONLY | O_CLOEXEC);
	if (*status < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	return 0;
}

/*
 * Is task TID (a thread id, as the scheduling calls take) in a process of
 * the step?  1 inside, 0 outside (*tgid: its process), -ESRCH no such
 * task, other -errno our failure.
 *
 * The step's processes are exactly the strict descendants of stepguard's
 * own process: stepguard forks the step and is a child subreaper
 * (PR_SET_CHILD_SUBREAPER, launcher/run.c), so an orphan of the step is
 * reparented to stepguard, never past it, and a process outside can never
 * become a descendant (a parent only changes to a living ancestor).
 * stepguard itself is outside: a step must not change its limits either.
 *
 * The walk goes up by PPid, one process at a time, each pinned by its
 * /proc/PID directory, whose status fails once that process is reaped.
 * Why a number read from a status file names the right process: we read
 * cur's PPid P, open /proc/P (the process holding P at that moment, Y),
 * then read cur's PPid again.  If it is still P, Y is cur's parent: if
 * cur's first parent A still lives, A has held P throughout, so Y is A;
 * if A died in between, cur was reparented to a living ancestor, whose
 * number was not P (A held P then), so the second read cannot say P.  If
 * the second read differs, cur was reparented: go on from its new parent.
 *
 * The race that remains is after the walk: the caller acts by number
 * (setpriority and the others take no pidfd), so if the target exits, is
 * reaped by its parent in the step, and its number is given to a new
 * process outside, all between this walk and the call, the call reaches
 * that process.  That needs the pid space to wrap around within those
 * microseconds; sg_sched_act() narrows it further by checking that the
 * target still lives, pinned, right before the call.
 */
static int sg_sched_inside(pid_t tid, pid_t *tgid, int *pin)
{
	_cleanup_close_ int cur = -1;
	pid_t me = getpid(), t = 0, ppid = 0;
	int r;

	*tgid = 0;
	r = sg_task_status(tid, &cur);
	if (r < 0)
		return r;
	r = sg_task_ids(cur, tgid, &ppid);
	if (r < 0)
		return r;
	/* stepguard itself, any of its threads: outside. */
	if (*tgid == me)
		return 0;
	*pin = fcntl(cur, F_DUPFD_CLOEXEC, 3);
	if (*pin < 0)
		return -errno;
	for (int depth = 0; depth < SG_WALK_MAX; depth++) {
		_cleanup_close_ int up = -1;
		pid_t again = 0;

		/* Our own number is ours while we run: a parent with it is us. */
		if (ppid == me)
			return 1;
		/* 0: the top (a task of the kernel, or of a parent namespace). */
		if (ppid <= 0)
			return 0;
		r = sg_task_status(ppid, &up);
		if (r == -ESRCH) {
			/* It died: cur now has another parent.  Read it again. */
			r = sg_task_ids(cur, &t, &ppid);
			if (r < 0)
				return r;
			continue;
		}
		if (r < 0)
			return r;
		r = sg_task_ids(cur, &t, &again);
		if (r < 0)
			return r;
		if (again != ppid) { /* reparented while we looked: from the new one */
			ppid = again;
			continue;
		}
		close(cur);
		cur = steal_fd(&up);
		r = sg_task_ids(cur, &t, &ppid);
		if (r < 0)
			return r == -ESRCH ? 0 : r;
	}
	/* Deeper than any real tree: refused, as the upward walk of a path is. */
	return 0;
}

/*
 * The process group in a /proc/PID/stat line: after the name's last ')'
 * (a name may hold one) come the state, the parent and the group.
 * strtol, not sscanf: a number out of range is an error, not undefined.
 */
static int stat_pgrp(const char *buf, long *pg)
{
	const char *p = strrchr(buf, ')');
	char *end;

	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -EIO;
	p += 4;
	errno = 0;
	(void)strtol(p, &end, 10); /* the parent */
	if (end == p || *end != ' ' || errno)
		return -EIO;
	p = end + 1;
	*pg = strtol(p, &end, 10);
	if (end == p || errno)
		return -EIO;
	return 0;
}

/* Process group PGID's first member outside the step (*out), 0 if none. */
static int sg_pgrp_inside(pid_t pgid, pid_t *out, bool *any)
{
	_cleanup_close_ int dfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *e;
	int r = 1;

	*out = 0;
	*any = false;
	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d)
		return -errno;
	(void)steal_fd(&dfd); /* the DIR owns it now */
	while (r == 1 && (e = readdir(d))) {
		char p[64], buf[512], *end;
		pid_t pid = (pid_t)strtol(e->d_name, &end, 10);
		_cleanup_close_ int fd = -1;
		long pg;
		ssize_t n;
		int in, pin = -1;
		pid_t tg;

		if (*end || pid <= 0)
			continue;
		snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* gone since the listing */
		n = read(fd, buf, sizeof(buf) - 1);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		if (stat_pgrp(buf, &pg) < 0)
			continue;
		if ((pid_t)pg != pgid)
			continue;
		*any = true;
		in = sg_sched_inside(pid, &tg, &pin);
		if (pin >= 0)
			close(pin);
		if (in == -ESRCH)
			continue;
		if (in < 0)
			r = in;
		else if (in == 0) {
			*out = pid;
			r = 0;
		}
	}
	closedir(d);
	return r;
}

/* ---- acting ------------------------------------------------------------ */

/* One notified scheduling call, decoded. */
struct sg_sched {
	enum sg_sched_what what;
	int nr;                 /* the native syscall number */
	bool pgrp;              /* the target is a process group */
	bool user;              /* every process of a user: refused */
	pid_t who;              /* thread id or process group, in our namespace */
	int refusal;
};

static int sg_sched_refuse(struct sg_target *t, const struct sg_sched *sc, pid_t target,
			   int why, struct sg_sup_event *ev, struct sg_reply *rep)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->op, sizeof(ev->op), "%s", sg_op_name(SG_OP_SCHED));
	ev->pid = t->creds.tgid;
	ev->arg = (uint64_t)(uint32_t)target << 32 | (uint64_t)sc->what;
	ev->result = -EPERM;
	ev->why = why;
	rep->error = EPERM;
	return 1;
}

/* Is the caller in our pid namespace?  Else its numbers name other tasks here. */
static int sg_same_pidns(struct sg_target *t)
{
	struct stat mine, its;

	if (stat("/proc/self/ns/pid", &mine) < 0)
		return -errno;
	if (fstatat(t->proc, "ns/pid", &its, 0) < 0)
		return -errno;
	return mine.st_dev == its.st_dev && mine.st_ino == its.st_ino;
}

/* The caller's process group (the "0" of the group forms). */
static int sg_caller_pgrp(struct sg_target *t, pid_t *pgid)
{
	char buf[512];
	_cleanup_close_ int fd = openat(t->proc, "stat", O_RDONLY | O_CLOEXEC);
	long pg;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	if (stat_pgrp(buf, &pg) < 0)
		return -EIO;
	*pgid = (pid_t)pg;
	return 0;
}

/*
 * Decode the target the way the kernel does: the arguments are ints, 0 is
 * the caller (its thread; its process group for the group forms), and a
 * "which" out of range is EINVAL before any lookup.  0, or a positive errno
 * to answer.
 */
static int sg_sched_decode(struct sg_target *t, const struct sg_call *c,
			   const uint64_t *arg, struct sg_sched *sc)
{
	int which = (int)arg[0], who = (int)arg[1];

	memset(sc, 0, sizeof(*sc));
	sc->refusal = EPERM;
	if (strcmp(c->name, "setpriority") == 0 || strcmp(c->name, "ioprio_set") == 0) {
		bool prio = c->name[0] == 's';
		int process = prio ? PRIO_PROCESS : SG_IOPRIO_WHO_PROCESS;
		int group = prio ? PRIO_PGRP : SG_IOPRIO_WHO_PGRP;
		int user = prio ? PRIO_USER : SG_IOPRIO_WHO_USER;

		sc->what = prio ? SG_SCHED_NICE : SG_SCHED_IOPRIO;
		if (which == user)
			sc->user = true;
		else if (which == group)
			sc->pgrp = true;
		else if (which != process)
			return EINVAL;
		sc->who = who;
		if (who == 0 && sc->pgrp) {
			int r = sg_caller_pgrp(t, &sc->who);

			if (r < 0)
				return -r;
		}
	} else {
		sc->what = strcmp(c->name, "prlimit64") == 0 ? SG_SCHED_RLIMIT : SG_SCHED_SCHEDULER;
		sc->who = which;
		/*
		 * A negative pid: the kernel answers EINVAL (sched_setscheduler,
		 * sched_setparam, sched_setattr) or ESRCH (the others).
		 */
		if (sc->who < 0)
			return strcmp(c->name, "sched_setaffinity") == 0 ||
			       sc->what == SG_SCHED_RLIMIT ? ESRCH : EINVAL;
	}
	if (sc->who == 0 && !sc->pgrp && !sc->user)
		sc->who = t->tid; /* a self form with junk in the high bits */
	return 0;
}

/*
 * Perform the call on our own copy of its arguments, with the step's
 * credentials (checked by the caller), and answer with its result.
 */
static int sg_sched_act(struct sg_target *t, const struct sg_call *c, const uint64_t *arg,
			const struct sg_sched *sc, struct sg_reply *rep)
{
	long r;

	if (strcmp(c->name, "setpriority") == 0) {
		r = setpriority(sc->pgrp ? PRIO_PGRP : PRIO_PROCESS, (id_t)sc->who, (int)arg[2]);
	} else if (strcmp(c->name, "ioprio_set") == 0) {
		r = syscall(SYS_ioprio_set, sc->pgrp ? SG_IOPRIO_WHO_PGRP : SG_IOPRIO_WHO_PROCESS,
			    sc->who, (int)arg[2]);
	} else if (strcmp(c->name, "sched_setaffinity") == 0) {
		/*
		 * The kernel copies min(len, its cpumask size) bytes and
		 * zero-fills a shorter one; its cpumask is at most 1024
		 * bytes, so our copy of that many is what it would read.
		 */
		unsigned char mask[SG_CPUMASK_MAX];
		size_t len = arg[1] > SG_CPUMASK_MAX ? SG_CPUMASK_MAX : (size_t)arg[1];
		int e = sg_target_read(t, arg[2], mask, len);

		if (e < 0)
			return e;
		r = syscall(SYS_sched_setaffinity, sc->who, len, mask);
	} else if (strcmp(c->name, "sched_setscheduler") == 0 ||
		   strcmp(c->name, "sched_setparam") == 0) {
		struct sched_param p;
		bool param = c->name[6] == 'p';
		int e;

		if (arg[param ? 1 : 2] == 0)
			return rep->error = EINVAL, 0;
		e = sg_target_read(t, arg[param ? 1 : 2], &p, sizeof(p));
		if (e < 0)
			return e;
		if (param)
			r = syscall(SYS_sched_setparam, sc->who, &p);
		else
			r = syscall(SYS_sched_setscheduler, sc->who, (int)arg[1], &p);
	} else if (strcmp(c->name, "sched_setattr") == 0) {
		/*
		 * Its size leads the structure; the kernel takes 0 as the
		 * first size and refuses more than a page (E2BIG).  Our copy
		 * is handed over whole, so the kernel checks the rest.
		 */
		_cleanup_free_ uint32_t *attr = NULL;
		uint32_t size;
		int e;

		if (arg[1] == 0)
			return rep->error = EINVAL, 0;
		e = sg_target_read(t, arg[1], &size, sizeof(size));
		if (e < 0)
			return e;
		if (size == 0)
			size = SG_SCHED_ATTR_VER0;
		if (size > (uint32_t)t->s->page_size || size < SG_SCHED_ATTR_VER0)
			return rep->error = E2BIG, 0;
		attr = calloc(1, t->s->page_size);
		if (!attr)
			return -ENOMEM;
		e = sg_target_read(t, arg[1], attr, size);
		if (e < 0)
			return e;
		attr[0] = size;
		r = syscall(SYS_sched_setattr, sc->who, attr, (unsigned int)arg[2]);
	} else if (strcmp(c->name, "prlimit64") == 0) {
		struct rlimit lim, old;
		int e = sg_target_read(t, arg[2], &lim, sizeof(lim));

		if (e < 0)
			return e;
		r = syscall(SYS_prlimit64, sc->who, (int)arg[1], &lim, arg[3] ? &old : NULL);
		/*
		 * The kernel changes the limit, then copies the old one out
		 * (EFAULT after the change): the same order here, through
		 * the caller's own /proc/TID/mem.
		 */
		if (r == 0 && arg[3]) {
			e = sg_target_write(t, arg[3], &old, sizeof(old));
			if (e < 0)
				return e == -EFAULT ? (rep->error = EFAULT, 0) : e;
		}
	} else {
		return -ENOSYS;
	}
	rep->error = r < 0 ? errno : 0;
	rep->val = r < 0 ? 0 : r;
	return 0;
}

int sg_sup_sched(struct sg_target *t, const struct sg_call *c, const uint64_t *arg,
		 const struct sg_view *view, struct sg_sup_event *ev, struct sg_reply *rep)
{
	const struct sg_supervisor *s = t->s;
	struct sg_sched sc;
	_cleanup_close_ int pin = -1;
	pid_t target = 0;
	bool need_user = s->self.cap_eff != 0;
	int r;

	r = sg_sched_decode(t, c, arg, &sc);
	if (r > 0) {
		rep->error = r;
		return 0;
	}
	/*
	 * The numbers are the caller's pid namespace's: from another one
	 * they name other tasks here.  And the supervisor acts with its own
	 * credentials, so it serves only a step that has all of them
	 * (CAP_SYS_NICE, CAP_SYS_RESOURCE for a root step) in our user
	 * namespace, as for files (ops.c).
	 */
	r = sg_same_pidns(t);
	if (r < 0)
		return r == -ENOENT || r == -ESRCH ? -ESRCH : sg_sched_refuse(t, &sc, 0, SG_SUP_FAILED,
									      ev, rep);
	if (r == 0 || !sg_creds_no_more_than(&s->self, &t->creds, !need_user ||
					     (view->user_dev == s->view.user_dev &&
					      view->user_ino == s->view.user_ino)))
		return sg_sched_refuse(t, &sc, 0, SG_SUP_FOREIGN, ev, rep);

	/* Every process of a user: the runner's too.  Never for a step. */
	if (sc.user)
		return sg_sched_refuse(t, &sc, 0, SG_SUP_GUARD, ev, rep);
	if (sc.pgrp) {
		bool any;

		/*
		 * Every member must be inside.  A process can join a group
		 * only of its own accord or by its parent's hand, and only
		 * within its session; so the group cannot gain a process
		 * from outside between this check and the call unless that
		 * process joins it itself.
		 */
		r = sg_pgrp_inside(sc.who, &target, &any);
		if (r < 0)
			return sg_sched_refuse(t, &sc, 0, SG_SUP_FAILED, ev, rep);
		if (r == 0)
			return sg_sched_refuse(t, &sc, target, SG_SUP_GUARD, ev, rep);
		if (!any) {
			rep->error = ESRCH; /* the kernel's answer for an empty group */
			return 0;
		}
	} else {
		r = sg_sched_inside(sc.who, &target, &pin);
		if (r == -ESRCH) {
			rep->error = ESRCH;
			return 0;
		}
		if (r < 0)
			return sg_sched_refuse(t, &sc, target, SG_SUP_FAILED, ev, rep);
		if (r == 0)
			return sg_sched_refuse(t, &sc, target, SG_SUP_GUARD, ev, rep);
	}
	/* Audit mode: judged only; sg_supervisor_handle() lets the kernel run it. */
	if (s->audit)
		return 0;
	/*
	 * The target, pinned since the walk, must still live: then its
	 * number is still its own, and the call by number reaches it
	 * (sg_sched_inside(), the race that remains).
	 */
	if (pin >= 0) {
		pid_t a, b;

		if (sg_task_ids(pin, &a, &b) < 0) {
			rep->error = ESRCH;
			return 0;
		}
	}
	r = sg_sched_act(t, c, arg, &sc, rep);
	if (r == -ESRCH) {
		rep->gone = true;
		return 0;
	}
	if (r == -EFAULT) { /* a bad pointer of the step's: the kernel's answer */
		rep->error = EFAULT;
		return 0;
	}
	if (r < 0)
		return sg_sched_refuse(t, &sc, target, SG_SUP_FAILED, ev, rep);
	return 0;
}
