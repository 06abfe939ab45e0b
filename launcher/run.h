/* SPDX-License-Identifier: MIT */
/* run.h — start the step as our child, forward signals, pass its status on. */
#ifndef STEPGUARD_RUN_H
#define STEPGUARD_RUN_H

#include <stddef.h>
#include <sys/types.h>

struct sg_child_ops {
	/* In the child between fork and execve; 0 or -errno, *stage named. */
	int (*confine)(void *ctx, const char **stage);
	/* In the parent right after fork, before the child may exec (it waits
	 * for this, e.g. to be marked by the eBPF filter); 0 or -errno. */
	int (*forked)(void *ctx, pid_t pid);
	/* In the parent once the child is confined, before its execve
	 * returns: start supervising (the exec may already ask); 0 or -errno
	 * (the step is not run). */
	int (*armed)(void *ctx, pid_t pid);
	/* In the parent once the step has executed; 0 or -errno (fatal). */
	int (*started)(void *ctx, pid_t pid);
	/* A descriptor to watch while the step runs (-1: none), and what to
	 * do when it is readable: 0, or -errno to stop the step (fail closed). */
	int (*watch_fd)(void *ctx);
	int (*ready)(void *ctx);
	void *ctx;
};

/*
 * Fork, confine the child with OPS, execute ARGV (searching PATH), and
 * wait for it while forwarding SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1,
 * SIGUSR2 and SIGWINCH.  Returns the exit status stepguard should exit
 * with: the step's, 128+N for signal N, or one of sg_exit for a failure
 * (then MSG says why; for 126 and 127, the error alone, without the
 * command, which the caller names).  *WAIT_STATUS gets the raw status when
 * the step ran.
 */
int sg_spawn(char *const argv[], char *const envp[], const struct sg_child_ops *ops,
	     int *wait_status, char *msg, size_t msglen);

#endif
