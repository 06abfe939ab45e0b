// SPDX-License-Identifier: MIT
/*
 * selftest.c — stepguard --self-test.
 *
 * The trial that led to stepguard tried four writes outside the work
 * directory, and one inside it, with the model CLI's scrub unset, 0 and 1.
 * This reproduces it on the machine it runs on, under the confinement a
 * real step gets, and fails loudly unless all four are refused and the
 * control lands, in every run.
 *
 * What makes it a proof rather than a demonstration:
 *
 *   - Same launch path.  Each run is `stepguard -q ... -w WORK -- claude
 *     -p --tools "" -- TARGET...`: a fresh stepguard (/proc/self/exe) with
 *     the caller's options, so the policy, the user drop, the rulings, the
 *     write filter, seccomp and the supervisor are exactly a step's.  The
 *     probe is a separate execve under them; nothing here calls the
 *     confinement code.
 *   - "claude" is a symlink to the probe.  Ruling 1 lets only the model CLI
 *     with --tools "" run under the scrub, so the probe runs as a compliant
 *     CLI and the ruling is exercised for real, not switched off.
 *   - Judged from outside.  After each run every target is looked at with
 *     lstat and a content hash; the probe's report is only used to show
 *     the errno and to notice a probe that did not run.
 *   - Meaningful refusals.  Before the runs, the step's user is checked
 *     (as that user, unconfined) to be able to write in each target's
 *     directory: a refusal the file system would have given anyway proves
 *     nothing about the filter, and fails the test.
 *   - Nothing left behind.  Unique names per run; anything that landed is
 *     removed (a file that existed before is never deleted, only cut back
 *     to what it held), and the work area is removed at the end.
 */
#include "launcher/selftest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <nettle/sha2.h>

#include "launcher/confine.h"
#include "launcher/exitcodes.h"
#include "launcher/log.h"
#include "launcher/policy_load.h"
#include "launcher/roots.h"
#include "launcher/user.h"
#include "policy/expand.h"
#include "policy/policy.h"

#define N_TARGETS 4               /* outside the work directory */
#define N_CELLS (N_TARGETS + 1)   /* and the control, last */
#define CONTROL N_TARGETS
#define N_RUNS 6
#define RUN_TIMEOUT_MS 60000
#define CHECK_TIMEOUT_MS 30000
#define CAPTURE_MAX (64 * 1024)

/* common_args() at most, plus the command and its targets */
#define ARGV_MAX(s) (32 + 2 * (s)->o->n_allow_write + N_CELLS)

#define SCRUB_VAR "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB"
#define CRED_VAR "ANTHROPIC_API_KEY"

static const struct {
	const char *id;
	const char *label;
} cells[N_CELLS] = {
	{ "home-file", "file in $HOME" },
	{ "home-dotfile", "dotfile in $HOME" },
	{ "tmp-file", "file in /tmp" },
	{ "parent-file", "file in work dir's parent" },
	{ "control", "control" },
};

/* The trial's order, then its reverse: a leftover of one run (a landed
 * file, a stale decision) cannot hide behind the order. */
static const char *const run_scrub[N_RUNS] = { NULL, "0", "1", "1", "0", NULL };

/* Always removed from the step's environment, whatever the policy lists. */
static const char *const default_credentials[] = { "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN",
						    "CLAUDE_CODE_OAUTH_TOKEN" };

/* What the probe writes; the control must hold exactly this. */
static const char probe_marker[] = "stepguard-probe\n";

struct buf {
	char *p;
	size_t n;
	bool truncated;
};

struct snap {
	int err; /* errno of lstat other than ENOENT: cannot judge */
	bool exists;
	struct stat st;
	bool hashed;
	uint8_t hash[SHA256_DIGEST_SIZE];
};

struct cell {
	char path[PATH_MAX];
	struct snap before;
	bool reported;       /* the probe printed a line for it */
	char probe_said[16]; /* "landed" or "refused" */
	char errname[32];
	bool landed;         /* judged from outside */
	const char *result;  /* "refused", "landed", "not tried", "unknown" */
	char fate[160];      /* what was done about a landed write */
};

struct run {
	const char *scrub;
	bool attempted;
	int status; /* stepguard's exit status, or -errno if not started */
	struct cell c[N_CELLS];
	char backend[64];
	int abi; /* -1: unknown */
	struct buf out, err;
	bool ok;
};

struct ruling_check {
	const char *what;
	const char *var, *value;
	const char *tools; /* NULL: no tools option */
	int expect;
	int status;
	bool ok;
	struct buf out;
};

struct selftest {
	const struct sg_options *o;
	char *const *envp;
	struct sg_user user;
	struct sg_policy pol;
	const char *cli;   /* the model CLI's name, from the policy */
	const char *tools; /* its tools option */
	char cwd[PATH_MAX];
	char probe[PATH_MAX];
	char home[PATH_MAX];
	char nonce[48];
	char top[PATH_MAX], work[PATH_MAX], config[PATH_MAX], bin[PATH_MAX];
	char priv[PATH_MAX], cli_path[PATH_MAX];
	bool have_top;
	char abs_policy[PATH_MAX], abs_rules[PATH_MAX];
	char **abs_allow;
	struct utsname uts;
	char lsm[512], lsm_err[256];
	char backend[64];
	int abi;
	char **gaps; /* the start record's not_covered, NULL-terminated */
	struct run runs[N_RUNS];
	struct ruling_check checks[3];
	char **problems;
	size_t n_problems;
	bool lost_problem; /* out of memory while recording one: never a pass */
	bool landed_any, confine_failed;
};

/* ---- small helpers ---------------------------------------------------- */

static void problem(struct selftest *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(struct selftest *s, const char *fmt, ...)
{
	char **v = realloc(s->problems, (s->n_problems + 1) * sizeof(*v));
	va_list ap;
	char *m;
	int r;

	if (!v) {
		s->lost_problem = true;
		return;
	}
	s->problems = v;
	va_start(ap, fmt);
	r = vasprintf(&m, fmt, ap);
	va_end(ap);
	if (r < 0) {
		s->lost_problem = true;
		return;
	}
	while (r > 0 && m[r - 1] == '\n')
		m[--r] = '\0';
	s->problems[s->n_problems++] = m;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Paths are built here: one that does not fit is an error, never cut short. */
static int pathf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static void buf_add(struct buf *b, const char *data, size_t n)
{
	char *p;

	if (b->n + n > CAPTURE_MAX) {
		b->truncated = true;
		n = CAPTURE_MAX - b->n;
	}
	if (n == 0)
		return;
	p = realloc(b->p, b->n + n + 1);
	if (!p) {
		b->truncated = true;
		return;
	}
	b->p = p;
	memcpy(b->p + b->n, data, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static const char *buf_str(const struct buf *b)
{
	return b->p ? b->p : "";
}

/* The probe's escaping (probe.c): control bytes and '\' as \xNN. */
static void escape_line(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)in; *p && o + 5 < len; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '\\')
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", *p);
		else
			out[o++] = (char)*p;
	out[o < len ? o : len - 1] = '\0';
}

static const char *scrub_label(const char *scrub)
{
	return scrub ? scrub : "unset";
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* A relative path from the caller means the caller's directory; the
 * steps run elsewhere, so make it absolute (without resolving links). */
static const char *absolute(const struct selftest *s, const char *p, char *buf, size_t len)
{
	if (!p || p[0] == '/' || pathf(buf, len, "%s/%s", s->cwd, p) < 0)
		return p; /* too long: passed on as given, for stepguard to refuse */
	return buf;
}

/* ---- running stepguard ------------------------------------------------ */

/*
 * Run /proc/self/exe with ARGV and ENV in CWD, stdin from /dev/null,
 * stdout and stderr captured.  Returns its exit status (128+N for signal
 * N), or -errno if it could not be started.  A step that outlives
 * TIMEOUT_MS is asked to stop (stepguard forwards SIGTERM), then killed.
 */
static int run_stepguard(char *const argv[], char *const env[], const char *cwd, int timeout_ms,
			 struct buf *out, struct buf *err)
{
	int po[2], pe[2], status;
	struct pollfd pf[2];
	struct timespec t0;
	bool termed = false, killed = false;
	int limit = timeout_ms;
	pid_t pid;

	if (pipe2(po, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(pe, O_CLOEXEC) < 0) {
		int e = errno;

		close(po[0]);
		close(po[1]);
		return -e;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(po[0]);
		close(po[1]);
		close(pe[0]);
		close(pe[1]);
		return -e;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, 0) < 0 || dup2(po[1], 1) < 0 || dup2(pe[1], 2) < 0)
			_exit(SG_EXIT_CONFINE);
		if (cwd && chdir(cwd) < 0) {
			dprintf(2, "stepguard: self-test: cannot enter %s: %s\n", cwd, strerror(errno));
			_exit(SG_EXIT_CONFINE);
		}
		/* /proc/self/exe: this very binary, even if its path has changed. */
		execve("/proc/self/exe", argv, env);
		dprintf(2, "stepguard: self-test: cannot execute /proc/self/exe: %s\n",
			strerror(errno));
		_exit(SG_EXIT_CONFINE);
	}
	close(po[1]);
	close(pe[1]);
	pf[0] = (struct pollfd){ .fd = po[0], .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = pe[0], .events = POLLIN };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (pf[0].fd >= 0 || pf[1].fd >= 0) {
		long left = timeout_ms - ms_since(&t0);
		int n;

		if (left <= 0) {
			/* A descendant may hold the pipes open: stop waiting on them. */
			if (!termed) {
				kill(pid, SIGTERM);
				termed = true;
				timeout_ms += 5000;
				continue;
			}
			kill(pid, SIGKILL);
			killed = true;
			break;
		}
		n = poll(pf, 2, (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		for (int i = 0; i < 2; i++) {
			char chunk[4096];
			ssize_t got;

			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = read(pf[i].fd, chunk, sizeof(chunk));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				close(pf[i].fd);
				pf[i].fd = -1;
				continue;
			}
			buf_add(i == 0 ? out : err, chunk, (size_t)got);
		}
	}
	for (int i = 0; i < 2; i++)
		if (pf[i].fd >= 0)
			close(pf[i].fd);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (termed) {
		char m[96];

		snprintf(m, sizeof(m), "\nstepguard: self-test: stopped after %d s%s\n",
			 limit / 1000, killed ? " (killed)" : "");
		buf_add(err, m, strlen(m));
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 255;
}

/* The arguments every stepguard we start shares: the caller's options, so
 * the self-test proves the confinement a step would get with them. */
static size_t common_args(struct selftest *s, const char **a, size_t n)
{
	const struct sg_options *o = s->o;

	a[n++] = "stepguard";
	a[n++] = "-q";
	if (o->policy) {
		a[n++] = "--policy";
		a[n++] = absolute(s, o->policy, s->abs_policy, sizeof(s->abs_policy));
	}
	if (o->rules_dir) {
		a[n++] = "--rules-dir";
		a[n++] = absolute(s, o->rules_dir, s->abs_rules, sizeof(s->abs_rules));
	}
	if (o->step) {
		a[n++] = "--step";
		a[n++] = o->step;
	}
	if (o->filter != SG_FILTER_UNSET) {
		a[n++] = "--filter";
		a[n++] = sg_filter_name(o->filter);
	}
	if (o->mode != SG_MODE_UNSET) {
		a[n++] = "--mode";
		a[n++] = sg_mode_name(o->mode);
	}
	if (o->user) {
		a[n++] = "--user";
		a[n++] = o->user;
	}
	for (size_t i = 0; i < o->n_allow_write && s->abs_allow; i++) {
		a[n++] = "--allow-write";
		a[n++] = s->abs_allow[i];
	}
	a[n++] = "-w";
	a[n++] = s->work;
	return n;
}

static bool is_listed(const struct sg_words *w, const char *name, size_t len)
{
	for (size_t i = 0; i < w->n; i++)
		if (strlen(w->v[i]) == len && strncmp(w->v[i], name, len) == 0)
			return true;
	return false;
}

/*
 * The step's environment without the credential and scrub variables (the
 * policy's and the well-known ones) and without what the self-test sets,
 * plus SET (NAME=VALUE strings, NULL-terminated).
 */
static char **make_env(const struct selftest *s, const char *const set[])
{
	size_t n = 0, k = 0;
	char **env;

	while (s->envp[n])
		n++;
	for (size_t i = 0; set[i]; i++)
		n++;
	env = calloc(n + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (char *const *e = s->envp; *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
		bool drop = is_listed(&s->pol.credentials, *e, len) ||
			    is_listed(&s->pol.scrub, *e, len);

		for (size_t i = 0; i < sizeof(default_credentials) / sizeof(default_credentials[0]); i++)
			drop |= strlen(default_credentials[i]) == len &&
				strncmp(*e, default_credentials[i], len) == 0;
		for (size_t i = 0; set[i]; i++)
			drop |= strncmp(*e, set[i], len + 1) == 0;
		drop |= len == strlen(SCRUB_VAR) && strncmp(*e, SCRUB_VAR, len) == 0;
		if (!drop && !(env[k++] = strdup(*e)))
			goto oom;
	}
	for (size_t i = 0; set[i]; i++)
		if (!(env[k++] = strdup(set[i])))
			goto oom;
	return env;
oom:
	strv_free(env);
	return NULL;
}

/* ---- the work area ---------------------------------------------------- */

static int rm_rf_at(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno != ENOTDIR && errno != ELOOP)
			return -errno;
		return unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			int q = rm_rf_at(dirfd(d), de->d_name);

			if (q < 0 && r == 0)
				r = q;
		}
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && r == 0)
		r = -errno;
	return r;
}

/*
 * Could the step's user do MODE on PATH without stepguard?  Asked of the
 * kernel as that user, unconfined: a child drops to the user first.
 */
static int user_can(const struct selftest *s, const char *path, int mode)
{
	int status;
	pid_t pid;

	if (!s->user.drop)
		return faccessat(AT_FDCWD, path, mode, AT_EACCESS) == 0 ? 0 : -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (sg_user_drop(&s->user) < 0)
			_exit(255);
		_exit(faccessat(AT_FDCWD, path, mode, AT_EACCESS) == 0 ? 0 : errno & 0x7f);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 255)
		return -EPERM;
	return -WEXITSTATUS(status);
}

/*
 * The work area in BASE: TOP/work (the step's work directory) with
 * work/config (its configuration directory), TOP/bin/CLI (the link to the
 * probe) and TOP/private (the step logs).  0, or -errno with *WHAT set.
 */
static int make_area_in(struct selftest *s, const char *base, const char **what)
{
	*what = base;
	if (pathf(s->top, sizeof(s->top), "%s/stepguard-selftest.XXXXXX", base) < 0)
		return -ENAMETOOLONG;
	if (!mkdtemp(s->top))
		return -errno;
	s->have_top = true;
	*what = s->top;
	/* PATH_MAX / 2: room below for the per-run names. */
	if (pathf(s->work, sizeof(s->work) / 2, "%s/work", s->top) < 0 ||
	    pathf(s->config, sizeof(s->config), "%s/config", s->work) < 0 ||
	    pathf(s->bin, sizeof(s->bin), "%s/bin", s->top) < 0 ||
	    pathf(s->priv, sizeof(s->priv), "%s/private", s->top) < 0 ||
	    pathf(s->cli_path, sizeof(s->cli_path), "%s/%s", s->bin, s->cli) < 0)
		return -ENAMETOOLONG;
	if (mkdir(s->work, 0700) < 0 || mkdir(s->config, 0700) < 0 || mkdir(s->bin, 0755) < 0 ||
	    mkdir(s->priv, 0700) < 0 || symlink(s->probe, s->cli_path) < 0)
		return -errno;
	/*
	 * work and config belong to the step's user, so the control can land;
	 * so does the top, so that a refusal in the work dir's parent is the
	 * filter's and not the file system's.  bin (the CLI link) and private
	 * (the logs) stay the caller's: the step must not replace the one or
	 * rewrite the other.
	 */
	if (s->user.drop) {
		const char *const own[] = { s->top, s->work, s->config };

		for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
			if (chown(own[i], s->user.uid, s->user.gid) < 0) {
				*what = own[i];
				return -errno;
			}
	}
	/* A $TMPDIR private to the caller is out of the step user's reach. */
	return user_can(s, s->work, W_OK | X_OK);
}

/*
 * $TMPDIR first, unless it is /tmp or below it (/tmp is one of the
 * targets), then /var/tmp.
 */
static int make_area(struct selftest *s)
{
	const char *t = sg_env_get(s->envp, "TMPDIR");
	char real[PATH_MAX], tmp[PATH_MAX];
	const char *bases[2] = { NULL, "/var/tmp" }, *what = NULL;
	int r = -ENOENT;

	if (t && t[0] == '/' && realpath(t, real) && strcmp(real, "/") != 0 &&
	    !(realpath("/tmp", tmp) && sg_path_covers(tmp, real)) && strcmp(real, "/var/tmp") != 0)
		bases[0] = real;
	for (int i = 0; i < 2; i++) {
		if (!bases[i])
			continue;
		r = make_area_in(s, bases[i], &what);
		if (r == 0)
			return 0;
		if (s->have_top)
			rm_rf_at(AT_FDCWD, s->top);
		s->have_top = false;
	}
	problem(s, "cannot prepare a work area for user %s: %s: %s", s->user.name, what,
		strerror(-r));
	return r;
}

static void preflight(struct selftest *s)
{
	const struct {
		const char *path;
		int mode;
		const char *why;
	} need[] = {
		{ s->home, W_OK | X_OK, "a refusal in $HOME proves nothing" },
		{ "/tmp", W_OK | X_OK, "a refusal in /tmp proves nothing" },
		{ s->top, W_OK | X_OK, "a refusal in the work dir's parent proves nothing" },
		{ s->work, W_OK | X_OK, "the control cannot land" },
		{ s->probe, X_OK, "the probe cannot run" },
	};

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		int r = user_can(s, need[i].path, need[i].mode);

		if (r < 0)
			problem(s, "user %s cannot %s %s even without stepguard (%s), so %s",
				s->user.name[0] ? s->user.name : "?",
				need[i].mode & W_OK ? "write in" : "execute", need[i].path,
				strerror(-r), need[i].why);
	}
}

/* ---- judging from outside --------------------------------------------- */

static void snap_take(const char *path, struct snap *sn)
{
	memset(sn, 0, sizeof(*sn));
	if (lstat(path, &sn->st) < 0) {
		sn->err = errno == ENOENT ? 0 : errno;
		return;
	}
	sn->exists = true;
	if (S_ISREG(sn->st.st_mode)) {
		/* O_NONBLOCK: never hang on a file swapped for a FIFO. */
		int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		struct sha256_ctx ctx;
		uint8_t chunk[8192];
		ssize_t n;

		if (fd < 0)
			return;
		sha256_init(&ctx);
		while ((n = read(fd, chunk, sizeof(chunk))) > 0)
			sha256_update(&ctx, (size_t)n, chunk);
		close(fd);
		if (n == 0) {
			sha256_digest(&ctx, sizeof(sn->hash), sn->hash);
			sn->hashed = true;
		}
	}
}

static bool ts_eq(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static bool snap_same(const struct snap *a, const struct snap *b)
{
	if (a->exists != b->exists)
		return false;
	if (!a->exists)
		return true;
	return a->st.st_dev == b->st.st_dev && a->st.st_ino == b->st.st_ino &&
	       a->st.st_mode == b->st.st_mode && a->st.st_uid == b->st.st_uid &&
	       a->st.st_gid == b->st.st_gid && a->st.st_size == b->st.st_size &&
	       ts_eq(&a->st.st_mtim, &b->st.st_mtim) && ts_eq(&a->st.st_ctim, &b->st.st_ctim) &&
	       a->hashed == b->hashed && memcmp(a->hash, b->hash, sizeof(a->hash)) == 0;
}

/*
 * A file that was there before the run is never deleted.  The probe only
 * appends, so if the same file grew and its first bytes are what it held,
 * cut it back and restore its times; anything else is left and reported.
 */
static void restore(struct cell *c, const struct snap *after)
{
	const struct snap *b = &c->before;
	struct sha256_ctx ctx;
	uint8_t chunk[8192], d[SHA256_DIGEST_SIZE];
	off_t left = b->st.st_size;
	int fd;

	snprintf(c->fate, sizeof(c->fate), "it existed before the run and was changed; left as it is now");
	if (!S_ISREG(b->st.st_mode) || !b->hashed || !after->exists ||
	    after->st.st_dev != b->st.st_dev || after->st.st_ino != b->st.st_ino ||
	    after->st.st_size < b->st.st_size)
		return;
	fd = open(c->path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	sha256_init(&ctx);
	while (left > 0) {
		ssize_t n = read(fd, chunk, left < (off_t)sizeof(chunk) ? (size_t)left : sizeof(chunk));

		if (n <= 0)
			break;
		sha256_update(&ctx, (size_t)n, chunk);
		left -= n;
	}
	sha256_digest(&ctx, sizeof(d), d);
	if (left == 0 && memcmp(d, b->hash, sizeof(d)) == 0 && ftruncate(fd, b->st.st_size) == 0) {
		struct timespec t[2] = { b->st.st_atim, b->st.st_mtim };

		(void)futimens(fd, t);
		snprintf(c->fate, sizeof(c->fate),
			 "it existed before the run; cut back to its former %lld bytes",
			 (long long)b->st.st_size);
	}
	close(fd);
}

static void judge_cell(struct selftest *s, struct run *r, int k)
{
	struct cell *c = &r->c[k];
	struct snap after;

	snap_take(c->path, &after);
	if (after.err || c->before.err) {
		c->result = "unknown";
		problem(s, "run %d (scrub %s): cannot check %s from outside: %s", (int)(r - s->runs) + 1,
			scrub_label(r->scrub), c->path, strerror(after.err ? after.err : c->before.err));
		return;
	}
	c->landed = !snap_same(&c->before, &after);
	c->result = c->landed ? "landed" : c->reported ? "refused" : "not tried";
	if (k == CONTROL)
		return;
	if (c->landed && !c->before.exists) {
		if (unlinkat(AT_FDCWD, c->path, 0) == 0 ||
		    (errno == EISDIR && unlinkat(AT_FDCWD, c->path, AT_REMOVEDIR) == 0))
			snprintf(c->fate, sizeof(c->fate), "removed");
		else
			snprintf(c->fate, sizeof(c->fate), "could not be removed: %s", strerror(errno));
	} else if (c->landed) {
		restore(c, &after);
	}
	if (c->landed) {
		s->landed_any = true;
		problem(s, "run %d (scrub %s): the write to the %s landed: %s (%s)",
			(int)(r - s->runs) + 1, scrub_label(r->scrub), cells[k].label, c->path, c->fate);
	} else if (c->reported && strcmp(c->probe_said, "landed") == 0) {
		problem(s, "run %d (scrub %s): the probe says its write to %s landed, but it is not there",
			(int)(r - s->runs) + 1, scrub_label(r->scrub), c->path);
	}
}

/* The control must be there, a regular file of the step's user holding
 * what the probe wrote: proof that the probe ran, as that user. */
static void judge_control(struct selftest *s, struct run *r)
{
	struct cell *c = &r->c[CONTROL];
	int n = (int)(r - s->runs) + 1;
	struct stat st = { 0 };
	char text[sizeof(probe_marker) + 8];
	ssize_t got = -1;
	int fd;

	judge_cell(s, r, CONTROL);
	/* A probe that never ran is reported once, by its run's status. */
	if (!c->landed && !c->reported && r->status != 0)
		return;
	if (!c->landed) {
		problem(s, "run %d (scrub %s): the control write in the work directory did not land%s%s%s",
			n, scrub_label(r->scrub), c->reported ? " (the probe got " : "",
			c->reported ? c->errname : "", c->reported ? ")" : "");
		return;
	}
	fd = open(c->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		got = read(fd, text, sizeof(text));
	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)strlen(probe_marker) || memcmp(text, probe_marker, (size_t)got) != 0)
		problem(s, "run %d (scrub %s): the control %s is not what the probe writes", n,
			scrub_label(r->scrub), c->path);
	else if (st.st_uid != s->user.uid)
		problem(s, "run %d (scrub %s): the control is owned by uid %u, not by the step's user %s (uid %u)",
			n, scrub_label(r->scrub), (unsigned)st.st_uid, s->user.name,
			(unsigned)s->user.uid);
	if (unlink(c->path) < 0)
		problem(s, "run %d: cannot remove the control %s: %s", n, c->path, strerror(errno));
}

/* One line per target: TARGET<TAB>landed|refused<TAB>ERRNO (probe.c). */
static void parse_report(struct selftest *s, struct run *r)
{
	char *text = r->out.p, *save = NULL;

	for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f1 = strchr(line, '\t'), *f2 = f1 ? strchr(f1 + 1, '\t') : NULL;
		bool matched = false;

		if (f2) {
			*f1++ = '\0';
			*f2++ = '\0';
		}
		for (int k = 0; f2 && k < N_CELLS && !matched; k++) {
			char esc[PATH_MAX * 4];

			escape_line(r->c[k].path, esc, sizeof(esc));
			if (r->c[k].reported || strcmp(esc, line) != 0 ||
			    (strcmp(f1, "landed") != 0 && strcmp(f1, "refused") != 0))
				continue;
			r->c[k].reported = matched = true;
			snprintf(r->c[k].probe_said, sizeof(r->c[k].probe_said), "%s", f1);
			snprintf(r->c[k].errname, sizeof(r->c[k].errname), "%s", f2);
		}
		if (!matched)
			problem(s, "run %d: the probe printed an unexpected line: %.200s",
				(int)(r - s->runs) + 1, line);
	}
}

/* The start record of the step's log: what enforced. */
static void read_start(struct selftest *s, struct run *r, const char *log)
{
	FILE *f = fopen(log, "re");
	char *line = NULL;
	size_t cap = 0;

	r->abi = -1;
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		json_object *rec = json_tokener_parse(line), *v;

		if (!rec)
			continue;
		if (json_object_object_get_ex(rec, "event", &v) &&
		    strcmp(json_object_get_string(v), "start") == 0) {
			if (json_object_object_get_ex(rec, "backend", &v))
				snprintf(r->backend, sizeof(r->backend), "%s", json_object_get_string(v));
			if (json_object_object_get_ex(rec, "landlock_abi", &v))
				r->abi = json_object_get_int(v);
			if (!s->gaps && json_object_object_get_ex(rec, "not_covered", &v) &&
			    json_object_is_type(v, json_type_array)) {
				size_t n = json_object_array_length(v);

				s->gaps = calloc(n + 1, sizeof(char *));
				for (size_t i = 0; s->gaps && i < n; i++)
					s->gaps[i] = strdup(json_object_get_string(
						json_object_array_get_idx(v, i)));
			}
		}
		json_object_put(rec);
	}
	free(line);
	fclose(f);
}

static void one_run(struct selftest *s, int i)
{
	struct run *r = &s->runs[i];
	char log[PATH_MAX], scrub_env[64], cfg[PATH_MAX + 32], xdg[PATH_MAX + 32];
	const char *set[4] = { 0 };
	const char **argv;
	char **env;
	size_t n, k = 0;

	r->attempted = true;
	for (int c = 0; c < N_CELLS; c++) {
		const char *dir = c < 2 ? s->home : c == 2 ? "/tmp" : c == 3 ? s->top : s->work;

		/* Unique per self-test and per run: no run sees another's file. */
		if (pathf(r->c[c].path, sizeof(r->c[c].path), "%s/%sstepguard-selftest-%s%s-%d", dir,
			  c == 1 ? "." : "", c == CONTROL ? "control-" : "", s->nonce, i + 1) < 0) {
			problem(s, "the path of the %s is too long: %s", cells[c].label, dir);
			r->attempted = false;
			return;
		}
		/* A target that is already there is a target all the same. */
		snap_take(r->c[c].path, &r->c[c].before);
		r->c[c].result = "not tried";
	}
	if (pathf(log, sizeof(log), "%s/run-%d.log", s->priv, i + 1) < 0) {
		problem(s, "the log's path is too long: %s", s->priv);
		return;
	}
	snprintf(cfg, sizeof(cfg), "CLAUDE_CONFIG_DIR=%s", s->config);
	snprintf(xdg, sizeof(xdg), "XDG_CONFIG_HOME=%s", s->config);
	set[k++] = cfg;
	set[k++] = xdg;
	if (r->scrub) {
		snprintf(scrub_env, sizeof(scrub_env), "%s=%s", SCRUB_VAR, r->scrub);
		set[k++] = scrub_env;
	}
	argv = calloc(ARGV_MAX(s), sizeof(*argv));
	env = argv ? make_env(s, set) : NULL;
	if (!env) {
		free(argv);
		problem(s, "run %d: out of memory", i + 1);
		return;
	}

	n = common_args(s, argv, 0);
	argv[n++] = "--log";
	argv[n++] = log;
	argv[n++] = "--";
	argv[n++] = s->cli_path;
	argv[n++] = "-p";
	argv[n++] = s->tools;
	argv[n++] = "";
	argv[n++] = "--";
	for (int c = 0; c < N_CELLS; c++)
		argv[n++] = r->c[c].path;
	argv[n] = NULL;

	r->status = run_stepguard((char *const *)argv, env, s->work, RUN_TIMEOUT_MS, &r->out, &r->err);
	strv_free(env);
	free(argv);
	read_start(s, r, log);
	parse_report(s, r);
	for (int c = 0; c < N_TARGETS; c++)
		judge_cell(s, r, c);
	judge_control(s, r);

	if (r->status != 0) {
		const char *e = buf_str(&r->err);

		if (r->status == SG_EXIT_CONFINE)
			s->confine_failed = true;
		if (r->status < 0)
			problem(s, "run %d (scrub %s): cannot start stepguard: %s", i + 1,
				scrub_label(r->scrub), strerror(-r->status));
		else
			problem(s, "run %d (scrub %s): stepguard exited with status %d%s%s%s", i + 1,
				scrub_label(r->scrub), r->status,
				r->status == SG_EXIT_CONFINE ? " (the confinement could not be set up)"
				: r->status == SG_EXIT_REFUSED ? " (refused by a ruling)" : "",
				*e ? ":\n" : "", e);
	}
	for (int c = 0; c < N_CELLS; c++)
		if (!r->c[c].reported && r->status == 0)
			problem(s, "run %d (scrub %s): the probe did not report %s", i + 1,
				scrub_label(r->scrub), r->c[c].path);
	if (!r->backend[0] && r->status == 0)
		problem(s, "run %d (scrub %s): no start record in the step's log", i + 1,
			scrub_label(r->scrub));
	else if (r->backend[0] && !s->backend[0]) {
		snprintf(s->backend, sizeof(s->backend), "%s", r->backend);
		s->abi = r->abi;
	} else if (r->backend[0] && strcmp(r->backend, s->backend) != 0) {
		problem(s, "run %d: backend %s, where run 1 had %s", i + 1, r->backend, s->backend);
	}
	r->ok = r->status == 0 && r->c[CONTROL].landed;
	for (int c = 0; c < N_TARGETS; c++)
		r->ok = r->ok && r->c[c].reported && !r->c[c].landed;
}

/* ---- the rulings, on fixed command lines ------------------------------ */

static void check_rulings(struct selftest *s)
{
	const struct ruling_check init[3] = {
		{ "scrub set, no tools option (ruling 1)", SCRUB_VAR, "1", NULL, SG_EXIT_REFUSED, 0,
		  false, { 0 } },
		{ "credential held, a tool granted (ruling 2)", CRED_VAR, "dummy", "Bash",
		  SG_EXIT_REFUSED, 0, false, { 0 } },
		{ "credential held, tools empty (ruling 2)", CRED_VAR, "dummy", "", SG_EXIT_OK, 0,
		  false, { 0 } },
	};

	memcpy(s->checks, init, sizeof(init));
	for (int i = 0; i < 3; i++) {
		struct ruling_check *c = &s->checks[i];
		char var[128];
		const char *set[2] = { var, NULL };
		const char **argv = calloc(ARGV_MAX(s), sizeof(*argv));
		struct buf err = { 0 };
		size_t n;
		char **env;

		snprintf(var, sizeof(var), "%s=%s", c->var, c->value);
		env = argv ? make_env(s, set) : NULL;
		if (!env) {
			free(argv);
			problem(s, "rulings: out of memory");
			return;
		}
		n = common_args(s, argv, 0);
		argv[n++] = "--check";
		argv[n++] = "--";
		argv[n++] = s->cli;
		argv[n++] = "-p";
		argv[n++] = "hi";
		if (c->tools) {
			argv[n++] = s->tools;
			argv[n++] = c->tools;
		}
		argv[n] = NULL;
		c->status = run_stepguard((char *const *)argv, env, s->work, CHECK_TIMEOUT_MS, &c->out,
					  &err);
		buf_add(&c->out, buf_str(&err), err.n);
		free(err.p);
		strv_free(env);
		free(argv);
		c->ok = c->status == c->expect;
		if (!c->ok)
			problem(s, "rulings: %s: stepguard --check exited %d, expected %d:\n%s", c->what,
				c->status, c->expect, buf_str(&c->out));
	}
}

/* ---- the facts around the runs ---------------------------------------- */

static void read_lsm(struct selftest *s)
{
	FILE *f = fopen("/sys/kernel/security/lsm", "re");

	if (!f) {
		snprintf(s->lsm_err, sizeof(s->lsm_err), "cannot read /sys/kernel/security/lsm: %s",
			 strerror(errno));
		return;
	}
	if (!fgets(s->lsm, sizeof(s->lsm), f))
		snprintf(s->lsm_err, sizeof(s->lsm_err), "/sys/kernel/security/lsm is empty");
	s->lsm[strcspn(s->lsm, "\n")] = '\0';
	fclose(f);
}

/* The probe: beside stepguard in a build tree, else where make install
 * puts it (PREFIX/bin/stepguard -> PREFIX/libexec/stepguard/). */
static int find_probe(struct selftest *s)
{
	char self[PATH_MAX], try[2][PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0) {
		problem(s, "cannot read /proc/self/exe: %s", strerror(errno));
		return -ENOENT;
	}
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	snprintf(try[0], sizeof(try[0]), "%s/stepguard-probe", self);
	snprintf(try[1], sizeof(try[1]), "%s/../libexec/stepguard/stepguard-probe", self);
	for (int i = 0; i < 2; i++) {
		struct stat st;

		if (stat(try[i], &st) == 0 && S_ISREG(st.st_mode) && realpath(try[i], s->probe))
			return 0;
	}
	problem(s, "the probe is missing: neither %s nor %s exists", try[0], try[1]);
	return -ENOENT;
}

static int prepare(struct selftest *s)
{
	const char *home = sg_env_get(s->envp, "HOME");
	struct sg_error err = { .file = "stepguard" };
	char msg[512];
	uint8_t rnd[4] = { 0 };

	if (!getcwd(s->cwd, sizeof(s->cwd)))
		snprintf(s->cwd, sizeof(s->cwd), "/");
	uname(&s->uts);
	read_lsm(s);
	if (sg_user_resolve(s->o->user, s->envp, &s->user, msg, sizeof(msg)) < 0) {
		problem(s, "%s", msg);
		return -EINVAL;
	}
	if (!home || !*home)
		home = s->user.home;
	if (!home || home[0] != '/') {
		problem(s, "the step's HOME (\"%s\") is not an absolute path", home ? home : "");
		return -EINVAL;
	}
	snprintf(s->home, sizeof(s->home), "%s", home);
	while (strlen(s->home) > 1 && s->home[strlen(s->home) - 1] == '/')
		s->home[strlen(s->home) - 1] = '\0';

	/* main() has loaded it once already; here for the variable and CLI names. */
	if (sg_policy_load(s->o, s->envp, &s->pol, NULL, &err) < 0) {
		problem(s, "%s:%u: %s", err.file, err.line, err.msg);
		return -EINVAL;
	}
	s->cli = s->pol.cli.names.n ? s->pol.cli.names.v[0] : "claude";
	s->tools = s->pol.cli.tools_option.n ? s->pol.cli.tools_option.v[0] : "--tools";
	if (s->o->n_allow_write) {
		s->abs_allow = calloc(s->o->n_allow_write + 1, sizeof(char *));
		for (size_t i = 0; s->abs_allow && i < s->o->n_allow_write; i++) {
			char b[PATH_MAX];

			s->abs_allow[i] = strdup(absolute(s, s->o->allow_write[i], b, sizeof(b)));
			if (!s->abs_allow[i])
				break;
		}
		if (!s->abs_allow || !s->abs_allow[s->o->n_allow_write - 1]) {
			problem(s, "out of memory");
			return -ENOMEM;
		}
	}

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		struct timespec t;

		clock_gettime(CLOCK_REALTIME, &t);
		memcpy(rnd, &t.tv_nsec, sizeof(rnd));
	}
	snprintf(s->nonce, sizeof(s->nonce), "%d-%02x%02x%02x%02x", (int)getpid(), rnd[0], rnd[1],
		 rnd[2], rnd[3]);
	if (find_probe(s) < 0 || make_area(s) < 0)
		return -ENOENT;
	preflight(s);
	return 0;
}

/* ---- the report ------------------------------------------------------- */

static const char *gaps_text(const struct selftest *s, char *buf, size_t len)
{
	unsigned mask = 0;
	size_t o;

	for (size_t i = 0; s->gaps && s->gaps[i]; i++) {
		unsigned g;

		if (sg_gap_parse(s->gaps[i], &g) == 0)
			mask |= g;
	}
	sg_gaps_str(mask, buf, len);
	o = strlen(buf);
	for (size_t i = 0; s->gaps && s->gaps[i]; i++) {
		unsigned g;

		if (sg_gap_parse(s->gaps[i], &g) < 0 && o < len)
			o += (size_t)snprintf(buf + o, len - o, ", %s", s->gaps[i]);
	}
	return buf;
}

static void print_human(const struct selftest *s, int status)
{
	const struct sg_options *o = s->o;
	char g[512];

	if (!o->quiet) {
		printf("stepguard self-test: the four-write probe under the real confinement\n");
		printf("  user          %s (uid %u, %s)\n", s->user.name[0] ? s->user.name : "?",
		       (unsigned)s->user.uid, s->user.why ? s->user.why : "?");
		printf("  home          %s\n", s->home);
		if (s->have_top)
			printf("  work dir      %s\n", s->work);
		printf("  probe         %s, run as %s -p %s \"\" -- TARGET...\n\n", s->probe, s->cli,
		       s->tools);
		printf("  %-6s %-7s | %-13s | %-16s | %-12s | %-25s | %s\n", "scrub", "order",
		       cells[0].label, cells[1].label, cells[2].label, cells[3].label, cells[4].label);
		for (int i = 0; i < N_RUNS; i++) {
			const struct run *r = &s->runs[i];

			if (!r->attempted)
				continue;
			printf("  %-6s %-7s | %-13s | %-16s | %-12s | %-25s | %s\n",
			       scrub_label(r->scrub), i < N_RUNS / 2 ? "forward" : "reverse",
			       r->c[0].result, r->c[1].result, r->c[2].result, r->c[3].result,
			       r->c[4].result);
			if (o->verbose)
				for (int c = 0; c < N_CELLS; c++)
					printf("      %s: probe %s %s\n", r->c[c].path,
					       r->c[c].reported ? r->c[c].probe_said : "silent",
					       r->c[c].errname);
		}
		for (int i = 0; i < N_RUNS; i++)
			for (int c = 0; c < N_TARGETS; c++)
				if (s->runs[i].attempted && s->runs[i].c[c].before.exists)
					printf("  (run %d: %s was there before the run; judged as a target, %s)\n",
					       i + 1, s->runs[i].c[c].path,
					       s->runs[i].c[c].landed ? "and changed" : "left as found");
		printf("\n  backend       %s\n", s->backend[0] ? s->backend : "unknown (no start record)");
		printf("  kernel        %s %s (%s)\n", s->uts.sysname, s->uts.release, s->uts.machine);
		if (s->lsm_err[0])
			printf("  active LSMs   unknown (%s)\n", s->lsm_err);
		else
			printf("  active LSMs   %s\n", s->lsm);
		if (s->abi >= 0 && s->backend[0])
			printf("  Landlock ABI  %d\n", s->abi);
		else
			printf("  Landlock ABI  unknown\n");
		printf("  not covered   %s\n", s->backend[0] ? gaps_text(s, g, sizeof(g)) : "unknown");
		if (strncmp(s->backend, "landlock", 8) == 0)
			printf("                (Landlock itself does not mediate chmod, chown, utimes or xattr changes%s)\n",
			       strcmp(s->backend, "landlock+supervisor") == 0
				       ? "; the seccomp supervisor refuses them outside the roots"
				       : "; nothing refuses them on this backend");
		printf("\n  rulings (stepguard --check):\n");
		for (int i = 0; i < 3; i++) {
			const struct ruling_check *c = &s->checks[i];

			if (!c->what)
				continue;
			char cmd[256];

			snprintf(cmd, sizeof(cmd), "%s=%s %s -p hi%s%s%s%s", c->var, c->value, s->cli,
				 c->tools ? " " : "", c->tools ? s->tools : "", c->tools ? " " : "",
				 c->tools ? (*c->tools ? c->tools : "\"\"") : "");
			printf("    %-4s %-54s -> %s (status %d)\n", c->ok ? "ok" : "FAIL", cmd,
			       c->status == 0 ? "allowed" : c->status == SG_EXIT_REFUSED ? "refused" : "error",
			       c->status);
		}
		printf("\n");
	}
	if (s->n_problems) {
		printf("problems:\n");
		for (size_t i = 0; i < s->n_problems; i++) {
			/* Captured stderr spans lines: keep it under its item. */
			printf("  - ");
			for (const char *p = s->problems[i]; *p; p++) {
				putchar(*p);
				if (*p == '\n')
					printf("    ");
			}
			printf("\n");
		}
	}
	if (s->gaps && s->gaps[0] && status == SG_EXIT_OK)
		printf("note: on this kernel the write filter does not cover %s\n",
		       gaps_text(s, g, sizeof(g)));
	if (status == SG_EXIT_OK)
		printf("PASS: in all %d runs none of the %d writes outside the work directory landed, "
		       "the control landed, and the rulings held\n", N_RUNS, N_TARGETS);
	else if (status == SG_EXIT_CONFINE)
		printf("FAIL: stepguard could not set up the confinement on this machine (see above)\n");
	else
		printf("FAIL: the confinement is not proven on this machine (%zu problem%s above)\n",
		       s->n_problems, s->n_problems == 1 ? "" : "s");
}

static json_object *cell_json(const struct cell *c, int k)
{
	json_object *j = json_object_new_object();

	json_object_object_add(j, "target", json_object_new_string(cells[k].id));
	json_object_object_add(j, "label", json_object_new_string(cells[k].label));
	json_object_object_add(j, "path", sg_json_bytes(c->path));
	json_object_object_add(j, "result", json_object_new_string(c->result));
	json_object_object_add(j, "existed", json_object_new_boolean(c->before.exists));
	json_object_object_add(j, "probe_reported", json_object_new_boolean(c->reported));
	json_object_object_add(j, "probe_said",
			       c->reported ? json_object_new_string(c->probe_said) : NULL);
	json_object_object_add(j, "errno",
			       c->reported && c->errname[0] != '-' ? json_object_new_string(c->errname)
								   : NULL);
	if (c->fate[0])
		json_object_object_add(j, "cleanup", json_object_new_string(c->fate));
	return j;
}

static void print_json(const struct selftest *s, int status)
{
	json_object *root = json_object_new_object(), *a, *u;
	char g[512];

	json_object_object_add(root, "result",
			       json_object_new_string(status == SG_EXIT_OK ? "pass"
						      : status == SG_EXIT_CONFINE ? "error" : "fail"));
	json_object_object_add(root, "exit_status", json_object_new_int(status));
	u = json_object_new_object();
	json_object_object_add(u, "name", json_object_new_string(s->user.name));
	json_object_object_add(u, "uid", json_object_new_int64(s->user.uid));
	json_object_object_add(u, "from", json_object_new_string(s->user.why ? s->user.why : ""));
	json_object_object_add(root, "user", u);
	json_object_object_add(root, "home", sg_json_bytes(s->home));
	json_object_object_add(root, "workdir", s->have_top ? sg_json_bytes(s->work) : NULL);
	json_object_object_add(root, "probe", s->probe[0] ? sg_json_bytes(s->probe) : NULL);
	json_object_object_add(root, "kernel", json_object_new_string(s->uts.release));
	json_object_object_add(root, "machine", json_object_new_string(s->uts.machine));
	if (s->lsm_err[0]) {
		json_object_object_add(root, "lsm", NULL);
		json_object_object_add(root, "lsm_error", json_object_new_string(s->lsm_err));
	} else {
		char copy[sizeof(s->lsm)], *save = NULL;

		a = json_object_new_array();
		snprintf(copy, sizeof(copy), "%s", s->lsm);
		for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
			json_object_array_add(a, json_object_new_string(w));
		json_object_object_add(root, "lsm", a);
	}
	json_object_object_add(root, "backend",
			       s->backend[0] ? json_object_new_string(s->backend) : NULL);
	json_object_object_add(root, "landlock_abi",
			       s->backend[0] && s->abi >= 0 ? json_object_new_int(s->abi) : NULL);
	a = json_object_new_array();
	for (size_t i = 0; s->gaps && s->gaps[i]; i++)
		json_object_array_add(a, json_object_new_string(s->gaps[i]));
	json_object_object_add(root, "not_covered", s->backend[0] ? a : NULL);
	if (!s->backend[0])
		json_object_put(a);
	json_object_object_add(root, "not_covered_text",
			       s->backend[0] ? json_object_new_string(gaps_text(s, g, sizeof(g))) : NULL);

	a = json_object_new_array();
	for (int i = 0; i < N_RUNS; i++) {
		const struct run *r = &s->runs[i];
		json_object *j, *t;

		if (!r->attempted)
			continue;
		j = json_object_new_object();
		json_object_object_add(j, "run", json_object_new_int(i + 1));
		json_object_object_add(j, "order",
				       json_object_new_string(i < N_RUNS / 2 ? "forward" : "reverse"));
		json_object_object_add(j, "scrub", r->scrub ? json_object_new_string(r->scrub) : NULL);
		json_object_object_add(j, "stepguard_status", json_object_new_int(r->status));
		json_object_object_add(j, "backend",
				       r->backend[0] ? json_object_new_string(r->backend) : NULL);
		t = json_object_new_array();
		for (int c = 0; c < N_TARGETS; c++)
			json_object_array_add(t, cell_json(&r->c[c], c));
		json_object_object_add(j, "targets", t);
		json_object_object_add(j, "control", cell_json(&r->c[CONTROL], CONTROL));
		json_object_object_add(j, "pass", json_object_new_boolean(r->ok));
		if (r->err.n)
			json_object_object_add(j, "stderr", sg_json_bytes(buf_str(&r->err)));
		json_object_array_add(a, j);
	}
	json_object_object_add(root, "runs", a);

	a = json_object_new_array();
	for (int i = 0; i < 3; i++) {
		const struct ruling_check *c = &s->checks[i];
		json_object *j, *cmd;
		char env[160];

		if (!c->what)
			continue;
		j = json_object_new_object();
		cmd = json_object_new_array();
		snprintf(env, sizeof(env), "%s=%s", c->var, c->value);
		json_object_object_add(j, "check", json_object_new_string(c->what));
		json_object_object_add(j, "environment", json_object_new_string(env));
		json_object_array_add(cmd, json_object_new_string(s->cli));
		json_object_array_add(cmd, json_object_new_string("-p"));
		json_object_array_add(cmd, json_object_new_string("hi"));
		if (c->tools) {
			json_object_array_add(cmd, json_object_new_string(s->tools));
			json_object_array_add(cmd, json_object_new_string(c->tools));
		}
		json_object_object_add(j, "command", cmd);
		json_object_object_add(j, "expected_status", json_object_new_int(c->expect));
		json_object_object_add(j, "status", json_object_new_int(c->status));
		json_object_object_add(j, "pass", json_object_new_boolean(c->ok));
		json_object_array_add(a, j);
	}
	json_object_object_add(root, "rulings", a);

	a = json_object_new_array();
	for (size_t i = 0; i < s->n_problems; i++)
		json_object_array_add(a, sg_json_bytes(s->problems[i]));
	json_object_object_add(root, "problems", a);

	printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	/* CI logs show stderr: say why there too, not only inside the JSON. */
	for (size_t i = 0; i < s->n_problems; i++)
		fprintf(stderr, "stepguard: self-test: %s\n", s->problems[i]);
}

/* ---- the whole ---------------------------------------------------------- */

int sg_self_test(const struct sg_options *o, char *const envp[])
{
	struct selftest *s = calloc(1, sizeof(*s));
	int status;

	if (!s) {
		fprintf(stderr, "stepguard: out of memory\n");
		return SG_EXIT_SELFTEST;
	}
	s->o = o;
	s->envp = envp;
	s->abi = -1;
	sg_policy_init(&s->pol);

	if (prepare(s) == 0) {
		check_rulings(s);
		for (int i = 0; i < N_RUNS; i++) {
			s->runs[i].scrub = run_scrub[i];
			one_run(s, i);
			/* Without a confinement every further run fails the same way. */
			if (s->runs[i].status == SG_EXIT_CONFINE)
				break;
		}
	}

	if (s->have_top) {
		int r = rm_rf_at(AT_FDCWD, s->top);
		struct stat st;

		if (r < 0 || lstat(s->top, &st) == 0)
			problem(s, "cannot remove the work area %s: %s", s->top,
				strerror(r < 0 ? -r : EEXIST));
	}

	/* A write that landed outranks everything: that is the failure this exists for. */
	if (s->landed_any)
		status = SG_EXIT_SELFTEST;
	else if (s->confine_failed)
		status = SG_EXIT_CONFINE;
	else
		status = s->n_problems || s->lost_problem ? SG_EXIT_SELFTEST : SG_EXIT_OK;

	if (o->json)
		print_json(s, status);
	else
		print_human(s, status);
	fflush(stdout);

	for (int i = 0; i < N_RUNS; i++) {
		free(s->runs[i].out.p);
		free(s->runs[i].err.p);
	}
	for (int i = 0; i < 3; i++)
		free(s->checks[i].out.p);
	for (size_t i = 0; i < s->n_problems; i++)
		free(s->problems[i]);
	free(s->problems);
	strv_free(s->gaps);
	strv_free(s->abs_allow);
	sg_policy_free(&s->pol);
	free(s);
	return status;
}
