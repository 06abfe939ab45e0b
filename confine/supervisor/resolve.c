// SPDX-License-Identifier: MIT
/*
 * stepguard supervisor — from the step's path or descriptor to one object,
 * and the decision "is it beneath a writable root?".
 *
 * Resolution never leaves a window: every step holds a descriptor (the
 * start directory, the directory the last component was found in, the
 * object itself, a symbolic link's own inode), and the supervisor later
 * acts on the object's descriptor, never on a path looked up again.  What
 * the step does to the tree after we opened something cannot change what we
 * opened.
 *
 * The decision is by identity (st_dev, st_ino), walking up with ".." from
 * a directory, the way Landlock walks up from a path.  docs/supervisor.md,
 * "The decision", says why it holds while the step renames things.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "confine/supervisor/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/cleanup.h"

int sg_openat2(int dirfd, const char *path, uint64_t flags, uint64_t resolve)
{
	struct open_how how = { .flags = flags, .resolve = resolve };
	int fd;

	do {
		/* EAGAIN: a concurrent rename or mount; the kernel asks us to retry. */
		fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	} while (fd < 0 && errno == EAGAIN);
	return fd < 0 ? -errno : fd;
}

void sg_obj_init(struct sg_obj *o)
{
	memset(o, 0, sizeof(*o));
	o->fd = o->parent = o->hold = -1;
}

void sg_obj_close(struct sg_obj *o)
{
	if (o->fd >= 0)
		close(o->fd);
	if (o->parent >= 0)
		close(o->parent);
	if (o->hold >= 0)
		close(o->hold);
	o->fd = o->parent = o->hold = -1;
}

static int sg_obj_take(struct sg_obj *o, int fd)
{
	if (fd < 0)
		return fd;
	o->fd = fd;
	o->exists = true;
	if (fstat(fd, &o->st) < 0)
		return -errno;
	return 0;
}

/* The step's descriptor itself: fchmod, fchown, fsetxattr, futimens... */
int sg_resolve_fd(struct sg_target *t, int fd, struct sg_obj *o)
{
	return sg_obj_take(o, sg_target_getfd(t, fd));
}

static bool sg_is_dot(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/*
 * Split path (modified in place) into the directory part and the last
 * component, as the kernel reads it: trailing slashes mean "must be a
 * directory, follow a symlink", "x" lives in ".", "/x" in "/".  *last is
 * NULL when the path is "/" itself.
 */
static void sg_split(char *path, const char **dir, const char **last,
		     bool *must_dir)
{
	size_t n = strlen(path);
	char *slash;

	while (n > 1 && path[n - 1] == '/') {
		path[--n] = '\0';
		*must_dir = true;
	}
	if (strcmp(path, "/") == 0) {
		*dir = "/";
		*last = NULL;
		return;
	}
	slash = strrchr(path, '/');
	if (!slash) {
		*dir = ".";
		*last = path;
	} else if (slash == path) {
		*dir = "/";
		*last = path + 1;
	} else {
		*slash = '\0';
		*dir = path;
		*last = slash + 1;
	}
}

/* procfs gives its root directory this inode number (PROC_ROOT_INO). */
#define SG_PROC_ROOT_INO 1

static bool sg_is_proc_root(int fd)
{
	struct statfs sf;
	struct stat st;

	return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC &&
	       fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) &&
	       st.st_ino == SG_PROC_ROOT_INO;
}

/* If p starts with the component word (then "/" or the end), what follows it. */
static const char *sg_after_component(const char *p, const char *word)
{
	size_t n = strlen(word);

	if (strncmp(p, word, n) != 0 || (p[n] != '/' && p[n] != '\0'))
		return NULL;
	return p + n;
}

/*
 * "self" and "thread-self" in the root of procfs are symbolic links that
 * procfs computes for whoever follows them: followed here, they would name
 * stepguard, which is a different process.  So spell them for the caller,
 * as the kernel would for it: "self" is its process (TGID), "thread-self"
 * TGID/task/TID.  Two forms are recognised: an absolute path starting
 * /proc/self or /proc/thread-self when /proc is the procfs of our pid
 * namespace (the numbers the kernel gives us are of that namespace), and
 * a relative one starting with either word from a start directory that is
 * the root of a procfs.  Any other way to those links (/dev/fd, /dev/stdin,
 * a symbolic link to /proc/self in a directory part) is followed by
 * openat2 here, names stepguard, and is refused further on.  buf is
 * rewritten in place; 0 or -ENAMETOOLONG.
 */
static int sg_proc_self(struct sg_target *t, int start, char buf[PATH_MAX])
{
	char out[PATH_MAX];
	const char *p = buf, *rest;
	size_t head;
	int n;

	if (buf[0] == '/') {
		if (!t->s->proc_ours)
			return 0;
		while (*p == '/')
			p++;
		if (!(rest = sg_after_component(p, "proc")))
			return 0;
		p = rest;
		while (*p == '/')
			p++;
	}
	rest = sg_after_component(p, "self");
	if (!rest && !(rest = sg_after_component(p, "thread-self")))
		return 0;
	if (buf[0] == '/') {
		_cleanup_close_ int proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (proc < 0 || !sg_is_proc_root(proc))
			return 0;
	} else if (start < 0 || !sg_is_proc_root(start)) {
		return 0;
	}
	head = (size_t)(p - buf);
	if (p[0] == 's')
		n = snprintf(out, sizeof(out), "%.*s%d%s", (int)head, buf,
			     (int)t->creds.tgid, rest);
	else
		n = snprintf(out, sizeof(out), "%.*s%d/task/%d%s", (int)head, buf,
			     (int)t->creds.tgid, (int)t->tid, rest);
	if (n < 0 || (size_t)n >= sizeof(out))
		return -ENAMETOOLONG;
	memcpy(buf, out, (size_t)n + 1);
	return 0;
}

/*
 * The last component is a symbolic link on procfs.  The kernel follows a
 * /proc/.../fd/N link to the object descriptor N of that table refers to
 * (a "magic" link: no path is looked up), so we can do the same only where
 * we can take that descriptor: in the caller's own tables
 * (sg_target_fd_table()).  There, N is taken from the step with
 * pidfd_getfd() and decided exactly like an fd-based call.  Every other
 * link on procfs (another process's fd, cwd, root, exe, map_files, and
 * stepguard's own, which "/proc/self" became if it reached us unrewritten)
 * is refused with ELOOP, as RESOLVE_NO_MAGICLINKS answers.
 *
 * A call that does not follow its last link acts, in the kernel, on the
 * link itself: an inode of procfs, of the caller's own, in no directory
 * tree (there lchown and utimensat succeed, chmod says EOPNOTSUPP and
 * xattrs EPERM).  We act on our own link to the same descriptor, which is
 * the same kind of inode, so the kernel gives the same answers, and
 * nothing of the step's, nor any file, changes.
 */
static int sg_proc_fd_link(struct sg_target *t, int parent, const char *name,
			   bool follow, struct sg_obj *o)
{
	char p[SG_FD_PATH_MAX];
	struct stat pst;
	char *end;
	long n;
	int table, fd;

	if (fstat(parent, &pst) < 0)
		return -errno;
	table = sg_target_fd_table(t, &pst);
	if (table < 0)
		return table;
	if (table == 0)
		return -ELOOP;
	/* procfs names its descriptors in plain decimal; anything else is no fd. */
	errno = 0;
	n = strtol(name, &end, 10);
	if (errno || end == name || *end || n < 0 || n > INT32_MAX)
		return -ELOOP;
	fd = table == SG_TABLE_PROCESS ? sg_target_getfd_proc(t, (int)n)
				       : sg_target_getfd(t, (int)n);
	/* Closed since we saw its entry: the kernel would not find it either. */
	if (fd == -EBADF)
		return -ENOENT;
	if (fd < 0)
		return fd;
	if (follow)
		return sg_obj_take(o, fd);
	o->hold = fd;
	o->own_link = true;
	return sg_obj_take(o, sg_openat2(AT_FDCWD, sg_fd_path(p, fd),
					 O_PATH | O_NOFOLLOW | O_CLOEXEC, 0));
}

/*
 * The directory root whose path (as it was when we started) p is or lies
 * beneath, textually, and in *rest what follows it ("." for the root
 * itself).  Only a shortcut: callers resolve *rest from the root's own
 * descriptor with RESOLVE_BENEATH, which lands beneath it or fails.
 */
static const struct sg_sup_root *sg_root_prefix(const struct sg_supervisor *s,
						const char *p, const char **rest)
{
	for (size_t i = 0; i < s->n_roots; i++) {
		const struct sg_sup_root *r = &s->roots[i];
		size_t n;

		if (!r->path)
			continue;
		n = strlen(r->path);
		if (strncmp(p, r->path, n) != 0 || (p[n] != '/' && p[n] != '\0'))
			continue;
		p += n;
		while (*p == '/')
			p++;
		*rest = *p ? p : ".";
		return r;
	}
	return NULL;
}

/* Does the root's path still name the root, as the step's lookup would find it? */
static bool sg_root_still_at(const struct sg_sup_root *r)
{
	struct statx sx;

	return statx(AT_FDCWD, r->path, 0, STATX_INO, &sx) == 0 &&
	       makedev(sx.stx_dev_major, sx.stx_dev_minor) == r->dev && sx.stx_ino == r->ino;
}

static bool sg_is_dir_root_fd(const struct sg_supervisor *s, int fd);

/*
 * The directory part of a path, opened as the kernel would resolve it for
 * the step; *beneath says it was reached from a directory root with
 * RESOLVE_BENEATH, so it lies beneath that root and the decision needs no
 * walk up.  That shortcut is taken when the start is known to be beneath a
 * root (a relative path from the root itself, or from a directory already
 * reached so), or for an absolute path under a root's path that still
 * names that root, below the root itself (for the root, the walk up is
 * one comparison).  Where RESOLVE_BENEATH refuses (EXDEV: a "..", or an
 * absolute link, leading out of the start) the same lookup runs without
 * it, and the walk decides.
 */
static int sg_open_dir(const struct sg_supervisor *s, int start, bool start_beneath,
		       const char *dir, bool *beneath)
{
	const struct sg_sup_root *r = NULL;
	const char *rel = dir;
	int base = start, fd;

	*beneath = false;
	/*
	 * "x" relative to the start: the start itself.  A duplicate costs a
	 * fraction of a lookup, and every relative one-component path (most
	 * of a build's) takes it.
	 */
	if (dir[0] == '.' && dir[1] == '\0' && start >= 0) {
		fd = fcntl(start, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return -errno;
		*beneath = start_beneath;
		return fd;
	}
	if (dir[0] == '/') {
		base = AT_FDCWD;
		r = sg_root_prefix(s, dir, &rel);
		if (r && strcmp(rel, ".") != 0 && sg_root_still_at(r))
			base = r->fd;
		else
			r = NULL;
	}
	if (r || (dir[0] != '/' && start_beneath)) {
		fd = sg_openat2(base, rel, O_PATH | O_DIRECTORY | O_CLOEXEC,
				RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
		if (fd != -EXDEV) {
			*beneath = fd >= 0;
			return fd;
		}
	}
	return sg_openat2(dir[0] == '/' ? AT_FDCWD : start, dir,
			  O_PATH | O_DIRECTORY | O_CLOEXEC, RESOLVE_NO_MAGICLINKS);
}

static int sg_resolve_from(struct sg_target *t, int start, char buf[PATH_MAX],
			   unsigned int how, struct sg_obj *o, int *links, int depth);

/* Nested walks (a link met in a walked directory part that needs a walk of its own). */
#define SG_WALK_NEST 8

/*
 * The directory part dir, walked one component at a time from *start (from
 * "/" when dir is absolute), each component resolved by sg_resolve_from()
 * as "component/": followed, required to be a directory (ENOTDIR, as the
 * kernel), every symbolic link read by us and its target spelled for the
 * caller (sg_proc_self()), every link on procfs decided by
 * sg_proc_fd_link().  So the caller's own /proc/.../fd/N in a directory
 * part is its descriptor N, taken with pidfd_getfd(), and the rest goes on
 * from there as from a dirfd: ".." from N's directory is that directory's
 * parent, as the kernel walks it.  Any other magic link stays ELOOP.
 * *start is replaced by the directory reached.  Only run where openat2()
 * could not say (ELOOP, ENOENT): it is the slow way.
 */
static int sg_walk_dir(struct sg_target *t, int *start, const char *dir, // NOLINT(misc-no-recursion): nested at most SG_WALK_NEST deep, then ELOOP
		       int *links, int depth)
{
	const char *p = dir;
	int cur = *start;

	if (depth >= SG_WALK_NEST)
		return -ELOOP;
	*start = -1;
	if (dir[0] == '/') {
		if (cur >= 0)
			close(cur);
		cur = sg_openat2(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
		if (cur < 0)
			return cur;
	}
	for (;;) {
		char comp[PATH_MAX];
		struct sg_obj sub;
		size_t n;
		int r;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		n = strcspn(p, "/");
		memcpy(comp, p, n);
		comp[n] = '/';
		comp[n + 1] = '\0';
		p += n;
		sg_obj_init(&sub);
		/* cur is handed over: sg_resolve_from() owns its start. */
		r = sg_resolve_from(t, cur, comp, 0, &sub, links, depth + 1);
		if (r < 0) {
			sg_obj_close(&sub);
			return r;
		}
		cur = steal_fd(&sub.fd);
		sg_obj_close(&sub);
	}
	*start = cur;
	return 0;
}

/* A directory part in which no link can be met. */
/*
 * An entry NAME of directory *PARENT (taken), not opened: the object of a
 * creation, or of a write intent judged by its directory.  Not existing
 * until the caller says so.
 */
static int sg_obj_entry(struct sg_obj *o, const char *name, int *parent, bool beneath)
{
	if (strlen(name) >= sizeof(o->name))
		return -ENAMETOOLONG;
	strcpy(o->name, name); // NOLINT(clang-analyzer-security.insecureAPI.strcpy): length checked just above
	o->parent = steal_fd(parent);
	o->exists = false;
	o->beneath = beneath;
	return 0;
}

static bool sg_dir_plain(const char *dir)
{
	return strcmp(dir, ".") == 0 || strcmp(dir, "/") == 0;
}

/*
 * Resolve the step's (dirfd, path) to an object, with the kernel's rules:
 * an absolute path starts at the root (checked equal to the step's before
 * we get here), a relative one at the step's dirfd or working directory.
 *
 * The directory part goes to openat2(RESOLVE_NO_MAGICLINKS) in one call.
 * The last component is opened O_PATH|O_NOFOLLOW, so a symbolic link is
 * seen as itself: we read its target from that very inode (readlinkat(fd,
 * "")) and resolve the target from the directory the link was found in,
 * until a non-link.  That gives the directory holding the final object,
 * which the decision needs for a file, without a second lookup.
 *
 * Magic links (/proc/PID/fd/N, cwd, root, exe...) are refused with ELOOP,
 * except the caller's own descriptors, which sg_proc_fd_link() takes from
 * the step.  /proc/self is spelled for the caller first (sg_proc_self()),
 * at the start and after every link.  openat2 refuses a magic link in the
 * directory part (ELOOP), and follows a link to /proc/self there as
 * stepguard (ELOOP or ENOENT, or a table not the caller's when the last
 * component is a link on procfs): then the directory part is walked
 * instead (sg_walk_dir()), each link in it read and decided by us, and
 * the last component resolved from where the walk ended, as from a dirfd.
 */
int sg_resolve_path(struct sg_target *t, int dirfd, const char *path,
		    unsigned int how, struct sg_obj *o)
{
	char buf[PATH_MAX];
	int start = -1, links = 0;

	if (path[0] == '\0') {
		if (!(how & SG_R_EMPTY))
			return -ENOENT;
		if (dirfd == AT_FDCWD)
			return sg_obj_take(o, sg_target_cwd(t));
		return sg_resolve_fd(t, dirfd, o);
	}
	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, path); // NOLINT(clang-analyzer-security.insecureAPI.strcpy): length checked just above

	/* The kernel ignores dirfd for an absolute path, even a bad one. */
	if (buf[0] != '/') {
		start = dirfd == AT_FDCWD ? sg_target_cwd(t)
					  : sg_target_getfd(t, dirfd);
		if (start < 0)
			return start;
		/*
		 * A write intent's working directory known to be beneath a
		 * root (target.c, sg_target_cwd()): resolve beneath it, as
		 * from a root, instead of walking up on every call.
		 */
		if (dirfd == AT_FDCWD && t->light && t->cwd_beneath)
			how |= SG_R_START_BENEATH;
	}
	return sg_resolve_from(t, start, buf, how, o, &links, 0);
}

/*
 * sg_resolve_path() from our own descriptor start (owned: closed here; -1
 * for an absolute path), buf modified in place; *links counts the links
 * followed in the whole resolution, depth the walks it is nested in.
 */
static int sg_resolve_from(struct sg_target *t, int start_fd, char buf[PATH_MAX], // NOLINT(misc-no-recursion): through sg_walk_dir(), bounded by SG_WALK_NEST
			   unsigned int how, struct sg_obj *o, int *links, int depth)
{
	_cleanup_close_ int start = start_fd;
	bool must_dir = false, start_beneath = false;

	/* Tools work from the work directory: then no walk up is needed. */
	if (start >= 0)
		start_beneath = (how & SG_R_START_BENEATH) || sg_is_dir_root_fd(t->s, start);

	for (;;) {
		_cleanup_close_ int parent = -1;
		const char *dir, *last;
		char target[PATH_MAX];
		struct statfs sf;
		struct stat st;
		bool beneath;
		ssize_t n;
		int fd, r;

		r = sg_proc_self(t, buf[0] == '/' ? -1 : start, buf);
		if (r < 0)
			return r;
		sg_split(buf, &dir, &last, &must_dir);
		if (start >= 0 && dir[0] == '.' && dir[1] == '\0') {
			/* "x" relative to the start: the start itself, handed over. */
			parent = steal_fd(&start);
			beneath = start_beneath;
		} else {
			parent = sg_open_dir(t->s, start, start_beneath, dir, &beneath);
		}
		if ((parent == -ELOOP || parent == -ENOENT) && !sg_dir_plain(dir))
			goto walk;
		if (parent < 0)
			return parent;
		if (!last) /* "/" */
			return sg_obj_take(o, steal_fd(&parent));
		if (sg_is_dot(last)) {
			/* "." is the directory itself; ".." may be above the root. */
			o->beneath = beneath && strcmp(last, ".") == 0;
			return sg_obj_take(o, sg_openat2(parent, last,
							 O_PATH | O_DIRECTORY | O_CLOEXEC,
							 RESOLVE_NO_MAGICLINKS));
		}

		/*
		 * Only the directory asked for (a write intent made or removed
		 * in it, intent.c): the last component is not looked at, and
		 * whether it exists is not known.
		 */
		if (how & SG_R_PARENT) {
			return sg_obj_entry(o, last, &parent, beneath);
		}
		/*
		 * A write intent's fast look (intent.c): the last component by
		 * fstatat, no descriptor (o->fd stays -1).  A link, followed
		 * or magic, takes the full way below.
		 */
		fd = 0;
		r = (how & SG_R_STAT) ? fstatat(parent, last, &st, AT_SYMLINK_NOFOLLOW) : -1;
		if (r < 0 && (how & SG_R_STAT) && errno == ENOENT) {
			fd = -ENOENT; /* a new name: no second lookup to say so */
		} else if (r == 0 && !S_ISLNK(st.st_mode)) {
			if (must_dir && !S_ISDIR(st.st_mode))
				return -ENOTDIR;
			r = sg_obj_entry(o, last, &parent, beneath);
			o->st = st;
			o->exists = r == 0;
			return r;
		}
		if (fd == 0)
			fd = sg_openat2(parent, last, O_PATH | O_NOFOLLOW | O_CLOEXEC,
					RESOLVE_NO_MAGICLINKS);
		if (fd == -ENOENT && (how & SG_R_CREATE)) {
			/* open("new/", O_CREAT) is EISDIR in the kernel too; mkdir("new/") is fine. */
			if (must_dir && !(how & SG_R_MKDIR))
				return -EISDIR;
			return sg_obj_entry(o, last, &parent, beneath);
		}
		if (fd < 0)
			return fd;
		if (fstat(fd, &st) < 0) {
			int e = -errno;

			close(fd);
			return e;
		}

		/* A link on procfs is magic, or one we must not follow here. */
		if (S_ISLNK(st.st_mode) && fstatfs(fd, &sf) < 0) {
			r = -errno;
			close(fd);
			return r;
		}
		if (S_ISLNK(st.st_mode) && sf.f_type == PROC_SUPER_MAGIC) {
			close(fd);
			r = sg_proc_fd_link(t, parent, last, must_dir ||
					    !(how & (SG_R_NOFOLLOW | SG_R_EXCL)), o);
			/* Not the caller's table: maybe a link to /proc/self on the way. */
			if (r == -ELOOP && !sg_dir_plain(dir)) {
				sg_obj_close(o);
				goto walk;
			}
			if (r < 0)
				return r;
			if (must_dir && !S_ISDIR(o->st.st_mode))
				return -ENOTDIR;
			return 0;
		}

		/*
		 * Follow a trailing symlink unless told not to; a trailing
		 * slash forces following, O_CREAT|O_EXCL forbids it (the
		 * kernel then answers EEXIST, which the caller does).
		 */
		if (!S_ISLNK(st.st_mode) ||
		    (!must_dir && (how & (SG_R_NOFOLLOW | SG_R_EXCL)))) {
			if (must_dir && !S_ISDIR(st.st_mode)) {
				close(fd);
				return -ENOTDIR;
			}
			if (strlen(last) < sizeof(o->name))
				strcpy(o->name, last); // NOLINT(clang-analyzer-security.insecureAPI.strcpy): length checked just above
			o->parent = steal_fd(&parent);
			o->fd = fd;
			o->st = st;
			o->exists = true;
			o->beneath = beneath;
			return 0;
		}

		if (++*links > SG_MAXSYMLINKS) {
			close(fd);
			return -ELOOP;
		}
		n = readlinkat(fd, "", target, sizeof(target));
		close(fd);
		if (n < 0)
			return -errno;
		if ((size_t)n >= sizeof(target))
			return -ENAMETOOLONG;
		if (n == 0)
			return -ENOENT;
		target[n] = '\0';
		memcpy(buf, target, (size_t)n + 1);
		/* A relative target continues from where the link was found. */
		if (buf[0] != '/') {
			if (start >= 0)
				close(start);
			start = steal_fd(&parent);
			start_beneath = beneath;
		}
		continue;
walk:
		/*
		 * The directory part walked by us; then only the last
		 * component is left, from the directory reached, judged as
		 * from a dirfd there (no shortcut but what that directory is).
		 */
		r = sg_walk_dir(t, &start, dir, links, depth);
		if (r < 0)
			return r;
		memmove(buf, last, strlen(last) + 1);
		start_beneath = sg_is_dir_root_fd(t->s, start);
	}
}

/* ---- the decision --------------------------------------------------- */

static bool sg_same(const struct stat *a, dev_t dev, ino_t ino)
{
	return a->st_dev == dev && a->st_ino == ino;
}

static bool sg_is_dir_root(const struct sg_supervisor *s, const struct stat *st)
{
	for (size_t i = 0; i < s->n_roots; i++)
		if (s->roots[i].dir && sg_same(st, s->roots[i].dev, s->roots[i].ino))
			return true;
	return false;
}

static bool sg_is_dir_root_fd(const struct sg_supervisor *s, int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && sg_is_dir_root(s, &st);
}

/*
 * Is this directory a directory root or beneath one?  Walk up with "..",
 * which the kernel resolves across mount points to the parent mount and
 * stops at our root (the step's, checked equal): the walk ends where ".."
 * is the directory itself.  A walk that runs out of levels refuses: an
 * answer we could not finish is not "inside".
 */
int sg_dir_beneath(const struct sg_supervisor *s, int dirfd)
{
	_cleanup_close_ int owned = -1;
	int cur = dirfd;
	struct stat st;

	if (fstat(cur, &st) < 0)
		return -errno;
	for (int i = 0; i < SG_WALK_MAX; i++) {
		struct stat up;
		int fd;

		if (sg_is_dir_root(s, &st))
			return 1;
		fd = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (fstat(fd, &up) < 0) {
			int e = -errno;

			close(fd);
			return e;
		}
		if (owned >= 0)
			close(owned);
		owned = cur = fd;
		if (sg_same(&up, st.st_dev, st.st_ino))
			return 0;
		st = up;
	}
	return 0;
}

/* The object's entry, looked up where the hint says, beneath its root. */
static bool sg_hint_holds(const struct sg_supervisor *s, const struct sg_obj *o)
{
	const struct sg_name_hint *h = s->hint;
	_cleanup_close_ int d = -1;
	struct stat st;

	if (!h || !h->root || !sg_same(&o->st, h->dev, h->ino))
		return false;
	d = sg_openat2(h->root->fd, h->dir, O_PATH | O_DIRECTORY | O_CLOEXEC,
		       RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	return d >= 0 && fstatat(d, h->base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       sg_same(&st, o->st.st_dev, o->st.st_ino);
}

static void sg_hint_keep(const struct sg_supervisor *s, const struct sg_obj *o,
			 const struct sg_sup_root *r, const char *dir, const char *base)
{
	struct sg_name_hint *h = s->hint;

	if (!h || strlen(dir) >= sizeof(h->dir) || strlen(base) >= sizeof(h->base))
		return;
	h->dev = o->st.st_dev;
	h->ino = o->st.st_ino;
	h->root = r;
	strcpy(h->dir, dir); // NOLINT(clang-analyzer-security.insecureAPI.strcpy): length checked just above
	strcpy(h->base, base); // NOLINT(clang-analyzer-security.insecureAPI.strcpy): length checked just above
}

/*
 * A non-directory reached through a descriptor: find the directory that
 * holds it.  /proc/self/fd/N names the path it was opened by; open that
 * path's directory without following any link (the name is canonical, so
 * a link in it means someone changed the tree since), and accept it only
 * if it really has an entry with the object's identity.  Then judge that
 * directory.
 */
static int sg_judge_by_name(const struct sg_supervisor *s, const struct sg_obj *o)
{
	char link[SG_FD_PATH_MAX], p[PATH_MAX];
	_cleanup_close_ int parent = -1;
	const char *base;
	struct stat st;
	char *slash;
	ssize_t n;

	/*
	 * No name anywhere (unlinked, O_TMPFILE, memfd): no file outside the
	 * roots can be changed through it.  An O_TMPFILE can only get a name
	 * where Landlock lets the step create one: inside.
	 */
	if (o->st.st_nlink == 0)
		return 1;
	/*
	 * Tools change one file several times in a row (tar: fchown, fchmod,
	 * futimens on the file it just wrote), and reading the name is the
	 * dearest part.  Where the last name judged was, is looked at first,
	 * and counts only if its entry is the object now: a hint, never a
	 * cached answer.
	 */
	if (sg_hint_holds(s, o))
		return 1;
	n = readlink(sg_fd_path(link, o->fd), p, sizeof(p));
	if (n < 0)
		return -errno;
	if ((size_t)n >= sizeof(p))
		return -ENAMETOOLONG;
	p[n] = '\0';
	/* pipe:[N], socket:[N], anon_inode:...: not in any directory tree. */
	if (p[0] != '/')
		return 1;

	slash = strrchr(p, '/');
	base = slash + 1;
	*slash = '\0';
	/*
	 * Under a directory root's path: look for the entry from the root's
	 * own descriptor, beneath it and without links.  Found there with the
	 * object's identity, the object is in a directory beneath the root,
	 * which is what the walk up would say.  Not found: the slow way.
	 */
	{
		const char *rel;
		const struct sg_sup_root *r = sg_root_prefix(s, slash == p ? "/" : p, &rel);

		if (r) {
			_cleanup_close_ int d = sg_openat2(r->fd, rel, O_PATH | O_DIRECTORY | O_CLOEXEC,
							   RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
							   RESOLVE_NO_MAGICLINKS);

			if (d >= 0 && fstatat(d, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    sg_same(&st, o->st.st_dev, o->st.st_ino)) {
				sg_hint_keep(s, o, r, rel, base);
				return 1;
			}
		}
	}
	if (slash == p)
		parent = sg_openat2(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	else {
		parent = sg_openat2(AT_FDCWD, p, O_PATH | O_DIRECTORY | O_CLOEXEC,
				    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	}
	/* No verified name: we cannot say it is inside, so it is not. */
	if (parent < 0)
		return 0;
	if (fstatat(parent, base, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !sg_same(&st, o->st.st_dev, o->st.st_ino))
		return 0;
	return sg_dir_beneath(s, parent);
}

/*
 * 1: beneath a writable root; 0: not; -errno: could not tell (refuse).
 *
 * A directory is judged by itself (a root directory counts as beneath
 * itself).  A new name by the directory it would be made in.  Anything
 * else first by the non-directory roots (identity), then by the directory
 * it was found in, as Landlock judges a path by its directories.
 *
 * metadata: a device node matched only by a file root is a write target
 * (/dev/null is a root so programs can write to it), not something whose
 * mode or owner the step may change: a root step doing chmod 000 /dev/null
 * would break every later step on the machine.
 */
int sg_judge(const struct sg_supervisor *s, const struct sg_obj *o,
	     bool metadata)
{
	/* Our own procfs link inode (sg_proc_fd_link()): no file changes. */
	if (o->own_link)
		return 1;
	/*
	 * Found in a directory reached beneath a directory root: the walk
	 * up would end at that root.  A device there follows the directory.
	 */
	if (o->beneath)
		return 1;
	if (!o->exists)
		return sg_dir_beneath(s, o->parent);
	if (S_ISDIR(o->st.st_mode))
		return sg_dir_beneath(s, o->fd);
	for (size_t i = 0; i < s->n_roots; i++) {
		const struct sg_sup_root *r = &s->roots[i];

		if (r->dir || !sg_same(&o->st, r->dev, r->ino))
			continue;
		if (!(metadata && r->device))
			return 1;
	}
	if (o->parent >= 0)
		return sg_dir_beneath(s, o->parent);
	return sg_judge_by_name(s, o);
}

/* The object's absolute path, for the log.  0 or -errno (-ENAMETOOLONG). */
int sg_obj_describe(const struct sg_obj *o, char *buf, size_t size)
{
	char link[SG_FD_PATH_MAX];
	int fd = o->exists ? o->fd : o->parent;
	ssize_t n;

	if (fd < 0 || size == 0)
		return -EBADF;
	n = readlink(sg_fd_path(link, fd), buf, size);
	if (n < 0)
		return -errno;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	if (!o->exists) {
		size_t len = (size_t)n;
		int w = snprintf(buf + len, size - len, "%s%s",
				 len > 1 ? "/" : "", o->name);

		if (w < 0 || (size_t)w >= size - len)
			return -ENAMETOOLONG;
	}
	return 0;
}
