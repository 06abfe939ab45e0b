// SPDX-License-Identifier: (MIT OR GPL-2.0-only)
/*
 * stepguard.bpf.c — the eBPF write filter.
 *
 * Refuses every write outside a confined step's writable roots, for the
 * step and every task it ever forks, and reports each refusal on the
 * scope's ring buffer.
 *
 * Two attach modes from one source.  Each hook body is written once, as
 * do_<hook>(), and SG_HOOK() emits two programs for it: "lsm/<hook>"
 * (bpf-lsm: BPF_PROG_TYPE_LSM, enforcing only where "bpf" is an active LSM)
 * and "fmod_ret/security_<hook>" (bpf-fmod: a trampoline on the kernel's
 * security_* function, which enforces whatever the LSM list says).  Both
 * sets live in one object so that they share one set of maps; the loader
 * turns autoload on for the set it was asked for (and off for hooks this
 * kernel lacks), so only that set is verified and attached.  Compiling the
 * object twice would have given two skeletons and two sets of maps that a
 * task confined through one mode could not be seen through by the other.
 *
 * Every program has the same shape:
 *
 *     SEC(...) int BPF_PROG(name, ..., int ret)
 *         if (ret) return ret;          an earlier LSM or program refused
 *         is this task confined?        sg_current()
 *         decide                        sg_walk(): object identity
 *         event                         sg_refuse()
 *
 * SG_HOOK() writes the first line of every program, SG_GUARD() the
 * first two of the guards (which decide on the task, not on an object).
 * One program decides nothing for a confined task: file_fcntl, through
 * which stepguard registers exec files (as path_chown's registration
 * call registers roots).
 *
 * Decisions are by object identity, never by path strings: the roots are
 * (mount, dentry) pairs taken from the O_PATH descriptors stepguard opened
 * at start (sg_register()), and a decision walks the ancestry of the
 * object (or of its parent directory) up to a root.  In a ruling step
 * (exec-restricted scope), the files it may execute are inode identities
 * taken the same way (sg_register_ident()), and bprm_check compares the
 * file being executed with them.  Paths in events are rebuilt for people
 * afterwards and play no part in any decision.
 *
 * Failing closed, in every place where the program cannot be sure:
 *   - a walk that runs out of steps refuses (SG_WALK_MAX);
 *   - a task whose scope has no policy refuses every write;
 *   - a child whose mark cannot be stored is not allowed to exist;
 *   - a full roots, exec or sockets map makes registration fail, so the
 *     step never starts;
 *   - another process's /proc files are refused when its task's mark
 *     cannot be found (sg_scope_of()), and a scope whose policy is gone
 *     reaches no pathname socket outside and no other process;
 *   - in an exec-restricted scope, a file not registered is not executed,
 *     and a task whose restricted scope is gone executes nothing;
 *   - on 6.1, where a task-storage lookup can fail when the per-CPU
 *     storage lock is busy, a failed lookup with the lock busy refuses.
 * A full ring buffer loses the event, never the decision; it is counted.
 *
 * Files: maps.bpf.h (constants, knobs, maps), decide.bpf.h (the task's
 * mark, the identity walk, root registration), report.bpf.h (paths and
 * events), reach.bpf.h (other processes' /proc files, UNIX sockets,
 * received descriptors), guards.bpf.h (the guards), and here the other
 * hooks, in the order of the design's list.
 */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bpf/events.h"
#include "bpf/maps.bpf.h"
#include "bpf/decide.bpf.h"
#include "bpf/report.bpf.h"

/* "Dual MIT/GPL" is GPL-compatible: LSM programs and probe_read need it. */
char LICENSE[] SEC("license") = "Dual MIT/GPL";

/*
 * Decide one or two objects for a confined task.  Returns 0 or the error
 * for the hook.
 */
static __always_inline int sg_decide(struct sg_cur *c, __u16 op, __u64 arg, const struct sg_objs *o)
{
	__u32 r1 = SG_WHY_NONE, r2 = SG_WHY_NONE, flags = 0;

	if (!c->pol || !c->mark)
		return sg_refuse(c, op, c->why, 0, arg, o, -EACCES);
	r1 = sg_walk(c->mark, o->mnt1, o->dentry1);
	if (o->dentry2)
		r2 = sg_walk(c->mark, o->mnt2, o->dentry2);
	if (r1 == SG_WHY_NONE && r2 == SG_WHY_NONE)
		return 0;
	if (r1 != SG_WHY_NONE)
		flags |= SG_EV_END1;
	if (r2 != SG_WHY_NONE)
		flags |= SG_EV_END2;
	return sg_refuse(c, op, r1 != SG_WHY_NONE ? r1 : r2, flags, arg, o, -EACCES);
}

/* A guard: the operation is refused for every confined task. */
static __always_inline int sg_guard(struct sg_cur *c, __u16 op, __u64 arg)
{
	return sg_refuse(c, op, c->pol ? SG_WHY_GUARD : c->why, 0, arg, NULL, -EPERM);
}

/* Is TASK in the same (existing) scope as the current confined task? */
static __always_inline bool sg_same_scope(const struct sg_cur *c, struct task_struct *task)
{
	struct sg_mark *m;

	if (!c->pol || !task)
		return false;
	m = bpf_task_storage_get(&sg_task, task, 0, 0);
	return m && m->scope == c->scope;
}

/*
 * The hooks.  do_<hook>() is the body; SG_HOOK() emits the lsm/ and the
 * fmod_ret/ program around it, and their first line: a refusal by an
 * earlier LSM or program stands, and the body never runs.  FMOD is a
 * constant in each program, so what differs between the modes
 * (bpf_d_path is allowed on some security_* functions, never on
 * non-sleepable LSM hooks) compiles away.
 */
#define SG_UNPACK(...) __VA_ARGS__
#define SG_HOOK(hook, args, call) SG_HOOK_AT(hook, hook, args, call)

/*
 * SG_HOOK() for a hook whose security_* function has another name than
 * the hook: bprm_check_security is called by security_bprm_check().
 */
#define SG_HOOK_AT(hook, func, args, call)                                \
	SEC("lsm/" #hook)                                                 \
	int BPF_PROG(lsm_##hook, SG_UNPACK args, int ret)                 \
	{                                                                 \
		if (ret)                                                  \
			return ret;                                       \
		return do_##hook(false, SG_UNPACK call);                  \
	}                                                                 \
	SEC("fmod_ret/security_" #func)                                   \
	int BPF_PROG(fmod_##hook, SG_UNPACK args, int ret)                \
	{                                                                 \
		if (ret)                                                  \
			return ret;                                       \
		return do_##hook(true, SG_UNPACK call);                   \
	}

/*
 * The guards judge the task, not an object: guard_<hook>() runs only for
 * a confined task, and returns 0 or sg_guard()'s answer.  SG_GUARD()
 * writes the do_<hook>() that asks sg_current() first, and the programs.
 */
#define SG_GUARD(hook, args, call)                                        \
	static __always_inline int do_##hook(bool fmod, SG_UNPACK args)  \
	{                                                                 \
		struct sg_cur c;                                          \
									  \
		if (!sg_current(&c))                                      \
			return 0;                                         \
		return guard_##hook(&c, SG_UNPACK call);                  \
	}                                                                 \
	SG_HOOK(hook, args, call)

/* Does this open write?  By the flags asked for, not only FMODE_WRITE. */
static __always_inline bool sg_open_writes(struct file *file)
{
	unsigned int flags = BPF_CORE_READ(file, f_flags);

	/* O_RDONLY|O_TRUNC truncates; O_CREAT on an existing file is
	 * treated as the write it was meant to be; O_ACCMODE 3 asks for
	 * both permissions. */
	return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_TRUNC | O_CREAT | O_APPEND)) ||
	       (BPF_CORE_READ(file, f_mode) & FMODE_WRITE);
}

/* Another process's /proc files, UNIX sockets, received descriptors. */
#include "bpf/reach.bpf.h"

/*
 * Three decisions: a write open (the write path, as for every file), then,
 * for any open, another process's /proc file (sg_proc_open()) and a pty
 * the step neither made nor runs on (sg_pty_open()).  The write path goes
 * first so that what it refuses is reported as it always was (op open,
 * outside the roots).
 */
static __always_inline int do_file_open(bool fmod, struct file *file)
{
	struct sg_cur c;
	struct sg_objs o = {};
	int r;

	if (!sg_current(&c))
		return 0;
	/*
	 * FMODE_CREATED: this open created the file: path_mknod judged
	 * that creation, in the same directory, a moment ago.  Judging
	 * again would only report an audited create twice.
	 */
	if (sg_open_writes(file) && !(BPF_CORE_READ(file, f_mode) & FMODE_CREATED)) {
		o.mnt1 = o.pmnt1 = (__u64)BPF_CORE_READ(file, f_path.mnt);
		o.dentry1 = o.pdent1 = (__u64)BPF_CORE_READ(file, f_path.dentry);
		if (fmod)
			o.dpath = &file->f_path;
		r = sg_decide(&c, SG_OP_OPEN, BPF_CORE_READ(file, f_flags), &o);
		if (r)
			return r;
	}
	/*
	 * Then by file system, its magic read once: every open of a
	 * confined task comes here, and most are neither.
	 */
	switch (BPF_CORE_READ(file, f_inode, i_sb, s_magic)) {
	case PROC_SUPER_MAGIC:
		return sg_proc_open(&c, fmod, file);
	case DEVPTS_SUPER_MAGIC:
		return sg_pty_open(&c, fmod, file);
	default:
		return 0;
	}
}
SG_HOOK(file_open, (struct file *file), (file))

/* The creates: the directory decides, the new name is reported. */
static __always_inline int sg_create(__u16 op, __u64 arg, const struct path *dir,
				     struct dentry *dentry)
{
	struct sg_cur c;
	struct sg_objs o = {};

	if (!sg_current(&c))
		return 0;
	o.mnt1 = o.pmnt1 = (__u64)BPF_CORE_READ(dir, mnt);
	o.dentry1 = (__u64)BPF_CORE_READ(dir, dentry);
	o.pdent1 = (__u64)dentry;
	return sg_decide(&c, op, arg, &o);
}

/*
 * Can anything be created in DIR?  Not where its inode has neither the
 * operation (create for files, mknod for the rest) nor atomic_open: the
 * VFS refuses the creation itself (EACCES, EPERM).
 */
static __always_inline bool sg_dir_creates(const struct path *dir, bool regular)
{
	struct inode *inode = BPF_CORE_READ(dir, dentry, d_inode);
	const struct inode_operations *iop = BPF_CORE_READ(inode, i_op);

	if (!iop)
		return true; /* cannot tell: judge */
	if (BPF_CORE_READ(iop, atomic_open))
		return true;
	return regular ? BPF_CORE_READ(iop, create) != NULL : BPF_CORE_READ(iop, mknod) != NULL;
}

/*
 * Also every open(O_CREAT) of a name not in the dcache: may_o_create()
 * calls it before the lookup, so for a name that turns out to exist the
 * kernel drops our answer and goes on to open it (judged in file_open).
 * A redirect to /dev/stdout (/proc/self/fd/1) comes through here with a
 * procfs directory that cannot create anything: skipped, or every such
 * redirect would be reported as a refused create.
 */
static __always_inline int do_path_mknod(bool fmod, const struct path *dir, struct dentry *dentry,
					 umode_t mode, unsigned int dev)
{
	bool regular = (mode & S_IFMT) == S_IFREG || !(mode & S_IFMT);

	if (!sg_dir_creates(dir, regular))
		return 0;
	return sg_create(regular ? SG_OP_CREATE : SG_OP_MKNOD, mode, dir, dentry);
}
SG_HOOK(path_mknod, (const struct path *dir, struct dentry *dentry, umode_t mode, unsigned int dev),
	(dir, dentry, mode, dev))

static __always_inline int do_path_mkdir(bool fmod, const struct path *dir, struct dentry *dentry,
					 umode_t mode)
{
	return sg_create(SG_OP_MKDIR, mode, dir, dentry);
}
SG_HOOK(path_mkdir, (const struct path *dir, struct dentry *dentry, umode_t mode),
	(dir, dentry, mode))

static __always_inline int do_path_symlink(bool fmod, const struct path *dir, struct dentry *dentry,
					   const char *old_name)
{
	return sg_create(SG_OP_SYMLINK, 0, dir, dentry);
}
SG_HOOK(path_symlink, (const struct path *dir, struct dentry *dentry, const char *old_name),
	(dir, dentry, old_name))

/* Removing a name writes its directory. */
static __always_inline int do_path_rmdir(bool fmod, const struct path *dir, struct dentry *dentry)
{
	return sg_create(SG_OP_RMDIR, 0, dir, dentry);
}
SG_HOOK(path_rmdir, (const struct path *dir, struct dentry *dentry), (dir, dentry))

static __always_inline int do_path_unlink(bool fmod, const struct path *dir, struct dentry *dentry)
{
	return sg_create(SG_OP_UNLINK, 0, dir, dentry);
}
SG_HOOK(path_unlink, (const struct path *dir, struct dentry *dentry), (dir, dentry))

/*
 * A rename writes both directories, whatever the flags: the old name goes,
 * the new one comes (RENAME_EXCHANGE swaps two names, each directory
 * loses one and gains one; RENAME_WHITEOUT leaves a whiteout in the old).
 * Both ends must be inside the roots.
 */
static __always_inline int do_path_rename(bool fmod, const struct path *old_dir,
					  struct dentry *old_dentry, const struct path *new_dir,
					  struct dentry *new_dentry, unsigned int flags)
{
	struct sg_cur c;
	struct sg_objs o = {};

	if (!sg_current(&c))
		return 0;
	o.mnt1 = o.pmnt1 = (__u64)BPF_CORE_READ(old_dir, mnt);
	o.dentry1 = (__u64)BPF_CORE_READ(old_dir, dentry);
	o.pdent1 = (__u64)old_dentry;
	o.mnt2 = o.pmnt2 = (__u64)BPF_CORE_READ(new_dir, mnt);
	o.dentry2 = (__u64)BPF_CORE_READ(new_dir, dentry);
	o.pdent2 = (__u64)new_dentry;
	return sg_decide(&c, SG_OP_RENAME, flags, &o);
}
SG_HOOK(path_rename,
	(const struct path *old_dir, struct dentry *old_dentry, const struct path *new_dir,
	 struct dentry *new_dentry, unsigned int flags),
	(old_dir, old_dentry, new_dir, new_dentry, flags))

/*
 * A hard link writes the new directory, and gives the step a second name
 * for the old file: an outside file linked into a root would be writable
 * through it.  So the source must be inside the roots too.  Links never
 * cross mounts (do_linkat refuses EXDEV before this hook), so the source
 * is on the new directory's mount.
 */
static __always_inline int do_path_link(bool fmod, struct dentry *old_dentry,
					const struct path *new_dir, struct dentry *new_dentry)
{
	struct sg_cur c;
	struct sg_objs o = {};

	if (!sg_current(&c))
		return 0;
	o.mnt1 = o.pmnt1 = o.mnt2 = o.pmnt2 = (__u64)BPF_CORE_READ(new_dir, mnt);
	o.dentry1 = o.pdent1 = (__u64)old_dentry;
	o.dentry2 = (__u64)BPF_CORE_READ(new_dir, dentry);
	o.pdent2 = (__u64)new_dentry;
	return sg_decide(&c, SG_OP_LINK, 0, &o);
}
SG_HOOK(path_link, (struct dentry *old_dentry, const struct path *new_dir, struct dentry *new_dentry),
	(old_dentry, new_dir, new_dentry))

/* The object itself decides: truncate, chmod, chown. */
static __always_inline int sg_object(bool fmod, __u16 op, __u64 arg, const struct path *path,
				     bool dpath)
{
	struct sg_cur c;
	struct sg_objs o = {};

	if (!sg_current(&c))
		return 0;
	o.mnt1 = o.pmnt1 = (__u64)BPF_CORE_READ(path, mnt);
	o.dentry1 = o.pdent1 = (__u64)BPF_CORE_READ(path, dentry);
	if (fmod && dpath)
		o.dpath = path;
	return sg_decide(&c, op, arg, &o);
}

static __always_inline int do_path_truncate(bool fmod, const struct path *path)
{
	return sg_object(fmod, SG_OP_TRUNCATE, 0, path, true);
}
SG_HOOK(path_truncate, (const struct path *path), (path))

/* ftruncate(2) and O_TRUNC from 6.2 on; absent on 6.1 (the loader skips it). */
static __always_inline int do_file_truncate(bool fmod, struct file *file)
{
	return sg_object(fmod, SG_OP_TRUNCATE, 0, &file->f_path, false);
}
SG_HOOK(file_truncate, (struct file *file), (file))

static __always_inline int do_path_chmod(bool fmod, const struct path *path, umode_t mode)
{
	return sg_object(fmod, SG_OP_CHMOD, mode, path, false);
}
SG_HOOK(path_chmod, (const struct path *path, umode_t mode), (path, mode))

/*
 * kuid_t and kgid_t are one-member structs passed by value: one u64 slot
 * each, read here as their 32-bit value.
 */
static __always_inline int do_path_chown(bool fmod, const struct path *path, __u32 uid, __u32 gid)
{
	/* (uid_t)-1 twice is "change nothing": the registration call. */
	if (uid == (__u32)-1 && gid == (__u32)-1) {
		int r = sg_register(path);

		if (r)
			return r;
	}
	return sg_object(fmod, SG_OP_CHOWN, (__u64)uid << 32 | gid, path, false);
}
SG_HOOK(path_chown, (const struct path *path, __u32 uid, __u32 gid), (path, uid, gid))

/*
 * fcntl decides nothing for a confined task (no fcntl writes a file's
 * contents or metadata): it is the hook exec files and allowed sockets
 * are registered through (sg_register_ident() says why not path_chown).
 * The command and its argument are tested before anything else: this hook sees every
 * fcntl of the machine, and only F_GETFD with stepguard's own argument
 * costs more than two compares.
 */
static __always_inline int do_file_fcntl(bool fmod, struct file *file, unsigned int cmd,
					 unsigned long arg)
{
	if (cmd != F_GETFD || arg != SG_REG_EXEC_MAGIC)
		return 0;
	return sg_register_ident(file);
}
SG_HOOK(file_fcntl, (struct file *file, unsigned int cmd, unsigned long arg), (file, cmd, arg))

/*
 * Objects known by dentry only: utimes and the xattr hooks get no mount.
 * The walk starts without one, matches roots by dentry, and learns the
 * mount at the top of the file system when the file system has exactly
 * one (else it refuses: SG_WHY_MOUNT).
 */
static __always_inline int sg_dentry(__u16 op, __u64 arg, struct dentry *dentry)
{
	struct sg_cur c;
	struct sg_objs o = {};

	if (!sg_current(&c))
		return 0;
	o.dentry1 = o.pdent1 = (__u64)dentry;
	return sg_decide(&c, op, arg, &o);
}

/*
 * utimes and friends reach no path hook, only notify_change(): judge
 * inode_setattr when it changes times and nothing a path hook has
 * already judged (mode and owners: path_chmod/chown; size: truncate).
 */
static __always_inline int do_inode_setattr(struct dentry *dentry, struct iattr *attr)
{
	unsigned int valid = BPF_CORE_READ(attr, ia_valid);

	if (valid & (ATTR_MODE | ATTR_UID | ATTR_GID | ATTR_SIZE))
		return 0;
	if (!(valid & (ATTR_ATIME | ATTR_MTIME | ATTR_ATIME_SET | ATTR_MTIME_SET | ATTR_TIMES_SET |
		       ATTR_TOUCH)))
		return 0;
	return sg_dentry(SG_OP_UTIMES, valid, dentry);
}

/*
 * The hook's arguments differ between kernels: 6.1's bpf_lsm_inode_setattr
 * takes (dentry, attr), 6.12's (idmap, dentry, attr); security_inode_setattr
 * has the idmap (or user namespace) on both.  Hence three programs instead
 * of SG_HOOK's two; the loader loads the lsm/ one whose argument count
 * matches this kernel's BTF.
 */
SEC("lsm/inode_setattr")
int BPF_PROG(lsm_inode_setattr2, struct dentry *dentry, struct iattr *attr, int ret)
{
	if (ret)
		return ret;
	return do_inode_setattr(dentry, attr);
}

SEC("lsm/inode_setattr")
int BPF_PROG(lsm_inode_setattr, void *idmap, struct dentry *dentry, struct iattr *attr, int ret)
{
	if (ret)
		return ret;
	return do_inode_setattr(dentry, attr);
}

SEC("fmod_ret/security_inode_setattr")
int BPF_PROG(fmod_inode_setattr, void *idmap, struct dentry *dentry, struct iattr *attr, int ret)
{
	if (ret)
		return ret;
	return do_inode_setattr(dentry, attr);
}

/* First argument: user_namespace (6.1) or mnt_idmap (6.3+), unused. */
static __always_inline int do_inode_setxattr(bool fmod, void *idmap, struct dentry *dentry,
					     const char *name, const void *value, size_t size,
					     int flags)
{
	return sg_dentry(SG_OP_SETXATTR, 0, dentry);
}
SG_HOOK(inode_setxattr,
	(void *idmap, struct dentry *dentry, const char *name, const void *value, size_t size,
	 int flags),
	(idmap, dentry, name, value, size, flags))

static __always_inline int do_inode_removexattr(bool fmod, void *idmap, struct dentry *dentry,
						const char *name)
{
	return sg_dentry(SG_OP_REMOVEXATTR, 0, dentry);
}
SG_HOOK(inode_removexattr, (void *idmap, struct dentry *dentry, const char *name),
	(idmap, dentry, name))

/*
 * From 6.2, POSIX ACLs no longer pass through the xattr hooks
 * (setxattr("system.posix_acl_access") goes to vfs_set_acl): their own
 * hooks, absent on 6.1 (the loader skips them there).
 */
static __always_inline int do_inode_set_acl(bool fmod, void *idmap, struct dentry *dentry,
					    const char *acl_name, void *kacl)
{
	return sg_dentry(SG_OP_SETXATTR, 1, dentry);
}
SG_HOOK(inode_set_acl, (void *idmap, struct dentry *dentry, const char *acl_name, void *kacl),
	(idmap, dentry, acl_name, kacl))

static __always_inline int do_inode_remove_acl(bool fmod, void *idmap, struct dentry *dentry,
					       const char *acl_name)
{
	return sg_dentry(SG_OP_REMOVEXATTR, 1, dentry);
}
SG_HOOK(inode_remove_acl, (void *idmap, struct dentry *dentry, const char *acl_name),
	(idmap, dentry, acl_name))

/*
 * chattr and xfs_io change an inode's flags (append-only, nodump, ...)
 * through an ioctl on any descriptor, a read-only one included: judge the
 * object for those commands.  Every other ioctl goes through untouched,
 * so the command is tested before the task: this hook sees every ioctl
 * of the machine.
 */
static __always_inline bool sg_ioctl_writes(unsigned int cmd)
{
	return cmd == FS_IOC_SETFLAGS || cmd == FS_IOC32_SETFLAGS || cmd == FS_IOC_SETVERSION ||
	       cmd == FS_IOC32_SETVERSION || cmd == FS_IOC_FSSETXATTR;
}

static __always_inline int do_file_ioctl(bool fmod, struct file *file, unsigned int cmd,
					 unsigned long arg)
{
	/* A pty's maker unlocks it: who that was decides who may open it. */
	if (cmd == TIOCSPTLCK) {
		sg_pty_unlock(file);
		return 0;
	}
	if (!sg_ioctl_writes(cmd))
		return 0;
	return sg_object(fmod, SG_OP_CHATTR, cmd, &file->f_path, false);
}
SG_HOOK(file_ioctl, (struct file *file, unsigned int cmd, unsigned long arg), (file, cmd, arg))

/* The same from 32-bit tasks (a hook of its own since 6.8, backported to 6.1). */
static __always_inline int do_file_ioctl_compat(bool fmod, struct file *file, unsigned int cmd,
						unsigned long arg)
{
	return do_file_ioctl(fmod, file, cmd, arg);
}
SG_HOOK(file_ioctl_compat, (struct file *file, unsigned int cmd, unsigned long arg),
	(file, cmd, arg))

/*
 * Exec.  A task of an exec-restricted scope (a ruling step) may execute
 * only the files registered for its scope, judged by the identity of the
 * file's inode (sg_exec_allowed()), never by its path.  The hook runs
 * for each round of the binary handlers, with bprm->file the file that
 * round loads: for a script, first the script, then again its
 * interpreter (binfmt_script opens it and exec_binprm() goes round
 * again, and binfmt_misc's interpreters the same way), so a script runs
 * only when both are registered.  It does not run for an ELF program's
 * own interpreter (ld.so): load_elf_binary() opens PT_INTERP with
 * open_exec(), which asks no bprm hook, and shared libraries are mapped,
 * not executed.  So an allowed dynamically linked program runs with the
 * ld.so and the libraries it names, and whatever its environment makes
 * them load (LD_PRELOAD): clearing that is the caller's part.
 *
 * A scope that is not exec-restricted is unaffected: ordinary steps
 * execute anything.
 */
static __always_inline int do_bprm_check_security(bool fmod, struct linux_binprm *bprm)
{
	struct sg_cur c;
	struct sg_objs o = {};
	struct file *file;

	if (!sg_current(&c))
		return 0;
	file = BPF_CORE_READ(bprm, file);
	o.mnt1 = o.pmnt1 = (__u64)BPF_CORE_READ(file, f_path.mnt);
	o.dentry1 = o.pdent1 = (__u64)BPF_CORE_READ(file, f_path.dentry);
	/*
	 * No mark to read (6.1, storage busy): whether the scope restricts
	 * exec cannot be told either.  Refuse, as a write is refused then.
	 */
	if (!c.mark)
		return sg_refuse(&c, SG_OP_EXEC, c.why, 0, 0, &o, -EACCES);
	/* The mark, not the policy: it outlives the policy (events.h, SG_SCOPE_EXEC). */
	if (!(c.mark->flags & SG_SCOPE_EXEC))
		return 0;
	/*
	 * Restricted, and the scope's policy is gone (a daemon that outlived
	 * its step): its exec files go with it.  Refuse every exec, as
	 * every write is refused: it must not get its freedom back.
	 */
	if (!c.pol)
		return sg_refuse(&c, SG_OP_EXEC, c.why, 0, 0, &o, -EACCES);
	if (sg_exec_allowed(c.scope, file))
		return 0;
	return sg_refuse(&c, SG_OP_EXEC, SG_WHY_NOT_ALLOWED, 0, 0, &o, -EACCES);
}
SG_HOOK_AT(bprm_check_security, bprm_check, (struct linux_binprm *bprm), (bprm))

/* The guard hooks: bpf, signals, ptrace, mounts (guards.bpf.h). */
#include "bpf/guards.bpf.h"

/*
 * Inheritance.  Every new task (fork, vfork, clone, threads, io_uring
 * workers, which copy_process() makes without kernel_clone() and so
 * without the sched_process_fork tracepoint) passes through
 * security_task_alloc() before it can run: copy the parent's mark there.
 * A child whose mark cannot be stored would run unconfined: refuse the
 * fork instead.
 */
static __always_inline int do_task_alloc(bool fmod, struct task_struct *task,
					 unsigned long clone_flags)
{
	struct sg_cur c;
	struct sg_mark mark = {};
	struct sg_mark *child;

	if (!sg_current(&c))
		return 0;
	if (c.why == SG_WHY_UNKNOWN || !c.mark) {
		/* Could not tell if the parent is confined (6.1): refuse. */
		return -EAGAIN;
	}
	mark.scope = c.scope;
	/* The exec restriction too: a child that lost it could execute anything. */
	mark.flags = c.mark->flags;
	child = bpf_task_storage_get(&sg_task, task, &mark, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!child || child->scope != c.scope || child->flags != mark.flags) {
		struct sg_stats *st = sg_stats_get();

		if (st)
			__sync_fetch_and_add(&st->fork_refused, 1);
		/* Refused in audit mode too: an unmarked child would drop out of the audit. */
		sg_refuse(&c, SG_OP_FORK, SG_WHY_NOMEM, 0, clone_flags, NULL, -ENOMEM);
		return -ENOMEM;
	}
	return 0;
}
SG_HOOK(task_alloc, (struct task_struct *task, unsigned long clone_flags), (task, clone_flags))
