/* SPDX-License-Identifier: (MIT OR GPL-2.0-only) */
/*
 * reach.bpf.h — the hooks by which a step could reach outside itself
 * through other processes rather than through files: another process's
 * /proc files (read by file_open, in stepguard.bpf.c, through
 * sg_proc_open()), the pathname UNIX sockets of daemons outside the
 * roots and the abstract ones of listeners outside the step, writable
 * descriptors of outside files handed in by someone else, and other
 * terminals (file_open and file_ioctl, through sg_pty_open() and
 * sg_pty_unlock()).  Included by stepguard.bpf.c before file_open,
 * after sg_decide(), sg_refuse(), sg_same_scope() and SG_HOOK.
 */
#ifndef SG_REACH_BPF_H
#define SG_REACH_BPF_H

/*
 * A procfs entry's name, as a number: up to 7 bytes, zero padded, little
 * endian; ~0 for a longer one (no name below is).  One compare per
 * allowed name, no string loop for the verifier.
 */
#define SG_C(ch, i) ((__u64)(unsigned char)(ch) << (8 * (i)))
#define SG_NAME_STAT (SG_C('s', 0) | SG_C('t', 1) | SG_C('a', 2) | SG_C('t', 3))
#define SG_NAME_STATUS (SG_NAME_STAT | SG_C('u', 4) | SG_C('s', 5))
#define SG_NAME_STATM (SG_NAME_STAT | SG_C('m', 4))
#define SG_NAME_COMM (SG_C('c', 0) | SG_C('o', 1) | SG_C('m', 2) | SG_C('m', 3))
#define SG_NAME_TASK (SG_C('t', 0) | SG_C('a', 1) | SG_C('s', 2) | SG_C('k', 3))

static __always_inline __u64 sg_name8(struct dentry *d)
{
	__u32 len = BPF_CORE_READ(d, d_name.len);
	const unsigned char *name = BPF_CORE_READ(d, d_name.name);
	__u64 v = 0;

	if (len == 0 || len > 7)
		return ~0ULL;
	bpf_probe_read_kernel(&v, len & 7, name);
	return v;
}

/*
 * Is D, a per-process procfs entry, one that a task outside its
 * process's scope may open?  Only what ps, pgrep and top read: the
 * /proc/PID directory (listing it), its task/ directory and each
 * task/TID directory, and in /proc/PID or /proc/PID/task/TID the files
 * stat, status, statm and comm.  Everything else is refused, whatever
 * its name: cmdline and environ (secrets passed on a command line or in
 * the environment), mem, maps, smaps, pagemap, auxv (addresses, for an
 * attack on the process), stack, syscall, wchan, io, fd/, fdinfo/,
 * map_files/, ns/, attr/, mountinfo, and any entry a later kernel adds.
 * Known by where it lies under the procfs root, not by the mount: every
 * mount of procfs has the same root dentry.
 */
static __always_inline bool sg_proc_public(struct dentry *d)
{
	struct dentry *root = BPF_CORE_READ(d, d_sb, s_root);
	struct dentry *p = BPF_CORE_READ(d, d_parent);
	struct dentry *gp = BPF_CORE_READ(p, d_parent);
	__u64 name;

	if (p == root)
		return true; /* /proc/PID */
	name = sg_name8(d);
	if (gp == root && name == SG_NAME_TASK)
		return true; /* /proc/PID/task */
	if (BPF_CORE_READ(gp, d_parent) == root && sg_name8(p) == SG_NAME_TASK)
		return true; /* /proc/PID/task/TID */
	if (name != SG_NAME_STAT && name != SG_NAME_STATUS && name != SG_NAME_STATM &&
	    name != SG_NAME_COMM)
		return false;
	if (gp == root)
		return true; /* /proc/PID/NAME */
	/* /proc/PID/task/TID/NAME */
	return sg_name8(gp) == SG_NAME_TASK && BPF_CORE_READ(gp, d_parent, d_parent) == root;
}

/*
 * An open, of any kind, of a procfs file by a confined task: refused
 * when the file is a per-process entry of a task outside the caller's
 * scope and not one sg_proc_public() lets through.  The ptrace guard
 * covers only the entries whose open asks ptrace_may_access() (environ,
 * mem, fd/); cmdline, maps' neighbours and the like ask nothing, and a
 * command line is where CI secrets often travel.  The step's own tasks
 * (/proc/self, its children) are in its scope and unaffected.
 *
 * Called for a file on procfs only (do_file_open() reads the
 * superblock's magic once, for this and sg_pty_open()).  A procfs inode
 * is a struct proc_inode around its vfs_inode; its pid is set only for
 * per-process entries (/proc/net/..., /proc/sys
 * have none: not a process's, left alone).  The task is that pid's
 * PIDTYPE_PID task (the thread, for /proc/PID/task/TID/...), and its
 * scope is read by sg_scope_of(): a task that is gone, or whose mark
 * cannot be found, counts as outside.  Refused: -EACCES and one event,
 * op proc, arg the target's tgid << 32, the file's path.
 */
static __always_inline int sg_proc_open(struct sg_cur *c, bool fmod, struct file *file)
{
	struct inode *inode = BPF_CORE_READ(file, f_inode);
	struct proc_inode *pi;
	struct hlist_node *first;
	struct sg_objs o = {};
	struct dentry *d;
	struct pid *pid;
	__u64 task = 0, tgid = 0;

	pi = (void *)inode - bpf_core_field_offset(struct proc_inode, vfs_inode);
	pid = BPF_CORE_READ(pi, pid);
	if (!pid)
		return 0;
	d = BPF_CORE_READ(file, f_path.dentry);
	if (sg_proc_public(d))
		return 0;
	first = BPF_CORE_READ(pid, tasks[PIDTYPE_PID].first);
	if (first) {
		task = (__u64)first - bpf_core_field_offset(struct task_struct, pid_links);
		/* (no policy: what is left of a removed scope is outside everything) */
		if (c->pol && sg_scope_of(task) == c->scope)
			return 0;
		tgid = BPF_CORE_READ((struct task_struct *)task, tgid);
	}
	o.mnt1 = o.pmnt1 = (__u64)BPF_CORE_READ(file, f_path.mnt);
	o.dentry1 = o.pdent1 = (__u64)d;
	if (fmod)
		o.dpath = &file->f_path;
	return sg_refuse(c, SG_OP_PROC, c->pol ? SG_WHY_GUARD : c->why, 0, tgid << 32, &o,
			 -EACCES);
}

/*
 * Pathname UNIX sockets.  A socket file outside the roots is a daemon's
 * door (docker's, a build cache's, systemd's, another step's): writing to
 * it can do whatever the daemon does, files outside included.  A connect
 * or a send reaches OTHER only if its file lies beneath one of the
 * scope's writable roots (the walk the writes take: the step could have
 * made it there) or is one of the scope's allowed sockets, by identity
 * (sg_bpf_scope_sockets_allow()).  A stream connect to an abstract
 * socket (no file) reaches only a listener of the caller's own scope
 * (sg_connect_abstract()); abstract datagrams are Landlock's scope's to
 * refuse (ABI 6; below it, the gap abstract-sockets), and unnamed sockets
 * (socketpair) lead only to a process that handed them over.  A scope
 * whose policy is gone reaches none (sg_decide()).  Refused: -EACCES and
 * one event, op connect, arg enum sg_connect_how, the socket's path.
 */
static __always_inline int sg_connect_abstract(struct sg_cur *c, struct sock *other);

static __always_inline int sg_connect(__u64 how, struct sock *other)
{
	struct unix_sock *u = (void *)other;
	struct sg_cur c;
	struct sg_objs o = {};
	struct dentry *d;

	if (!sg_current(&c))
		return 0;
	d = BPF_CORE_READ(u, path.dentry);
	if (!d) {
		if (how == SG_CONNECT_STREAM && BPF_CORE_READ(u, addr))
			return sg_connect_abstract(&c, other);
		return 0;
	}
	if (c.pol && sg_sock_allowed(c.scope, BPF_CORE_READ(d, d_inode)))
		return 0;
	o.mnt1 = o.pmnt1 = (__u64)BPF_CORE_READ(u, path.mnt);
	o.dentry1 = o.pdent1 = (__u64)d;
	return sg_decide(&c, SG_OP_CONNECT, how, &o);
}

/*
 * An abstract stream socket has no file to lie beneath a root: a
 * container shim's, a desktop's or a build daemon's is a door like
 * docker.sock.  OTHER, the listener, must be one the caller's scope made
 * (sg_listens, recorded by socket_listen below), which keeps a step's
 * own servers (a daemonized one included: the scope of the listen(),
 * not of who holds the socket now) and nobody else's.  Refused: -EACCES,
 * one event, op connect, arg SG_CONNECT_ABSTRACT, no path (the name is
 * not a file).  Where Landlock's abstract scope is layered (ABI 6) it
 * refuses the same connects, and datagrams too.
 */
static __always_inline int sg_connect_abstract(struct sg_cur *c, struct sock *other)
{
	__u64 key = (__u64)other;
	__u32 *owner;

	if (c->pol) {
		owner = bpf_map_lookup_elem(&sg_listens, &key);
		if (owner && *owner == c->scope)
			return 0;
	}
	return sg_refuse(c, SG_OP_CONNECT, c->pol ? SG_WHY_OUTSIDE : c->why, 0, SG_CONNECT_ABSTRACT,
			 NULL, -EACCES);
}

/*
 * listen(2) on a UNIX socket, by any task: a confined task with a policy
 * records the listener as its scope's, anyone else's listen deletes the
 * record at that address (a sock freed and reused outside).  Never
 * refuses.
 */
static __always_inline int do_socket_listen(bool fmod, struct socket *sock, int backlog)
{
	struct sock *sk = BPF_CORE_READ(sock, sk);
	struct sg_cur c;
	__u64 key = (__u64)sk;

	if (!sk || BPF_CORE_READ(sk, __sk_common.skc_family) != AF_UNIX)
		return 0;
	if (sg_current(&c) && c.pol) {
		__u32 scope = c.scope;

		bpf_map_update_elem(&sg_listens, &key, &scope, BPF_ANY);
	} else {
		bpf_map_delete_elem(&sg_listens, &key);
	}
	return 0;
}
SG_HOOK(socket_listen, (struct socket *sock, int backlog), (sock, backlog))

/* connect(2) on a stream or seqpacket socket: OTHER is the listener. */
static __always_inline int do_unix_stream_connect(bool fmod, struct sock *sock, struct sock *other,
						  struct sock *newsk)
{
	return sg_connect(SG_CONNECT_STREAM, other);
}
SG_HOOK(unix_stream_connect, (struct sock *sock, struct sock *other, struct sock *newsk),
	(sock, other, newsk))

/* A datagram: connect(2), and every sendmsg, to a named receiver. */
static __always_inline int do_unix_may_send(bool fmod, struct socket *sock, struct socket *other)
{
	return sg_connect(SG_CONNECT_DGRAM, BPF_CORE_READ(other, sk));
}
SG_HOOK(unix_may_send, (struct socket *sock, struct socket *other), (sock, other))

/*
 * A descriptor received (SCM_RIGHTS, pidfd_getfd; the kernel asks here
 * before installing it): one open for writing is a write the step did
 * not have to open, so it is judged as an open for writing of that file
 * would be.  A writable descriptor of an outside file, handed over by an
 * unconfined process (a helper, a daemon, another step's stepguard), is
 * refused: the receiver gets no descriptor (recvmsg sets MSG_CTRUNC,
 * pidfd_getfd fails -EACCES) and one event, op receive, arg the file's
 * f_flags, its path.  Pipes, sockets and anonymous inodes live on
 * SB_NOUSER file systems and pass (sg_walk()); read-only descriptors
 * pass.
 */
static __always_inline int do_file_receive(bool fmod, struct file *file)
{
	struct sg_cur c;
	struct sg_objs o = {};

	if (!sg_current(&c))
		return 0;
	if (!(BPF_CORE_READ(file, f_mode) & FMODE_WRITE))
		return 0;
	o.mnt1 = o.pmnt1 = (__u64)BPF_CORE_READ(file, f_path.mnt);
	o.dentry1 = o.pdent1 = (__u64)BPF_CORE_READ(file, f_path.dentry);
	return sg_decide(&c, SG_OP_RECEIVE, BPF_CORE_READ(file, f_flags), &o);
}
SG_HOOK(file_receive, (struct file *file), (file))

/*
 * Terminals.  /dev/pts holds every pty of the machine, the user's other
 * terminals among them: opened, one is written to (its screen), read from
 * (the keys typed into it) and set up (its echo, its size, by ioctl on any
 * descriptor).  A root that holds /dev/pts (the shipped dev-pts) cannot
 * tell them apart, so every open of a pty's slave, of any kind, is judged
 * here, after the write path: a confined task may open
 *
 *   - its controlling terminal (the one stepguard was started on, which
 *     the step inherits; signal->tty is that slave's tty_struct);
 *   - a pty its own scope made: the scope that unlocked the master
 *     (sg_pty_unlock()), whether the slave is then opened by name
 *     (ptsname) or by TIOCGPTPEER (openpty(3), script(1)), which opens it
 *     through the same hook.
 *
 * Anything else is refused: -EACCES and one event, op pty, arg the pty's
 * number, its path.  A slave's tty_struct is its dentry's d_fsdata
 * (devpts_pty_new()); the devpts root and ptmx are not character devices
 * of the slave majors, and are left to the write path.  Called for a
 * file on a devpts file system only (do_file_open()).
 */
static __always_inline int sg_pty_open(struct sg_cur *c, bool fmod, struct file *file)
{
	struct inode *inode = BPF_CORE_READ(file, f_inode);
	struct task_struct *task;
	struct sg_objs o = {};
	struct dentry *d;
	__u64 slave;
	__u32 *owner;
	unsigned int major;

	major = SG_MAJOR(BPF_CORE_READ(inode, i_rdev));
	if ((BPF_CORE_READ(inode, i_mode) & S_IFMT) != S_IFCHR || major < UNIX98_PTY_SLAVE_MAJOR ||
	    major > UNIX98_PTY_SLAVE_MAJOR + 7)
		return 0;
	d = BPF_CORE_READ(file, f_path.dentry);
	slave = (__u64)BPF_CORE_READ(d, d_fsdata);
	/* (no policy: what is left of a removed scope opens none) */
	if (c->pol && slave) {
		task = bpf_get_current_task_btf();
		if ((__u64)BPF_CORE_READ(task, signal, tty) == slave)
			return 0;
		owner = bpf_map_lookup_elem(&sg_ptys, &slave);
		if (owner && *owner == c->scope)
			return 0;
	}
	o.mnt1 = o.pmnt1 = (__u64)BPF_CORE_READ(file, f_path.mnt);
	o.dentry1 = o.pdent1 = (__u64)d;
	if (fmod)
		o.dpath = &file->f_path;
	return sg_refuse(c, SG_OP_PTY, c->pol ? SG_WHY_GUARD : c->why, 0,
			 (__u64)BPF_CORE_READ(inode, i_ino) - 3, &o, -EACCES);
}

/*
 * TIOCSPTLCK on a pty master (/dev/ptmx or /dev/pts/ptmx: the device
 * 5:2, wherever its node lies): asked before the ioctl runs, by every
 * task.  A confined task with a policy claims the pty for its scope;
 * any other task's unlock removes whatever claim the slave's address
 * held, so a pty made outside is never a step's, even at the address of
 * one that was.  Never refuses: unlocking is not the harm, opening the
 * slave is.  A claim that cannot be stored (the map full of another
 * scope's recent ones: LRU) leaves the step's own slave refused.
 */
static __always_inline void sg_pty_unlock(struct file *file)
{
	struct inode *inode = BPF_CORE_READ(file, f_inode);
	struct tty_file_private *priv;
	struct sg_cur c;
	__u64 slave;
	__u32 rdev = BPF_CORE_READ(inode, i_rdev);

	if ((BPF_CORE_READ(inode, i_mode) & S_IFMT) != S_IFCHR || SG_MAJOR(rdev) != TTYAUX_MAJOR ||
	    SG_MINOR(rdev) != 2)
		return;
	priv = BPF_CORE_READ(file, private_data);
	slave = (__u64)BPF_CORE_READ(priv, tty, link);
	if (!slave)
		return;
	if (sg_current(&c) && c.pol) {
		__u32 scope = c.scope;

		bpf_map_update_elem(&sg_ptys, &slave, &scope, BPF_ANY);
	} else {
		bpf_map_delete_elem(&sg_ptys, &slave);
	}
}

#endif /* SG_REACH_BPF_H */
