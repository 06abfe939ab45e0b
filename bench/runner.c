// SPDX-License-Identifier: MIT
/*
 * runner.c — the timing harness of `make bench`: runs commands interleaved
 * (A B C A B C ...) and writes one line per round and command.
 *
 *   runner [-r ROUNDS] [-n BATCH] [-w WARMUP] [-T SECONDS] [-C DIR]
 *          [-p PREP] [-o FILE] -- LABEL CMD [ARG]... [:: LABEL CMD [ARG]...]...
 *
 * Each round runs every command BATCH times back to back, in the order
 * given; WARMUP rounds run first and are not written.  PREP, if given, is
 * run with /bin/sh -c before every timed run and is not timed (the build
 * benchmark removes its output there, so every build starts fresh).
 * -T stops starting new rounds after SECONDS (at least 3 rounds are kept),
 * so a slow machine ends in bounded time with fewer rounds, not late.
 *
 * Output, tab-separated, one line per round and command:
 *
 *   round  label  batch  wall_ns_mean  wall_ns_min  cpu_ns_mean
 *
 * wall is CLOCK_MONOTONIC from before fork to after wait4; cpu is user+sys
 * from wait4's rusage, which on Linux includes every descendant the
 * command waited for (a build's compilers, stepguard's step).
 *
 * Why not hyperfine: Debian's hyperfine (1.15) runs all runs of one
 * command before the next, so a machine that slows down halfway (shared
 * runners do) biases one side.  Ratios mean something only when the
 * commands alternate; this harness does that and nothing else.
 *
 * A command that exits non-zero stops the benchmark: timing a failure
 * would report the cost of an error path.  Its stderr is kept for that
 * reason; stdout goes to /dev/null.
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
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CMDS 16

struct cmd {
	const char *label;
	char **argv;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int run_shell(const char *dir, const char *script)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (dir && chdir(dir) < 0)
			_exit(127);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* One timed run; returns the wait status or -1. */
static int run_once(const struct cmd *c, const char *dir, int devnull, uint64_t *wall,
		    uint64_t *cpu)
{
	struct rusage ru;
	uint64_t t0, t1;
	pid_t pid;
	int st;

	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (dir && chdir(dir) < 0)
			_exit(127);
		dup2(devnull, 1);
		execvp(c->argv[0], c->argv);
		fprintf(stderr, "runner: %s: %s\n", c->argv[0], strerror(errno));
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) < 0)
		return -1;
	t1 = now_ns();
	*wall = t1 - t0;
	*cpu = (uint64_t)ru.ru_utime.tv_sec * 1000000000u + (uint64_t)ru.ru_utime.tv_usec * 1000u +
	       (uint64_t)ru.ru_stime.tv_sec * 1000000000u + (uint64_t)ru.ru_stime.tv_usec * 1000u;
	return st;
}

static void usage(void)
{
	fputs("usage: runner [-r ROUNDS] [-n BATCH] [-w WARMUP] [-T SECONDS] [-C DIR] [-p PREP]\n"
	      "              [-o FILE] -- LABEL CMD [ARG]... [:: LABEL CMD [ARG]...]...\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	struct cmd cmds[MAX_CMDS];
	int rounds = 20, batch = 1, warmup = 1, n_cmds = 0, opt, devnull;
	double limit = 0;
	const char *dir = NULL, *prep = NULL, *out = NULL;
	FILE *f = stdout;
	uint64_t start;

	while ((opt = getopt(argc, argv, "+r:n:w:T:C:p:o:")) != -1) {
		switch (opt) {
		case 'r': rounds = atoi(optarg); break;
		case 'n': batch = atoi(optarg); break;
		case 'w': warmup = atoi(optarg); break;
		case 'T': limit = atof(optarg); break;
		case 'C': dir = optarg; break;
		case 'p': prep = optarg; break;
		case 'o': out = optarg; break;
		default: usage();
		}
	}
	if (rounds < 1 || batch < 1 || warmup < 0 || optind >= argc)
		usage();

	/* Split the rest at "::" into LABEL CMD ARG... groups, in place. */
	for (int i = optind; i < argc;) {
		int j = i;

		while (j < argc && strcmp(argv[j], "::") != 0)
			j++;
		if (j - i < 2 || n_cmds == MAX_CMDS)
			usage();
		cmds[n_cmds].label = argv[i];
		cmds[n_cmds].argv = &argv[i + 1];
		n_cmds++;
		if (j < argc)
			argv[j] = NULL; /* argv[argc] is NULL already */
		i = j + 1;
	}

	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull < 0) {
		perror("runner: /dev/null");
		return 1;
	}
	if (out && !(f = fopen(out, "w"))) {
		fprintf(stderr, "runner: %s: %s\n", out, strerror(errno));
		return 1;
	}
	start = now_ns();
	for (int r = -warmup; r < rounds; r++) {
		if (r >= 3 && limit > 0 && (double)(now_ns() - start) / 1e9 > limit) {
			fprintf(stderr, "runner: time limit of %.0f s reached after %d rounds\n",
				limit, r);
			break;
		}
		for (int c = 0; c < n_cmds; c++) {
			uint64_t sum = 0, min = UINT64_MAX, csum = 0;

			for (int b = 0; b < batch; b++) {
				uint64_t wall, cpu;
				int st;

				if (prep && run_shell(dir, prep) != 0) {
					fprintf(stderr, "runner: preparation failed: %s\n", prep);
					return 1;
				}
				st = run_once(&cmds[c], dir, devnull, &wall, &cpu);
				if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
					fprintf(stderr, "runner: %s (%s) failed (status %d)\n",
						cmds[c].label, cmds[c].argv[0],
						st < 0 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
					return 1;
				}
				sum += wall;
				csum += cpu;
				if (wall < min)
					min = wall;
			}
			if (r >= 0)
				fprintf(f, "%d\t%s\t%d\t%llu\t%llu\t%llu\n", r, cmds[c].label, batch,
					(unsigned long long)(sum / (uint64_t)batch),
					(unsigned long long)min,
					(unsigned long long)(csum / (uint64_t)batch));
		}
		fflush(f);
	}
	if (f != stdout && fclose(f) != 0) {
		perror("runner: write");
		return 1;
	}
	return 0;
}
