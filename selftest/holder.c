// SPDX-License-Identifier: MIT
/*
 * selftest/holder.c — the process outside the step that each run's probe
 * tries to read (issue 16, class 1: another process's environment and
 * memory).
 *
 * The holder is the probe with --hold, started before the runs: not
 * under stepguard, as the step's user, without a capability, with a
 * fresh random marker in its environment and a copy at an address it
 * reports.  Same user, no confinement, nothing that a capability would
 * have to override: only the step's confinement can keep the probe out.
 *
 * The self-test first reads it itself, the same three ways, unconfined
 * and as the step's user (the control).  A read that fails there fails
 * everywhere on this machine (Yama's ptrace_scope 2 or 3, a holder the
 * kernel made non-dumpable, a kernel without process_vm_readv), so a
 * refusal under stepguard would prove nothing: the self-test then fails,
 * as it does when the preflight finds a target the user could not write
 * anyway.  It never passes on a read it could not show landing.
 *
 * The holder dies with the self-test on every path: SIGKILL at the end,
 * PR_SET_PDEATHSIG should the self-test die first, and the end of its
 * standard input (the self-test holds the only write end) as a last
 * resort.
 */
#include "selftest/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "confine/caps.h"
#include "confine/user.h"

/* The probe's words, and the table's names for them. */
const struct sg_st_cell_name sg_st_peeks[N_PEEKS] = {
	{ "environ", "/proc/PID/environ" },
	{ "mem", "/proc/PID/mem" },
	{ "vm", "process_vm_readv" },
};

#define HOLDER_START_MS 10000
#define PEEK_MAX 512 /* what the probe reads of environ, at most (probe.c) */

/* kernel.yama.ptrace_scope, for the report; -1 when Yama is not there. */
static int yama_scope(void)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	char line[16] = "", *end;
	long v;

	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	(void)fclose(f); /* read only */
	v = strtol(line, &end, 10);
	return end == line || (*end && *end != '\n') || v < 0 || v > 3 ? -1 : (int)v;
}

/*
 * Become what the step is, minus the confinement: the step's user, and
 * no capability at all (the bounding set too, so that an execve by root
 * gets none back).  A holder with capabilities the probe lacks would be
 * refused by the capability check (cap_ptrace_access_check()), and a
 * control with capabilities would prove only that they override it.
 */
static int become_bare(const struct sg_user *u)
{
	int r = sg_user_drop(u);

	return r < 0 ? r : sg_caps_drop(UINT64_MAX);
}

/*
 * What each attempt is answered with: the probe's "refused" counts only
 * with EACCES (Landlock's scope, the ptrace check on the /proc files) or
 * EPERM (seccomp's deny list, process_vm_readv): another errno (ESRCH, a
 * holder gone; EIO, a wrong address) is no refusal and proves nothing.
 * A read that came back is "read" when it held the marker and "granted"
 * when it did not: the access was allowed either way.
 */
static const char *peek_result(const struct peek *p)
{
	if (!p->reported)
		return "not tried";
	if (strcmp(p->probe_said, "read") == 0)
		return p->marker ? "read" : "granted";
	if (strcmp(p->errname, "EACCES") == 0 || strcmp(p->errname, "EPERM") == 0)
		return "refused";
	return "failed";
}

/* ---- the control: the same three reads, unconfined ------------------- */

struct control_answer {
	int err;     /* 0: the read returned GOT bytes */
	size_t got;
	bool marker;
};

static void control_read(const struct holder *h, int k, struct control_answer *a)
{
	unsigned char b[PEEK_MAX];
	char path[64];
	ssize_t n = -1;
	int fd;

	if (k == 2) {
		struct iovec local = { b, h->len };
		struct iovec remote = { (void *)(uintptr_t)h->addr, h->len }; // NOLINT(performance-no-int-to-ptr): the holder's address, only passed to process_vm_readv

		n = process_vm_readv(h->pid, &local, 1, &remote, 1, 0);
	} else {
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)h->pid, k == 0 ? "environ" : "mem");
		fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0) {
			n = pread(fd, b, k == 0 ? sizeof(b) : h->len, k == 0 ? 0 : (off_t)h->addr);
			if (n < 0)
				a->err = errno;
			close(fd);
		}
	}
	if (n < 0) {
		if (!a->err)
			a->err = errno ? errno : EIO;
		return;
	}
	a->got = (size_t)n;
	a->marker = memmem(b, (size_t)n, h->marker, strlen(h->marker)) != NULL;
}

/*
 * In a child that is the holder's sibling, not its ancestor (Yama's scope
 * 1 lets an ancestor read where the step could not), bare as the holder.
 */
static void control(struct selftest *s)
{
	struct holder *h = &s->holder;
	struct control_answer a[N_PEEKS];
	int pfd[2], status;
	ssize_t got = 0;
	pid_t pid;

	memset(a, 0, sizeof(a));
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(h->error, sizeof(h->error), "cannot make a pipe for the control: %s",
			 strerror(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(h->error, sizeof(h->error), "cannot fork the control: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return;
	}
	if (pid == 0) {
		close(pfd[0]);
		if (become_bare(&s->user) < 0)
			_exit(1);
		for (int k = 0; k < N_PEEKS; k++)
			control_read(h, k, &a[k]);
		_exit(write(pfd[1], a, sizeof(a)) == (ssize_t)sizeof(a) ? 0 : 1);
	}
	close(pfd[1]);
	while ((got = read(pfd[0], a, sizeof(a))) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got != (ssize_t)sizeof(a)) {
		snprintf(h->error, sizeof(h->error), "the control could not become user %s or report",
			 s->user.name);
		return;
	}
	h->proven = true;
	for (int k = 0; k < N_PEEKS; k++) {
		struct peek *p = &h->control[k];

		p->reported = true;
		if (a[k].err) {
			snprintf(p->probe_said, sizeof(p->probe_said), "refused");
			snprintf(p->errname, sizeof(p->errname), "%s",
				 strerrorname_np(a[k].err) ? strerrorname_np(a[k].err) : "EUNKNOWN");
		} else {
			snprintf(p->probe_said, sizeof(p->probe_said), "read");
			p->got = a[k].got;
			p->marker = a[k].marker;
		}
		p->result = peek_result(p);
		/* From the answer itself: only the marker read back proves the read. */
		h->proven = h->proven && !a[k].err && a[k].marker;
	}
}

/* ---- the holder -------------------------------------------------------- */

/* Its one line: holding<TAB>PID<TAB>ADDRESS<TAB>LENGTH (probe.c). */
static int read_holding(struct holder *h, int fd)
{
	char line[256] = "", *end;
	size_t n = 0;
	uintmax_t pid;

	while (n < sizeof(line) - 1 && !memchr(line, '\n', n)) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		int r = poll(&pf, 1, HOLDER_START_MS);
		ssize_t got;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r == 0 ? -ETIMEDOUT : -errno;
		got = read(fd, line + n, sizeof(line) - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	line[n] = '\0';
	if (strncmp(line, "holding\t", 8) != 0)
		return -EPROTO;
	errno = 0;
	pid = strtoumax(line + 8, &end, 10);
	if (*end == '\t')
		h->addr = strtoumax(end + 1, &end, 16);
	if (*end == '\t')
		h->len = (size_t)strtoumax(end + 1, &end, 10);
	if (errno || *end != '\n' || pid != (uintmax_t)h->pid || h->len != strlen(h->marker))
		return -EPROTO;
	return 0;
}

void sg_st_holder_start(struct selftest *s)
{
	struct holder *h = &s->holder;
	char env_marker[sizeof(HOLD_VAR) + sizeof(h->marker)];
	char *const argv[] = { "stepguard-probe", "--hold", NULL };
	char *const envp[] = { env_marker, NULL };
	unsigned char rnd[16];
	int in[2], out[2], r;
	pid_t parent = getpid();

	h->in = -1;
	h->yama = yama_scope();
	/* Fresh and unguessable: the probe is never told it, so it cannot fake a read. */
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		snprintf(h->error, sizeof(h->error), "no random marker: %s", strerror(errno));
		goto fail;
	}
	r = snprintf(h->marker, sizeof(h->marker), "sg-held-");
	for (size_t i = 0; i < sizeof(rnd); i++)
		r += snprintf(h->marker + r, sizeof(h->marker) - (size_t)r, "%02x", rnd[i]);
	snprintf(env_marker, sizeof(env_marker), "%s=%s", HOLD_VAR, h->marker);

	if (pipe2(in, O_CLOEXEC) < 0) {
		snprintf(h->error, sizeof(h->error), "cannot make a pipe: %s", strerror(errno));
		goto fail;
	}
	if (pipe2(out, O_CLOEXEC) < 0) {
		snprintf(h->error, sizeof(h->error), "cannot make a pipe: %s", strerror(errno));
		close(in[0]);
		close(in[1]);
		goto fail;
	}
	h->pid = fork();
	if (h->pid < 0) {
		snprintf(h->error, sizeof(h->error), "cannot fork: %s", strerror(errno));
		h->pid = 0;
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		goto fail;
	}
	if (h->pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null < 0 || dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(null, 2) < 0)
			_exit(127);
		if (become_bare(&s->user) < 0)
			_exit(127);
		/*
		 * After the user drop, which clears it: the holder dies with
		 * the self-test, even one killed before its own clean-up.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
			_exit(127);
		/* Its environment is the marker alone: nothing of the caller's to leak. */
		execve(s->probe, argv, envp);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	h->in = in[1];
	h->running = true;
	r = read_holding(h, out[0]);
	close(out[0]);
	if (r < 0) {
		snprintf(h->error, sizeof(h->error), "the holder (the probe with --hold, as %s) did not report: %s",
			 s->user.name, strerror(-r));
		goto fail;
	}
	snprintf(h->word, sizeof(h->word), "peek=%d:0x%jx:%zu", (int)h->pid, h->addr, h->len);
	control(s);
	if (h->error[0])
		goto fail;
	if (!h->proven) {
		char tried[256] = "";
		size_t o = 0;

		for (int k = 0; k < N_PEEKS; k++) {
			const struct peek *p = &h->control[k];

			if (strcmp(p->result, "read") == 0 || o >= sizeof(tried))
				continue;
			if (strcmp(p->result, "granted") == 0)
				o += (size_t)snprintf(tried + o, sizeof(tried) - o,
						      "%s%s read, but %zu bytes without the marker",
						      o ? ", " : "", sg_st_peeks[k].label, p->got);
			else
				o += (size_t)snprintf(tried + o, sizeof(tried) - o, "%s%s: %s",
						      o ? ", " : "", sg_st_peeks[k].label, p->errname);
		}
		sg_st_problem(s, "another process: the control read of the holder (pid %d, user %s, "
			      "unconfined) did not land: %s; on this machine the read is refused "
			      "without stepguard%s, so a refusal under stepguard would prove nothing",
			      (int)h->pid, s->user.name, tried,
			      h->yama >= 2 ? " (kernel.yama.ptrace_scope is 2 or more: only "
					     "CAP_SYS_PTRACE may read another process)"
			      : sg_st_user_can(s, s->probe, R_OK) < 0
				      ? " (the step's user cannot read the probe, so the kernel "
					"makes the holder non-dumpable)"
				      : "");
	}
	return;
fail:
	sg_st_problem(s, "another process: %s; the reads of another process are not proven",
		      h->error);
}

/* Still there?  A zombie keeps its pid, but has no memory to read. */
static bool holder_alive(struct selftest *s)
{
	struct holder *h = &s->holder;
	int status;
	pid_t r;

	if (!h->running)
		return false;
	while ((r = waitpid(h->pid, &status, WNOHANG)) < 0 && errno == EINTR)
		;
	if (r == 0)
		return true;
	snprintf(h->error, sizeof(h->error), "the holder (pid %d) ended during the runs (%s %d)",
		 (int)h->pid, r > 0 && WIFSIGNALED(status) ? "signal" : "status",
		 r > 0 ? (WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status)) : -1);
	h->running = false;
	return false;
}

void sg_st_holder_stop(struct selftest *s)
{
	struct holder *h = &s->holder;

	if (h->in >= 0)
		close(h->in);
	h->in = -1;
	if (!h->running)
		return;
	(void)kill(h->pid, SIGKILL);
	while (waitpid(h->pid, NULL, 0) < 0 && errno == EINTR)
		;
	h->running = false;
}

/* ---- the probe's reads ---------------------------------------------- */

static int unhex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* peek<TAB>KIND<TAB>read<TAB>HEX or peek<TAB>KIND<TAB>refused<TAB>ERRNO (probe.c). */
bool sg_st_parse_peek_line(struct selftest *s, struct run *r, char *line)
{
	char *f[4], *save = NULL;
	int nf = 0;

	if (strncmp(line, "peek\t", 5) != 0)
		return false;
	for (char *t = strtok_r(line + 5, "\t", &save); t && nf < 4; t = strtok_r(NULL, "\t", &save))
		f[nf++] = t;
	if (nf != 3 || (strcmp(f[1], "read") != 0 && strcmp(f[1], "refused") != 0))
		return false;
	for (int k = 0; k < N_PEEKS; k++) {
		struct peek *p = &r->p[k];
		unsigned char b[PEEK_MAX];
		size_t n = 0;

		if (strcmp(f[0], sg_st_peeks[k].id) != 0 || p->reported)
			continue;
		if (strcmp(f[1], "read") == 0 && strcmp(f[2], "-") != 0)
			for (const char *x = f[2]; x[0]; x += 2, n++) {
				if (!x[1] || unhex(x[0]) < 0 || unhex(x[1]) < 0 || n == sizeof(b))
					return false;
				b[n] = (unsigned char)(unhex(x[0]) << 4 | unhex(x[1]));
			}
		p->reported = true;
		snprintf(p->probe_said, sizeof(p->probe_said), "%s", f[1]);
		if (strcmp(f[1], "refused") == 0)
			snprintf(p->errname, sizeof(p->errname), "%s", f[2]);
		p->got = n;
		/* The probe is never told the marker: finding it is proof of the read. */
		p->marker = s->holder.marker[0] &&
			    memmem(b, n, s->holder.marker, strlen(s->holder.marker)) != NULL;
		return true;
	}
	return false;
}

/*
 * Worst first: a read that returned the marker is the failure this
 * exists for, and outranks everything, as a write that landed does.
 */
static const char *const peek_order[] = { "read", "granted", "failed", "not tried", "refused" };

void sg_st_judge_peeks(struct selftest *s, struct run *r)
{
	struct holder *h = &s->holder;
	int n = (int)(r - s->runs) + 1, worst = (int)(sizeof(peek_order) / sizeof(peek_order[0])) - 1;
	bool alive = holder_alive(s);

	for (int k = 0; k < N_PEEKS; k++) {
		struct peek *p = &r->p[k];

		p->result = peek_result(p);
		for (int w = 0; w < worst; w++)
			if (strcmp(p->result, peek_order[w]) == 0)
				worst = w;
		if (strcmp(p->result, "read") == 0) {
			s->landed_any = true;
			sg_st_problem(s, "run %d (scrub %s): the probe read the holder's marker through "
				      "%s: the step reached another process's %s", n,
				      sg_st_scrub_label(r->scrub), sg_st_peeks[k].label,
				      k == 0 ? "environment" : "memory");
		} else if (strcmp(p->result, "granted") == 0) {
			sg_st_problem(s, "run %d (scrub %s): the probe's read of %s was not refused "
				      "(%zu bytes came back, without the marker)", n,
				      sg_st_scrub_label(r->scrub), sg_st_peeks[k].label, p->got);
		} else if (strcmp(p->result, "failed") == 0) {
			sg_st_problem(s, "run %d (scrub %s): the probe's read of %s failed with %s, "
				      "not EACCES or EPERM: that is no refusal, so it proves nothing",
				      n, sg_st_scrub_label(r->scrub), sg_st_peeks[k].label, p->errname);
		} else if (strcmp(p->result, "not tried") == 0 && r->status == 0 && h->word[0]) {
			sg_st_problem(s, "run %d (scrub %s): the probe did not report its read of %s", n,
				      sg_st_scrub_label(r->scrub), sg_st_peeks[k].label);
		}
	}
	r->peek_result = peek_order[worst];
	/* Nothing is proven without a holder that was there and a control that landed. */
	if (worst != 0 && (!h->proven || !h->word[0] || !alive)) {
		r->peek_result = "unproven";
		if (h->word[0] && !alive && h->error[0]) {
			sg_st_problem(s, "run %d (scrub %s): another process: %s", n,
				      sg_st_scrub_label(r->scrub), h->error);
			h->word[0] = '\0'; /* the runs that follow do not try */
		}
	}
	r->peek_ok = strcmp(r->peek_result, "refused") == 0;
}
