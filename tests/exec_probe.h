/* SPDX-License-Identifier: MIT */
/*
 * exec_probe.h — for the unit tests that judge a ruling step's execs
 * (test_landlock.c, test_supervisor.c): run a program in a grandchild of
 * the confined test child and report how its exec went.
 */
#ifndef STEPGUARD_TESTS_EXEC_PROBE_H
#define STEPGUARD_TESTS_EXEC_PROBE_H

#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run PATH [ARG]: 0 when it ran and exited 0, else -1 with the exec's errno (EIO: other). */
static inline long try_exec(const char *path, const char *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execl(path, path, arg, (char *)NULL);
		_exit(100 + (errno & 0x7f));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		errno = EIO;
		return -1;
	}
	if (WEXITSTATUS(status) == 0)
		return 0;
	errno = WEXITSTATUS(status) >= 100 ? WEXITSTATUS(status) - 100 : EIO;
	return -1;
}

#endif
