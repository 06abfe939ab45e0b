// SPDX-License-Identifier: MIT
/*
 * stepguard supervisor — write intents: opens that write or create, creat,
 * mkdir, mknod, symlink, unlink, rmdir, rename and link.  Judged, for the
 * log, and never performed.
 *
 * Landlock refuses these in the kernel, on the object it reaches, and
 * tells nobody.  So the filter sends them here as well: we resolve what
 * the kernel will touch, the way it will (resolve.c), and if that lies
 * outside the roots we answer the refusal Landlock would give (EACCES;
 * EXDEV for a link that would carry a file in from outside) and report
 * it.  Otherwise, and whenever we cannot tell (a read of the step that
 * failed, a path we do not resolve, another root), the call continues
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE) and Landlock decides underneath.
 *
 * Why CONTINUE is sound here and never for the calls ops.c performs:
 * Landlock's rights cover every one of these calls, so a path the step
 * swaps between our look and the kernel's is still checked by Landlock on
 * what the kernel really reaches.  The supervisor must be right for the
 * log to be complete, never for the filter to be sound.  What a race can
 * do is make us continue a call Landlock then refuses (unrecorded), or
 * refuse one that a swap would have let land inside (the step gets
 * EACCES for a call it raced against itself).  An honest step does not
 * race its own paths, and meets neither.
 *
 * The kernel's own answers come first where the kernel gives them before
 * Landlock is asked (no such file, it exists, a read-only mount, a
 * trailing slash on unlink, a bad flag): then we continue, so the step
 * gets the kernel's answer and nothing is recorded.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "confine/supervisor/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "lib/vocab.h"

#ifndef __O_TMPFILE
#define __O_TMPFILE 020000000
#endif
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1u << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1u << 1)
#endif
#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1u << 2)
#endif

/* One write intent being judged (on the heap: two PATH_MAX paths). */
struct sg_intent {
	struct sg_target *t;
	const struct sg_call *c;
	const uint64_t *arg;
	unsigned int op;       /* enum sg_op */
	char path[PATH_MAX];   /* as the step gave it */
	char path2[PATH_MAX];  /* rename's and link's new name */
	struct sg_obj obj, obj2;
	bool has2;             /* obj2 is resolved and recorded as path2 */
};

bool sg_call_is_intent(const struct sg_call *c, const uint64_t *arg)
{
	int m;

	switch (c->kind) {
	case SG_K_OPEN:
		/*
		 * The O_TRUNC opens Landlock does not check (read-only access
		 * mode, or 3) are judged and performed (ops.c, sg_do_open());
		 * every other open that reaches us writes or creates.
		 */
		m = (int)arg[c->a1] & (O_ACCMODE | O_TRUNC | O_PATH);
		return m != O_TRUNC && m != (O_TRUNC | O_ACCMODE);
	case SG_K_CREAT:
	case SG_K_MKDIR:
	case SG_K_MKNOD:
	case SG_K_UNLINK:
	case SG_K_RMDIR:
	case SG_K_RENAME:
	case SG_K_LINK:
	case SG_K_SYMLINK:
		return true;
	default:
		return false;
	}
}

/* Landlock decides: the call runs as the step made it. */
static int sg_continue(struct sg_reply *rep)
{
	rep->cont = true;
	rep->error = 0;
	return 0;
}

/*
 * After a failed read or resolution.  The call is gone: nobody to answer.
 * Our own failure to read the step (t->failed): -EAGAIN, so that
 * sg_supervisor_handle() opens the task afresh once (a kept task may be
 * one that ended, its number now the caller's), and then continues.  Any
 * other error is the kernel's own answer for this path (ENOENT, ENOTDIR,
 * ELOOP...), given before Landlock is asked: continue.
 */
static int sg_unjudged(const struct sg_intent *in, int r, struct sg_reply *rep)
{
	if (r == -ESRCH) {
		rep->cont = false;
		rep->gone = true;
		return 0;
	}
	if (in->t->failed)
		return -EAGAIN;
	return sg_continue(rep);
}

/*
 * Is the directory an entry is made or removed in beneath a directory
 * root?  That is where Landlock grants make_* and remove_* (and refer).
 * 1 yes, 0 no, -1: no such directory here (".", "/", a descriptor of our
 * own procfs link): the kernel answers those itself.
 */
static int sg_parent_inside(const struct sg_supervisor *s, const struct sg_obj *o)
{
	if (o->own_link || o->parent < 0)
		return -1;
	if (o->beneath)
		return 1;
	return sg_dir_beneath(s, o->parent) > 0 ? 1 : 0;
}

static void sg_copy_words(char *dst, size_t size, bool *cut, const char *src)
{
	size_t n = strlen(src);

	*cut = n >= size;
	if (*cut)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The object as resolved, absolute; else the step's own words, cut and said so. */
static void sg_describe(const struct sg_obj *o, const char *words, char *buf,
			size_t size, bool *cut)
{
	*cut = false;
	if ((o->fd >= 0 || o->parent >= 0) && sg_obj_describe(o, buf, size) == 0)
		return;
	sg_copy_words(buf, size, cut, words);
}

/*
 * Would the kernel answer before Landlock?  A read-only mount answers
 * EROFS first, for every call here.  fd: the directory the entry is made
 * or removed in, or the file opened.
 */
static bool sg_kernel_first(int fd)
{
	struct statvfs sv;

	return fd >= 0 && fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_RDONLY);
}

/*
 * Refuse with ERR, as Landlock would, and describe the refusal.  Not when
 * the step's paths mean something else here (another root: Landlock, which
 * follows the step's own root, decides), nor when the kernel would answer
 * first.
 */
static int sg_refuse_why(struct sg_intent *in, int err, int why, int fd, int fd2,
			 struct sg_sup_event *ev, struct sg_reply *rep)
{
	const struct sg_supervisor *s = in->t->s;
	struct sg_view view;
	int r;

	/*
	 * Judged from a kept working directory, which may be stale if the
	 * step raced a chdir: judge again from a fresh one before refusing
	 * (sg_supervisor_handle() opens the task afresh on -EAGAIN).
	 */
	if (in->t->cwd_kept)
		return -EAGAIN;
	r = sg_target_view(in->t, &view, 0);
	if (r < 0)
		return sg_unjudged(in, r, rep);
	if (!sg_same_view(&view, &s->view))
		return sg_continue(rep);
	if (sg_kernel_first(fd) || sg_kernel_first(fd2))
		return sg_continue(rep);

	memset(ev, 0, sizeof(*ev));
	snprintf(ev->op, sizeof(ev->op), "%s", sg_op_name(in->op));
	ev->pid = in->t->creds.tgid;
	ev->result = -err;
	ev->why = why;
	sg_describe(&in->obj, in->path, ev->path, sizeof(ev->path), &ev->path_truncated);
	if (in->has2)
		sg_describe(&in->obj2, in->path2, ev->path2, sizeof(ev->path2),
			    &ev->path2_truncated);
	rep->cont = false;
	rep->error = err;
	return 1;
}

static int sg_refuse_intent(struct sg_intent *in, int err, int fd, int fd2,
			    struct sg_sup_event *ev, struct sg_reply *rep)
{
	return sg_refuse_why(in, err, SG_SUP_OUTSIDE, fd, fd2, ev, rep);
}

/* Two directories, by identity. */
static bool sg_same_dir(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* Read path number IDX of the call and resolve it from DIRFD. */
static int sg_intent_resolve(struct sg_intent *in, int dirfd, uint64_t addr, char *path,
			     unsigned int how, struct sg_obj *o)
{
	int r = sg_target_read_str(in->t, addr, path, PATH_MAX);

	if (r < 0)
		return r;
	return sg_resolve_path(in->t, dirfd, path, how, o);
}

/*
 * The fast way for a call decided by the directory alone (mkdir, unlink,
 * rename...): that directory, without the last component.  1: it is
 * beneath a root, so the call continues and nothing else is needed; 0: the
 * full resolution decides (*o is reset for it); or -errno.
 */
static int sg_parent_first(struct sg_intent *in, int dirfd, uint64_t addr, char *path,
			   unsigned int how, struct sg_obj *o)
{
	int r = sg_intent_resolve(in, dirfd, addr, path, how | SG_R_PARENT, o);

	if (r < 0)
		return r;
	if (o->beneath || sg_dir_beneath(in->t->s, o->parent) > 0)
		return 1;
	sg_obj_close(o);
	sg_obj_init(o);
	return 0;
}

static int sg_dirfd(const struct sg_intent *in, int idx)
{
	return idx >= 0 ? (int)in->arg[idx] : AT_FDCWD;
}

/*
 * Fast answer for an open resolved with SG_R_STAT: true when it can
 * continue without more (inside, or nothing Landlock would refuse), false
 * when the full resolution must decide.
 */
static bool sg_open_inside(const struct sg_supervisor *s, const struct sg_obj *o,
			   unsigned int how, bool writes)
{
	if (!o->exists)
		return sg_parent_inside(s, o) != 0;
	if ((how & SG_R_EXCL) || !writes || S_ISLNK(o->st.st_mode) || S_ISDIR(o->st.st_mode) ||
	    S_ISSOCK(o->st.st_mode))
		return true;
	return o->beneath || sg_judge(s, o, false) != 0;
}

/* open, openat, creat: an open that writes, or creates. */
static int sg_intent_open(struct sg_intent *in, struct sg_sup_event *ev, struct sg_reply *rep)
{
	const struct sg_call *c = in->c;
	const struct sg_supervisor *s = in->t->s;
	int fl = c->kind == SG_K_CREAT ? O_CREAT | O_WRONLY | O_TRUNC : (int)in->arg[c->a1];
	bool writes = (fl & O_ACCMODE) == O_WRONLY || (fl & O_ACCMODE) == O_RDWR;
	unsigned int how = 0;
	int r;

	if (fl & __O_TMPFILE) {
		/*
		 * An unnamed file in the directory named: Landlock checks
		 * write_file there, as for a file created in it.  The kernel
		 * wants a writing access mode and no O_CREAT.
		 */
		if (!writes || (fl & O_CREAT))
			return sg_continue(rep);
		in->op = SG_OP_CREATE;
		r = sg_intent_resolve(in, sg_dirfd(in, c->dirfd), in->arg[c->path], in->path,
				      0, &in->obj);
		if (r < 0)
			return sg_unjudged(in, r, rep);
		if (!S_ISDIR(in->obj.st.st_mode))
			return sg_continue(rep); /* ENOTDIR */
		r = in->obj.beneath ? 1 : sg_judge(s, &in->obj, false);
		return r == 0 ? sg_refuse_intent(in, EACCES, in->obj.fd, -1, ev, rep)
			      : sg_continue(rep);
	}
	if (fl & O_CREAT)
		how |= SG_R_CREATE;
	if ((fl & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		how |= SG_R_EXCL;
	if (fl & O_NOFOLLOW)
		how |= SG_R_NOFOLLOW;
	/*
	 * First the fast way: the last component by fstatat, without an
	 * open (resolve.c, SG_R_STAT).  Enough to let an open inside
	 * continue; anything else is judged again from a full resolution,
	 * which gives the descriptors a refusal describes and checks.
	 */
	r = sg_intent_resolve(in, sg_dirfd(in, c->dirfd), in->arg[c->path], in->path,
			      how | SG_R_STAT, &in->obj);
	if (r < 0)
		return sg_unjudged(in, r, rep);
	if (sg_open_inside(s, &in->obj, how, writes))
		return sg_continue(rep);
	sg_obj_close(&in->obj);
	sg_obj_init(&in->obj);
	r = sg_resolve_path(in->t, sg_dirfd(in, c->dirfd), in->path, how, &in->obj);
	if (r < 0)
		return sg_unjudged(in, r, rep);

	if (!in->obj.exists) {
		in->op = SG_OP_CREATE;
		r = sg_parent_inside(s, &in->obj);
		return r == 0 ? sg_refuse_intent(in, EACCES, in->obj.parent, -1, ev, rep)
			      : sg_continue(rep);
	}
	/*
	 * It exists.  The kernel answers EEXIST (O_EXCL), ELOOP (a link with
	 * O_NOFOLLOW), EISDIR (a directory opened to write) or ENXIO (a
	 * socket) before Landlock is asked; a read-only open with O_CREAT of
	 * an existing file writes nothing.
	 */
	if ((how & SG_R_EXCL) || !writes || S_ISLNK(in->obj.st.st_mode) ||
	    S_ISDIR(in->obj.st.st_mode) || S_ISSOCK(in->obj.st.st_mode))
		return sg_continue(rep);
	in->op = SG_OP_OPEN;
	r = sg_judge(s, &in->obj, false);
	return r == 0 ? sg_refuse_intent(in, EACCES, in->obj.fd, -1, ev, rep)
		      : sg_continue(rep);
}

/* mkdir, mknod, symlink: a new entry, made in the directory it would be in. */
static int sg_intent_make(struct sg_intent *in, struct sg_sup_event *ev, struct sg_reply *rep)
{
	const struct sg_call *c = in->c;
	unsigned int how = SG_R_CREATE | SG_R_NOFOLLOW;
	int r;

	switch (c->kind) {
	case SG_K_MKDIR:
		in->op = SG_OP_MKDIR;
		how |= SG_R_MKDIR;
		break;
	case SG_K_MKNOD: {
		mode_t type = (mode_t)in->arg[c->a1] & S_IFMT;

		in->op = type == 0 || type == S_IFREG ? SG_OP_CREATE : SG_OP_MKNOD;
		break;
	}
	default:
		in->op = SG_OP_SYMLINK;
		break;
	}
	r = sg_parent_first(in, sg_dirfd(in, c->dirfd), in->arg[c->path], in->path, how,
			    &in->obj);
	if (r == 1)
		return sg_continue(rep);
	if (r == 0)
		r = sg_resolve_path(in->t, sg_dirfd(in, c->dirfd), in->path, how, &in->obj);
	if (r < 0)
		return sg_unjudged(in, r, rep);
	/* EEXIST comes first (filename_create()), whatever is there. */
	if (in->obj.exists)
		return sg_continue(rep);
	r = sg_parent_inside(in->t->s, &in->obj);
	return r == 0 ? sg_refuse_intent(in, EACCES, in->obj.parent, -1, ev, rep)
		      : sg_continue(rep);
}

/* unlink, unlinkat, rmdir: an entry removed from its directory. */
static int sg_intent_remove(struct sg_intent *in, struct sg_sup_event *ev, struct sg_reply *rep)
{
	const struct sg_call *c = in->c;
	int r;

	in->op = c->kind == SG_K_RMDIR ? SG_OP_RMDIR : SG_OP_UNLINK;
	if (c->atflags >= 0) {
		int fl = (int)in->arg[c->atflags];

		if (fl & ~AT_REMOVEDIR)
			return sg_continue(rep); /* EINVAL */
		if (fl & AT_REMOVEDIR)
			in->op = SG_OP_RMDIR;
	}
	r = sg_parent_first(in, sg_dirfd(in, c->dirfd), in->arg[c->path], in->path,
			    SG_R_NOFOLLOW, &in->obj);
	if (r == 1)
		return sg_continue(rep);
	if (r == 0)
		r = sg_resolve_path(in->t, sg_dirfd(in, c->dirfd), in->path, SG_R_NOFOLLOW,
				    &in->obj);
	if (r < 0)
		return sg_unjudged(in, r, rep);
	/* unlink("name/") fails in the kernel before Landlock is asked. */
	if (in->op == SG_OP_UNLINK && in->path[0] && in->path[strlen(in->path) - 1] == '/')
		return sg_continue(rep);
	r = sg_parent_inside(in->t->s, &in->obj);
	return r == 0 ? sg_refuse_intent(in, EACCES, in->obj.parent, -1, ev, rep)
		      : sg_continue(rep);
}

/*
 * rename and link: the old name and the new one.  Landlock wants make_*
 * where the new entry goes (EACCES), remove_* where a renamed one leaves
 * (EACCES), and refer on both sides when a file changes directory: a link
 * from outside to inside is refused EXDEV.
 */
static int sg_intent_move(struct sg_intent *in, struct sg_sup_event *ev, struct sg_reply *rep)
{
	const struct sg_call *c = in->c;
	const struct sg_supervisor *s = in->t->s;
	bool link = c->kind == SG_K_LINK;
	unsigned int how_old = SG_R_NOFOLLOW, how_new = SG_R_CREATE | SG_R_NOFOLLOW;
	int r, old_in, new_in;

	in->op = link ? SG_OP_LINK : SG_OP_RENAME;
	if (link && c->atflags >= 0) {
		int fl = (int)in->arg[c->atflags];

		if (fl & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
			return sg_continue(rep); /* EINVAL */
		if (fl & AT_SYMLINK_FOLLOW)
			how_old &= ~SG_R_NOFOLLOW;
		if (fl & AT_EMPTY_PATH)
			how_old |= SG_R_EMPTY;
	}
	if (!link && c->a3 >= 0) {
		unsigned int fl = (unsigned int)in->arg[c->a3];

		if (fl & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
			return sg_continue(rep); /* EINVAL */
		/* Both names must exist to be exchanged. */
		if (fl & RENAME_EXCHANGE)
			how_new &= ~SG_R_CREATE;
	}
	/* A directory is renamed with trailing slashes on either name. */
	if (!link)
		how_new |= SG_R_MKDIR;

	/*
	 * Both directories beneath a root: continue, without looking at the
	 * names (the common case: a build renaming its own files).  A link
	 * by descriptor (AT_EMPTY_PATH) has no directory to look at first.
	 */
	if (!(how_old & SG_R_EMPTY)) {
		int a = sg_parent_first(in, sg_dirfd(in, c->dirfd), in->arg[c->path], in->path,
					how_old, &in->obj);
		int b = a == 1 ? sg_parent_first(in, sg_dirfd(in, c->a1), in->arg[c->a2],
						 in->path2, how_new, &in->obj2)
			       : 0;

		if (a < 0 || b < 0)
			return sg_unjudged(in, a < 0 ? a : b, rep);
		/* Landlock ABI 1 refuses across directories: judged below. */
		if (a == 1 && b == 1 && (!s->no_refer || sg_same_dir(in->obj.parent, in->obj2.parent)))
			return sg_continue(rep);
		sg_obj_close(&in->obj);
		sg_obj_init(&in->obj);
		sg_obj_close(&in->obj2);
		sg_obj_init(&in->obj2);
	}
	r = sg_intent_resolve(in, sg_dirfd(in, c->dirfd), in->arg[c->path], in->path, how_old,
			      &in->obj);
	if (r < 0)
		return sg_unjudged(in, r, rep);
	r = sg_intent_resolve(in, sg_dirfd(in, c->a1), in->arg[c->a2], in->path2, how_new,
			      &in->obj2);
	if (r < 0)
		return sg_unjudged(in, r, rep);
	in->has2 = true;
	/* link() to a name that exists: EEXIST first (filename_create()). */
	if (link && in->obj2.exists)
		return sg_continue(rep);

	new_in = sg_parent_inside(s, &in->obj2);
	if (new_in < 0)
		return sg_continue(rep);
	if (link && in->obj.parent < 0)
		/* linkat(fd, "", AT_EMPTY_PATH): where its name is. */
		old_in = in->obj.own_link ? -1 : sg_judge(s, &in->obj, false) > 0;
	else
		old_in = sg_parent_inside(s, &in->obj);
	if (old_in < 0)
		return sg_continue(rep);
	if (!new_in)
		return sg_refuse_intent(in, EACCES, in->obj2.parent,
					link ? -1 : in->obj.parent, ev, rep);
	if (!old_in)
		return sg_refuse_intent(in, link ? EXDEV : EACCES, in->obj2.parent,
					link ? -1 : in->obj.parent, ev, rep);
	/*
	 * Both inside, but Landlock ABI 1 cannot grant REFER: it refuses a
	 * file changing directory with EXDEV wherever it is (tools such as
	 * mv then copy).  Said with a record rather than left unrecorded.
	 */
	if (s->no_refer && in->obj.parent >= 0 && !sg_same_dir(in->obj.parent, in->obj2.parent))
		return sg_refuse_why(in, EXDEV, SG_SUP_ABI, in->obj2.parent, -1, ev, rep);
	return sg_continue(rep);
}

int sg_sup_intent(struct sg_target *t, const struct sg_call *c, const uint64_t *arg,
		  struct sg_sup_event *ev, struct sg_reply *rep)
{
	struct sg_intent *in = malloc(sizeof(*in));
	int r;

	/* No memory to judge with: Landlock decides, as always underneath. */
	if (!in)
		return sg_continue(rep);
	in->t = t;
	in->c = c;
	in->arg = arg;
	in->op = SG_OP_NONE;
	in->has2 = false;
	in->path[0] = in->path2[0] = '\0';
	sg_obj_init(&in->obj);
	sg_obj_init(&in->obj2);

	switch (c->kind) {
	case SG_K_OPEN:
	case SG_K_CREAT:
		r = sg_intent_open(in, ev, rep);
		break;
	case SG_K_MKDIR:
	case SG_K_MKNOD:
	case SG_K_SYMLINK:
		r = sg_intent_make(in, ev, rep);
		break;
	case SG_K_UNLINK:
	case SG_K_RMDIR:
		r = sg_intent_remove(in, ev, rep);
		break;
	case SG_K_RENAME:
	case SG_K_LINK:
		r = sg_intent_move(in, ev, rep);
		break;
	default:
		r = sg_continue(rep);
		break;
	}
	sg_obj_close(&in->obj);
	sg_obj_close(&in->obj2);
	free(in);
	return r;
}
