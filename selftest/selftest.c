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
#include "selftest/selftest.h"

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

#include "confine/confine.h"
#include "lib/exitcodes.h"
#include "lib/log.h"
#include "confine/user.h"
#include "lib/env.h"
#include "policy/policy.h"

#include "selftest/internal.h"

const struct sg_st_cell_name sg_st_cells[N_CELLS] = {
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

/* ---- small helpers ---------------------------------------------------- */

void sg_st_problem(struct selftest *s, const char *fmt, ...)
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
int sg_st_pathf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

int sg_st_pathf(char *buf, size_t len, const char *fmt, ...)
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

const char *sg_st_buf_str(const struct buf *b)
{
	return b->p ? b->p : "";
}

/* The probe's escaping (probe.c): control bytes and '\' as \xNN. */
void sg_st_escape_line(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)in; *p && o + 5 < len; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '\\')
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", *p);
		else
			out[o++] = (char)*p;
	out[o < len ? o : len - 1] = '\0';
}

const char *sg_st_scrub_label(const char *scrub)
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
	if (!p || p[0] == '/' || sg_st_pathf(buf, len, "%s/%s", s->cwd, p) < 0)
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
	const struct sg_selftest_args *o = s->o;

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
		bool drop = is_listed(&s->pol->credentials, *e, len) ||
			    is_listed(&s->pol->scrub, *e, len);

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
		if (sg_st_pathf(r->c[c].path, sizeof(r->c[c].path), "%s/%sstepguard-selftest-%s%s-%d", dir,
			  c == 1 ? "." : "", c == CONTROL ? "control-" : "", s->nonce, i + 1) < 0) {
			sg_st_problem(s, "the path of the %s is too long: %s", sg_st_cells[c].label, dir);
			r->attempted = false;
			return;
		}
		/* A target that is already there is a target all the same. */
		sg_st_snap_take(r->c[c].path, &r->c[c].before);
		r->c[c].result = "not tried";
	}
	if (sg_st_pathf(log, sizeof(log), "%s/run-%d.log", s->priv, i + 1) < 0) {
		sg_st_problem(s, "the log's path is too long: %s", s->priv);
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
		sg_st_problem(s, "run %d: out of memory", i + 1);
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
	sg_st_read_start(s, r, log);
	sg_st_parse_report(s, r);
	for (int c = 0; c < N_TARGETS; c++)
		sg_st_judge_cell(s, r, c);
	sg_st_judge_control(s, r);

	if (r->status != 0) {
		const char *e = sg_st_buf_str(&r->err);

		if (r->status == SG_EXIT_CONFINE)
			s->confine_failed = true;
		if (r->status < 0)
			sg_st_problem(s, "run %d (scrub %s): cannot start stepguard: %s", i + 1,
				sg_st_scrub_label(r->scrub), strerror(-r->status));
		else
			sg_st_problem(s, "run %d (scrub %s): stepguard exited with status %d%s%s%s", i + 1,
				sg_st_scrub_label(r->scrub), r->status,
				r->status == SG_EXIT_CONFINE ? " (the confinement could not be set up)"
				: r->status == SG_EXIT_REFUSED ? " (refused by a ruling)" : "",
				*e ? ":\n" : "", e);
	}
	for (int c = 0; c < N_CELLS; c++)
		if (!r->c[c].reported && r->status == 0)
			sg_st_problem(s, "run %d (scrub %s): the probe did not report %s", i + 1,
				sg_st_scrub_label(r->scrub), r->c[c].path);
	if (!r->backend[0] && r->status == 0)
		sg_st_problem(s, "run %d (scrub %s): no start record in the step's log", i + 1,
			sg_st_scrub_label(r->scrub));
	else if (r->backend[0] && !s->backend[0]) {
		snprintf(s->backend, sizeof(s->backend), "%s", r->backend);
		s->abi = r->abi;
	} else if (r->backend[0] && strcmp(r->backend, s->backend) != 0) {
		sg_st_problem(s, "run %d: backend %s, where run 1 had %s", i + 1, r->backend, s->backend);
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
			sg_st_problem(s, "rulings: out of memory");
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
		buf_add(&c->out, sg_st_buf_str(&err), err.n);
		free(err.p);
		strv_free(env);
		free(argv);
		c->ok = c->status == c->expect;
		if (!c->ok)
			sg_st_problem(s, "rulings: %s: stepguard --check exited %d, expected %d:\n%s", c->what,
				c->status, c->expect, sg_st_buf_str(&c->out));
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
	(void)fclose(f); /* read only: nothing to lose */
}

/* The probe: beside stepguard in a build tree, else where make install
 * puts it (PREFIX/bin/stepguard -> PREFIX/libexec/stepguard/). */
static int find_probe(struct selftest *s)
{
	char self[PATH_MAX], try[2][PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0) {
		sg_st_problem(s, "cannot read /proc/self/exe: %s", strerror(errno));
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
	sg_st_problem(s, "the probe is missing: neither %s nor %s exists", try[0], try[1]);
	return -ENOENT;
}

static int prepare(struct selftest *s)
{
	const char *home = sg_env_get(s->envp, "HOME");
	char msg[512];
	uint8_t rnd[4] = { 0 };

	if (!getcwd(s->cwd, sizeof(s->cwd)))
		snprintf(s->cwd, sizeof(s->cwd), "/");
	uname(&s->uts);
	read_lsm(s);
	if (sg_user_resolve(s->o->user, s->envp, &s->user, msg, sizeof(msg)) < 0) {
		sg_st_problem(s, "%s", msg);
		return -EINVAL;
	}
	if (!home || !*home)
		home = s->user.home;
	if (!home || home[0] != '/') {
		sg_st_problem(s, "the step's HOME (\"%s\") is not an absolute path", home ? home : "");
		return -EINVAL;
	}
	snprintf(s->home, sizeof(s->home), "%s", home);
	while (strlen(s->home) > 1 && s->home[strlen(s->home) - 1] == '/')
		s->home[strlen(s->home) - 1] = '\0';

	/* The launcher's merged policy, for the variable and CLI names. */
	s->pol = s->o->merged;
	s->cli = s->pol->cli.names.n ? s->pol->cli.names.v[0] : "claude";
	s->tools = s->pol->cli.tools_option.n ? s->pol->cli.tools_option.v[0] : "--tools";
	if (s->o->n_allow_write) {
		s->abs_allow = calloc(s->o->n_allow_write + 1, sizeof(char *));
		for (size_t i = 0; s->abs_allow && i < s->o->n_allow_write; i++) {
			char b[PATH_MAX];

			s->abs_allow[i] = strdup(absolute(s, s->o->allow_write[i], b, sizeof(b)));
			if (!s->abs_allow[i])
				break;
		}
		if (!s->abs_allow || !s->abs_allow[s->o->n_allow_write - 1]) {
			sg_st_problem(s, "out of memory");
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
	if (find_probe(s) < 0 || sg_st_make_area(s) < 0)
		return -ENOENT;
	sg_st_preflight(s);
	return 0;
}

/* ---- the whole ---------------------------------------------------------- */

int sg_self_test(const struct sg_selftest_args *o, char *const envp[])
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
		int r = sg_st_rm_rf_at(AT_FDCWD, s->top);
		struct stat st;

		if (r < 0 || lstat(s->top, &st) == 0)
			sg_st_problem(s, "cannot remove the work area %s: %s", s->top,
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
		sg_st_print_json(s, status);
	else
		sg_st_print_human(s, status);
	/* The status stays the verdict (docs/self-test.md); a lost report is said, not silent. */
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		fprintf(stderr, "stepguard: self-test: cannot write the report: %s\n",
			strerror(errno ? errno : EIO));

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
	free(s);
	return status;
}
