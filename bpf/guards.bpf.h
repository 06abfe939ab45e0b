/* SPDX-License-Identifier: (MIT OR GPL-2.0-only) */
/*
 * guards.bpf.h — the guard hooks of stepguard.bpf.c, which includes this
 * file at the place the hooks stood (after the write hooks, before task
 * inheritance): SG_GUARD and sg_guard() are defined there.  One job, in a
 * file of its own only to keep stepguard.bpf.c readable.
 */
#ifndef SG_GUARDS_BPF_H
#define SG_GUARDS_BPF_H

/*
 * Guards.  Seccomp already removes bpf(2), ptrace(2) and the mount calls
 * from a step; these refuse what seccomp cannot see (a step started with
 * seccomp additions, a syscall reached another way), so that a confined
 * task cannot reach the filter's maps, blind, kill or starve its
 * stepguard, or change what a path names.
 */
static __always_inline int guard_bpf(struct sg_cur *c, int cmd, void *attr, unsigned int size)
{
	return sg_guard(c, SG_OP_BPF, cmd);
}
SG_GUARD(bpf, (int cmd, void *attr, unsigned int size), (cmd, attr, size))

/*
 * Signals stay inside the scope: a step may signal its own tasks, not its
 * stepguard, another step or anything unconfined.  (Signals the kernel
 * sends, such as SIGCHLD to the parent, do not pass through this hook.)
 */
static __always_inline int guard_task_kill(struct sg_cur *c, struct task_struct *p, void *info,
					   int sig, const void *cred)
{
	if (sg_same_scope(c, p))
		return 0;
	return sg_guard(c, SG_OP_KILL, (__u64)BPF_CORE_READ(p, tgid) << 32 | (__u32)sig);
}
SG_GUARD(task_kill, (struct task_struct *p, void *info, int sig, const void *cred),
	 (p, info, sig, cred))

/*
 * ptrace, process_vm_writev, /proc/<pid>/mem, /fd, /environ and
 * pidfd_getfd all ask ptrace_may_access(): the same rule as signals.
 *
 * With PTRACE_MODE_NOAUDIT the kernel only asks what it may show: the
 * stat and status that ps and top read of every process ask whether to
 * fill in wchan, the stack and instruction pointers.  Refused the same
 * way (the fields stay hidden), but without an event: one per process
 * per ps would bury the log in refusals of nothing the step asked for.
 */
static __always_inline int guard_ptrace_access_check(struct sg_cur *c, struct task_struct *child,
						     unsigned int mode)
{
	if (sg_same_scope(c, child))
		return 0;
	if (mode & PTRACE_MODE_NOAUDIT)
		return c->pol && c->pol->mode == SG_BPF_AUDIT ? 0 : -EPERM;
	return sg_guard(c, SG_OP_PTRACE, (__u64)BPF_CORE_READ(child, tgid) << 32 | mode);
}
SG_GUARD(ptrace_access_check, (struct task_struct *child, unsigned int mode), (child, mode))

/*
 * Scheduling and limits stay inside the scope too: renice, ionice, chrt,
 * taskset and prlimit on another process would let a step starve its
 * stepguard, another step or the runner (SCHED_FIFO, an I/O class of
 * idle, one CPU), or shrink their limits (RLIMIT_NOFILE, RLIMIT_CORE)
 * so that they fail later, in ways that do not look like an attack.
 * The step's own tasks keep working: build tools renice and pin their
 * own workers.  Each hook receives the target task; a refusal is EPERM
 * (what the kernel says for a process one may not touch) and one event,
 * op sched, arg the target's tgid << 32 | what (enum sg_sched_what).
 */
static __always_inline int sg_guard_sched(struct sg_cur *c, struct task_struct *p, __u32 what)
{
	if (sg_same_scope(c, p))
		return 0;
	return sg_guard(c, SG_OP_SCHED, (__u64)BPF_CORE_READ(p, tgid) << 32 | what);
}

/* setpriority(2), and nice(2) on the caller itself (in scope). */
static __always_inline int guard_task_setnice(struct sg_cur *c, struct task_struct *p, int nice)
{
	return sg_guard_sched(c, p, SG_SCHED_NICE);
}
SG_GUARD(task_setnice, (struct task_struct *p, int nice), (p, nice))

/* ioprio_set(2), one call per task of a process group or user. */
static __always_inline int guard_task_setioprio(struct sg_cur *c, struct task_struct *p,
						int ioprio)
{
	return sg_guard_sched(c, p, SG_SCHED_IOPRIO);
}
SG_GUARD(task_setioprio, (struct task_struct *p, int ioprio), (p, ioprio))

/*
 * sched_setscheduler, sched_setparam and sched_setattr (through
 * __sched_setscheduler() when called from user space) and
 * sched_setaffinity all ask this one hook.
 */
static __always_inline int guard_task_setscheduler(struct sg_cur *c, struct task_struct *p)
{
	return sg_guard_sched(c, p, SG_SCHED_SCHEDULER);
}
SG_GUARD(task_setscheduler, (struct task_struct *p), (p))

/*
 * prlimit64(2) and setrlimit(2) when they set a limit (reading one asks
 * nothing): P is the task whose limit changes, the caller for setrlimit.
 */
static __always_inline int guard_task_setrlimit(struct sg_cur *c, struct task_struct *p,
						unsigned int resource, void *new_rlim)
{
	return sg_guard_sched(c, p, SG_SCHED_RLIMIT);
}
SG_GUARD(task_setrlimit, (struct task_struct *p, unsigned int resource, void *new_rlim),
	 (p, resource, new_rlim))

/* A mount changes what every path names: no confined task may. */
static __always_inline int guard_sb_mount(struct sg_cur *c, const char *dev_name,
					  const struct path *path, const char *type,
					  unsigned long flags, void *data)
{
	return sg_guard(c, SG_OP_MOUNT, flags);
}
SG_GUARD(sb_mount,
	 (const char *dev_name, const struct path *path, const char *type, unsigned long flags,
	  void *data),
	 (dev_name, path, type, flags, data))

static __always_inline int guard_sb_umount(struct sg_cur *c, struct vfsmount *mnt, int flags)
{
	return sg_guard(c, SG_OP_MOUNT, flags);
}
SG_GUARD(sb_umount, (struct vfsmount *mnt, int flags), (mnt, flags))

static __always_inline int guard_move_mount(struct sg_cur *c, const struct path *from_path,
					    const struct path *to_path)
{
	return sg_guard(c, SG_OP_MOUNT, 0);
}
SG_GUARD(move_mount, (const struct path *from_path, const struct path *to_path),
	 (from_path, to_path))

#endif /* SG_GUARDS_BPF_H */
