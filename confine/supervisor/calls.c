// SPDX-License-Identifier: MIT
/*
 * stepguard supervisor — the calls it is notified of: their argument
 * positions, the log's word for each kind, and the errno of a refusal.
 */
#include "confine/supervisor/internal.h"

#include <errno.h>

#include "lib/vocab.h"

#define CALL(n, k, dfd, p, f, at, x1, x2, x3, x4, nf, tm)                     \
	{ .name = (n), .kind = (k), .dirfd = (dfd), .path = (p), .fd = (f),    \
	  .atflags = (at), .a1 = (x1), .a2 = (x2), .a3 = (x3), .a4 = (x4),     \
	  .nofollow = (nf), .times = (tm) }

/*
 * Argument positions, from the kernel's SYSCALL_DEFINEs.  The 32-bit
 * variants (chown32, utimensat_time64, truncate64...) are not here: their
 * layouts differ, and sg_supervisor_add_rules() refuses to run on a
 * 32-bit architecture.
 */
const struct sg_call sg_calls[] = {
	/*    name            kind              dfd path fd  at  a1  a2  a3  a4  nofollow times */
	CALL("chmod",        SG_K_CHMOD,       -1, 0, -1, -1, 1, -1, -1, -1, false, SG_T_NONE),
	CALL("fchmod",       SG_K_CHMOD,       -1, -1, 0, -1, 1, -1, -1, -1, false, SG_T_NONE),
	CALL("fchmodat",     SG_K_CHMOD,        0, 1, -1, -1, 2, -1, -1, -1, false, SG_T_NONE),
	CALL("fchmodat2",    SG_K_CHMOD,        0, 1, -1, 3, 2, -1, -1, -1, false, SG_T_NONE),
	CALL("chown",        SG_K_CHOWN,       -1, 0, -1, -1, 1, 2, -1, -1, false, SG_T_NONE),
	CALL("lchown",       SG_K_CHOWN,       -1, 0, -1, -1, 1, 2, -1, -1, true, SG_T_NONE),
	CALL("fchown",       SG_K_CHOWN,       -1, -1, 0, -1, 1, 2, -1, -1, false, SG_T_NONE),
	CALL("fchownat",     SG_K_CHOWN,        0, 1, -1, 4, 2, 3, -1, -1, false, SG_T_NONE),
	CALL("utime",        SG_K_UTIMES,      -1, 0, -1, -1, 1, -1, -1, -1, false, SG_T_UTIMBUF),
	CALL("utimes",       SG_K_UTIMES,      -1, 0, -1, -1, 1, -1, -1, -1, false, SG_T_TIMEVAL),
	CALL("futimesat",    SG_K_UTIMES,       0, 1, -1, -1, 2, -1, -1, -1, false, SG_T_TIMEVAL),
	CALL("utimensat",    SG_K_UTIMES,       0, 1, -1, 3, 2, -1, -1, -1, false, SG_T_TIMESPEC),
	CALL("setxattr",     SG_K_SETXATTR,    -1, 0, -1, -1, 1, 2, 3, 4, false, SG_T_NONE),
	CALL("lsetxattr",    SG_K_SETXATTR,    -1, 0, -1, -1, 1, 2, 3, 4, true, SG_T_NONE),
	CALL("fsetxattr",    SG_K_SETXATTR,    -1, -1, 0, -1, 1, 2, 3, 4, false, SG_T_NONE),
	CALL("removexattr",  SG_K_REMOVEXATTR, -1, 0, -1, -1, 1, -1, -1, -1, false, SG_T_NONE),
	CALL("lremovexattr", SG_K_REMOVEXATTR, -1, 0, -1, -1, 1, -1, -1, -1, true, SG_T_NONE),
	CALL("fremovexattr", SG_K_REMOVEXATTR, -1, -1, 0, -1, 1, -1, -1, -1, false, SG_T_NONE),
	CALL("truncate",     SG_K_TRUNCATE,    -1, 0, -1, -1, 1, -1, -1, -1, false, SG_T_NONE),
	CALL("open",         SG_K_OPEN,        -1, 0, -1, -1, 1, 2, -1, -1, false, SG_T_NONE),
	CALL("openat",       SG_K_OPEN,         0, 1, -1, -1, 2, 3, -1, -1, false, SG_T_NONE),
	/* write intents (intent.c); a1 a2 a3 of rename and link: new dirfd, new path, flags */
	CALL("creat",        SG_K_CREAT,       -1, 0, -1, -1, 1, -1, -1, -1, false, SG_T_NONE),
	CALL("mkdir",        SG_K_MKDIR,       -1, 0, -1, -1, -1, -1, -1, -1, true, SG_T_NONE),
	CALL("mkdirat",      SG_K_MKDIR,        0, 1, -1, -1, -1, -1, -1, -1, true, SG_T_NONE),
	CALL("mknod",        SG_K_MKNOD,       -1, 0, -1, -1, 1, -1, -1, -1, true, SG_T_NONE),
	CALL("mknodat",      SG_K_MKNOD,        0, 1, -1, -1, 2, -1, -1, -1, true, SG_T_NONE),
	CALL("unlink",       SG_K_UNLINK,      -1, 0, -1, -1, -1, -1, -1, -1, true, SG_T_NONE),
	CALL("unlinkat",     SG_K_UNLINK,       0, 1, -1, 2, -1, -1, -1, -1, true, SG_T_NONE),
	CALL("rmdir",        SG_K_RMDIR,       -1, 0, -1, -1, -1, -1, -1, -1, true, SG_T_NONE),
	CALL("rename",       SG_K_RENAME,      -1, 0, -1, -1, -1, 1, -1, -1, true, SG_T_NONE),
	CALL("renameat",     SG_K_RENAME,       0, 1, -1, -1, 2, 3, -1, -1, true, SG_T_NONE),
	CALL("renameat2",    SG_K_RENAME,       0, 1, -1, -1, 2, 3, 4, -1, true, SG_T_NONE),
	CALL("link",         SG_K_LINK,        -1, 0, -1, -1, -1, 1, -1, -1, true, SG_T_NONE),
	CALL("linkat",       SG_K_LINK,         0, 1, -1, 4, 2, 3, -1, -1, true, SG_T_NONE),
	CALL("symlink",      SG_K_SYMLINK,     -1, 1, -1, -1, 0, -1, -1, -1, true, SG_T_NONE),
	CALL("symlinkat",    SG_K_SYMLINK,      1, 2, -1, -1, 0, -1, -1, -1, true, SG_T_NONE),
	CALL("setgroups",    SG_K_SETGROUPS,   -1, -1, -1, -1, -1, -1, -1, -1, false, SG_T_NONE),
	CALL("chdir",        SG_K_CHDIR,       -1, -1, -1, -1, -1, -1, -1, -1, false, SG_T_NONE),
	CALL("fchdir",       SG_K_CHDIR,       -1, -1, -1, -1, -1, -1, -1, -1, false, SG_T_NONE),
	CALL("execve",       SG_K_EXEC,        -1, 0, -1, -1, -1, -1, -1, -1, false, SG_T_NONE),
	CALL("execveat",     SG_K_EXEC,         0, 1, -1, 4, -1, -1, -1, -1, false, SG_T_NONE),
	/* scheduling and limits (sched.c decodes their arguments itself) */
	CALL("setpriority",  SG_K_SCHED,       -1, -1, -1, -1, -1, -1, -1, -1, false, SG_T_NONE),
	CALL("ioprio_set",   SG_K_SCHED,       -1, -1, -1, -1, -1, -1, -1, -1, false, SG_T_NONE),
	CALL("sched_setaffinity", SG_K_SCHED,  -1, -1, -1, -1, -1, -1, -1, -1, false, SG_T_NONE),
	CALL("sched_setscheduler", SG_K_SCHED, -1, -1, -1, -1, -1, -1, -1, -1, false, SG_T_NONE),
	CALL("sched_setparam", SG_K_SCHED,     -1, -1, -1, -1, -1, -1, -1, -1, false, SG_T_NONE),
	CALL("sched_setattr", SG_K_SCHED,      -1, -1, -1, -1, -1, -1, -1, -1, false, SG_T_NONE),
	CALL("prlimit64",    SG_K_SCHED,       -1, -1, -1, -1, -1, -1, -1, -1, false, SG_T_NONE),
	/* sockets (connect.c decodes their arguments itself) */
	CALL("connect",      SG_K_CONNECT,     -1, -1, -1, -1, -1, -1, -1, -1, false, SG_T_NONE),
	CALL("sendto",       SG_K_SENDTO,      -1, -1, -1, -1, -1, -1, -1, -1, false, SG_T_NONE),
};
const size_t sg_n_calls = sizeof(sg_calls) / sizeof(sg_calls[0]);

/* The log's word for each kind: lib/vocab.h's, the eBPF filter's too. */
const char *sg_kind_op(enum sg_kind k)
{
	switch (k) {
	case SG_K_CHMOD:       return sg_op_name(SG_OP_CHMOD);
	case SG_K_CHOWN:       return sg_op_name(SG_OP_CHOWN);
	case SG_K_UTIMES:      return sg_op_name(SG_OP_UTIMES);
	case SG_K_SETXATTR:    return sg_op_name(SG_OP_SETXATTR);
	case SG_K_REMOVEXATTR: return sg_op_name(SG_OP_REMOVEXATTR);
	case SG_K_TRUNCATE:
	case SG_K_OPEN:        return sg_op_name(SG_OP_TRUNCATE);
	case SG_K_EXEC:        return sg_op_name(SG_OP_EXEC);
	case SG_K_CREAT:       return sg_op_name(SG_OP_CREATE);
	case SG_K_MKDIR:       return sg_op_name(SG_OP_MKDIR);
	case SG_K_MKNOD:       return sg_op_name(SG_OP_MKNOD);
	case SG_K_UNLINK:      return sg_op_name(SG_OP_UNLINK);
	case SG_K_RMDIR:       return sg_op_name(SG_OP_RMDIR);
	case SG_K_RENAME:      return sg_op_name(SG_OP_RENAME);
	case SG_K_LINK:        return sg_op_name(SG_OP_LINK);
	case SG_K_SYMLINK:     return sg_op_name(SG_OP_SYMLINK);
	case SG_K_SCHED:       return sg_op_name(SG_OP_SCHED);
	case SG_K_CONNECT:
	case SG_K_SENDTO:      return sg_op_name(SG_OP_CONNECT);
	default:               return "unknown";
	}
}

/*
 * Landlock answers a refused truncation, exec or write intent EACCES
 * (intent.c answers EXDEV itself where Landlock does); metadata calls
 * get EPERM.
 */
int sg_kind_refusal(enum sg_kind k)
{
	switch (k) {
	case SG_K_CHMOD:
	case SG_K_CHOWN:
	case SG_K_UTIMES:
	case SG_K_SETXATTR:
	case SG_K_REMOVEXATTR:
	case SG_K_SETGROUPS:
	case SG_K_CHDIR:
	case SG_K_SCHED:       /* as the kernel refuses another user's process */
		return EPERM;
	default:
		return EACCES;
	}
}
