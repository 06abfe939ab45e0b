/* SPDX-License-Identifier: MIT */
/*
 * stepguard — the seccomp user-notification supervisor.
 *
 * Landlock does not mediate chmod, chown, utimes/utimensat or xattr
 * changes, and stepguard leaves its TRUNCATE right unhandled (it makes every
 * read-only open walk to /), so truncate(2) and open(O_RDONLY|O_TRUNC)
 * come here too.  The step's seccomp filter sends exactly those
 * calls to stepguard (the step's parent), which resolves the object the way
 * the kernel would, decides whether it lies beneath a writable root, and
 * then either performs the call itself on that very object and hands the
 * result back, or refuses it.  It never lets the kernel run the step's own
 * call (no SECCOMP_USER_NOTIF_FLAG_CONTINUE): a path checked by one process
 * and then looked up again by another can be swapped in between.
 *
 * Conventions: functions return -errno and never print.  docs/supervisor.md
 * describes the mechanism, the decision rule, the failure behaviour and the
 * limits.
 *
 * Who uses it: confine/ only, behind confine.h.  The child's filter gets
 * the rules from sg_supervisor_add_rules() (confine.c, build before fork);
 * the child hands the listener over a socket pair after seccomp is loaded;
 * in the parent, sg_confine_started() passes it to sg_supervisor_new(), and
 * confine/events.c polls sg_supervisor_fd() and calls
 * sg_supervisor_handle() until POLLHUP (every task under the filter has
 * exited), turning each refusal into the one denial record.
 */
#ifndef STEPGUARD_SUPERVISOR_H
#define STEPGUARD_SUPERVISOR_H

#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/root.h"

/*
 * Add the user-notification rules to a filter built by sg_seccomp_build():
 * the metadata calls (constant action, no argument filter), truncate(2),
 * and the open(2)/openat(2) calls whose flags combine O_TRUNC with an
 * access mode that Landlock's WRITE_FILE does not check (read-only, or 3):
 * stepguard leaves Landlock's TRUNCATE right unhandled on every ABI, for
 * the cost of read-only opens (sg_landlock_rights_for_abi()).  Calls that
 * the supervisor cannot read the arguments of (openat2, setxattrat,
 * removexattrat, file_setattr) are answered ENOSYS so libc
 * falls back to the calls above.  A name libseccomp does not know adds no
 * rule: its number lies above libseccomp's table, where sg_seccomp_build()
 * already answers ENOSYS.
 *
 * Issue 16 adds the scheduling and limit calls aimed at another process
 * (setpriority, ioprio_set, sched_set*, prlimit64 with a new limit; the
 * self forms stay off the listener), every connect, and sendto with an
 * address (docs/supervisor.md, "Scheduling and limits", "Connect and
 * sendto").
 *
 * seccomp(2) with SECCOMP_FILTER_FLAG_NEW_LISTENER is refused (EPERM): a
 * listener of the step's own could answer CONTINUE before ours is asked.
 *
 * A call the filter already refuses (policy [seccomp] deny) keeps its
 * refusal.  0 or -errno (-EOPNOTSUPP: libseccomp or the kernel lacks user
 * notification, or this is not a 64-bit architecture).
 */
int sg_supervisor_add_rules(scmp_filter_ctx ctx);

/* Why a call was refused (sg_sup_event.why). */
enum sg_sup_why {
	SG_SUP_OUTSIDE = 1,  /* resolved, and not beneath any writable root */
	SG_SUP_UNRESOLVED,   /* the path needs a /proc magic link (or loops):
	                      * not resolved, answered -ELOOP */
	SG_SUP_FOREIGN,      /* the step changed its credentials, root or mount
	                      * namespace: the supervisor will not act for it */
	SG_SUP_FAILED,       /* the supervisor could not read the step's state
	                      * or act (fail closed) */
	SG_SUP_NOT_ALLOWED,  /* exec: the file is not on the ruling step's allow-list */
	SG_SUP_ABI,          /* Landlock ABI 1 refuses it even inside: a rename or
	                      * link across directories (sg_supervisor_set_no_refer()) */
	SG_SUP_GUARD,        /* another process out of the step: its scheduling or
	                      * limits (op sched); the log's reason "guard" */
};

struct sg_sup_event {
	char op[16];        /* chmod, chown, utimes, setxattr, removexattr,
	                     * truncate, create, exec; the write intents
	                     * open, mkdir, mknod, unlink, rmdir, rename,
	                     * link, symlink; sched (another process's
	                     * scheduling or limits); connect (a socket
	                     * outside the roots, or an abstract one) */
	pid_t pid;          /* process (thread group) id, in stepguard's pid
	                     * namespace; the thread id if it could not be read */
	char path[4096];    /* the object as resolved (absolute); the path as
	                     * the step gave it when nothing was resolved */
	bool path_truncated; /* path did not fit and ends early: never silent */
	char path2[4096];   /* rename: the new name; link: the new link; else "" */
	bool path2_truncated;
	uint64_t arg;       /* op sched: target tgid << 32 | enum sg_sched_what
	                     * (tgid 0: a user's every process, or unknown) */
	bool audited;       /* --mode audit: recorded, and the call let through */
	int result;         /* -errno answered to the step */
	int why;            /* enum sg_sup_why */
};

struct sg_supervisor;

/*
 * Takes ownership of listener_fd (closed by sg_supervisor_free(), and on
 * failure).  roots: the writable roots, O_PATH descriptors the launcher
 * opened once; the supervisor keeps duplicates, so the caller may close
 * its own.
 *
 * Probes what the supervisor needs and refuses to start without it:
 * -EOPNOTSUPP when the kernel lacks SECCOMP_ADDFD_FLAG_SEND (5.14), openat2
 * (5.6), pidfd_open/pidfd_getfd (5.6), or /proc is not mounted; -EINVAL
 * when listener_fd is not a seccomp listener or a root is not an O_PATH
 * descriptor of an existing object.
 *
 * The supervisor acts with the calling process's credentials: create it
 * after stepguard has dropped to the step's user.
 */
int sg_supervisor_new(struct sg_supervisor **s, int listener_fd,
		      const struct sg_root *roots, size_t n_roots);

/*
 * A ruling step: notify every execve and execveat (before
 * sg_seccomp_export()), so that an exec of a file not on the allow-list
 * is answered EACCES and reported (op "exec").  The allow-list itself is
 * enforced by Landlock's EXECUTE right underneath; every other exec is
 * let through to the kernel (the one CONTINUE the supervisor answers).
 */
int sg_supervisor_add_exec_rules(scmp_filter_ctx ctx);

/*
 * The files the step may execute (entries with fd -1 are skipped), for
 * sg_supervisor_add_exec_rules()'s notifications.  Once, after
 * sg_supervisor_new().  0 or -errno.
 */
int sg_supervisor_set_execs(struct sg_supervisor *s, const struct sg_root *execs, size_t n);

/*
 * The socket files the step may connect or send to although they lie
 * outside every writable root (policy [sockets] allow): O_PATH descriptors
 * the launcher opened, compared by device and inode; entries with fd -1
 * are skipped.  Once, after sg_supervisor_new().  0, -EINVAL (one is not a
 * socket), or -errno.  A pathname UNIX socket neither beneath a root nor
 * listed is refused (EACCES, op connect).
 */
int sg_supervisor_set_sockets(struct sg_supervisor *s, const struct sg_root *v, size_t n);

/*
 * --mode audit (before the step starts): every notified call is let
 * through to the kernel (CONTINUE), and those the supervisor would have
 * refused are returned as events with audited set.  Landlock then handles
 * no write right (confine.c), so nothing refuses them: a roll-out aid,
 * not a boundary (docs/supervisor.md, "Audit mode").
 */
void sg_supervisor_set_audit(struct sg_supervisor *s);

/*
 * Landlock ABI 1 (before 5.19) cannot grant REFER, so it refuses every
 * rename and link across directories with EXDEV, inside the roots too:
 * the supervisor then answers those itself, with a record (reason
 * landlock-abi), instead of continuing them into an unrecorded refusal.
 */
void sg_supervisor_set_no_refer(struct sg_supervisor *s);

/* Poll for POLLIN.  POLLHUP alone: no task is left under the filter. */
int sg_supervisor_fd(const struct sg_supervisor *s);

/*
 * Handle one notification (returns at once if none is pending).
 * 1: the call was refused (or, in audit mode, would have been) and *ev
 *    describes it, for the log; only when the step received that answer;
 * 0: nothing to log (allowed and done, or the caller went away);
 * -errno: the listener itself failed; the caller must kill the step,
 *         because its notified calls can no longer be answered.
 * Every notification received is answered.  Never with CONTINUE for a
 * call the supervisor performs; write intents, execs and setgroups, which
 * it only judges or notes, are continued when allowed (Landlock decides).
 */
int sg_supervisor_handle(struct sg_supervisor *s, struct sg_sup_event *ev);

void sg_supervisor_free(struct sg_supervisor *s);

/* Number of notifications handled so far (for tests and the end record). */
unsigned long sg_supervisor_count(const struct sg_supervisor *s);

#endif /* STEPGUARD_SUPERVISOR_H */
