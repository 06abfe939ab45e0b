// SPDX-License-Identifier: MIT
#include "launcher/run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/exitcodes.h"

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
	/* Never run unconfined: no confine step is a failure, not a shortcut. */
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
	 * receives the signals stepguard forwards.  Nothing after this can
	 * loosen the confinement; exec is next.
	 */
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	execvpe(argv[0], argv, envp);
	rep.stage = 1;
	rep.errnum = errno;
	snprintf(rep.what, sizeof(rep.what), "exec");
	write_all(report_fd, &rep, sizeof(rep));
	_exit(rep.errnum == ENOENT ? SG_EXIT_NOTFOUND : SG_EXIT_NOEXEC);
}

/*
 * Read the child's report from FD until it is whole or the pipe closes
 * (a successful execve closes it).  Meanwhile serve WATCHED (-1: none)
 * with OPS->ready: the supervisor may be asked about the exec itself.
 * The bytes read, or -errno when serving failed.
 */
static ssize_t read_report(int fd, struct child_report *rep, int watched,
			   const struct sg_child_ops *ops)
{
	ssize_t got = 0;

	for (;;) {
		struct pollfd pf[2] = { { fd, POLLIN, 0 }, { watched, POLLIN, 0 } };
		ssize_t n;

		if (poll(pf, watched >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (watched >= 0 && (pf[1].revents & POLLIN)) {
			int r = ops->ready(ops->ctx);

			if (r < 0)
				return r;
		} else if (watched >= 0 && (pf[1].revents & (POLLERR | POLLHUP | POLLNVAL))) {
			watched = -1; /* nothing under the filter any more: stop asking */
		}
		if (!(pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = read(fd, (char *)rep + got, sizeof(*rep) - (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return got;
		got += n;
		if ((size_t)got == sizeof(*rep))
			return got;
	}
}

static int wait_loop(pid_t pid, int sfd, const struct sg_child_ops *ops, int *status,
		     char *msg, size_t msglen)
{
	int watched = ops->watch_fd ? ops->watch_fd(ops->ctx) : -1;
	bool failed = false;

	for (;;) {
		struct pollfd pf[2] = { { sfd, POLLIN, 0 }, { watched, POLLIN, 0 } };
		struct signalfd_siginfo si;
		pid_t w;

		if (poll(pf, watched >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(msg, msglen, "poll: %s", strerror(errno));
			kill(pid, SIGKILL);
			failed = true;
			watched = -1;
		}
		if (watched >= 0 && !(pf[1].revents & POLLIN) &&
		    (pf[1].revents & (POLLERR | POLLHUP | POLLNVAL))) {
			/*
			 * Hung up with nothing to read: the step's filter is gone
			 * (it exited).  Stop watching, or poll would report the
			 * hang-up again at once and spin until SIGCHLD arrives,
			 * starving the exiting step of the CPU.
			 */
			watched = -1;
		} else if (watched >= 0 && (pf[1].revents & POLLIN)) {
			int r = ops->ready(ops->ctx);

			if (r < 0) {
				/*
				 * The supervisor failed: the calls it watches would
				 * now fail (ENOSYS) rather than pass, but a step
				 * whose confinement broke must not go on.
				 */
				snprintf(msg, msglen, "the supervisor failed (%s); the step was killed",
					 strerror(-r));
				kill(pid, SIGKILL);
				failed = true;
				watched = -1;
			}
		}
		if (!(pf[0].revents & POLLIN))
			continue;
		if (read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
			continue;
		if (si.ssi_signo != SIGCHLD) {
			/*
			 * A signal the terminal generated (SI_KERNEL) already went
			 * to the whole foreground process group, the step included;
			 * forwarding it would deliver it twice.
			 */
			if (si.ssi_code != SI_KERNEL)
				kill(pid, (int)si.ssi_signo);
			continue;
		}
		/*
		 * As a subreaper we also inherit the step's orphans: reap every
		 * child that is done (one SIGCHLD may stand for several), and
		 * stop when the step itself has exited.
		 */
		for (;;) {
			int st;

			w = waitpid(-1, &st, WNOHANG);
			if (w <= 0)
				break;
			if (w == pid) {
				*status = st;
				return failed ? -1 : 0;
			}
		}
	}
}

int sg_spawn(char *const argv[], char *const envp[], const struct sg_child_ops *ops,
	     int *wait_status, char *msg, size_t msglen)
{
	struct child_report rep;
	sigset_t set, old;
	int pipefd[2], status = 0, sfd, r;
	ssize_t got = 0;
	pid_t pid;

	/*
	 * Block the forwarded signals and SIGCHLD before fork and read them
	 * from a signalfd: no handler runs between fork and the wait, and a
	 * child that exits at once leaves SIGCHLD pending, not lost.
	 */
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&set, forwarded[i]);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &old) < 0) {
		snprintf(msg, msglen, "cannot block signals: %s; the step was not run", strerror(errno));
		return SG_EXIT_CONFINE;
	}
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0 || pipe2(pipefd, O_CLOEXEC) < 0) {
		snprintf(msg, msglen, "cannot set up the wait: %s; the step was not run", strerror(errno));
		if (sfd >= 0)
			close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return SG_EXIT_CONFINE;
	}
	/*
	 * Subreaper: a double-forked daemon of the step stays our descendant
	 * instead of going to init, so the supervisor may still read its
	 * memory (Yama's ptrace_scope 1 allows that only for descendants).
	 */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		snprintf(msg, msglen, "cannot become a subreaper: %s; the step was not run", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return SG_EXIT_CONFINE;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(msg, msglen, "cannot fork: %s; the step was not run", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return SG_EXIT_CONFINE;
	}
	if (pid == 0) {
		close(pipefd[0]);
		close(sfd);
		child(argv, envp, ops, &old, pipefd[1]);
	}
	close(pipefd[1]);

	r = ops->forked ? ops->forked(ops->ctx, pid) : 0;
	if (r < 0) {
		/* The child is waiting to be released and never will be: it gives up. */
		snprintf(msg, msglen, "cannot confine the step's process (%s); the step was not run",
			 strerror(-r));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(pipefd[0]);
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return SG_EXIT_CONFINE;
	}

	/*
	 * Supervision starts before the step's execve, not after it: in a
	 * ruling step the supervisor is asked about that very exec (its
	 * exec rules), so waiting for the exec to succeed first would wait
	 * for ourselves.  A failure here means the step never ran.
	 */
	r = ops->armed ? ops->armed(ops->ctx, pid) : 0;
	if (r < 0) {
		/* Kill first: a child stuck in its execve would never report. */
		kill(pid, SIGKILL);
		got = read_report(pipefd[0], &rep, -1, ops);
		waitpid(pid, NULL, 0);
		close(pipefd[0]);
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
		/*
		 * The child's own report, when it failed first, says more.
		 * ECANCELED is not such a report: it is the child seeing the
		 * parent give up (EOF on its wait), so it only echoes this
		 * failure, and whether it arrives before the kill is a race.
		 */
		if ((size_t)got == sizeof(rep) && rep.stage == 0 && rep.errnum != ECANCELED) {
			rep.what[sizeof(rep.what) - 1] = '\0';
			snprintf(msg, msglen, "%s failed: %s; the step was not run", rep.what,
				 strerror(rep.errnum));
		} else {
			snprintf(msg, msglen, "cannot supervise the step (%s); the step was not run",
				 strerror(-r));
		}
		return SG_EXIT_CONFINE;
	}

	/* EOF without a report: the pipe closed on a successful execve. */
	got = read_report(pipefd[0], &rep, ops->watch_fd ? ops->watch_fd(ops->ctx) : -1, ops);
	close(pipefd[0]);
	if (got < 0) {
		/* The supervisor failed while the step's exec waited on it. */
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
		snprintf(msg, msglen, "the supervisor failed (%s); the step was not run",
			 strerror((int)-got));
		return SG_EXIT_CONFINE;
	}
	if (got != 0) {
		waitpid(pid, NULL, 0);
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if ((size_t)got != sizeof(rep)) {
			snprintf(msg, msglen, "the step's setup ended without a report; the step was not run");
			return SG_EXIT_CONFINE;
		}
		rep.what[sizeof(rep.what) - 1] = '\0';
		if (rep.stage == 0) {
			snprintf(msg, msglen, "%s failed: %s; the step was not run", rep.what,
				 strerror(rep.errnum));
			return SG_EXIT_CONFINE;
		}
		/* The caller names the command: it may have to be redacted. */
		snprintf(msg, msglen, "%s", strerror(rep.errnum));
		return rep.errnum == ENOENT ? SG_EXIT_NOTFOUND : SG_EXIT_NOEXEC;
	}

	r = ops->started ? ops->started(ops->ctx, pid) : 0;
	if (r < 0) {
		snprintf(msg, msglen, "the step started but its supervision did not (%s); killed",
			 strerror(-r));
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
		*wait_status = status;
		return SG_EXIT_CONFINE;
	}
	r = wait_loop(pid, sfd, ops, &status, msg, msglen);
	close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	*wait_status = status;
	if (r < 0)
		return SG_EXIT_CONFINE;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return SG_EXIT_CONFINE;
}
