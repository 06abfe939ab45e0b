// SPDX-License-Identifier: MIT
/*
 * probe.c — stepguard-probe, the program `stepguard --self-test` runs
 * under the real confinement.
 *
 *   stepguard-probe [OPTION]... -- TARGET... [exec-sh=MARKER] [exec-touch=MARKER]
 *                   [peek=PID:ADDRESS:LENGTH]
 *   stepguard-probe --hold
 *
 * It tries one write per TARGET (an absolute path) and prints one line
 * for each, in the order given:
 *
 *   TARGET<TAB>landed<TAB>-
 *   TARGET<TAB>refused<TAB>EACCES
 *
 * Then, for each exec-KIND=MARKER, it starts a program that would create
 * MARKER, as a hook or an MCP server of the model CLI would: exec-sh runs
 * `/bin/sh -c 'echo ... > "$1"' sh MARKER`, exec-touch runs `touch MARKER`
 * with touch found in $PATH.  Each is a fork and an execve, reported as
 *
 *   exec<TAB>MARKER<TAB>PROGRAM<TAB>executed<TAB>EXIT-STATUS
 *   exec<TAB>MARKER<TAB>PROGRAM<TAB>refused<TAB>EACCES
 *
 * (refused: execve itself failed, with that errno).
 *
 * Then, for peek=PID:ADDRESS:LENGTH, it tries to read another process, as
 * a step that wants a sibling's secrets would: the start of
 * /proc/PID/environ, then LENGTH bytes at ADDRESS through /proc/PID/mem
 * and through process_vm_readv(2).  One line each, what it read in hex
 * ("-" for nothing), or the errno of the first call that failed:
 *
 *   peek<TAB>environ|mem|vm<TAB>read<TAB>HEX
 *   peek<TAB>environ|mem|vm<TAB>refused<TAB>EACCES
 *
 * It is not told what the other process holds: a read that returns the
 * self-test's marker is proof that the read landed, which the probe could
 * not fake.
 *
 * It exits 0 once every word has been tried and reported (whatever the
 * answers were), 2 on a usage error, 1 if it could not report.
 *
 * With --hold alone it is the other process (the self-test's holder, run
 * unconfined as the step's user): it copies $STEPGUARD_SELFTEST_HELD, the
 * marker its environment holds, into its memory, prints
 * `holding<TAB>PID<TAB>ADDRESS<TAB>LENGTH`, and waits for the end of its
 * standard input (the self-test keeps the other end open while it needs
 * it, so the holder cannot outlive it).
 *
 * The self-test runs it as the model CLI (a symlink named after it), as
 * `claude -p --tools "" -- TARGET...`, the one command shape rulings 1
 * and 2 let run under the scrub or a credential.  So everything before
 * "--" is the CLI's options, ignored here; only what follows is targets.
 *
 * Its word is not trusted: the self-test judges every target and marker
 * from outside (lstat, content hash) after it exits.  The report only
 * lets the self-test show the errno the kernel answered with, and notice
 * a probe that did not run or did not try.
 *
 * This file is built on its own, without sanitizers and without the
 * launcher's libraries: it runs under the write filter, where a
 * sanitizer runtime's own files and mappings would be refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Written into each target, so the self-test can recognise the control. */
static const char marker[] = "stepguard-probe\n";

/*
 * Paths are bytes: a tab or newline in one would break the line format,
 * so control bytes and the backslash are written as \xNN (as stepguard's
 * log does).  The self-test escapes its own paths the same way.
 */
static void put_escaped(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '\\')
			printf("\\x%02x", *p);
		else
			putchar(*p);
}

static const char *errno_name(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "EUNKNOWN";
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * One write, as an ordinary program would make it: create or append.
 * O_APPEND, so a target that existed before the run would only grow,
 * never lose what it held, should the filter fail (the self-test then
 * cuts it back).  O_NOFOLLOW: a symlink planted at a target name must not
 * turn the probe into a way to write somewhere else.
 */
static void try_write(const char *target)
{
	int fd, e = 0;

	fd = open(target, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
		  0644);
	if (fd < 0) {
		e = errno;
	} else {
		/* The open created or opened the file: the write has landed,
		 * whether or not the bytes follow. */
		(void)write_all(fd, marker, sizeof(marker) - 1);
		close(fd);
	}
	put_escaped(target);
	if (fd >= 0)
		printf("\tlanded\t-\n");
	else
		printf("\trefused\t%s\n", errno_name(e));
}

/*
 * PROG as execvp(3) would find it in $PATH (its default when unset), but
 * resolved here, so that the report names the file execve was given and
 * a refused execve is not retried elsewhere.  NULL when no directory of
 * $PATH has it as a regular, executable file.
 */
static const char *find_in_path(const char *prog, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");
		struct stat st;
		int w = snprintf(buf, len, "%.*s/%s", (int)n, n ? p : ".", prog);

		if (w > 0 && (size_t)w < len && stat(buf, &st) == 0 && S_ISREG(st.st_mode) &&
		    (st.st_mode & 0111))
			return buf;
		p += n;
		if (*p == ':')
			p++;
	}
	return NULL;
}

/*
 * One exec of a program that would create FILE, started as a hook or an
 * MCP server is: fork, then execve in the child.  The child's execve error
 * comes back on a close-on-exec pipe (nothing arrives when execve
 * succeeds), so the report tells a refused execve from a program that ran
 * and failed.  The program's own output goes to standard error: standard
 * output is the report.
 */
static void try_exec(const char *kind, const char *file)
{
	char found[PATH_MAX];
	char *sh_args[] = { "sh", "-c", "echo stepguard-probe-exec > \"$1\"", "sh", (char *)file,
			    NULL };
	char *touch_args[] = { "touch", (char *)file, NULL };
	const bool sh = strcmp(kind, "sh") == 0;
	const char *prog = sh ? "/bin/sh" : find_in_path("touch", found, sizeof(found));
	int pfd[2], e = 0, status = 0;
	pid_t pid = -1;

	/* Nothing buffered may be written twice, by the child too. */
	(void)fflush(stdout);
	if (!prog) {
		/* Not a refusal: the self-test's control runs say so. */
		prog = "touch";
		e = ENOENT;
	} else if (pipe2(pfd, O_CLOEXEC) < 0) {
		e = errno;
	} else if ((pid = fork()) < 0) {
		e = errno;
		close(pfd[0]);
		close(pfd[1]);
	} else if (pid == 0) {
		close(pfd[0]);
		dup2(2, 1);
		execve(prog, sh ? sh_args : touch_args, environ);
		e = errno;
		(void)!write(pfd[1], &e, sizeof(e));
		_exit(127);
	} else {
		ssize_t got;

		close(pfd[1]);
		while ((got = read(pfd[0], &e, sizeof(e))) < 0 && errno == EINTR)
			;
		if (got != (ssize_t)sizeof(e))
			e = 0; /* end of file: the execve succeeded */
		close(pfd[0]);
		/* Waited for: the marker is there, or not, before the self-test looks. */
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	printf("exec\t");
	put_escaped(file);
	putchar('\t');
	put_escaped(prog);
	if (pid > 0 && e == 0)
		printf("\texecuted\t%d\n",
		       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	else
		printf("\trefused\t%s\n", errno_name(e));
}

/* At most this much of another process is read and reported, per attempt. */
#define PEEK_MAX 512

static void put_hex(const unsigned char *b, size_t n)
{
	if (n == 0)
		putchar('-');
	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
}

/* One peek line: what came back, or the errno of the call that failed. */
static void peek_line(const char *kind, const unsigned char *b, ssize_t n, int e)
{
	printf("peek\t%s\t", kind);
	if (n >= 0) {
		printf("read\t");
		put_hex(b, (size_t)n);
		putchar('\n');
	} else {
		printf("refused\t%s\n", errno_name(e));
	}
}

/* The open or the read, whichever fails first, is the answer. */
static ssize_t read_proc(pid_t pid, const char *file, unsigned char *b, size_t len, off_t at,
			 int *e)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		*e = errno;
		return -1;
	}
	do
		n = pread(fd, b, len, at);
	while (n < 0 && errno == EINTR);
	*e = errno;
	close(fd);
	return n;
}

/* PID:ADDRESS:LENGTH, ADDRESS in hex (0x allowed), LENGTH at most PEEK_MAX. */
static int parse_peek(const char *spec, pid_t *pid, uintmax_t *addr, size_t *len)
{
	uintmax_t p, a = 0, l = 0;
	char *end;

	errno = 0;
	p = strtoumax(spec, &end, 10);
	if (end != spec && *end == ':')
		a = strtoumax(end + 1, &end, 16);
	if (*end == ':')
		l = strtoumax(end + 1, &end, 10);
	if (errno || *end || p == 0 || p > INT_MAX || l == 0 || l > PEEK_MAX ||
	    a > (uintmax_t)INTMAX_MAX - l)
		return -EINVAL;
	*pid = (pid_t)p;
	*addr = a;
	*len = (size_t)l;
	return 0;
}

/*
 * The three ways a process of the same user reads another's secrets:
 * its environment (PTRACE_MODE_READ: the mode that CAP_PERFMON and
 * CAP_SYS_ADMIN pass on Linux 6.15 and later), its memory by file and by
 * syscall (PTRACE_MODE_ATTACH).  Each is tried whatever the others gave.
 */
static void try_peek(const char *spec)
{
	unsigned char b[PEEK_MAX];
	uintmax_t addr;
	size_t len;
	pid_t pid;
	ssize_t n;
	int e = 0;

	if (parse_peek(spec, &pid, &addr, &len) < 0)
		return; /* checked before anything was tried */
	n = read_proc(pid, "environ", b, sizeof(b), 0, &e);
	peek_line("environ", b, n, e);
	n = read_proc(pid, "mem", b, len, (off_t)addr, &e);
	peek_line("mem", b, n, e);
	{
		struct iovec local = { b, len };
		struct iovec remote = { (void *)(uintptr_t)addr, len }; // NOLINT(performance-no-int-to-ptr): the other process's address, only passed to process_vm_readv

		n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		e = errno;
		peek_line("vm", b, n, e);
	}
}

/*
 * The holder: the marker in its environment (where execve put it) and a
 * copy in its own memory, at the address it prints.  PR_SET_PTRACER_ANY,
 * so that Yama's ptrace_scope 1 (a process may read only its descendants,
 * Ubuntu's default) does not stand in for stepguard: what refuses the
 * probe must be the step's confinement.  Scopes 2 and 3 cannot be waived
 * so; the self-test's control read then fails and says so.
 */
static int hold(void)
{
	static char held[PEEK_MAX];
	const char *m = getenv("STEPGUARD_SELFTEST_HELD");
	char sink[64];
	ssize_t n;

	if (!m || !*m || strlen(m) >= sizeof(held)) {
		fprintf(stderr, "stepguard-probe: --hold: no marker in $STEPGUARD_SELFTEST_HELD\n");
		return 2;
	}
	memcpy(held, m, strlen(m) + 1);
	(void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* EINVAL: no Yama */
	printf("holding\t%d\t%p\t%zu\n", (int)getpid(), (void *)held, strlen(m));
	if (fflush(stdout) != 0)
		return 1;
	/* Until the self-test closes our standard input, or dies. */
	while ((n = read(0, sink, sizeof(sink))) > 0 || (n < 0 && errno == EINTR))
		;
	/* Keeps the copy from being optimised away: it is read only from outside. */
	return held[0] ? 0 : 1;
}

/* exec-sh=MARKER or exec-touch=MARKER: the kind's name, or NULL. */
static const char *exec_kind(const char *word)
{
	if (strncmp(word, "exec-sh=", 8) == 0)
		return "sh";
	if (strncmp(word, "exec-touch=", 11) == 0)
		return "touch";
	return NULL;
}

int main(int argc, char **argv)
{
	int first = -1;

	if (argc == 2 && strcmp(argv[1], "--hold") == 0)
		return hold();
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			first = i + 1;
			break;
		}
	if (first < 0 || first >= argc) {
		fprintf(stderr, "usage: stepguard-probe [OPTION]... -- TARGET... [exec-sh=MARKER] "
				"[exec-touch=MARKER] [peek=PID:ADDRESS:LENGTH]\n"
				"       stepguard-probe --hold\n");
		return 2;
	}
	/* A word that is neither is refused before anything is tried. */
	for (int i = first; i < argc; i++) {
		pid_t pid;
		uintmax_t addr;
		size_t len;

		if (strncmp(argv[i], "exec-", 5) == 0 && !exec_kind(argv[i])) {
			fprintf(stderr, "stepguard-probe: unknown exec word: %s\n", argv[i]);
			return 2;
		}
		if (strncmp(argv[i], "peek=", 5) == 0 && parse_peek(argv[i] + 5, &pid, &addr, &len) < 0) {
			fprintf(stderr, "stepguard-probe: bad peek word: %s\n", argv[i]);
			return 2;
		}
	}
	/* The writes first, then the execs: "after its writes", as a step would;
	 * the reads of another process last. */
	for (int i = first; i < argc; i++)
		if (!exec_kind(argv[i]) && strncmp(argv[i], "peek=", 5) != 0)
			try_write(argv[i]);
	for (int i = first; i < argc; i++)
		if (exec_kind(argv[i]))
			try_exec(exec_kind(argv[i]), strchr(argv[i], '=') + 1);
	for (int i = first; i < argc; i++)
		if (strncmp(argv[i], "peek=", 5) == 0)
			try_peek(argv[i] + 5);
	/* A report that did not reach the self-test is no report. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "stepguard-probe: cannot write the report: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
