// SPDX-License-Identifier: MIT
/*
 * bpfdrive.c — drive the eBPF write filter (bpf/loader.c) without the
 * launcher, for the VM tests.
 *
 *   bpfdrive --mode lsm|fmod [--audit] [--keep-scope] --root DIR...
 *           [--exec FILE... | --exec-none] -- CMD...
 *       Reuse or load the filter, add a scope with the roots, fork CMD
 *       (it waits on a pipe), mark it through a pidfd, let it exec, print
 *       each event as one "EVENT ..." line, and exit with CMD's status
 *       (128+N for a signal).  The scope is removed at the end, unless
 *       --keep-scope (what a killed stepguard leaves behind).  With
 *       --exec, the scope may execute only the FILEs (a ruling step,
 *       sg_bpf_scope_exec_allow()); --exec-none: nothing at all.  The
 *       descriptors of the FILEs are closed before CMD runs: the filter
 *       knows them by identity, not through an open descriptor.  The
 *       child says "bpfdrive: exec CMD" before its exec, and when the
 *       exec is refused, the errno it got (then it exits 127).
 *       --socket FILE: the scope may also reach the pathname socket FILE
 *       (sg_bpf_scope_sockets_allow(), with the FILEs given, once).
 *   bpfdrive --mode M --probe        sg_bpf_probe(): exit 0, or 3 with the reason
 *   bpfdrive --mode M --prog-ids     the pinned programs of mode M: ids, verified
 *                                    instructions, recursion misses
 *   bpfdrive --max-prog-id           the highest program id the kernel has given out
 *   bpfdrive --unload [--force] [--pins NAME]
 *   bpfdrive --flood N PATH          try N creates of PATH, count the refusals (a step
 *                                    that fills its ring buffer; see --no-read)
 *   bpfdrive --generation FILE       print FILE's inode generation (FS_IOC_GETVERSION)
 *   bpfdrive --set-generation N FILE set it (FS_IOC_SETVERSION; ext4 without
 *                                    metadata_csum): the exec tests make two files
 *                                    alike in all but their device, or a file that
 *                                    differs from its old self only there
 *   bpfdrive --try WHAT ARG...       one attempt to reach another process, run in a
 *                                    step or (the control) without one; prints
 *                                    "try WHAT ARG: ok" (exit 0) or "try WHAT ARG:
 *                                    refused: ERROR (errno N)" (exit 1):
 *       nice PID N | ioprio PID | affinity PID | scheduler PID | prlimit PID
 *           setpriority, ioprio_set (best effort, 7), sched_setaffinity (CPU 0),
 *           sched_setscheduler (SCHED_BATCH), prlimit (RLIMIT_NOFILE soft 100)
 *       open PATH          open it read-only and read a byte
 *       connect PATH       a stream connect (@NAME: abstract)
 *       send PATH          a datagram sent to it
 *       recv-fd PATH       connect, receive a descriptor (SCM_RIGHTS), write
 *                          "received" to it
 *       pty PATH           open a terminal O_RDWR|O_NOCTTY (no read: a
 *                          terminal's read blocks), nothing else
 *       pty-own name|peer  a new pty: posix_openpt, grantpt, unlockpt, then
 *                          its slave opened by ptsname (name) or by
 *                          TIOCGPTPEER (peer, as openpty(3)); written, and
 *                          read back on the master
 *   bpfdrive --serve KIND PATH SECONDS
 *       bind PATH (@NAME: abstract) and serve for SECONDS: KIND stream
 *       (accept), dgram (receive), or fd:FILE (accept, then hand each caller
 *       FILE opened O_WRONLY|O_APPEND, by SCM_RIGHTS); prints "serve: ready"
 *       once bound, then one line per caller
 *
 * --no-read      read no event until CMD has exited: the ring fills, and the
 *                counters must account for every refusal (events + lost)
 * --force-attach load and attach even where the probe refuses the mode
 *                (tests only: a lsm/ set where bpf is not an active LSM
 *                attaches and enforces nothing; adding a scope must fail)
 *
 * Status: CMD's, or 3 when the probe refuses the mode, 4 when loading or
 * adding the scope fails, 2 on a usage error, 1 for anything else.
 *
 * Lines on stdout (the test greps them; everything else goes to stderr):
 *   bpfdrive: open MODE: loaded N programs in T ms (load+verify L ms, attach A ms) DIR
 *   bpfdrive: open MODE: reused N pinned programs in T ms DIR
 *   bpfdrive: scope ID MODE N roots
 *   bpfdrive: scope ID exec-restricted: N files, M identities
 *   EVENT op=OP decision=D errno=E reason=R scope=S pid=P tid=T uid=U arg=0xA comm=C
 *         flags=0xF path=P [path2=P]          (one line; bytes escaped as \xNN)
 *   bpfdrive: end status=S denied=D audited=A lost=L
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bpf/loader.h"

#define MAX_ROOTS 32
#define MAX_EXECS 32
#define MAX_SOCKS 8

static void put_escaped(FILE *f, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= 0x20 || c >= 0x7f || c == '\\')
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

static int print_event(const struct sg_event *ev, void *ctx)
{
	const char *p;
	size_t len;

	(void)ctx;
	printf("EVENT op=%s decision=%s errno=%d reason=%s scope=%" PRIu32 " pid=%" PRIu32
	       " tid=%" PRIu32 " uid=%" PRIu32 " arg=0x%llx comm=",
	       sg_bpf_op_name(ev->op), sg_bpf_decision_name(ev->decision), -ev->error,
	       sg_bpf_reason_name(ev->reason), ev->scope, ev->pid, ev->tid, ev->uid,
	       (unsigned long long)ev->arg);
	put_escaped(stdout, ev->comm, strnlen(ev->comm, sizeof(ev->comm)));
	printf(" flags=0x%" PRIx32 " path=", ev->flags);
	p = sg_bpf_event_path(ev, 0, &len);
	put_escaped(stdout, p, len);
	p = sg_bpf_event_path(ev, 1, &len);
	if (len) {
		printf(" path2=");
		put_escaped(stdout, p, len);
	}
	putchar('\n');
	fflush(stdout);
	return 0;
}

/* libbpf's print callback: FMT is libbpf's own format. */
static int libbpf_log(int level, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static int libbpf_log(int level, const char *fmt, va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

static int usage(void)
{
	fprintf(stderr, "usage: bpfdrive --mode lsm|fmod [--audit] [--keep-scope] [--verbose] "
			"--root DIR... -- CMD...\n"
			"       bpfdrive --mode lsm|fmod --probe|--prog-ids\n"
			"       bpfdrive --max-prog-id\n"
			"       bpfdrive --unload [--force] [--pins NAME]\n"
			"       bpfdrive --generation FILE | --set-generation N FILE\n"
			"       bpfdrive --try WHAT ARG... | --serve KIND PATH SECONDS\n"
			"       (with --root: [--exec FILE]... [--exec-none] [--socket FILE]...)\n");
	return 2;
}

/* Print FILE's inode generation, after setting it to SET (when not NULL). */
static int generation(const char *set, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), gen = 0, r = 0;

	if (fd < 0) {
		fprintf(stderr, "bpfdrive: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (set) {
		gen = (int)strtoul(set, NULL, 0);
		if (ioctl(fd, FS_IOC_SETVERSION, &gen) < 0) {
			fprintf(stderr, "bpfdrive: set generation of %s: %s\n", path, strerror(errno));
			r = 1;
		}
	}
	if (r == 0 && ioctl(fd, FS_IOC_GETVERSION, &gen) < 0) {
		fprintf(stderr, "bpfdrive: generation of %s: %s\n", path, strerror(errno));
		r = 1;
	}
	if (r == 0)
		printf("generation %s: %u\n", path, (unsigned)gen);
	close(fd);
	return r;
}

/* Try N creates of PATH (expected refused); print how many were. */
static int flood(long n, const char *path)
{
	long refused = 0, landed = 0, other = 0;

	for (long i = 0; i < n; i++) {
		int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

		if (fd >= 0) {
			landed++;
			close(fd);
			unlink(path);
		} else if (errno == EACCES) {
			refused++;
		} else {
			other++;
		}
	}
	printf("flood: %ld tried, %ld refused, %ld landed, %ld other\n", n, refused, landed, other);
	return landed ? 1 : 0;
}

/* A UNIX address for PATH; @NAME is the abstract NAME. */
static socklen_t unix_addr(struct sockaddr_un *sa, const char *path)
{
	size_t len = strlen(path);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (len >= sizeof(sa->sun_path))
		len = sizeof(sa->sun_path) - 1;
	memcpy(sa->sun_path, path, len);
	if (path[0] == '@')
		sa->sun_path[0] = '\0'; /* abstract: the length counts, no NUL */
	else
		len++;
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
}

/* Connect a stream socket to PATH: the descriptor, or -errno. */
static int connect_stream(const char *path)
{
	struct sockaddr_un sa;
	socklen_t len = unix_addr(&sa, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), r;

	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, len) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

/*
 * Receive one descriptor on FD and write "received" to it: 0, or -errno
 * (-EACCES when the kernel dropped the descriptor: MSG_CTRUNC, the only
 * thing recvmsg says when a file_receive hook refused it).
 */
static int recv_fd(int fd)
{
	char data[16], ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			      .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm;
	int got = -1, r = 0;

	if (recvmsg(fd, &msg, MSG_CMSG_CLOEXEC) < 0)
		return -errno;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&got, CMSG_DATA(cm), sizeof(got));
	if (got < 0)
		return (msg.msg_flags & MSG_CTRUNC) ? -EACCES : -ENOMSG;
	if (write(got, "received\n", 9) != 9)
		r = -errno;
	close(got);
	return r;
}

/*
 * A pty of the caller's own, its slave opened by name or by TIOCGPTPEER:
 * what the slave writes, the master reads.  0 or -errno.
 */
static int pty_own(bool peer)
{
	char buf[64] = "";
	const char *sn = NULL;
	int m, s = -1, r = 0;
	ssize_t n;

	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0)
		return -errno;
	if (grantpt(m) < 0 || unlockpt(m) < 0) {
		r = -errno;
		goto out;
	}
	if (peer) {
		s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	} else {
		sn = ptsname(m);
		s = sn ? open(sn, O_RDWR | O_NOCTTY | O_CLOEXEC) : -1;
	}
	if (s < 0) {
		r = -errno;
		goto out;
	}
	if (write(s, "own\n", 4) != 4) {
		r = -errno;
		goto out;
	}
	n = read(m, buf, sizeof(buf) - 1);
	if (n < 3 || strncmp(buf, "own", 3) != 0)
		r = n < 0 ? -errno : -EIO;
out:
	if (s >= 0)
		close(s);
	close(m);
	return r;
}

/* One attempt to reach another process (see the head of this file). */
static int try_one(int argc, char **argv)
{
	const char *what, *arg;
	long pid;
	int r = 0;

	if (argc < 2)
		return usage();
	what = argv[0];
	arg = argv[1];
	pid = strtol(arg, NULL, 10);
	if (strcmp(what, "nice") == 0) {
		if (argc < 3)
			return usage();
		r = setpriority(PRIO_PROCESS, (id_t)pid, (int)strtol(argv[2], NULL, 10));
	} else if (strcmp(what, "ioprio") == 0) {
		/* IOPRIO_WHO_PROCESS, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 7) */
		r = (int)syscall(SYS_ioprio_set, 1, (int)pid, (2 << 13) | 7);
	} else if (strcmp(what, "affinity") == 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		r = sched_setaffinity((pid_t)pid, sizeof(set), &set);
	} else if (strcmp(what, "scheduler") == 0) {
		struct sched_param sp = { .sched_priority = 0 };

		r = sched_setscheduler((pid_t)pid, SCHED_BATCH, &sp);
	} else if (strcmp(what, "prlimit") == 0) {
		struct rlimit old, lim;

		r = prlimit((pid_t)pid, RLIMIT_NOFILE, NULL, &old);
		if (r == 0) {
			lim.rlim_cur = 100;
			lim.rlim_max = old.rlim_max;
			r = prlimit((pid_t)pid, RLIMIT_NOFILE, &lim, NULL);
		}
	} else if (strcmp(what, "open") == 0) {
		int fd = open(arg, O_RDONLY | O_CLOEXEC);
		char c;

		r = fd < 0 ? -1 : 0;
		if (fd >= 0) {
			if (read(fd, &c, 1) < 0 && errno != EISDIR)
				r = -1;
			close(fd);
		}
	} else if (strcmp(what, "connect") == 0) {
		int fd = connect_stream(arg);

		if (fd < 0) {
			errno = -fd;
			r = -1;
		} else {
			close(fd);
		}
	} else if (strcmp(what, "send") == 0) {
		struct sockaddr_un sa;
		socklen_t len = unix_addr(&sa, arg);
		int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		r = fd < 0 || sendto(fd, "x", 1, 0, (struct sockaddr *)&sa, len) < 0 ? -1 : 0;
		if (fd >= 0)
			close(fd);
	} else if (strcmp(what, "pty") == 0) {
		int fd = open(arg, O_RDWR | O_NOCTTY | O_CLOEXEC);

		r = fd < 0 ? -1 : 0;
		if (fd >= 0)
			close(fd);
	} else if (strcmp(what, "pty-own") == 0) {
		r = pty_own(strcmp(arg, "peer") == 0);
		if (r < 0) {
			errno = -r;
			r = -1;
		}
	} else if (strcmp(what, "recv-fd") == 0) {
		int fd = connect_stream(arg);

		r = fd < 0 ? fd : recv_fd(fd);
		if (fd >= 0)
			close(fd);
		if (r < 0) {
			errno = -r;
			r = -1;
		}
	} else {
		return usage();
	}
	if (r < 0) {
		int e = errno;

		printf("try %s %s: refused: %s (errno %d)\n", what, arg, strerror(e), e);
		return 1;
	}
	printf("try %s %s: ok\n", what, arg);
	return 0;
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Serve PATH for SECS seconds (see the head of this file). */
static int serve(const char *kind, const char *path, double secs)
{
	bool dgram = strcmp(kind, "dgram") == 0;
	const char *file = strncmp(kind, "fd:", 3) == 0 ? kind + 3 : NULL;
	struct sockaddr_un sa;
	socklen_t len = unix_addr(&sa, path);
	double end = seconds() + secs;
	int fd;

	if (!dgram && !file && strcmp(kind, "stream") != 0)
		return usage();
	fd = socket(AF_UNIX, (dgram ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
	if (path[0] != '@')
		unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, len) < 0 || (!dgram && listen(fd, 8) < 0)) {
		fprintf(stderr, "bpfdrive: serve %s: %s\n", path, strerror(errno));
		return 1;
	}
	printf("serve: ready %s\n", path);
	fflush(stdout);
	while (seconds() < end) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		char buf[16];
		int c;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if (dgram) {
			if (recv(fd, buf, sizeof(buf), 0) > 0)
				printf("serve: received a datagram\n");
		} else if ((c = accept4(fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
			if (file) {
				char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
				struct iovec iov = { .iov_base = "f", .iov_len = 1 };
				struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
						      .msg_control = ctl, .msg_controllen = sizeof(ctl) };
				struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
				int w = open(file, O_WRONLY | O_APPEND | O_CLOEXEC);

				cm->cmsg_level = SOL_SOCKET;
				cm->cmsg_type = SCM_RIGHTS;
				cm->cmsg_len = CMSG_LEN(sizeof(int));
				memcpy(CMSG_DATA(cm), &w, sizeof(w));
				if (w < 0 || sendmsg(c, &msg, 0) < 0)
					fprintf(stderr, "bpfdrive: serve: handing %s: %s\n", file,
						strerror(errno));
				else
					printf("serve: handed %s\n", file);
				if (w >= 0)
					close(w);
			} else {
				printf("serve: accepted\n");
			}
			close(c);
		}
		fflush(stdout);
	}
	close(fd);
	if (path[0] != '@')
		unlink(path);
	return 0;
}

static int max_prog_id(void)
{
	__u32 id = 0, next, max = 0;

	while (bpf_prog_get_next_id(id, &next) == 0) {
		max = next;
		id = next;
	}
	printf("max-prog-id: %" PRIu32 "\n", max);
	return 0;
}

/*
 * Run CMD confined to SCOPE; return its wait status.  SAY_EXEC: the child
 * says before its exec that it is trying (the mark is set by then, so in
 * an exec-restricted scope this exec is judged like any other).
 */
static int run_confined(struct sg_bpf *b, uint32_t scope, char **cmd, int *wstatus, int no_read,
			int say_exec)
{
	int go[2], pidfd, r;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char c;

		close(go[1]);
		/* Wait for the mark: a child that ran before it would be free. */
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		close(go[0]);
		if (say_exec)
			fprintf(stderr, "bpfdrive: exec %s\n", cmd[0]);
		execvp(cmd[0], cmd);
		/* Refused: the child is still here to say so, and goes on to exit. */
		fprintf(stderr, "bpfdrive: exec %s: %s (errno %d)\n", cmd[0], strerror(errno), errno);
		_exit(127);
	}
	close(go[0]);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		r = -errno;
		close(go[1]);
		waitpid(pid, NULL, 0);
		return r;
	}
	r = sg_bpf_confine_pid(b, pidfd, scope);
	if (r < 0) {
		/* Closing the pipe unread makes the child exit 126 without exec. */
		close(go[1]);
		waitpid(pid, NULL, 0);
		close(pidfd);
		return r;
	}
	if (write(go[1], "g", 1) != 1) {
		r = -errno;
		close(go[1]);
		waitpid(pid, NULL, 0);
		close(pidfd);
		return r;
	}
	close(go[1]);

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = sg_bpf_epoll_fd(b), .events = POLLIN },
			{ .fd = pidfd, .events = POLLIN },
		};

		if (poll(pfd + no_read, 2 - no_read, 1000) < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		if (!no_read)
			sg_bpf_poll(b, 0, print_event, NULL);
		if (pfd[1].revents) {
			if (waitpid(pid, wstatus, 0) < 0) {
				r = -errno;
				break;
			}
			/* What the step did last may still be in the ring. */
			while (sg_bpf_poll(b, 0, print_event, NULL) > 0)
				;
			r = 0;
			break;
		}
	}
	close(pidfd);
	return r;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "root", required_argument, NULL, 'r' },
		{ "audit", no_argument, NULL, 'a' },
		{ "keep-scope", no_argument, NULL, 'k' },
		{ "probe", no_argument, NULL, 'p' },
		{ "prog-ids", no_argument, NULL, 'i' },
		{ "max-prog-id", no_argument, NULL, 'M' },
		{ "unload", no_argument, NULL, 'u' },
		{ "force", no_argument, NULL, 'f' },
		{ "pins", required_argument, NULL, 'P' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "flood", required_argument, NULL, 'F' },
		{ "no-read", no_argument, NULL, 'n' },
		{ "force-attach", no_argument, NULL, 'A' },
		{ "exec", required_argument, NULL, 'x' },
		{ "exec-none", no_argument, NULL, 'X' },
		{ "generation", required_argument, NULL, 'g' },
		{ "set-generation", required_argument, NULL, 'G' },
		{ "socket", required_argument, NULL, 's' },
		{ "try", no_argument, NULL, 'T' },
		{ "serve", required_argument, NULL, 'S' },
		{ 0 },
	};
	enum sg_bpf_mode mode = 0;
	const char *roots[MAX_ROOTS], *execs[MAX_EXECS], *socks[MAX_SOCKS], *pins = NULL;
	int fds[MAX_ROOTS], n_roots = 0, audit = 0, keep = 0, probe = 0, ids = 0, unload = 0,
			    force = 0, no_read = 0, c, r, wstatus = 0, n_execs = 0, restrict_exec = 0,
			    n_socks = 0;
	unsigned open_flags = 0;
	struct sg_bpf_info info;
	struct sg_bpf_counts counts = { 0 };
	struct sg_bpf *b = NULL;
	uint32_t scope = 0;
	size_t failed = 0;
	char why[512];

	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (strcmp(optarg, "lsm") == 0)
				mode = SG_BPF_LSM;
			else if (strcmp(optarg, "fmod") == 0)
				mode = SG_BPF_FMOD;
			else
				return usage();
			break;
		case 'r':
			if (n_roots == MAX_ROOTS)
				return usage();
			roots[n_roots++] = optarg;
			break;
		case 'a':
			audit = 1;
			break;
		case 'k':
			keep = 1;
			break;
		case 'p':
			probe = 1;
			break;
		case 'i':
			ids = 1;
			break;
		case 'M':
			return max_prog_id();
		case 'u':
			unload = 1;
			break;
		case 'f':
			force = 1;
			break;
		case 'P':
			pins = optarg;
			break;
		case 'v':
			sg_bpf_set_log(libbpf_log);
			break;
		case 'V':
			printf("%s\n", sg_bpf_version());
			return 0;
		case 'F':
			if (optind >= argc)
				return usage();
			return flood(strtol(optarg, NULL, 10), argv[optind]);
		case 'n':
			no_read = 1;
			break;
		case 'A':
			open_flags |= SG_BPF_OPEN_FORCE_ATTACH;
			break;
		case 'x':
			if (n_execs == MAX_EXECS)
				return usage();
			execs[n_execs++] = optarg;
			restrict_exec = 1;
			break;
		case 'X':
			restrict_exec = 1;
			break;
		case 's':
			if (n_socks == MAX_SOCKS)
				return usage();
			socks[n_socks++] = optarg;
			break;
		case 'T':
			return try_one(argc - optind, argv + optind);
		case 'S':
			if (optind + 1 >= argc)
				return usage();
			return serve(optarg, argv[optind], strtod(argv[optind + 1], NULL));
		case 'g':
			return generation(NULL, optarg);
		case 'G':
			if (optind >= argc)
				return usage();
			return generation(optarg, argv[optind]);
		default:
			return usage();
		}
	}
	if (unload) {
		r = sg_bpf_unload(pins, force, why, sizeof(why));
		if (r < 0) {
			fprintf(stderr, "bpfdrive: unload: %s\n", why);
			return r == -ENOENT ? 0 : 1;
		}
		printf("bpfdrive: unloaded %s\n", pins ? pins : sg_bpf_version());
		return 0;
	}
	if (!mode)
		return usage();
	if (probe) {
		r = sg_bpf_probe(mode, why, sizeof(why));
		if (r < 0) {
			printf("bpfdrive: probe %s: refused: %s\n", sg_bpf_mode_name(mode), why);
			return 3;
		}
		printf("bpfdrive: probe %s: ok\n", sg_bpf_mode_name(mode));
		return 0;
	}

	r = sg_bpf_open_flags(mode, open_flags, &b, &info);
	if (r < 0) {
		printf("bpfdrive: open %s: %s (%s)\n", sg_bpf_mode_name(mode), info.why,
		       strerror(-r));
		return r == -EOPNOTSUPP && !info.dir[0] ? 3 : 4;
	}
	if (info.reused)
		printf("bpfdrive: open %s: reused %u pinned programs in %.1f ms %s\n",
		       sg_bpf_mode_name(mode), info.n_progs, info.open_ms, info.dir);
	else
		printf("bpfdrive: open %s: loaded %u programs in %.1f ms (load+verify %.1f ms, "
		       "attach %.1f ms) %s\n",
		       sg_bpf_mode_name(mode), info.n_progs, info.open_ms, info.load_ms,
		       info.attach_ms, info.dir);
	if (info.skipped[0])
		printf("bpfdrive: hooks this kernel lacks: %s\n", info.skipped);
	if (info.stale[0])
		printf("bpfdrive: other versions' pins, left alone: %s\n", info.stale);

	if (ids) {
		struct sg_bpf_prog v[128];
		uint64_t misses = 0, insns = 0;
		size_t n = 0;

		r = sg_bpf_progs(b, v, 128, &n);
		if (r < 0) {
			fprintf(stderr, "bpfdrive: programs: %s\n", strerror(-r));
			sg_bpf_close(b);
			return 1;
		}
		for (size_t i = 0; i < n; i++) {
			printf("prog %s id=%" PRIu32 " verified_insns=%" PRIu32
			       " recursion_misses=%" PRIu64 "\n",
			       v[i].name, v[i].id, v[i].verified_insns, v[i].recursion_misses);
			misses += v[i].recursion_misses;
			insns += v[i].verified_insns;
		}
		printf("prog-ids:");
		for (size_t i = 0; i < n; i++)
			printf(" %" PRIu32, v[i].id);
		printf("\nverified-insns: %" PRIu64 "\nrecursion-misses: %" PRIu64 "\n", insns,
		       misses);
		sg_bpf_close(b);
		return 0;
	}

	if (optind >= argc || n_roots == 0) {
		sg_bpf_close(b);
		return usage();
	}
	for (int i = 0; i < n_roots; i++) {
		fds[i] = open(roots[i], O_PATH | O_CLOEXEC);
		if (fds[i] < 0) {
			fprintf(stderr, "bpfdrive: %s: %s\n", roots[i], strerror(errno));
			sg_bpf_close(b);
			return 4;
		}
	}
	r = sg_bpf_add_scope(b, fds, (size_t)n_roots, audit ? SG_BPF_AUDIT : SG_BPF_ENFORCE,
			     &scope, &failed);
	if (r < 0) {
		printf("bpfdrive: add scope: %s%s%s\n", strerror(-r),
		       failed < (size_t)n_roots ? " at root " : "",
		       failed < (size_t)n_roots ? roots[failed] : "");
		sg_bpf_close(b);
		return 4;
	}
	(void)sg_bpf_scope_counts(b, scope, &counts);
	printf("bpfdrive: scope %" PRIu32 " %s %" PRIu32 " roots\n", scope,
	       audit ? "audit" : "enforce", counts.nroots);
	if (restrict_exec) {
		int xfds[MAX_EXECS];

		for (int i = 0; i < n_execs; i++) {
			xfds[i] = open(execs[i], O_PATH | O_CLOEXEC);
			if (xfds[i] < 0) {
				fprintf(stderr, "bpfdrive: %s: %s\n", execs[i], strerror(errno));
				while (i--)
					close(xfds[i]);
				sg_bpf_remove_scope(b, scope);
				sg_bpf_close(b);
				return 4;
			}
		}
		r = sg_bpf_scope_exec_allow(b, scope, xfds, (size_t)n_execs);
		/* Known by identity from here on: the descriptors are not needed. */
		for (int i = 0; i < n_execs; i++)
			close(xfds[i]);
		if (r < 0) {
			printf("bpfdrive: exec allow: %s\n", strerror(-r));
			sg_bpf_remove_scope(b, scope);
			sg_bpf_close(b);
			return 4;
		}
		(void)sg_bpf_scope_counts(b, scope, &counts);
		printf("bpfdrive: scope %" PRIu32 " exec-restricted: %d files, %" PRIu32
		       " identities\n",
		       scope, n_execs, counts.nexecs);
	}
	if (n_socks) {
		int sfds[MAX_SOCKS];

		for (int i = 0; i < n_socks; i++) {
			sfds[i] = open(socks[i], O_PATH | O_CLOEXEC);
			if (sfds[i] < 0) {
				fprintf(stderr, "bpfdrive: %s: %s\n", socks[i], strerror(errno));
				while (i--)
					close(sfds[i]);
				sg_bpf_remove_scope(b, scope);
				sg_bpf_close(b);
				return 4;
			}
		}
		r = sg_bpf_scope_sockets_allow(b, scope, sfds, (size_t)n_socks);
		/* Known by identity from here on, as exec files are. */
		for (int i = 0; i < n_socks; i++)
			close(sfds[i]);
		if (r < 0) {
			printf("bpfdrive: sockets allow: %s\n", strerror(-r));
			sg_bpf_remove_scope(b, scope);
			sg_bpf_close(b);
			return 4;
		}
		(void)sg_bpf_scope_counts(b, scope, &counts);
		printf("bpfdrive: scope %" PRIu32 " sockets allowed: %d files, %" PRIu32
		       " identities\n",
		       scope, n_socks, counts.nsocks);
	}
	fflush(stdout);

	r = run_confined(b, scope, argv + optind, &wstatus, no_read, restrict_exec);
	if (r < 0) {
		fprintf(stderr, "bpfdrive: running %s: %s\n", argv[optind], strerror(-r));
		if (!keep)
			sg_bpf_remove_scope(b, scope);
		sg_bpf_close(b);
		return 1;
	}
	(void)sg_bpf_scope_counts(b, scope, &counts);
	if (!keep)
		sg_bpf_remove_scope(b, scope);
	printf("bpfdrive: end status=%d denied=%" PRIu64 " audited=%" PRIu64 " lost=%" PRIu64 "\n",
	       WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus), counts.denied,
	       counts.audited, counts.lost);
	for (int i = 0; i < n_roots; i++)
		close(fds[i]);
	sg_bpf_close(b);
	return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}
