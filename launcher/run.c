// SPDX-License-Identifier: MIT
#include "launcher/run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/exitcodes.h"

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH };

/* What the child reports through the pipe when it cannot exec. */
struct child_report {
	int stage; /* 0: confinement, 1: exec */
	int errnum;
	char what[64];
};

static void write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static __attribute__((noreturn)) void child(char *const argv[], char *const envp[],
					    const struct sg_child_ops *ops, const sigset_t *oldmask,
					    int report_fd)
{
	struct child_report rep;
	const char *stage = "confinement";
	int r;

	memset(&rep, 0, sizeof(rep));
	r = ops && ops->confine ? ops->confine(ops->ctx, &stage) : -ENOSYS;
	if (r < 0) {
		rep.stage = 0;
		rep.errnum = -r;
		snprintf(rep.what, sizeof(rep.what), "%s", stage);
		write_all(report_fd, &rep, sizeof(rep));
		_exit(SG_EXIT_CONFINE);
	}
	/*
	 * The signal mask survives execve: restore the caller's, so the step
	 * receives the signals stepguard forwards.  This is the last thing
	 * before exec; nothing after it may fail open.
	 */
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	execvpe(argv[0], argv, envp);
	rep.stage = 1;
	rep.errnum = errno;
	snprintf(rep.what, sizeof(rep.what), "exec");
	write_all(report_fd, &rep, sizeof(rep));
	_exit(errno == ENOENT ? SG_EXIT_NOTFOUND : SG_EXIT_NOEXEC);
}

int sg_spawn(char *const argv[], char *const envp[], const struct sg_child_ops *ops,
	     char *msg, size_t msglen)
{
	struct child_report rep;
	sigset_t set, old;
	int pipefd[2], status = 0;
	ssize_t got = 0;
	pid_t pid;

	/*
	 * Block the forwarded signals and SIGCHLD before fork, and take them
	 * with sigwaitinfo: no handler can run between fork and the wait, and
	 * a child that exits at once leaves SIGCHLD pending, not lost.
	 */
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &old) < 0) {
		snprintf(msg, msglen, "cannot block signals: %s", strerror(errno));
		return SG_EXIT_CONFINE;
	}
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		snprintf(msg, msglen, "cannot create a pipe: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return SG_EXIT_CONFINE;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(msg, msglen, "cannot fork: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return SG_EXIT_CONFINE;
	}
	if (pid == 0) {
		close(pipefd[0]);
		child(argv, envp, ops, &old, pipefd[1]);
	}
	close(pipefd[1]);

	/* EOF without a report: the pipe closed on a successful execve. */
	for (;;) {
		ssize_t r = read(pipefd[0], (char *)&rep + got, sizeof(rep) - (size_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
		if ((size_t)got == sizeof(rep))
			break;
	}
	close(pipefd[0]);
	if ((size_t)got == sizeof(rep)) {
		waitpid(pid, NULL, 0);
		sigprocmask(SIG_SETMASK, &old, NULL);
		rep.what[sizeof(rep.what) - 1] = '\0';
		if (rep.stage == 0) {
			snprintf(msg, msglen, "%s failed: %s; the step was not run", rep.what,
				 strerror(rep.errnum));
			return SG_EXIT_CONFINE;
		}
		snprintf(msg, msglen, "%s: %s", argv[0], strerror(rep.errnum));
		return rep.errnum == ENOENT ? SG_EXIT_NOTFOUND : SG_EXIT_NOEXEC;
	}

	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&set, &si);
		pid_t w;

		if (sig < 0)
			continue; /* EINTR */
		if (sig != SIGCHLD) {
			/*
			 * A signal the terminal generated (SI_KERNEL) already went
			 * to the whole foreground process group, the step included;
			 * forwarding it would deliver it twice.
			 */
			if (si.si_code != SI_KERNEL)
				kill(pid, sig);
			continue;
		}
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return SG_EXIT_CONFINE;
}

int sg_run_step(const struct sg_options *o, const struct sg_policy *p,
		const struct sg_settings *eff, const struct sg_roots *roots,
		char *const envp[])
{
	(void)o;
	(void)p;
	(void)roots;
	(void)envp;
	/*
	 * Fail closed: no write filter backend exists in this build yet, and
	 * running the step without one is exactly what stepguard must never
	 * do silently.
	 */
	fprintf(stderr,
		"stepguard: no write filter is available (filter = %s): this build has no backend yet, "
		"so the step was not run\n",
		sg_filter_name(eff->filter));
	return SG_EXIT_CONFINE;
}
