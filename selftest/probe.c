// SPDX-License-Identifier: MIT
/*
 * probe.c — stepguard-probe, the program `stepguard --self-test` runs
 * under the real confinement.
 *
 *   stepguard-probe [OPTION]... -- TARGET... [exec-sh=MARKER] [exec-touch=MARKER]
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
 * (refused: execve itself failed, with that errno).  It exits 0 once every
 * word has been tried and reported (whatever the answers were), 2 on a
 * usage error, 1 if it could not report.
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
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			first = i + 1;
			break;
		}
	if (first < 0 || first >= argc) {
		fprintf(stderr, "usage: stepguard-probe [OPTION]... -- TARGET... [exec-sh=MARKER] "
				"[exec-touch=MARKER]\n");
		return 2;
	}
	/* A word that is neither is refused before anything is tried. */
	for (int i = first; i < argc; i++)
		if (strncmp(argv[i], "exec-", 5) == 0 && !exec_kind(argv[i])) {
			fprintf(stderr, "stepguard-probe: unknown exec word: %s\n", argv[i]);
			return 2;
		}
	/* The writes first, then the execs: "after its writes", as a step would. */
	for (int i = first; i < argc; i++)
		if (!exec_kind(argv[i]))
			try_write(argv[i]);
	for (int i = first; i < argc; i++)
		if (exec_kind(argv[i]))
			try_exec(exec_kind(argv[i]), strchr(argv[i], '=') + 1);
	/* A report that did not reach the self-test is no report. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "stepguard-probe: cannot write the report: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
