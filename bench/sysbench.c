// SPDX-License-Identifier: MIT
/*
 * sysbench.c — the cost of the system calls a step makes, timed inside
 * the process so that start-up does not count.
 *
 *   sysbench [-n N] WORKDIR DEEPFILE
 *
 * N is 10 to 10^8 (default 20000).  For each operation: N/10 untimed
 * iterations, then N timed ones between two clock_gettime calls; prints
 * "LABEL<TAB>NS_PER_OP" per operation.
 * bench/run.sh runs it bare and under stepguard, alternately, and divides.
 *
 *   open_ro_in     open(WORKDIR/ro, O_RDONLY) + close
 *   open_ro_deep   the same for DEEPFILE (six directories deep, outside
 *                  WORKDIR): Landlock walks the path to the root on every
 *                  open when it handles an open-time right (truncate,
 *                  ioctl_dev), so depth is where that would show
 *   open_wr_in     open(WORKDIR/wr, O_WRONLY|O_CREAT|O_TRUNC) + write 1
 *                  byte + close
 *   create_unlink  open(O_CREAT|O_EXCL) + close + unlink, in WORKDIR
 *   rename_in      rename WORKDIR/ra <-> WORKDIR/rb, alternating
 *   chmod_in       chmod(WORKDIR/ch), alternating 0644 and 0600: a call
 *                  the supervisor decides and performs (docs/supervisor.md)
 *   utimensat_in   utimensat(AT_FDCWD, WORKDIR/ch, NULL, 0), "touch":
 *                  supervised the same way
 *
 * The write-intent calls that issue 15 routes to the supervisor on the
 * Landlock backend, one call per iteration so the figure is per call:
 *
 *   create_in      open(WORKDIR/m.I, O_WRONLY|O_CREAT, 0644) + close, for
 *                  I = 0..N-1: N new files under distinct names
 *   unlink_in      unlink of those N files, in the same order
 *   open_wo_in     open(WORKDIR/wo, O_WRONLY) + close of an existing file
 *                  (no O_CREAT, no O_TRUNC: the write intent alone)
 *   mkdir_in       mkdir(WORKDIR/d.I, 0755), I = 0..N-1
 *   rmdir_in       rmdir of those N directories
 *
 * create_in/unlink_in and mkdir_in/rmdir_in run as two loops over N names
 * rather than one loop over a pair, so that each call has a figure of its
 * own (a supervisor may well answer a create, which returns a descriptor,
 * more slowly than an unlink); report.py adds the two for the pair.  The
 * directory holds up to N more entries meanwhile, which tmpfs and the
 * dcache look up by hash.  rename_in above is the rename of the list.
 *   getppid        the seccomp filter alone (the action cache, or a
 *                  filter run per call)
 *
 * Every call is checked: a refused operation would time the refusal.
 * Built without sanitizers and without the launcher's libraries: it runs
 * under the write filter.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static char p_ro[4096], p_wr[4096], p_cu[4096], p_ra[4096], p_rb[4096], p_ch[4096], p_wo[4096];
static const char *p_deep;

/*
 * The numbered names of create_in/unlink_in and mkdir_in/rmdir_in: a
 * fixed prefix, then I in decimal, written in place by nth() (snprintf
 * per call would add about 0.1 us to every iteration, bare and confined).
 */
struct numbered {
	char path[4096];
	size_t len; /* of the prefix */
};
static struct numbered p_many, p_dirs;

static void numbered_init(struct numbered *nb, const char *dir, const char *prefix)
{
	int len = snprintf(nb->path, sizeof(nb->path), "%s/%s", dir, prefix);

	if (len < 0 || (size_t)len > sizeof(nb->path) - 24) {
		fprintf(stderr, "sysbench: %s: path too long\n", dir);
		exit(2);
	}
	nb->len = (size_t)len;
}

static const char *nth(struct numbered *nb, long i)
{
	char digits[24];
	size_t k = 0, at = nb->len;
	unsigned long v = (unsigned long)i;

	do {
		digits[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (k)
		nb->path[at++] = digits[--k];
	nb->path[at] = '\0';
	return nb->path;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "sysbench: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

static void op_open_ro_in(long i)
{
	int fd = open(p_ro, O_RDONLY | O_CLOEXEC);

	(void)i;
	if (fd < 0)
		die("open", p_ro);
	close(fd);
}

static void op_open_ro_deep(long i)
{
	int fd = open(p_deep, O_RDONLY | O_CLOEXEC);

	(void)i;
	if (fd < 0)
		die("open", p_deep);
	close(fd);
}

static void op_open_wr_in(long i)
{
	int fd = open(p_wr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	(void)i;
	if (fd < 0)
		die("open", p_wr);
	if (write(fd, "x", 1) != 1)
		die("write", p_wr);
	close(fd);
}

static void op_create_unlink(long i)
{
	int fd = open(p_cu, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	(void)i;
	if (fd < 0)
		die("create", p_cu);
	close(fd);
	if (unlink(p_cu) < 0)
		die("unlink", p_cu);
}

static void op_rename_in(long i)
{
	const char *from = (i & 1) ? p_rb : p_ra, *to = (i & 1) ? p_ra : p_rb;

	if (rename(from, to) < 0)
		die("rename", from);
}

static void op_chmod_in(long i)
{
	if (chmod(p_ch, (i & 1) ? 0600 : 0644) < 0)
		die("chmod", p_ch);
}

static void op_utimensat_in(long i)
{
	(void)i;
	if (utimensat(AT_FDCWD, p_ch, NULL, 0) < 0)
		die("utimensat", p_ch);
}

static void op_create_in(long i)
{
	const char *p = nth(&p_many, i);
	int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		die("create", p);
	close(fd);
}

static void op_unlink_in(long i)
{
	const char *p = nth(&p_many, i);

	if (unlink(p) < 0)
		die("unlink", p);
}

static void op_open_wo_in(long i)
{
	int fd = open(p_wo, O_WRONLY | O_CLOEXEC);

	(void)i;
	if (fd < 0)
		die("open", p_wo);
	close(fd);
}

static void op_mkdir_in(long i)
{
	const char *p = nth(&p_dirs, i);

	if (mkdir(p, 0755) < 0)
		die("mkdir", p);
}

static void op_rmdir_in(long i)
{
	const char *p = nth(&p_dirs, i);

	if (rmdir(p) < 0)
		die("rmdir", p);
}

static void op_getppid(long i)
{
	(void)i;
	syscall(SYS_getppid); /* the raw call: nothing in libc can cache it */
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void bench(const char *label, void (*op)(long), long n)
{
	long i, warm = n / 10;
	double t0, t1;

	for (i = 0; i < warm; i++)
		op(i);
	/* rename alternates: start every timed loop from the same side */
	i = warm & 1 ? 1 : 0;
	t0 = now();
	for (long k = 0; k < n; k++, i++)
		op(i);
	t1 = now();
	printf("%s\t%.1f\n", label, (t1 - t0) / (double)n);
}

/*
 * Two loops over the same N names, timed apart: make then undo (create
 * then unlink, mkdir then rmdir).  The untimed warm-up does both over
 * N/10 names first, as bench() does, and leaves nothing behind.
 */
static void bench_two(const char *label_make, void (*make)(long), const char *label_undo,
		      void (*undo)(long), long n)
{
	long i, warm = n / 10;
	double t0, t1, t2;

	for (i = 0; i < warm; i++)
		make(i);
	for (i = 0; i < warm; i++)
		undo(i);
	t0 = now();
	for (i = 0; i < n; i++)
		make(i);
	t1 = now();
	for (i = 0; i < n; i++)
		undo(i);
	t2 = now();
	printf("%s\t%.1f\n", label_make, (t1 - t0) / (double)n);
	printf("%s\t%.1f\n", label_undo, (t2 - t1) / (double)n);
}

int main(int argc, char **argv)
{
	long n = 20000;
	int opt, fd;
	char *end;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			return 2;
		/* a typo must not become n = 0 or a run of a billion files */
		errno = 0;
		n = strtol(optarg, &end, 10);
		if (errno || end == optarg || *end || n > 100000000)
			n = 0;
	}
	if (argc - optind != 2 || n < 10) {
		fprintf(stderr, "usage: sysbench [-n N] WORKDIR DEEPFILE\n");
		return 2;
	}
	snprintf(p_ro, sizeof(p_ro), "%s/sysbench.ro", argv[optind]);
	snprintf(p_wr, sizeof(p_wr), "%s/sysbench.wr", argv[optind]);
	snprintf(p_cu, sizeof(p_cu), "%s/sysbench.cu", argv[optind]);
	snprintf(p_ra, sizeof(p_ra), "%s/sysbench.ra", argv[optind]);
	snprintf(p_rb, sizeof(p_rb), "%s/sysbench.rb", argv[optind]);
	snprintf(p_ch, sizeof(p_ch), "%s/sysbench.ch", argv[optind]);
	snprintf(p_wo, sizeof(p_wo), "%s/sysbench.wo", argv[optind]);
	numbered_init(&p_many, argv[optind], "sysbench.m.");
	numbered_init(&p_dirs, argv[optind], "sysbench.d.");
	p_deep = argv[optind + 1];

	fd = open(p_ro, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "ro\n", 3) != 3)
		die("create", p_ro);
	close(fd);
	unlink(p_cu);
	unlink(p_rb);
	fd = open(p_ra, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die("create", p_ra);
	close(fd);
	fd = open(p_ch, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die("create", p_ch);
	close(fd);
	fd = open(p_wo, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die("create", p_wo);
	close(fd);

	bench("open_ro_in", op_open_ro_in, n);
	bench("open_ro_deep", op_open_ro_deep, n);
	bench("open_wr_in", op_open_wr_in, n);
	bench("create_unlink", op_create_unlink, n);
	bench("rename_in", op_rename_in, n);
	bench("chmod_in", op_chmod_in, n);
	bench("utimensat_in", op_utimensat_in, n);
	bench_two("create_in", op_create_in, "unlink_in", op_unlink_in, n);
	bench("open_wo_in", op_open_wo_in, n);
	bench_two("mkdir_in", op_mkdir_in, "rmdir_in", op_rmdir_in, n);
	bench("getppid", op_getppid, n * 10);

	unlink(p_ro);
	unlink(p_wr);
	unlink(p_ra);
	unlink(p_rb);
	unlink(p_ch);
	unlink(p_wo);
	return 0;
}
