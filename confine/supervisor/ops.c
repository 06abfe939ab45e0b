// SPDX-License-Identifier: MIT
/*
 * stepguard supervisor — decoding each notified call and acting for the
 * step on the object it resolved to.
 *
 * Shape of every call, in this order:
 *   1. the step may not use us to act with more privilege than it has,
 *      nor from another root or mount namespace (else refuse: FOREIGN);
 *   2. check and copy the arguments the kernel would check and copy first
 *      (flags, names, values, times), with the kernel's errors;
 *   3. resolve the object (resolve.c);
 *   4. decide: beneath a writable root, or refuse (EPERM; EACCES for
 *      truncation, as Landlock answers) and report the refusal;
 *   5. act on the resolved descriptor, never on the path again, and hand
 *      the kernel's own result to the step.
 * Any failure of ours on the way answers the step with the refusal errno:
 * the call is never let through unexamined.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "confine/supervisor/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/xattr.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "lib/cleanup.h"
#include "lib/vocab.h"

#ifndef __O_TMPFILE
#define __O_TMPFILE 020000000
#endif

/* Retries of an O_CREAT that lost a race with its own step (EEXIST). */
#define SG_CREATE_TRIES 8


/* One call being handled. */
struct sg_job {
	struct sg_target *t;
	const struct sg_call *c;
	const uint64_t *arg;
	struct sg_sup_event *ev;
	struct sg_reply *rep;
	const char *op;        /* for the log */
	int refusal;           /* errno of a refusal */
	bool fd_call;          /* act with the f* call on the step's own file */
	char path[PATH_MAX];   /* as the step gave it; "" for a descriptor */
	struct sg_obj obj;
};

/* The kernel's own answer (or our success): nothing to log. */
static int sg_answer(struct sg_job *j, int err)
{
	j->rep->error = err;
	return 0;
}

/* A refusal, reported for the log with the object as resolved. */
static int sg_refuse(struct sg_job *j, int why, int err)
{
	struct sg_sup_event *ev = j->ev;

	memset(ev, 0, sizeof(*ev));
	snprintf(ev->op, sizeof(ev->op), "%s", j->op);
	ev->pid = j->t->creds.tgid;
	ev->result = -err;
	ev->why = why;
	if ((j->obj.fd < 0 && j->obj.parent < 0) ||
	    sg_obj_describe(&j->obj, ev->path, sizeof(ev->path)) < 0) {
		/* Nothing resolved (or too long): the step's own words. */
		size_t n = strlen(j->path);

		ev->path_truncated = n >= sizeof(ev->path);
		memcpy(ev->path, j->path, ev->path_truncated ? sizeof(ev->path) - 1 : n);
		ev->path[ev->path_truncated ? sizeof(ev->path) - 1 : n] = '\0';
	}
	j->rep->error = err;
	return 1;
}

/*
 * After a failed read or resolution: nobody to answer, our own failure
 * (refuse, fail closed), a magic link (refuse, ELOOP), or the kernel's
 * answer for this path (ENOENT, ENOTDIR, EFAULT, EBADF...).
 */
static int sg_fail(struct sg_job *j, int r)
{
	if (r == -ESRCH) {
		j->rep->gone = true;
		return 0;
	}
	if (j->t->failed)
		return sg_refuse(j, SG_SUP_FAILED, j->refusal);
	if (r == -ELOOP)
		return sg_refuse(j, SG_SUP_UNRESOLVED, ELOOP);
	return sg_answer(j, -r);
}

static int sg_check_atflags(const struct sg_job *j, unsigned int *how)
{
	int fl;

	if (j->c->atflags < 0)
		return 0;
	fl = (int)j->arg[j->c->atflags];
	if (fl & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (fl & AT_SYMLINK_NOFOLLOW)
		*how |= SG_R_NOFOLLOW;
	if (fl & AT_EMPTY_PATH)
		*how |= SG_R_EMPTY;
	return 0;
}

/* How sg_locate() decides once the object is resolved. */
enum sg_decide {
	SG_DECIDE_META,   /* a metadata change: judge now */
	SG_DECIDE_LATER,  /* the caller checks the type first, then judges */
};

static int sg_decide(struct sg_job *j, bool metadata, int *ret)
{
	int r = sg_judge(j->t->s, &j->obj, metadata);

	if (r < 0) {
		*ret = sg_refuse(j, SG_SUP_FAILED, j->refusal);
		return 0;
	}
	if (r == 0) {
		*ret = sg_refuse(j, SG_SUP_OUTSIDE, j->refusal);
		return 0;
	}
	/*
	 * Audit mode: judged, and never performed by us; the kernel runs
	 * the step's own call (sg_supervisor_handle() continues it).
	 */
	if (j->t->s->audit) {
		*ret = 0;
		return 0;
	}
	return 1;
}

/*
 * Steps 3 and 4: resolve, then (for metadata) decide.  1: go on; 0: the
 * call is already answered, with *ret for the caller to return.
 */
static int sg_locate(struct sg_job *j, unsigned int how, enum sg_decide when,
		     int *ret)
{
	const struct sg_call *c = j->c;
	int dirfd = c->dirfd >= 0 ? (int)j->arg[c->dirfd] : AT_FDCWD;
	int r;

	if (c->nofollow)
		how |= SG_R_NOFOLLOW;
	if (c->fd >= 0) {
		j->fd_call = true;
		r = sg_resolve_fd(j->t, (int)j->arg[c->fd], &j->obj);
	} else if (c->kind == SG_K_UTIMES && j->arg[c->path] == 0 &&
		   dirfd != AT_FDCWD) {
		/* futimesat(fd, NULL) and utimensat(fd, NULL): futimens(fd). */
		j->fd_call = true;
		r = sg_resolve_fd(j->t, dirfd, &j->obj);
	} else {
		r = sg_target_read_str(j->t, j->arg[c->path], j->path,
				       sizeof(j->path));
		if (r >= 0)
			r = sg_resolve_path(j->t, dirfd, j->path, how, &j->obj);
	}
	if (r < 0) {
		*ret = sg_fail(j, r);
		return 0;
	}
	if (when == SG_DECIDE_LATER)
		return 1;
	return sg_decide(j, true, ret);
}

static int sg_result(struct sg_job *j, int r)
{
	return sg_answer(j, r < 0 ? errno : 0);
}

/* ---- the calls ------------------------------------------------------ */

static int sg_do_chmod(struct sg_job *j)
{
	mode_t mode = (mode_t)j->arg[j->c->a1];
	char p[SG_FD_PATH_MAX];
	unsigned int how = 0;
	int ret = 0;

	if (sg_check_atflags(j, &how) < 0)
		return sg_answer(j, EINVAL);
	if (!sg_locate(j, how, SG_DECIDE_META, &ret))
		return ret;
	/*
	 * There is no fchmodat(fd, "", AT_EMPTY_PATH) before 6.6; chmod of
	 * /proc/self/fd/N reaches the descriptor's own inode on every kernel
	 * (a symbolic link's too, which the kernel then refuses, as it does
	 * for the step).  fchmod() on the step's own file keeps its
	 * semantics exactly (EBADF on an O_PATH descriptor).
	 */
	if (j->fd_call)
		return sg_result(j, fchmod(j->obj.fd, mode));
	/* The same inode, without the lookup through procfs (6.6). */
	if (j->t->s->fchmodat2_empty)
		return sg_result(j, (int)syscall(SG_SYS_fchmodat2, j->obj.fd, "",
						 mode, AT_EMPTY_PATH));
	return sg_result(j, chmod(sg_fd_path(p, j->obj.fd), mode));
}

static int sg_do_chown(struct sg_job *j)
{
	uid_t uid = (uid_t)j->arg[j->c->a1];
	gid_t gid = (gid_t)j->arg[j->c->a2];
	unsigned int how = 0;
	int ret = 0;

	if (sg_check_atflags(j, &how) < 0)
		return sg_answer(j, EINVAL);
	if (!sg_locate(j, how, SG_DECIDE_META, &ret))
		return ret;
	if (j->fd_call)
		return sg_result(j, fchown(j->obj.fd, uid, gid));
	/* The descriptor's own inode: the link itself for lchown. */
	return sg_result(j, fchownat(j->obj.fd, "", uid, gid, AT_EMPTY_PATH));
}

static bool sg_nsec_valid(long ns)
{
	return ns == UTIME_NOW || ns == UTIME_OMIT || (ns >= 0 && ns < 1000000000L);
}

/*
 * Copy the times in whatever shape the call takes them, with the kernel's
 * checks: timevals with microseconds in range (no UTIME_* there), timespecs
 * with valid nanoseconds or UTIME_NOW/UTIME_OMIT, utimbuf whole seconds.
 * 1: both omitted (utimensat then does nothing, not even the lookup).
 */
static int sg_read_times(struct sg_job *j, uint64_t ptr, struct timespec ts[2])
{
	int r;

	switch (j->c->times) {
	case SG_T_TIMESPEC:
		r = sg_target_read(j->t, ptr, ts, 2 * sizeof(ts[0]));
		if (r < 0)
			return r;
		if (ts[0].tv_nsec == UTIME_OMIT && ts[1].tv_nsec == UTIME_OMIT)
			return 1;
		if (!sg_nsec_valid(ts[0].tv_nsec) || !sg_nsec_valid(ts[1].tv_nsec))
			return -EINVAL;
		return 0;
	case SG_T_TIMEVAL: {
		struct timeval tv[2];

		r = sg_target_read(j->t, ptr, tv, sizeof(tv));
		if (r < 0)
			return r;
		for (int i = 0; i < 2; i++) {
			if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
				return -EINVAL;
			ts[i].tv_sec = tv[i].tv_sec;
			ts[i].tv_nsec = tv[i].tv_usec * 1000;
		}
		return 0;
	}
	case SG_T_UTIMBUF: {
		struct utimbuf ub;

		r = sg_target_read(j->t, ptr, &ub, sizeof(ub));
		if (r < 0)
			return r;
		ts[0].tv_sec = ub.actime;
		ts[1].tv_sec = ub.modtime;
		ts[0].tv_nsec = ts[1].tv_nsec = 0;
		return 0;
	}
	case SG_T_NONE:
	default:
		return -EINVAL;
	}
}

static int sg_do_utimes(struct sg_job *j)
{
	uint64_t ptr = j->arg[j->c->a1];
	struct timespec ts[2], *tp = NULL;
	unsigned int how = 0;
	int r, ret = 0;

	if (ptr) {
		r = sg_read_times(j, ptr, ts);
		if (r == 1)
			return sg_answer(j, 0);
		if (r < 0)
			return sg_fail(j, r);
		tp = ts;
	}
	if (sg_check_atflags(j, &how) < 0)
		return sg_answer(j, EINVAL);
	/* utimensat(fd, NULL, times, flags): flags must be 0 there. */
	if (how && j->c->dirfd >= 0 && j->arg[j->c->path] == 0 &&
	    (int)j->arg[j->c->dirfd] != AT_FDCWD)
		return sg_answer(j, EINVAL);
	if (!sg_locate(j, how, SG_DECIDE_META, &ret))
		return ret;
	if (j->fd_call)
		return sg_result(j, futimens(j->obj.fd, tp));
	return sg_result(j, utimensat(j->obj.fd, "", tp, AT_EMPTY_PATH));
}

/* An xattr name as the kernel copies it: 1..255 bytes, else ERANGE. */
static int sg_read_xattr_name(struct sg_job *j, char name[XATTR_NAME_MAX + 1])
{
	int r = sg_target_read_str(j->t, j->arg[j->c->a1], name,
				   XATTR_NAME_MAX + 1);

	if (r == -ENAMETOOLONG || r == 0)
		return -ERANGE;
	return r < 0 ? r : 0;
}

static int sg_do_setxattr(struct sg_job *j)
{
	char name[XATTR_NAME_MAX + 1], p[SG_FD_PATH_MAX];
	_cleanup_free_ void *value = NULL;
	size_t size = (size_t)j->arg[j->c->a3];
	int flags = (int)j->arg[j->c->a4];
	int r, ret = 0;

	if (flags & ~(XATTR_CREATE | XATTR_REPLACE))
		return sg_answer(j, EINVAL);
	r = sg_read_xattr_name(j, name);
	if (r < 0)
		return sg_fail(j, r);
	if (size) {
		/* Bounded before allocating: the step picks the size. */
		if (size > XATTR_SIZE_MAX)
			return sg_answer(j, E2BIG);
		value = malloc(size);
		if (!value)
			return sg_refuse(j, SG_SUP_FAILED, j->refusal);
		r = sg_target_read(j->t, j->arg[j->c->a2], value, size);
		if (r < 0)
			return sg_fail(j, r);
	}
	if (!sg_locate(j, 0, SG_DECIDE_META, &ret))
		return ret;
	if (j->fd_call)
		return sg_result(j, fsetxattr(j->obj.fd, name, value, size, flags));
	/*
	 * Following /proc/self/fd/N lands on the descriptor's inode and
	 * stops there (a magic link is not followed further), so this is
	 * the link itself for lsetxattr and the target for setxattr.
	 */
	return sg_result(j, setxattr(sg_fd_path(p, j->obj.fd), name, value,
				     size, flags));
}

static int sg_do_removexattr(struct sg_job *j)
{
	char name[XATTR_NAME_MAX + 1], p[SG_FD_PATH_MAX];
	int r, ret = 0;

	r = sg_read_xattr_name(j, name);
	if (r < 0)
		return sg_fail(j, r);
	if (!sg_locate(j, 0, SG_DECIDE_META, &ret))
		return ret;
	if (j->fd_call)
		return sg_result(j, fremovexattr(j->obj.fd, name));
	return sg_result(j, removexattr(sg_fd_path(p, j->obj.fd), name));
}

/*
 * truncate(2) needs no open file, and stepguard leaves Landlock's TRUNCATE
 * right unhandled (sg_landlock_rights_for_abi()), so Landlock never sees it.
 * We open the resolved inode for writing through /proc/self/fd/N (the same
 * permission check truncate(2) makes) and ftruncate it.  O_NONBLOCK: a
 * file lease would otherwise hold the whole supervisor until it is broken.
 */
static int sg_do_truncate(struct sg_job *j)
{
	int64_t length = (int64_t)j->arg[j->c->a1];
	char p[SG_FD_PATH_MAX];
	_cleanup_close_ int fd = -1;
	int ret = 0;

	if (length < 0)
		return sg_answer(j, EINVAL);
	if (!sg_locate(j, 0, SG_DECIDE_LATER, &ret))
		return ret;
	/* The kernel's own checks come before any permission check. */
	if (S_ISDIR(j->obj.st.st_mode))
		return sg_answer(j, EISDIR);
	if (!S_ISREG(j->obj.st.st_mode))
		return sg_answer(j, EINVAL);
	if (!sg_decide(j, false, &ret))
		return ret;
	fd = open(sg_fd_path(p, j->obj.fd),
		  O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return sg_answer(j, errno);
	return sg_result(j, ftruncate(fd, (off_t)length));
}

/*
 * open(O_TRUNC) with an access mode Landlock's WRITE_FILE does not check
 * (read-only, or 3): we open the file ourselves and install the
 * descriptor in the step (SECCOMP_ADDFD_FLAG_SEND answers the call with
 * its number, atomically).
 *
 * An existing object is reopened through /proc/self/fd/N of the very inode
 * we resolved and judged, so the truncation happens to that inode.  Only a
 * regular file can be truncated; any other type is opened as the step
 * asked (O_TRUNC is ignored there), with O_NONBLOCK so a FIFO without a
 * writer or a slow device cannot stall the supervisor, then cleared.
 *
 * A missing one (O_CREAT) is created in the directory we resolved, with
 * O_EXCL|O_NOFOLLOW so nothing planted meanwhile is followed, under the
 * step's umask (read from /proc, set around the one openat: stepguard is
 * single-threaded).  A name that appears meanwhile sends us round again.
 */
static int sg_do_open(struct sg_job *j)
{
	int flags = (int)j->arg[j->c->a1];
	mode_t mode = (mode_t)j->arg[j->c->a2];
	unsigned int how = 0;
	int fd = -1, ret = 0;

	/*
	 * Read-only O_TMPFILE is EINVAL in the kernel too; access mode 3 with
	 * it would be a tmpfile nobody can write, not worth emulating.  And
	 * O_CREAT|O_DIRECTORY is EINVAL since 6.4, whether or not the name
	 * exists.
	 */
	if ((flags & __O_TMPFILE) ||
	    (flags & (O_CREAT | O_DIRECTORY)) == (O_CREAT | O_DIRECTORY))
		return sg_answer(j, EINVAL);
	if (flags & O_CREAT)
		how |= SG_R_CREATE;
	if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		how |= SG_R_EXCL;
	if (flags & O_NOFOLLOW)
		how |= SG_R_NOFOLLOW;

	for (int tries = 0;; tries++) {
		if (!sg_locate(j, how, SG_DECIDE_LATER, &ret))
			return ret;

		if (!j->obj.exists) {
			mode_t old, mask;
			int r;

			j->op = sg_op_name(SG_OP_CREATE);
			if (!sg_decide(j, false, &ret))
				return ret;
			r = sg_target_umask(j->t, &mask);
			if (r < 0)
				return sg_fail(j, r);
			old = umask(mask);
			fd = openat(j->obj.parent, j->obj.name,
				    (flags & ~O_CLOEXEC) | O_CREAT | O_EXCL |
				    O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode);
			umask(old);
			if (fd < 0 && errno == EEXIST && !(flags & O_EXCL) &&
			    tries < SG_CREATE_TRIES) {
				j->op = sg_op_name(SG_OP_TRUNCATE);
				sg_obj_close(&j->obj);
				sg_obj_init(&j->obj);
				continue;
			}
			if (fd < 0)
				return sg_answer(j, errno);
			break;
		}

		if (how & SG_R_EXCL)
			return sg_answer(j, EEXIST);
		if (S_ISLNK(j->obj.st.st_mode))
			return sg_answer(j, ELOOP); /* O_NOFOLLOW on a link */
		/* Only a regular file is truncated; see above. */
		if (S_ISREG(j->obj.st.st_mode) && !sg_decide(j, false, &ret))
			return ret;
		/* Not a regular file: nothing judged, and in audit mode nothing done. */
		if (j->t->s->audit)
			return 0;
		{
			char p[SG_FD_PATH_MAX];
			bool nb = !S_ISREG(j->obj.st.st_mode);

			fd = open(sg_fd_path(p, j->obj.fd),
				  (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC)) |
				  O_NOCTTY | O_CLOEXEC | (nb ? O_NONBLOCK : 0));
			if (fd < 0)
				return sg_answer(j, errno);
			if (nb && !(flags & O_NONBLOCK)) {
				int fl = fcntl(fd, F_GETFL);

				if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
					close(fd);
					return sg_refuse(j, SG_SUP_FAILED, j->refusal);
				}
			}
		}
		break;
	}
	j->rep->addfd = fd;
	j->rep->addfd_flags = (flags & O_CLOEXEC) ? O_CLOEXEC : 0;
	return 0;
}

/* ---- entry ---------------------------------------------------------- */

/* The root's mount settles the mount namespace too (target.c, sg_view_read()). */
bool sg_same_view(const struct sg_view *a, const struct sg_view *b)
{
	return a->root_dev == b->root_dev && a->root_ino == b->root_ino &&
	       a->root_mnt_id == b->root_mnt_id;
}

/*
 * Handle one call whose target is open (creds read).  1: refused, *ev
 * filled; 0: answered or gone (rep says which).
 */
int sg_sup_run(struct sg_target *t, const struct sg_call *c,
	       const struct seccomp_data *d, struct sg_sup_event *ev,
	       struct sg_reply *rep)
{
	const struct sg_supervisor *s = t->s;
	struct sg_job *j;
	struct sg_view view;
	bool need_user;
	int r;

	/* PATH_MAX of path, on the heap: the supervisor's stack stays small. */
	j = calloc(1, sizeof(*j));
	if (!j) {
		memset(ev, 0, sizeof(*ev));
		snprintf(ev->op, sizeof(ev->op), "%s", sg_kind_op(c->kind));
		ev->pid = t->creds.tgid;
		ev->result = -sg_kind_refusal(c->kind);
		ev->why = SG_SUP_FAILED;
		rep->error = -ev->result;
		return 1;
	}
	j->t = t;
	j->c = c;
	j->arg = (const uint64_t *)d->args;
	j->ev = ev;
	j->rep = rep;
	j->op = sg_kind_op(c->kind);
	j->refusal = sg_kind_refusal(c->kind);
	sg_obj_init(&j->obj);

	/*
	 * Paths are resolved from our root, and acts use our credentials:
	 * both must be the step's.  A step that chroots, enters another
	 * mount namespace or drops privileges is not served (fail closed).
	 */
	/*
	 * The user namespace matters only for capabilities stepguard has:
	 * without any, sg_creds_no_more_than() answers the same either way.
	 */
	need_user = s->self.cap_eff != 0;
	r = sg_target_view(t, &view, need_user ? SG_VIEW_USER : 0);
	if (c->kind == SG_K_EXEC) {
		/*
		 * Nothing is done for the step, so its credentials do not
		 * matter; from another root or mount namespace its paths mean
		 * something else here, so Landlock alone decides (CONTINUE).
		 */
		if (r == -ESRCH) {
			rep->gone = true;
			r = 0;
		} else if (r < 0 || !sg_same_view(&view, &s->view)) {
			rep->cont = true;
			r = 0;
		} else {
			r = sg_sup_exec(t, c, j->arg, ev, rep);
		}
	} else if (r < 0) {
		r = sg_fail(j, r);
	} else if (c->kind == SG_K_SCHED) {
		/*
		 * No path is looked up: its root and mount namespace do not
		 * matter, its pid namespace and credentials do (sched.c).
		 */
		r = sg_sup_sched(t, c, j->arg, &view, ev, rep);
	} else if (c->kind == SG_K_CONNECT || c->kind == SG_K_SENDTO) {
		/* Only a pathname needs the same view; connect.c compares it then. */
		r = sg_sup_connect(t, c, j->arg, &view, ev, rep);
	} else if (!sg_same_view(&view, &s->view) ||
		   !sg_creds_no_more_than(&s->self, &t->creds, !need_user ||
					  (view.user_dev == s->view.user_dev &&
					   view.user_ino == s->view.user_ino))) {
		r = sg_refuse(j, SG_SUP_FOREIGN, j->refusal);
	} else {
		switch (c->kind) {
		case SG_K_CHMOD:       r = sg_do_chmod(j); break;
		case SG_K_CHOWN:       r = sg_do_chown(j); break;
		case SG_K_UTIMES:      r = sg_do_utimes(j); break;
		case SG_K_SETXATTR:    r = sg_do_setxattr(j); break;
		case SG_K_REMOVEXATTR: r = sg_do_removexattr(j); break;
		case SG_K_TRUNCATE:    r = sg_do_truncate(j); break;
		case SG_K_OPEN:        r = sg_do_open(j); break;
		default:               r = sg_refuse(j, SG_SUP_FAILED, j->refusal); break;
		}
	}
	sg_obj_close(&j->obj);
	free(j);
	return r;
}
