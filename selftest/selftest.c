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
 *   - Execs, too.  A ruling step may execute only the model CLI and what
 *     the policy adds, so after its writes the probe starts /bin/sh -c
 *     (what a hook is) and touch, each writing a marker in the work
 *     directory.  In the ruling runs (scrub 1) each must be refused with
 *     EACCES and leave no marker; in the others each must run, the
 *     control that nothing else stops them.
 *   - Other processes.  Last, the probe tries to read the environment and
 *     memory of a process outside the step (holder.c): the step's user,
 *     unconfined, holding a marker the probe is not told.  Every read
 *     must be refused, in every run (each run is a step with its own
 *     domain, and a ruling run's differs); the self-test's own read of
 *     it, unconfined, must land first, or the refusals prove nothing.
 */
#include "selftest/selftest.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/exitcodes.h"

#include "selftest/internal.h"

const struct sg_st_cell_name sg_st_cells[N_CELLS] = {
	{ "home-file", "file in $HOME" },
	{ "home-dotfile", "dotfile in $HOME" },
	{ "tmp-file", "file in /tmp" },
	{ "parent-file", "file in work dir's parent" },
	{ "control", "control" },
};

/*
 * What a hook does (`/bin/sh -c`), and another program a step would find
 * in $PATH: touch is in coreutils on a minimal Debian and an applet of
 * the VMs' busybox.  The id is also the probe's word (exec-ID=MARKER).
 */
const struct sg_st_cell_name sg_st_execs[N_EXECS] = {
	{ "sh", "exec /bin/sh -c" },
	{ "touch", "exec touch" },
};

/* The trial's order, then its reverse: a leftover of one run (a landed
 * file, a stale decision) cannot hide behind the order. */
static const char *const run_scrub[N_RUNS] = { NULL, "0", "1", "1", "0", NULL };

/* Design §4: the scrub is set when present with a value other than empty or 0. */
static bool scrub_set(const char *v)
{
	return v && *v && strcmp(v, "0") != 0;
}

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

/* ---- one run ---------------------------------------------------------- */

static void one_run(struct selftest *s, int i)
{
	struct run *r = &s->runs[i];
	char log[PATH_MAX], scrub_env[64], xdg[PATH_MAX + 32];
	const char *set[4] = { 0 };
	char words[N_EXECS][PATH_MAX + 16];
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
	/* The execs' markers are in the work directory: only the exec rule can stop them. */
	for (int x = 0; x < N_EXECS; x++) {
		struct exec_cell *e = &r->x[x];

		if (sg_st_pathf(e->marker, sizeof(e->marker), "%s/stepguard-selftest-exec-%s-%s-%d",
				s->work, sg_st_execs[x].id, s->nonce, i + 1) < 0 ||
		    sg_st_pathf(words[x], sizeof(words[x]), "exec-%s=%s", sg_st_execs[x].id,
				e->marker) < 0) {
			sg_st_problem(s, "the path of the %s marker is too long: %s", sg_st_execs[x].label,
				s->work);
			r->attempted = false;
			return;
		}
		sg_st_snap_take(e->marker, &e->before);
		e->result = "not tried";
	}
	if (sg_st_pathf(log, sizeof(log), "%s/run-%d.log", s->priv, i + 1) < 0) {
		sg_st_problem(s, "the log's path is too long: %s", s->priv);
		return;
	}
	/*
	 * Not CLAUDE_CONFIG_DIR: it names where the CLI reads settings (hooks,
	 * MCP servers) from, a tool variable a ruling step refuses.
	 */
	snprintf(xdg, sizeof(xdg), "XDG_CONFIG_HOME=%s", s->config);
	set[k++] = xdg;
	if (r->scrub) {
		snprintf(scrub_env, sizeof(scrub_env), "%s=%s", SCRUB_VAR, r->scrub);
		set[k++] = scrub_env;
	}
	argv = calloc(ARGV_MAX(s), sizeof(*argv));
	env = argv ? sg_st_make_env(s, set) : NULL;
	if (!env) {
		free(argv);
		sg_st_problem(s, "run %d: out of memory", i + 1);
		return;
	}

	n = sg_st_common_args(s, argv, 0, s->work);
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
	for (int x = 0; x < N_EXECS; x++)
		argv[n++] = words[x];
	/* The holder's pid and address, never its marker: a read must find it. */
	if (s->holder.word[0])
		argv[n++] = s->holder.word;
	argv[n] = NULL;

	r->status = sg_st_run_stepguard((char *const *)argv, env, s->work, RUN_TIMEOUT_MS, &r->out,
					 &r->err);
	sg_st_strv_free(env);
	free(argv);
	sg_st_read_start(s, r, log);
	sg_st_parse_report(s, r);
	for (int c = 0; c < N_TARGETS; c++)
		sg_st_judge_cell(s, r, c);
	sg_st_judge_control(s, r);
	for (int x = 0; x < N_EXECS; x++)
		sg_st_judge_exec(s, r, x);
	sg_st_judge_peeks(s, r);

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
	for (int x = 0; x < N_EXECS; x++)
		if (!r->x[x].reported && r->status == 0)
			sg_st_problem(s, "run %d (scrub %s): the probe did not report its %s (%s)", i + 1,
				sg_st_scrub_label(r->scrub), sg_st_execs[x].label, r->x[x].marker);
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
	for (int x = 0; x < N_EXECS; x++)
		r->ok = r->ok && r->x[x].ok;
	r->ok = r->ok && r->peek_ok;
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
	s->holder.in = -1;
	if (o->model_cli) {
		s->cli_run = calloc(1, sizeof(*s->cli_run));
		if (s->cli_run)
			s->cli_run->skipped = "the self-test could not prepare its runs";
		else
			sg_st_problem(s, "out of memory");
	}

	if (sg_st_prepare(s) == 0) {
		/* Before the runs, and alive through them: the process they try to read. */
		sg_st_holder_start(s);
		sg_st_check_rulings(s);
		for (int i = 0; i < N_RUNS; i++) {
			s->runs[i].scrub = run_scrub[i];
			s->runs[i].ruling = scrub_set(run_scrub[i]);
			one_run(s, i);
			/* Without a confinement every further run fails the same way. */
			if (s->runs[i].status == SG_EXIT_CONFINE)
				break;
		}
		if (o->model_cli)
			sg_st_model_cli(s);
	}
	/* On every path that returns; PR_SET_PDEATHSIG covers those that do not. */
	sg_st_holder_stop(s);

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
	sg_st_model_cli_free(s->cli_run);
	for (size_t i = 0; i < s->n_problems; i++)
		free(s->problems[i]);
	free(s->problems);
	sg_st_strv_free(s->gaps);
	sg_st_strv_free(s->abs_allow);
	free(s);
	return status;
}
