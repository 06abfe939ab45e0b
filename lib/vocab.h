/* SPDX-License-Identifier: (MIT OR GPL-2.0-only) */
/*
 * vocab.h — the log's words for a refusal, one table for every backend:
 * what was tried (op), what was decided, and why.
 *
 * The numbers are shared with the eBPF program (bpf/events.h includes this
 * file, after vmlinux.h there), so they are fixed: new values are added at
 * the end, never renumbered.  The names are docs/log-format.md's, and
 * `stepguard audit` reads them back.  Pure: enums and switches, no
 * includes, so the BPF side can include it too (the names are left out
 * there).
 */
#ifndef STEPGUARD_VOCAB_H
#define STEPGUARD_VOCAB_H

/* What a confined task tried. */
enum sg_op {
	SG_OP_NONE = 0,
	SG_OP_OPEN,        /* open for writing (f_flags, not only FMODE_WRITE) */
	SG_OP_CREATE,      /* a regular file: open(O_CREAT) or mknod(S_IFREG) */
	SG_OP_MKNOD,       /* fifo, socket, device, whiteout */
	SG_OP_MKDIR,
	SG_OP_RMDIR,
	SG_OP_UNLINK,
	SG_OP_RENAME,      /* path: the old name, path2: the new one */
	SG_OP_LINK,        /* path: the existing file, path2: the new link */
	SG_OP_SYMLINK,
	SG_OP_TRUNCATE,
	SG_OP_CHMOD,
	SG_OP_CHOWN,
	SG_OP_UTIMES,      /* inode_setattr with time changes only */
	SG_OP_SETXATTR,    /* POSIX ACLs (set_acl, 6.2+) included: arg = 1 */
	SG_OP_REMOVEXATTR, /* likewise (remove_acl) */
	SG_OP_BPF,         /* guard: bpf(2); arg = the command */
	SG_OP_KILL,        /* guard: a signal out of the scope; arg = target tgid << 32 | sig */
	SG_OP_PTRACE,      /* guard: ptrace and /proc access; arg = target tgid << 32 | mode */
	SG_OP_MOUNT,       /* guard: mount, move_mount, umount */
	SG_OP_FORK,        /* a confined task's child could not be marked: fork refused */
	SG_OP_CHATTR,      /* inode flags by ioctl (chattr, xfs_io); arg = the command */
	SG_OP_EXEC,        /* a ruling step executed a file not on its exec allow-list */
	SG_OP_PROC,        /* guard: another process's /proc/PID entry; arg = target tgid << 32 */
	SG_OP_CONNECT,     /* connect or send to a pathname UNIX socket outside the roots */
	SG_OP_RECEIVE,     /* a descriptor that writes outside, received by SCM_RIGHTS */
	SG_OP_SCHED,       /* guard: scheduling or limits of a process out of the scope;
			    * arg = target tgid << 32 | what (enum sg_sched_what) */
	SG_OP_PTY,         /* guard: a pty the step neither made nor runs on; arg = its number */
	SG_OP__MAX,
};

/* What SG_OP_SCHED tried, in the low bits of its arg. */
enum sg_sched_what {
	SG_SCHED_NICE = 1,      /* setpriority */
	SG_SCHED_IOPRIO,        /* ioprio_set */
	SG_SCHED_SCHEDULER,     /* sched_setscheduler, sched_setparam, sched_setattr, affinity */
	SG_SCHED_RLIMIT,        /* prlimit64 setting another process's limit */
};

/* What SG_OP_CONNECT tried: its arg. */
enum sg_connect_how {
	SG_CONNECT_STREAM = 1,  /* connect(2) to a stream or seqpacket listener */
	SG_CONNECT_DGRAM,       /* connect(2) or sendmsg(2) to a datagram socket */
	SG_CONNECT_ABSTRACT,    /* eBPF: a stream connect to an abstract socket (no path) */
};

enum sg_decision {
	SG_DECISION_DENIED = 1,  /* the task got -error */
	SG_DECISION_AUDITED = 2, /* audit mode: it would have been refused, and was let through */
};

/* Why the decision was a refusal. */
enum sg_ev_reason {
	SG_WHY_NONE = 0,
	SG_WHY_OUTSIDE,   /* not beneath any writable root (eBPF: the walk reached the top
			   * of the mount tree without a root) */
	SG_WHY_DEPTH,     /* the walk ran out of steps (SG_WALK_MAX) before a root or the top */
	SG_WHY_MOUNT,     /* an object known by dentry only, on a file system whose mount
			   * could not be told (bind-mounted more than once) */
	SG_WHY_NO_SCOPE,  /* the task's scope has no policy: its stepguard removed it */
	SG_WHY_UNKNOWN,   /* could not tell whether the task is confined (6.1 storage busy) */
	SG_WHY_GUARD,     /* a guard hook: bpf, signals, ptrace, mounts */
	SG_WHY_NOMEM,     /* the child's mark could not be allocated */
	/* the supervisor's (Landlock backend) */
	SG_WHY_UNRESOLVED, /* the path needs a /proc magic link, or loops: not resolved */
	SG_WHY_FOREIGN,    /* the step changed its credentials, root or mount namespace */
	SG_WHY_FAILED,     /* the supervisor could not read the step's state or act */
	SG_WHY_NOT_ALLOWED, /* exec: the file is not on the ruling step's exec allow-list */
	SG_WHY_LANDLOCK_ABI, /* Landlock ABI 1: a rename or link across directories, even inside */
	SG_WHY__MAX,
};

#ifndef __bpf__
static inline const char *sg_op_name(unsigned op)
{
	switch (op) {
	case SG_OP_NONE: return "none";
	case SG_OP_OPEN: return "open";
	case SG_OP_CREATE: return "create";
	case SG_OP_MKNOD: return "mknod";
	case SG_OP_MKDIR: return "mkdir";
	case SG_OP_RMDIR: return "rmdir";
	case SG_OP_UNLINK: return "unlink";
	case SG_OP_RENAME: return "rename";
	case SG_OP_LINK: return "link";
	case SG_OP_SYMLINK: return "symlink";
	case SG_OP_TRUNCATE: return "truncate";
	case SG_OP_CHMOD: return "chmod";
	case SG_OP_CHOWN: return "chown";
	case SG_OP_UTIMES: return "utimes";
	case SG_OP_SETXATTR: return "setxattr";
	case SG_OP_REMOVEXATTR: return "removexattr";
	case SG_OP_BPF: return "bpf";
	case SG_OP_KILL: return "kill";
	case SG_OP_PTRACE: return "ptrace";
	case SG_OP_MOUNT: return "mount";
	case SG_OP_FORK: return "fork";
	case SG_OP_CHATTR: return "chattr";
	case SG_OP_EXEC: return "exec";
	case SG_OP_PROC: return "proc";
	case SG_OP_CONNECT: return "connect";
	case SG_OP_RECEIVE: return "receive";
	case SG_OP_SCHED: return "sched";
	case SG_OP_PTY: return "pty";
	default: return "unknown";
	}
}

static inline const char *sg_reason_name(unsigned reason)
{
	switch (reason) {
	case SG_WHY_NONE: return "none";
	case SG_WHY_OUTSIDE: return "outside";
	case SG_WHY_DEPTH: return "depth";
	case SG_WHY_MOUNT: return "mount-unknown";
	case SG_WHY_NO_SCOPE: return "no-scope";
	case SG_WHY_UNKNOWN: return "unknown-task";
	case SG_WHY_GUARD: return "guard";
	case SG_WHY_NOMEM: return "no-memory";
	case SG_WHY_UNRESOLVED: return "unresolved";
	case SG_WHY_FOREIGN: return "foreign";
	case SG_WHY_FAILED: return "supervisor-failed";
	case SG_WHY_NOT_ALLOWED: return "not-allowed";
	case SG_WHY_LANDLOCK_ABI: return "landlock-abi";
	default: return "unknown";
	}
}

static inline const char *sg_decision_name(unsigned decision)
{
	switch (decision) {
	case SG_DECISION_DENIED: return "denied";
	case SG_DECISION_AUDITED: return "audited";
	default: return "unknown";
	}
}
#endif

#endif
