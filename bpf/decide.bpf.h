/* SPDX-License-Identifier: (MIT OR GPL-2.0-only) */
/*
 * decide.bpf.h — who is asking and may it write (or execute) that: the
 * current task's mark and scope, the identity walk from an object up to
 * the roots (its climb, sg_step_up(), is the path builder's too), the
 * identity of an exec file, and the registration of roots and exec files.
 * No events here (report.bpf.h).
 *
 * Included once, by stepguard.bpf.c, after maps.bpf.h.
 */
#ifndef SG_DECIDE_BPF_H
#define SG_DECIDE_BPF_H

/*
 * The current task, as the filter sees it.  Returns 0 when it is not
 * confined (the hook allows and says nothing), 1 when it is: then
 * c->scope is its scope and c->pol its policy, or NULL when the scope has
 * none any more (refuse everything).
 */
struct sg_cur {
	__u32 scope;
	__u32 why; /* enum sg_ev_reason when pol is NULL */
	struct sg_scope *pol;
	struct sg_mark *mark; /* NULL when unknown (SG_WHY_UNKNOWN) */
};

static __always_inline int sg_current(struct sg_cur *c)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct sg_mark *mark;

	mark = bpf_task_storage_get(&sg_task, task, 0, 0);
	if (!mark) {
		/*
		 * On 6.1 a lookup fails, as if there were no mark, when
		 * this CPU's task-storage lock is held by someone else
		 * (possible only if that holder was preempted).  Then we
		 * cannot tell a confined task from another: refuse.  An
		 * unconfined task pays this only in that window.
		 */
		if (sg_lookup_can_fail && &bpf_task_storage_busy) {
			const int *busy = bpf_this_cpu_ptr(&bpf_task_storage_busy);

			if (*busy) {
				struct sg_stats *st = sg_stats_get();

				if (st)
					__sync_fetch_and_add(&st->unknown, 1);
				c->scope = 0;
				c->pol = NULL;
				c->mark = NULL;
				c->why = SG_WHY_UNKNOWN;
				return 1;
			}
		}
		return 0;
	}
	c->scope = mark->scope;
	c->mark = mark;
	/*
	 * No policy for the scope: its stepguard removed it on exit (or
	 * never finished adding it).  What is left of the step (a daemon
	 * that outlived it) is refused every write, not let loose.
	 */
	c->pol = bpf_map_lookup_elem(&sg_scopes, &c->scope);
	c->why = SG_WHY_NO_SCOPE;
	return 1;
}

/* Is the root record still the object it was registered as? */
static __always_inline bool sg_root_matches(const struct sg_root_val *r, __u64 mnt,
					    struct dentry *d)
{
	struct inode *inode;

	/* An object known by dentry only (mnt 0) matches through any mount. */
	if (mnt) {
		struct mount *m = sg_real_mount(mnt);

		if (r->mnt != mnt || BPF_CORE_READ(m, mnt_id) != r->mnt_id)
			return false;
	}
	inode = BPF_CORE_READ(d, d_inode);
	if ((__u64)inode != r->inode)
		return false;
	return BPF_CORE_READ(inode, i_ino) == r->ino &&
	       BPF_CORE_READ(inode, i_generation) == r->gen;
}

/*
 * The one mount of the file system whose root is D, when there is exactly
 * one (0 otherwise).  Used by walks that start from a dentry without a
 * mount (inode_setattr, the xattr hooks): at the top of the file system
 * they must know where it is mounted to go on.  Read without the mount
 * lock: a racing mount or umount can only make the answer 0 (refuse) or
 * a mount that was, a moment ago, the one.
 */
static __always_inline __u64 sg_sole_mount(struct dentry *d)
{
	struct super_block *sb = BPF_CORE_READ(d, d_sb);
	struct mount *m;

	if (bpf_core_field_exists(struct mount___list, mnt_instance)) {
		struct super_block___list *sbl = (void *)sb;
		struct list_head *head = &sbl->s_mounts;
		struct list_head *first = BPF_CORE_READ(sbl, s_mounts.next);

		if (!first || first == head)
			return 0;
		if (BPF_CORE_READ(first, next) != head)
			return 0; /* more than one: which one was meant? */
		m = (void *)((__u64)first - bpf_core_field_offset(struct mount___list, mnt_instance));
	} else if (bpf_core_field_exists(struct mount___chain, mnt_next_for_sb)) {
		struct super_block___chain *sbc = (void *)sb;
		struct mount___chain *mc;

		m = BPF_CORE_READ(sbc, s_mounts);
		if (!m)
			return 0;
		mc = (void *)m;
		if (BPF_CORE_READ(mc, mnt_next_for_sb))
			return 0;
	} else {
		return 0; /* a layout this program does not know: refuse */
	}
	if (BPF_CORE_READ(m, mnt.mnt_root) != d)
		return 0; /* mounted from a subdirectory: we walked past its root */
	return (__u64)&m->mnt;
}

/* Where sg_step_up() went: on, or why the climb ends there. */
enum sg_up {
	SG_UP_PARENT,   /* to the parent directory, on the same mount */
	SG_UP_MOUNT,    /* to where a mount is mounted, or to the one mount of a file system */
	SG_UP_TOP,      /* the root of the top mount: nothing above */
	SG_UP_DETACHED, /* the root of a file system, not of the mount it was reached through */
	SG_UP_NO_MOUNT, /* the top of a file system reached without a mount, and it has several */
};

/*
 * One step up from D (reached through MNT, or 0 when not known), as d_path
 * climbs: the walk and the path builder both go up this way, so that the
 * path of an event is the ancestry its decision walked.  Where it goes on
 * (SG_UP_PARENT, SG_UP_MOUNT), the next position is written to *NEXT_MNT
 * and *NEXT_DENTRY: the caller's loop state, which lives in a map value
 * (see sg_walkc).
 */
static __always_inline enum sg_up sg_step_up(__u64 mnt, struct dentry *d, __u64 *next_mnt,
					     __u64 *next_dentry)
{
	struct dentry *parent;

	if (mnt) {
		struct vfsmount *vfs = (void *)mnt;

		/*
		 * At the root of a mount, go on from where it is mounted,
		 * as d_path does; a mount that is its own parent is the top
		 * of this mount tree.
		 */
		if (BPF_CORE_READ(vfs, mnt_root) == d) {
			struct mount *m = sg_real_mount(mnt);
			struct mount *up = BPF_CORE_READ(m, mnt_parent);

			if (!up || up == m)
				return SG_UP_TOP;
			*next_dentry = (__u64)BPF_CORE_READ(m, mnt_mountpoint);
			*next_mnt = (__u64)&up->mnt;
			return SG_UP_MOUNT;
		}
	}
	parent = BPF_CORE_READ(d, d_parent);
	if (!parent || parent == d) {
		__u64 sole;

		/*
		 * The root of a file system but not of the mount we came
		 * through: a disconnected dentry, outside every root.
		 */
		if (mnt)
			return SG_UP_DETACHED;
		sole = sg_sole_mount(d);
		if (!sole)
			return SG_UP_NO_MOUNT;
		*next_mnt = sole; /* the next step crosses it */
		return SG_UP_MOUNT;
	}
	*next_dentry = (__u64)parent;
	return SG_UP_PARENT;
}

/*
 * The walk from an object towards the top, one step per bpf_loop() call.
 * Its state (mount, dentry, result) lives in the task's mark, a map value,
 * not on the stack.  The 6.1 verifier checks a loop callback once, with
 * the values the first call sees: a stack field that starts as the
 * constant 0 (the mount of a dentry-only walk) made it conclude that the
 * mount-crossing branch could never run, and it removed that branch as
 * dead code; the walk then went round at the top of the file system
 * until it ran out.  The verifier assumes nothing about map values.  The
 * mark is the task's own, and a task runs one hook at a time.
 */
struct sg_walkc {
	struct sg_mark *m;
};

static long sg_walk_step(__u32 i, void *data)
{
	struct sg_mark *w = ((struct sg_walkc *)data)->m;
	struct sg_root_key key = {};
	struct sg_root_val *root;
	struct dentry *d;
	enum sg_up up;
	__u64 mnt;

	if (!w)
		return 1;
	d = (void *)w->walk_dentry;
	mnt = w->walk_mnt;
	key.scope = w->scope;
	key.dentry = (__u64)d;
	root = bpf_map_lookup_elem(&sg_roots, &key);
	if (root && sg_root_matches(root, mnt, d)) {
		w->walk_result = SG_WHY_NONE;
		return 1;
	}
	up = sg_step_up(mnt, d, &w->walk_mnt, &w->walk_dentry);
	if (up == SG_UP_PARENT || up == SG_UP_MOUNT)
		return 0;
	w->walk_result = up == SG_UP_NO_MOUNT ? SG_WHY_MOUNT : SG_WHY_OUTSIDE;
	return 1;
}

/*
 * Is DENTRY (reached through MNT, or 0 if not known) inside one of the
 * scope's roots?  SG_WHY_NONE when it is, else the reason to refuse.
 */
static __always_inline __u32 sg_walk(struct sg_mark *mark, __u64 mnt, __u64 dentry)
{
	struct sg_walkc w = { .m = mark };
	struct dentry *d = (void *)dentry;
	__u32 result;
	long n;

	if (!dentry)
		return SG_WHY_OUTSIDE;
	/*
	 * Pipes and sockets reopened through /proc/self/fd live on file
	 * systems no path reaches (SB_NOUSER): writing them writes nothing
	 * in the tree the roots describe.  Landlock lets them through too.
	 */
	if (BPF_CORE_READ(d, d_sb, s_flags) & SB_NOUSER)
		return SG_WHY_NONE;
	mark->walk_mnt = mnt;
	mark->walk_dentry = dentry;
	mark->walk_result = SG_WHY_DEPTH;
	n = bpf_loop(SG_WALK_MAX, sg_walk_step, &w, 0);
	result = mark->walk_result;
	/* Still SG_WHY_DEPTH: the walk ran out before an answer.  Refuse. */
	if (n < 0 || result == SG_WHY_DEPTH)
		return SG_WHY_DEPTH;
	return result;
}

/*
 * Roots are registered through the hooks themselves.  stepguard sets
 * sg_registrar on its own task, then calls fchownat(fd, "", -1, -1,
 * AT_EMPTY_PATH) on each root's O_PATH descriptor; security_path_chown()
 * hands us that descriptor's (mount, dentry), exactly the identity the
 * walks compare against, with no path string in between.  The chown is
 * then cancelled (it would change nothing but ctime).  That the count
 * grows also proves the hooks run: a lsm/ program on a kernel where bpf
 * is not an active LSM never sees the call, and user space then refuses
 * to call the filter enforcing.
 *
 * Returns 0 when the task is not registering (go on as a chown), else the
 * hook's answer.
 */
static __always_inline int sg_register(const struct path *path)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct sg_registrar *reg;
	struct sg_root_key key = {};
	struct sg_root_val val = {};
	struct sg_scope *pol;
	struct vfsmount *mnt;
	struct mount *m;
	struct dentry *d;
	struct inode *inode;

	reg = bpf_task_storage_get(&sg_registrar, task, 0, 0);
	/* An exec registrar's chown is a chown: no exec file becomes a root. */
	if (!reg || reg->kind != SG_REG_ROOTS)
		return 0;
	key.scope = reg->scope;
	pol = bpf_map_lookup_elem(&sg_scopes, &key.scope);
	if (!pol) {
		reg->err = -ENOENT;
		return -ECANCELED;
	}
	d = BPF_CORE_READ(path, dentry);
	inode = BPF_CORE_READ(d, d_inode);
	key.dentry = (__u64)d;
	mnt = BPF_CORE_READ(path, mnt);
	/* (through a local: BPF_CORE_READ would relocate val.mnt too) */
	m = sg_real_mount((__u64)mnt);
	val.mnt = (__u64)mnt;
	val.mnt_id = BPF_CORE_READ(m, mnt_id);
	val.inode = (__u64)inode;
	val.ino = BPF_CORE_READ(inode, i_ino);
	val.gen = BPF_CORE_READ(inode, i_generation);
	/* Roots map full: the scope cannot be what the policy says.  Fail. */
	if (bpf_map_update_elem(&sg_roots, &key, &val, BPF_ANY)) {
		reg->err = -ENOSPC;
		return -ECANCELED;
	}
	pol->owner_tgid = bpf_get_current_pid_tgid() >> 32;
	pol->owner_start_ns = BPF_CORE_READ(task, start_boottime);
	__sync_fetch_and_add(&pol->nroots, 1);
	__sync_fetch_and_add(&reg->count, 1);
	return -ECANCELED;
}

/*
 * The identity an exec-restricted scope knows a file by (struct
 * sg_exec_key): registration and the exec hook both build it here, from
 * the file's inode, so the two can only ever agree on what "the same file"
 * is.  The device keeps two file systems' inode numbers apart (a file on
 * another mount with the same number is another file); the generation
 * keeps a freed inode number given to a new file apart.
 */
static __always_inline void sg_exec_id(struct sg_exec_key *k, __u32 scope, struct inode *inode)
{
	k->scope = scope;
	k->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	k->ino = BPF_CORE_READ(inode, i_ino);
	k->gen = BPF_CORE_READ(inode, i_generation);
	k->pad = 0;
}

/* May the tasks of SCOPE execute FILE?  Only if it was registered for it. */
static __always_inline bool sg_exec_allowed(__u32 scope, struct file *file)
{
	struct sg_exec_key key = {};
	struct inode *inode = BPF_CORE_READ(file, f_inode);

	if (!inode)
		return false;
	sg_exec_id(&key, scope, inode);
	return bpf_map_lookup_elem(&sg_execs, &key) != NULL;
}

/*
 * Exec files are registered as roots are, through a hook the registrar
 * triggers on its own O_PATH descriptor, but not through path_chown:
 * fchownat() asks mnt_want_write() before security_path_chown(), so on a
 * read-only mount (squashfs snaps, /nix/store, a read-only container
 * root: where programs often live) it fails with EROFS before any hook.
 * fcntl(fd, F_GETFD, SG_REG_EXEC_MAGIC) reaches security_file_fcntl() on
 * any descriptor, O_PATH included, on any mount, with no permission
 * check, and F_GETFD changes nothing.  The hook records the identity of
 * the descriptor's inode (sg_exec_id()) and cancels the call; that the
 * count grows proves the hook runs, as for roots.
 *
 * Allowed sockets (SG_REG_SOCKS) are registered the same way, into
 * sg_socks: a socket file cannot be opened but with O_PATH, and its
 * identity is what the connect hooks compare.
 *
 * Returns 0 when the task is not registering exec files or sockets (the
 * fcntl goes on), else the hook's answer.
 */
static __always_inline int sg_register_ident(struct file *file)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct sg_registrar *reg;
	struct sg_exec_key key = {};
	struct sg_scope *pol;
	struct inode *inode;
	__u32 one = 1;
	bool known;
	long err;

	reg = bpf_task_storage_get(&sg_registrar, task, 0, 0);
	/* A roots registrar's fcntl is an fcntl: no root becomes an exec file. */
	if (!reg || (reg->kind != SG_REG_EXECS && reg->kind != SG_REG_SOCKS))
		return 0;
	pol = bpf_map_lookup_elem(&sg_scopes, &reg->scope);
	if (!pol) {
		reg->err = -ENOENT;
		return -ECANCELED;
	}
	inode = BPF_CORE_READ(file, f_inode);
	if (!inode) {
		reg->err = -EINVAL;
		return -ECANCELED;
	}
	sg_exec_id(&key, reg->scope, inode);
	/*
	 * The same file twice (/bin/sh and /bin/busybox) is one identity.
	 * Map full: the scope could not run (or reach) what its policy
	 * lets it, and a missing entry only ever refuses.  Fail the
	 * registration, so that the step does not start at all.
	 */
	if (reg->kind == SG_REG_EXECS) {
		known = bpf_map_lookup_elem(&sg_execs, &key) != NULL;
		err = bpf_map_update_elem(&sg_execs, &key, &one, BPF_ANY);
	} else {
		known = bpf_map_lookup_elem(&sg_socks, &key) != NULL;
		err = bpf_map_update_elem(&sg_socks, &key, &one, BPF_ANY);
	}
	if (err) {
		reg->err = -ENOSPC;
		return -ECANCELED;
	}
	if (!known)
		__sync_fetch_and_add(reg->kind == SG_REG_EXECS ? &pol->nexecs : &pol->nsocks, 1);
	__sync_fetch_and_add(&reg->count, 1);
	return -ECANCELED;
}

/* May the tasks of SCOPE reach the socket whose file is INODE (registered)? */
static __always_inline bool sg_sock_allowed(__u32 scope, struct inode *inode)
{
	struct sg_exec_key key = {};

	if (!inode)
		return false;
	sg_exec_id(&key, scope, inode);
	return bpf_map_lookup_elem(&sg_socks, &key) != NULL;
}

/*
 * The scope of any task, known only by its address (a procfs inode's
 * task: no hook argument, so no BTF pointer the task-storage helper
 * would take; 6.1 has no kfunc to make one).  Read as
 * bpf_local_storage_lookup() reads it, lock-free under RCU, which these
 * programs run in: the storage's cache slot for sg_task, else its list
 * of elements.  Returns the scope, or 0 when the task carries no mark or
 * none could be found within SG_STORAGE_SCAN elements (then the task is
 * taken for one outside the scope: its entries are refused, never let
 * through).
 */
#define SG_STORAGE_SCAN 16

static __always_inline __u32 sg_scope_of(__u64 task)
{
	struct task_struct *t = (void *)task;
	struct bpf_local_storage *ls = BPF_CORE_READ(t, bpf_storage);
	struct bpf_local_storage_map *smap;
	struct bpf_local_storage_data *sdata = NULL;
	struct hlist_node *n;
	void *map = &sg_task;
	__u64 idx, off, mine = 0;
	__u32 scope = 0;

	if (!ls)
		return 0;
	/*
	 * sg_task's address as a number: the verifier allows no offset on
	 * a map pointer, and the storage names its map by the address of
	 * the bpf_local_storage_map around (at the start of) the bpf_map.
	 */
	bpf_probe_read_kernel(&mine, sizeof(mine), &map);
	smap = (void *)mine;
	idx = BPF_CORE_READ(smap, cache_idx) & 15;
	off = bpf_core_field_offset(struct bpf_local_storage, cache) + idx * sizeof(void *);
	bpf_probe_read_kernel(&sdata, sizeof(sdata), (void *)ls + off);
	if (!sdata || (__u64)BPF_CORE_READ(sdata, smap) != mine) {
		sdata = NULL;
		n = BPF_CORE_READ(ls, list.first);
		for (int i = 0; i < SG_STORAGE_SCAN && n; i++) {
			struct bpf_local_storage_elem *e =
				(void *)n - bpf_core_field_offset(struct bpf_local_storage_elem, snode);
			struct bpf_local_storage_data *d =
				(void *)e + bpf_core_field_offset(struct bpf_local_storage_elem, sdata);

			if ((__u64)BPF_CORE_READ(d, smap) == mine) {
				sdata = d;
				break;
			}
			n = BPF_CORE_READ(n, next);
		}
	}
	if (!sdata)
		return 0;
	/* struct sg_mark begins with the scope */
	bpf_probe_read_kernel(&scope, sizeof(scope),
			      (void *)sdata + bpf_core_field_offset(struct bpf_local_storage_data, data));
	return scope;
}

#endif /* SG_DECIDE_BPF_H */
