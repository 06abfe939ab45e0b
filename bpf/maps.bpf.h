/* SPDX-License-Identifier: (MIT OR GPL-2.0-only) */
/*
 * maps.bpf.h — what the filter's programs share: the kernel constants
 * vmlinux.h cannot carry, the knobs the loader sets, the maps, and the
 * CO-RE flavours of structures that changed between kernels.
 *
 * Included once, by stepguard.bpf.c (one object, one skeleton).
 */
#ifndef SG_MAPS_BPF_H
#define SG_MAPS_BPF_H

/* From the UAPI and kernel headers, which vmlinux.h cannot carry (macros). */
#define EPERM 1
#define ENOMEM 12
#define EACCES 13
#define EAGAIN 11
#define ENOENT 2
#define ENOSPC 28
#define EINVAL 22
#define ECANCELED 125
#define O_ACCMODE 00000003
#define O_RDONLY 00000000
#define O_CREAT 00000100
#define O_TRUNC 00001000
#define O_APPEND 00002000
#define FMODE_WRITE 0x2
#define FMODE_CREATED 0x100000
#define S_IFMT 00170000
#define S_IFREG 0100000
#define ATTR_MODE (1 << 0)
#define ATTR_UID (1 << 1)
#define ATTR_GID (1 << 2)
#define ATTR_SIZE (1 << 3)
#define ATTR_ATIME (1 << 4)
#define ATTR_MTIME (1 << 5)
#define ATTR_ATIME_SET (1 << 7)
#define ATTR_MTIME_SET (1 << 8)
#define ATTR_TIMES_SET (1 << 16)
#define ATTR_TOUCH (1 << 17)
#define SB_NOUSER (1U << 31)
/* The ioctls that change an inode's flags (include/uapi/linux/fs.h). */
#define FS_IOC_SETFLAGS 0x40086602     /* _IOW('f', 2, long) */
#define FS_IOC32_SETFLAGS 0x40046602   /* _IOW('f', 2, int) */
#define FS_IOC_SETVERSION 0x40087602   /* _IOW('v', 2, long) */
#define FS_IOC32_SETVERSION 0x40047602 /* _IOW('v', 2, int) */
#define FS_IOC_FSSETXATTR 0x401c5820   /* _IOW('X', 32, struct fsxattr) */
#define BPF_LOCAL_STORAGE_GET_F_CREATE 1
#define F_GETFD 1
#define PROC_SUPER_MAGIC 0x9fa0
#define DEVPTS_SUPER_MAGIC 0x1cd1
#define S_IFCHR 0020000
/* The kernel's dev_t: 12 bits of major above 20 of minor (MINORBITS). */
#define SG_MAJOR(dev) ((unsigned int)(dev) >> 20)
#define SG_MINOR(dev) ((unsigned int)(dev) & ((1U << 20) - 1))
#define TTYAUX_MAJOR 5               /* /dev/tty, /dev/console, /dev/ptmx (minor 2) */
#define UNIX98_PTY_SLAVE_MAJOR 136   /* to 143: /dev/pts/N */
#define TIOCSPTLCK 0x40045431        /* _IOW('T', 0x31, int): unlockpt(3) */
#define AF_UNIX 1
#define PTRACE_MODE_NOAUDIT 0x04

/*
 * How many steps a walk may take (one per directory level or mount
 * crossing) before it gives up and refuses.  With bpf_loop() the bound
 * costs the verifier nothing (it checks the body until its state settles,
 * not 128 times over), so it is chosen for the file system: deeper than
 * any real work tree (node_modules nests a few dozen levels), small
 * enough to keep a refusal cheap.  A write more than 128 levels (directories and mount crossings)
 * below its root is refused even though it is inside.
 */
#define SG_WALK_MAX 128

/* NAME_MAX: a component longer than this is reported as a truncation. */
#define SG_NAME_MAX 255

/*
 * Set by the loader before load (the verifier sees them as constants and
 * drops the branches they turn off).
 *
 * sg_lookup_can_fail: this kernel's bpf_task_storage_get() returns NULL
 * when the per-CPU task-storage lock is held (6.1; later kernels split the
 * helper, bpf_task_storage_get_recur appeared in their BTF, and lookups no
 * longer fail that way).  Then "no mark" cannot be told from "could not
 * look", and the program checks the lock.
 */
const volatile bool sg_lookup_can_fail = false;

/* The per-CPU counter the 6.1 helper's trylock uses (see sg_current()). */
extern const int bpf_task_storage_busy __ksym __weak;

/*
 * Maps.  Pinned by name under the loader's version directory, so that
 * every stepguard of this build shares them: a mark set by one is seen by
 * programs loaded by another.
 */

/* The mark of a confined task: its scope.  Copied to every child at fork. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sg_mark);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} sg_task SEC(".maps");

/* Set on stepguard itself while it registers its roots. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sg_registrar);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} sg_registrar SEC(".maps");

/*
 * An event is built here, then copied to the ring.  Task storage rather
 * than a per-CPU array: programs on trampolines run with migration, not
 * preemption, disabled, so two tasks could interleave on one CPU's buffer;
 * a task only ever runs one hook at a time.  Allocated the first time a
 * task is refused, freed with the task.
 */
struct sg_scratch {
	struct sg_event ev;
	/*
	 * The path builder's state (see sg_path_step()).  Here rather than
	 * on the stack: the verifier does not track what a map value holds,
	 * while a stack variable that moves every step (the position in
	 * work[]) makes a 6.7+ verifier, which checks a bpf_loop() body
	 * until its states stop changing, go round once per value: 75000
	 * instructions per program on 6.12 instead of 2000.
	 */
	__u64 pb_mnt;
	__u64 pb_dentry;
	__u32 pb_pos;   /* the path is work[pb_pos .. SG_PATH_MAX) */
	__u32 pb_flags; /* SG_EV_PATH_TRUNC, SG_EV_PATH_FSREL */
	__u32 pb_done;  /* reached the top */
	__u32 pb_pad;
	char work[SG_PATH_MAX + SG_NAME_MAX + 1]; /* a path, built backwards */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sg_scratch);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} sg_scratch SEC(".maps");

/*
 * The policy of each scope.  When user space is out of room here, adding
 * a scope fails and the step does not start.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct sg_scope);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} sg_scopes SEC(".maps");

/*
 * The roots of all scopes, keyed by (scope, dentry): one scope's roots are
 * invisible to another's walks.  Full map: registration fails (deny).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct sg_root_key);
	__type(value, struct sg_root_val);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} sg_roots SEC(".maps");

/*
 * The files each exec-restricted scope may execute, by identity (struct
 * sg_exec_key in events.h).  Written only by registration
 * (sg_register_ident()), never by the exec hook, which only looks up: a
 * full map makes registration fail (-ENOSPC), so the step never starts;
 * it can never make an exec go through.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct sg_exec_key);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} sg_execs SEC(".maps");

/*
 * The pathname UNIX sockets each scope may reach although they lie
 * outside its roots (a build cache's or a docker daemon's socket the
 * policy names), by the identity an exec file has (sg_exec_id()).
 * Written only by registration (sg_register_ident(), kind SG_REG_SOCKS),
 * looked up by the connect and send hooks: a full map makes
 * registration fail (-ENOSPC), so the step never starts; it can never
 * make a connect go through.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct sg_exec_key);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} sg_socks SEC(".maps");

/*
 * The ptys each scope made: a slave's tty_struct, by address, to the scope
 * of the task that unlocked its master (unlockpt(3), TIOCSPTLCK: every
 * pty is unlocked by its maker before its slave can be opened).  Written
 * by the ioctl hook only, for every task of the machine: a confined
 * task's unlock records its scope, anyone else's deletes the entry, so an
 * address reused by a new pty outside can never keep an old step's claim
 * (deleting needs no memory and cannot fail for want of it).  LRU: when
 * full, an old pty of some step is forgotten, and that step's next open of
 * it is refused (deny), never another's let through.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} sg_ptys SEC(".maps");

/*
 * The UNIX stream listeners each scope made: a listening sock, by
 * address, to the scope of the task that called listen() on it (every
 * stream listener does, before anyone can connect).  The same bookkeeping
 * as sg_ptys: a confined task's listen records its scope, anyone else's
 * deletes the entry, so a sock reused outside is never a step's; LRU when
 * full (an old listener of some step forgotten: a connect to it refused).
 * Read for abstract sockets only, which have no file to judge.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} sg_listens SEC(".maps");

/*
 * One ring buffer per scope: a BPF ring buffer has one consumer, and
 * concurrent steps must each read their own events.  Created and inserted
 * by user space.
 */
struct sg_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
	__array(values, struct sg_ring); /* last: a flexible array */
} sg_rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sg_stats);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} sg_stats SEC(".maps");

/*
 * The two layouts of "which mounts does a super block have": a list on
 * 6.1 and 6.12, a singly linked chain on later kernels (the 6.18 this is
 * built on).  CO-RE picks the one the running kernel has.
 */
struct super_block___list {
	struct list_head s_mounts;
} __attribute__((preserve_access_index));

struct mount___list {
	struct list_head mnt_instance;
} __attribute__((preserve_access_index));

struct super_block___chain {
	struct mount *s_mounts;
} __attribute__((preserve_access_index));

struct mount___chain {
	struct mount *mnt_next_for_sb;
} __attribute__((preserve_access_index));

static __always_inline struct sg_stats *sg_stats_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&sg_stats, &zero);
}

static __always_inline struct mount *sg_real_mount(__u64 vfsmount)
{
	return (struct mount *)(vfsmount - bpf_core_field_offset(struct mount, mnt));
}

#endif /* SG_MAPS_BPF_H */
