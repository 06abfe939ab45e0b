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
 * task cannot reach the filter's maps, blind or kill its stepguard, or
 * change what a path names.
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
 */
static __always_inline int guard_ptrace_access_check(struct sg_cur *c, struct task_struct *child,
						     unsigned int mode)
{
	if (sg_same_scope(c, child))
		return 0;
	return sg_guard(c, SG_OP_PTRACE, (__u64)BPF_CORE_READ(child, tgid) << 32 | mode);
}
SG_GUARD(ptrace_access_check, (struct task_struct *child, unsigned int mode), (child, mode))

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
