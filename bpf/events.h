/* SPDX-License-Identifier: (MIT OR GPL-2.0-only) */
/*
 * events.h — what the eBPF write filter and its loader share: the records
 * in the maps, and the event each refusal (or, in audit mode, each would-be
 * refusal) sends to user space.
 *
 * Included by bpf/stepguard.bpf.c (after vmlinux.h) and by user space.
 * Fixed-width types only, no padding the compiler could choose differently
 * for the two targets: every struct below is laid out by hand, and the
 * _Static_asserts at the end hold on both sides.
 */
#ifndef SG_BPF_EVENTS_H
#define SG_BPF_EVENTS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#include <stddef.h>
#endif

/*
 * Room for one path in an event, including nothing else: paths are sent
 * with their length, not NUL-terminated.  PATH_MAX, because a longer path
 * cannot be named by a syscall anyway; one that is longer in the tree (a
 * deep directory reached through relative opens) is sent with its leading
 * components cut and SG_EV_PATH*_TRUNC set, never cut silently.
 */
#define SG_PATH_MAX 4096
#define SG_COMM_LEN 16

/* What was tried, decided and why: enum sg_op, sg_decision, sg_ev_reason. */
#include "lib/vocab.h"

/* enum sg_scope_mode: the scope's policy. */
#define SG_BPF_ENFORCE 0
#define SG_BPF_AUDIT 1

/* sg_event.flags */
#define SG_EV_PATH_TRUNC (1U << 0)  /* path lacks its leading components */
#define SG_EV_PATH2_TRUNC (1U << 1)
#define SG_EV_PATH_FSREL (1U << 2)  /* path starts at its file system's root: mount unknown */
#define SG_EV_PATH2_FSREL (1U << 3)
#define SG_EV_PATH_DPATH (1U << 4)  /* path is bpf_d_path's (relative to the task's root) */
#define SG_EV_END1 (1U << 5)        /* the first object (path) is outside the roots */
#define SG_EV_END2 (1U << 6)        /* the second object (path2) is outside the roots */
#define SG_EV_NO_PATH (1U << 7)     /* the operation has no path (guards) */

/*
 * One refusal.  Sent with bpf_ringbuf_output(), cut after path2: the size
 * of a record is SG_EVENT_HDR_SIZE + path_len + path2_len, and user space
 * checks exactly that before reading data[].
 */
struct sg_event {
	__u64 time_ns;   /* CLOCK_BOOTTIME */
	__u64 arg;       /* op-specific, see enum sg_op; open: f_flags; mknod: mode */
	__u32 scope;
	__u32 pid;       /* thread-group id, in the initial pid namespace */
	__u32 tid;
	__u32 uid;       /* real uid and gid, in the initial user namespace */
	__u32 gid;
	__s32 error;     /* what the task got (-EACCES, -EPERM), 0 when audited */
	__u32 flags;     /* SG_EV_* */
	__u16 op;        /* enum sg_op */
	__u8 decision;   /* enum sg_decision */
	__u8 reason;     /* enum sg_ev_reason */
	__u16 path_len;
	__u16 path2_len;
	__u32 pad;
	char comm[SG_COMM_LEN];
	char data[2 * SG_PATH_MAX]; /* path, then path2: bytes, no NUL */
};
#define SG_EVENT_HDR_SIZE (offsetof(struct sg_event, data))

/*
 * sg_task (task storage): the mark of a confined task.  The walk_* fields
 * are the state of the decision walk in progress (see sg_walk() in
 * decide.bpf.h); scope and flags are copied to a child.
 */
struct sg_mark {
	__u32 scope;
	__u32 walk_result;
	__u64 walk_mnt;
	__u64 walk_dentry;
	__u32 flags; /* SG_SCOPE_EXEC: the scope's, when the task was marked */
	__u32 pad;
};

/*
 * sg_scope.flags and sg_mark.flags.  SG_SCOPE_EXEC: the scope's tasks may
 * execute only the files registered for it in sg_execs.  Set on the policy
 * by sg_bpf_scope_exec_allow() before any task is marked; each mark takes
 * a copy (sg_bpf_confine_pid(), then task_alloc), because the mark
 * outlives the policy: what is left of a restricted step once its scope is
 * removed must not get its freedom back.  The exec hook reads the mark.
 */
#define SG_SCOPE_EXEC (1U << 0)

/*
 * sg_registrar (task storage): set on stepguard itself, by itself, while
 * it registers its roots or its exec files (see sg_register() and
 * sg_register_ident() in decide.bpf.h).  KIND says which: a registrar of
 * one kind is never taken for the other, so an exec file can never become
 * a writable root.
 */
struct sg_registrar {
	__u32 scope;
	__u32 count;  /* objects registered so far: proof that the hook ran */
	__s32 err;    /* first failure in the program (-ENOSPC: map full) */
	__u32 kind;   /* SG_REG_ROOTS (0) or SG_REG_EXECS */
};
#define SG_REG_ROOTS 0 /* fchownat(fd, "", -1, -1, AT_EMPTY_PATH): path_chown */
#define SG_REG_EXECS 1 /* fcntl(fd, F_GETFD, SG_REG_EXEC_MAGIC): file_fcntl */
#define SG_REG_SOCKS 2 /* the same call, for sg_socks: allowed pathname sockets */

/*
 * The argument that makes an fcntl(F_GETFD) a registration: F_GETFD
 * ignores its argument, so no other caller has a reason to pass this one,
 * and the hook tests it before anything else (it sees every fcntl).
 */
#define SG_REG_EXEC_MAGIC 0x5347455845430001ULL /* "SGEXEC", 1 */

/* sg_scopes (hash, key: scope id): one per running step. */
struct sg_scope {
	__u32 mode;           /* SG_MODE_* */
	__u32 nroots;
	__u64 denied;         /* refusals seen */
	__u64 audited;        /* would-be refusals let through (audit mode) */
	__u64 lost;           /* of those, events that did not reach the ring */
	__u64 owner_start_ns; /* the registering stepguard: its start_boottime */
	__u32 owner_tgid;     /* and its tgid in the initial pid namespace */
	__u32 flags;          /* SG_SCOPE_EXEC (set by user space) */
	__u32 nexecs;         /* distinct exec identities registered (sg_execs) */
	__u32 nsocks;         /* distinct socket identities registered (sg_socks) */
};

/* sg_roots (hash): a writable root, by kernel identity. */
struct sg_root_key {
	__u32 scope;
	__u32 pad;
	__u64 dentry; /* struct dentry * */
};

struct sg_root_val {
	__u64 mnt;    /* struct vfsmount *: the mount it was opened through */
	__u64 inode;  /* struct inode * */
	__u64 ino;    /* and what that inode was: i_ino, i_generation, mnt_id */
	__u32 gen;    /* guard against the pointers being reused after the */
	__s32 mnt_id; /* objects were freed (a scope left behind by a killed stepguard) */
};

/*
 * sg_execs and sg_socks (hashes, sets: the value is unused): a file the
 * tasks of an exec-restricted scope may execute, or a pathname socket
 * the tasks of a scope may connect or send to, both by the identity of
 * its inode: the device of its file system (s_dev), its inode number and
 * its generation.
 * Not by path: a hard link or another path to the same file is the same
 * file; a new file at the same path is not.  Not by struct inode pointer
 * either: an inode evicted and read again is a new struct but the same
 * file, and the caller need not keep its descriptors open.  The
 * generation tells a freed inode number given to a new file apart (ext4,
 * xfs and tmpfs give each new inode a random one).
 */
struct sg_exec_key {
	__u32 scope;
	__u32 dev; /* inode->i_sb->s_dev, the kernel's dev_t */
	__u64 ino;
	__u32 gen;
	__u32 pad;
};

/* sg_stats (array, one entry): what belongs to no scope. */
struct sg_stats {
	__u64 orphan_denied; /* refusals for tasks whose scope has no policy or ring */
	__u64 unknown;       /* could not tell if confined (6.1: storage busy): refused */
	__u64 fork_refused;  /* a confined task's child could not be marked */
	__u64 scratch_fail;  /* no event buffer for a task: event lost */
};

#ifndef __VMLINUX_H__
_Static_assert(sizeof(struct sg_event) == 72 + 2 * SG_PATH_MAX, "sg_event layout");
_Static_assert(SG_EVENT_HDR_SIZE == 72, "sg_event header layout");
_Static_assert(sizeof(struct sg_scope) == 56, "sg_scope layout");
_Static_assert(sizeof(struct sg_mark) == 32, "sg_mark layout");
_Static_assert(sizeof(struct sg_registrar) == 16, "sg_registrar layout");
_Static_assert(sizeof(struct sg_exec_key) == 24, "sg_exec_key layout");
_Static_assert(sizeof(struct sg_root_key) == 16, "sg_root_key layout");
_Static_assert(sizeof(struct sg_root_val) == 32, "sg_root_val layout");
#endif

#endif /* SG_BPF_EVENTS_H */
