// SPDX-License-Identifier: MIT
/*
 * probe.c — stepguard-probe, the program `stepguard --self-test` runs
 * under the real confinement.
 *
 *   stepguard-probe [OPTION]... -- TARGET...
 *
 * It tries one write per TARGET and prints one line for each, in the
 * order given:
 *
 *   TARGET<TAB>landed<TAB>-
 *   TARGET<TAB>refused<TAB>EACCES
 *
 * and exits 0 once every target has been tried and reported (whatever
 * the answers were), 2 on a usage error, 1 if it could not report.
 *
 * The self-test runs it as the model CLI (a symlink named after it), as
 * `claude -p --tools "" -- TARGET...`, the one command shape rulings 1
 * and 2 let run under the scrub or a credential.  So everything before
 * "--" is the CLI's options, ignored here; only what follows is targets.
 *
 * Its word is not trusted: the self-test judges every target from outside
 * (lstat, content hash) after it exits.  The report only lets the
 * self-test show the errno the filter answered with, and notice a probe
 * that did not run at all.
 *
 * This file is built on its own, without sanitizers and without the
 * launcher's libraries: it runs under the write filter, where a
 * sanitizer runtime's own files and mappings would be refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

int main(int argc, char **argv)
{
	int first = -1;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			first = i + 1;
			break;
		}
	if (first < 0 || first >= argc) {
		fprintf(stderr, "usage: stepguard-probe [OPTION]... -- TARGET...\n");
		return 2;
	}
	for (int i = first; i < argc; i++)
		try_write(argv[i]);
	/* A report that did not reach the self-test is no report. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "stepguard-probe: cannot write the report: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
