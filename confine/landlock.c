// SPDX-License-Identifier: MIT
/*
 * stepguard — Landlock write-filter backend.
 *
 * Shape: ask the ABI, derive what to handle from it (pure), build a ruleset
 * from roots the caller already resolved, then enforce it on the calling
 * thread.  Every function returns -errno and prints nothing: the launcher
 * owns the wording, and it needs the raw errno to tell "this kernel has no
 * Landlock" apart from "your policy names a root the kernel refused".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "confine/landlock.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * Our own copies of the UAPI structures.  The installed header may predate
 * handled_access_net (ABI 4) and scoped (ABI 6); declaring every field here
 * means the size we pass to the kernel always matches what we fill in.
 *
 * A kernel older than this struct accepts it as long as the fields it does
 * not know are zero (copy_struct_from_user); a non-zero unknown field is
 * refused with E2BIG instead of being ignored.  That is the fail-closed
 * behaviour we want, and sg_landlock_rights_for_abi() only sets scoped from
 * ABI 6, so a correct caller never trips it.
 */
struct sg_ruleset_attr {
	uint64_t handled_access_fs;  /* ABI 1 */
	uint64_t handled_access_net; /* ABI 4; always 0, see below */
	uint64_t scoped;             /* ABI 6 */
};

struct sg_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

_Static_assert(sizeof(struct sg_ruleset_attr) == 24,
	       "landlock_ruleset_attr is three u64 as of ABI 6");
_Static_assert(sizeof(struct sg_path_beneath_attr) == 12,
	       "landlock_path_beneath_attr is packed u64 + s32");

#ifndef LANDLOCK_RULE_PATH_BENEATH
#define LANDLOCK_RULE_PATH_BENEATH 1
#endif

/*
 * glibc has no wrappers.  Without the syscall numbers at build time there
 * is no Landlock to talk to: answer ENOSYS like a kernel built without it.
 */
static long ll_create_ruleset(const void *attr, size_t size, uint32_t flags)
{
#ifdef SYS_landlock_create_ruleset
	return syscall(SYS_landlock_create_ruleset, attr, size, flags);
#else
	(void)attr, (void)size, (void)flags;
	errno = ENOSYS;
	return -1;
#endif
}

static long ll_add_rule(int ruleset_fd, int type, const void *attr,
			uint32_t flags)
{
#ifdef SYS_landlock_add_rule
	return syscall(SYS_landlock_add_rule, ruleset_fd, type, attr, flags);
#else
	(void)ruleset_fd, (void)type, (void)attr, (void)flags;
	errno = ENOSYS;
	return -1;
#endif
}

static long ll_restrict_self(int ruleset_fd, uint32_t flags)
{
#ifdef SYS_landlock_restrict_self
	return syscall(SYS_landlock_restrict_self, ruleset_fd, flags);
#else
	(void)ruleset_fd, (void)flags;
	errno = ENOSYS;
	return -1;
#endif
}

int sg_landlock_abi(void)
{
	long abi;

	/*
	 * The kernel answers EOPNOTSUPP when Landlock is built but not in the
	 * boot's lsm= list, and ENOSYS when it is not built at all.  Both are
	 * passed through untouched: the launcher words them differently
	 * ("enable it with lsm=...,landlock" versus "this kernel has none").
	 */
	abi = ll_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 0)
		return -errno;
	/* ABI versions start at 1; anything else is not a Landlock we know. */
	if (abi < 1 || abi > 0xffff)
		return -EPROTO;
	return (int)abi;
}

void sg_landlock_rights_for_abi(int abi, struct sg_landlock_info *info)
{
	uint64_t fs = 0, scoped = 0, denied = 0;

	if (abi >= 1) {
		/*
		 * ABI 1 (5.13): writing a file and making or removing every
		 * kind of node.  READ_FILE, READ_DIR and EXECUTE exist too but
		 * are deliberately never handled: the write filter's job is
		 * writes, and an unhandled right costs no path walk, which is
		 * what keeps read-only opens at their bare cost.
		 *
		 * ABI 1 cannot express REFER, yet any Landlock domain refuses
		 * to reparent a file (rename or link across directories) with
		 * EXDEV, even beneath a root.  That is over-blocking, not a
		 * hole, so it is reported apart from missing_fs.
		 */
		fs = SG_LANDLOCK_WRITE_ABI1;
		denied = LANDLOCK_ACCESS_FS_REFER;
	}
	if (abi >= 2) {
		/*
		 * ABI 2 (5.19): REFER.  Handled and left without a rule outside
		 * the roots, it keeps refusing renames and links that would
		 * carry a file across the boundary; granted beneath each root,
		 * `mv a/x b/x` inside the work directory works again.
		 */
		fs |= LANDLOCK_ACCESS_FS_REFER;
		denied &= ~LANDLOCK_ACCESS_FS_REFER;
	}
	/*
	 * ABI 3 (6.2) adds TRUNCATE, and it is deliberately left unhandled on
	 * every ABI: Landlock decides truncation at open() for every file
	 * opened, read-only ones included, walking up from the file until a
	 * rule grants it, to / for anything outside the roots.  Handled, it
	 * made every read-only open 1.3x (2x six directories deep) what it
	 * costs bare (docs/performance.md).  Truncation outside the roots is
	 * still refused: by WRITE_FILE for every open that writes (and so
	 * ftruncate), and by the supervisor for truncate(2) and for opens
	 * with O_TRUNC on an access mode that does not write, which seccomp
	 * sends it (sg_supervisor_add_rules()); openat2, whose flags no filter
	 * can read, answers ENOSYS.  TRUNCATE therefore stays in missing_fs:
	 * the launcher covers it with the supervisor, or refuses the step.
	 */
	/*
	 * ABI 4 (6.7) adds TCP bind/connect.  Network is not the write
	 * filter's business, and handling it would break every step that
	 * fetches anything, so handled_access_net stays 0.
	 */
	if (abi >= 5) {
		/*
		 * ABI 5 (6.10): IOCTL_DEV.  Device ioctls can change state
		 * (a disk, a terminal's settings or input queue) through a
		 * descriptor opened read-only; handled, only devices listed as
		 * roots accept them.  Like every Landlock right it is decided
		 * at open(): descriptors the step inherits (its terminal) are
		 * not covered, which is one reason seccomp also refuses
		 * TIOCSTI and TIOCLINUX.
		 */
		fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	}
	if (abi >= 6) {
		/*
		 * ABI 6 (6.12): scoping.  SIGNAL stops the step from signalling
		 * stepguard or any process outside its domain (killing the
		 * supervisor, stopping an unconfined helper); ABSTRACT_UNIX_SOCKET
		 * stops it from connecting to abstract sockets of unconfined
		 * processes, which could act on its behalf outside the roots.
		 */
		scoped = SG_LANDLOCK_SCOPES;
	}
	/*
	 * ABI 7 (6.15) adds audit-logging flags for landlock_restrict_self(),
	 * no new right: nothing to add here (see docs/landlock.md for why the
	 * logging flags are left at their default).  A newer ABI handles
	 * everything we know of, which is all we can ask for.
	 */

	info->abi = abi;
	info->handled_fs = fs;
	info->scoped = scoped;
	info->missing_fs = SG_LANDLOCK_WRITE_RIGHTS & ~fs & ~denied;
	info->missing_scope = SG_LANDLOCK_SCOPES & ~scoped;
	info->denied_fs = denied;
}

static int add_root(int ruleset_fd, const struct sg_root *root,
		    uint64_t handled)
{
	struct sg_path_beneath_attr rule;
	struct stat st;

	if (root->fd < 0)
		return -EBADF;
	/*
	 * fstat() works on an O_PATH descriptor and tells us what the root
	 * resolved to, without resolving the path a second time (which a
	 * racing rename could change).
	 */
	if (fstat(root->fd, &st) < 0)
		return -errno;
	/*
	 * An O_PATH|O_NOFOLLOW descriptor on a symlink would make the rule
	 * govern the link inode itself, never its target: a root that allows
	 * nothing useful.  Refuse it so the policy author hears about it.
	 */
	if (S_ISLNK(st.st_mode))
		return -ELOOP;

	memset(&rule, 0, sizeof(rule));
	rule.parent_fd = root->fd;
	/*
	 * The kernel refuses directory-only rights (make_*, remove_*, refer)
	 * on a rule whose object is not a directory.  A file root, or a device
	 * such as /dev/null, gets the rights that apply to an opened file.
	 */
	/*
	 * Device nodes are never granted, not even beneath a root: a step
	 * running as root (CAP_MKNOD) could make a node for a disk outside the
	 * roots and write it raw.  The rights stay handled, so they are
	 * refused everywhere; seccomp refuses device mknod as well.
	 */
	if (S_ISDIR(st.st_mode))
		rule.allowed_access = handled & ~(uint64_t)(LANDLOCK_ACCESS_FS_MAKE_BLOCK |
							    LANDLOCK_ACCESS_FS_MAKE_CHAR);
	else
		rule.allowed_access = handled & SG_LANDLOCK_FILE_RIGHTS;

	if (ll_add_rule(ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) < 0)
		return -errno;
	return 0;
}

/* EXECUTE on exactly the file EXEC: a rule on a file governs that inode only. */
static int add_exec(int ruleset_fd, const struct sg_root *exec)
{
	struct sg_path_beneath_attr rule;
	struct stat st;

	if (fstat(exec->fd, &st) < 0)
		return -errno;
	/* A directory would grant EXECUTE on everything beneath it. */
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	memset(&rule, 0, sizeof(rule));
	rule.parent_fd = exec->fd;
	rule.allowed_access = LANDLOCK_ACCESS_FS_EXECUTE;
	if (ll_add_rule(ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) < 0)
		return -errno;
	return 0;
}

int sg_landlock_build(const struct sg_root *roots, size_t n,
		      const struct sg_landlock_info *info,
		      const struct sg_root **failed_root)
{
	return sg_landlock_build_exec(roots, n, NULL, 0, info, failed_root);
}

int sg_landlock_build_exec(const struct sg_root *roots, size_t n, const struct sg_root *execs,
			   size_t n_execs, const struct sg_landlock_info *info,
			   const struct sg_root **failed_root)
{
	struct sg_ruleset_attr attr;
	uint64_t handled;
	int ruleset_fd, r;
	size_t i;

	if (failed_root)
		*failed_root = NULL;
	if (!info || (n > 0 && !roots) || (n_execs > 0 && !execs))
		return -EINVAL;
	if (info->abi < 1)
		return -EOPNOTSUPP;
	/*
	 * Handling a read or execute right here would deny it everywhere
	 * outside the roots (and slow every open down).  It can only be a
	 * caller's bug, so refuse it rather than confine the wrong thing.
	 */
	if ((info->handled_fs & ~SG_LANDLOCK_WRITE_RIGHTS) ||
	    (info->scoped & ~SG_LANDLOCK_SCOPES))
		return -EINVAL;

	/*
	 * A ruling step (EXECS given): EXECUTE is handled too (Landlock ABI
	 * 1 has it), so every execve, and the kernel's own opening of a
	 * script's or an ELF file's interpreter, is refused but on the files
	 * granted below.  Never beneath a root: a step could otherwise copy
	 * /bin/sh into its work dir and run it.
	 */
	handled = info->handled_fs | (execs ? (uint64_t)LANDLOCK_ACCESS_FS_EXECUTE : 0);
	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = handled;
	attr.scoped = info->scoped;

	ruleset_fd = (int)ll_create_ruleset(&attr, sizeof(attr), 0);
	if (ruleset_fd < 0)
		return -errno;

	for (i = 0; i < n; i++) {
		r = add_root(ruleset_fd, &roots[i], info->handled_fs);
		if (r < 0) {
			if (failed_root)
				*failed_root = &roots[i];
			close(ruleset_fd);
			return r;
		}
	}
	for (i = 0; i < n_execs; i++) {
		if (execs[i].fd < 0) /* an exec-allow name this machine lacks */
			continue;
		r = add_exec(ruleset_fd, &execs[i]);
		if (r < 0) {
			if (failed_root)
				*failed_root = &execs[i];
			close(ruleset_fd);
			return r;
		}
	}
	return ruleset_fd;
}

int sg_landlock_restrict(int ruleset_fd)
{
	int r;

	if (ruleset_fd < 0)
		return -EBADF;

	/*
	 * The kernel lets a task with CAP_SYS_ADMIN restrict itself without
	 * no_new_privs.  We do not: a launcher that forgot no_new_privs would
	 * work as root and fail only for unprivileged users, and no_new_privs
	 * is what keeps a setuid binary run by the step from shedding the
	 * seccomp filter that comes next.  Check it so the order is enforced
	 * the same way for everyone.
	 */
	r = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	if (r < 0)
		r = -errno; // NOLINT(bugprone-branch-clone): prctl and restrict_self below both fail with errno
	else if (r != 1)
		r = -EPERM;
	/*
	 * No flags: in particular no LANDLOCK_RESTRICT_SELF_TSYNC (ABI 8), so
	 * the caller must be single-threaded, which a freshly forked child is.
	 */
	else if (ll_restrict_self(ruleset_fd, 0) < 0)
		r = -errno;
	else
		r = 0;

	/*
	 * The domain holds its own reference to the ruleset; our descriptor
	 * would only leak into the step (it is O_CLOEXEC, but there is no
	 * reason to keep it until execve).
	 */
	close(ruleset_fd);
	return r;
}

/* ---- text ---------------------------------------------------------- */

struct sg_strbuf {
	char *buf;
	size_t len;
	size_t pos;
	bool truncated;
};

static void sb_add(struct sg_strbuf *sb, const char *s)
{
	size_t n = strlen(s);

	if (sb->truncated)
		return;
	if (sb->pos + n + 1 > sb->len) {
		sb->truncated = true;
		return;
	}
	memcpy(sb->buf + sb->pos, s, n);
	sb->pos += n;
	sb->buf[sb->pos] = '\0';
}

static void sb_item(struct sg_strbuf *sb, const char *s)
{
	if (sb->pos > 0)
		sb_add(sb, ",");
	sb_add(sb, s);
}

/* Cut text must not pass for whole text: end it with "...". */
static const char *sb_finish(struct sg_strbuf *sb)
{
	static const char mark[] = "...";
	size_t at;

	if (sb->len == 0)
		return sb->buf;
	if (!sb->truncated)
		return sb->buf;
	if (sb->len <= sizeof(mark) - 1) {
		memcpy(sb->buf, mark, sb->len - 1);
		sb->buf[sb->len - 1] = '\0';
		return sb->buf;
	}
	at = sb->pos;
	if (at > sb->len - sizeof(mark))
		at = sb->len - sizeof(mark);
	memcpy(sb->buf + at, mark, sizeof(mark));
	return sb->buf;
}

struct sg_bit_name {
	uint64_t bit;
	const char *name;
};

static const char *bits_str(uint64_t mask, const struct sg_bit_name *names,
			    size_t count, char *buf, size_t len)
{
	struct sg_strbuf sb = { .buf = buf, .len = len };
	uint64_t known = 0;
	char hex[2 + 16 + 1];
	size_t i;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (mask == 0) {
		sb_add(&sb, "none");
		return sb_finish(&sb);
	}
	for (i = 0; i < count; i++) {
		known |= names[i].bit;
		if (mask & names[i].bit)
			sb_item(&sb, names[i].name);
	}
	/* A bit we have no name for is shown, never dropped. */
	if (mask & ~known) {
		snprintf(hex, sizeof(hex), "0x%" PRIx64, mask & ~known);
		sb_item(&sb, hex);
	}
	return sb_finish(&sb);
}

/* In bit order, so the text is stable and matches the UAPI's listing. */
static const struct sg_bit_name fs_names[] = {
	{ LANDLOCK_ACCESS_FS_EXECUTE, "execute" },
	{ LANDLOCK_ACCESS_FS_WRITE_FILE, "write_file" },
	{ LANDLOCK_ACCESS_FS_READ_FILE, "read_file" },
	{ LANDLOCK_ACCESS_FS_READ_DIR, "read_dir" },
	{ LANDLOCK_ACCESS_FS_REMOVE_DIR, "remove_dir" },
	{ LANDLOCK_ACCESS_FS_REMOVE_FILE, "remove_file" },
	{ LANDLOCK_ACCESS_FS_MAKE_CHAR, "make_char" },
	{ LANDLOCK_ACCESS_FS_MAKE_DIR, "make_dir" },
	{ LANDLOCK_ACCESS_FS_MAKE_REG, "make_reg" },
	{ LANDLOCK_ACCESS_FS_MAKE_SOCK, "make_sock" },
	{ LANDLOCK_ACCESS_FS_MAKE_FIFO, "make_fifo" },
	{ LANDLOCK_ACCESS_FS_MAKE_BLOCK, "make_block" },
	{ LANDLOCK_ACCESS_FS_MAKE_SYM, "make_sym" },
	{ LANDLOCK_ACCESS_FS_REFER, "refer" },
	{ LANDLOCK_ACCESS_FS_TRUNCATE, "truncate" },
	{ LANDLOCK_ACCESS_FS_IOCTL_DEV, "ioctl_dev" },
};

static const struct sg_bit_name scope_names[] = {
	{ LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET, "abstract_unix_socket" },
	{ LANDLOCK_SCOPE_SIGNAL, "signal" },
};

const char *sg_landlock_rights_str(uint64_t rights, char *buf, size_t len)
{
	return bits_str(rights, fs_names, sizeof(fs_names) / sizeof(fs_names[0]),
			buf, len);
}

const char *sg_landlock_scopes_str(uint64_t scopes, char *buf, size_t len)
{
	return bits_str(scopes, scope_names,
			sizeof(scope_names) / sizeof(scope_names[0]), buf, len);
}
