// SPDX-License-Identifier: MIT
/*
 * step.c — run one step of a plan: log, confinement, status.
 *
 * Order, and why:
 *   1. open the log (as the caller: root may be needed to append to it);
 *   2. prepare the confinement (nothing is enforced yet, so a refusal
 *      here leaves nothing behind);
 *   3. become the step's user where the backend needs stepguard to
 *      (sg_confine_become_user(): on Landlock for the rest of the run, as
 *      the supervisor in this process acts for the step);
 *   4. fork; the child confines itself and execs (confine/, run.c);
 *   5. hand every refusal to the log and forward signals until the step
 *      exits; log the end;
 *   6. say what the refusals add up to (launcher/summary.h), last, so a
 *      failing step's log ends with the likely reason and its fix.
 * Which backend runs is confine/'s business: nothing here asks.
 */
#include "launcher/step.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "confine/confine.h"
#include "lib/exitcodes.h"
#include "lib/log.h"
#include "launcher/roots.h"
#include "launcher/run.h"
#include "launcher/summary.h"
#include "policy/expand.h"
#include "policy/ruling.h"

#include <nettle/sha2.h>

struct run_state {
	const struct sg_plan *s;
	char digest[80];          /* "sha256:...", when there is a log */
	struct sg_confine *conf;
	struct sg_log log;
	unsigned long denials;
	unsigned long unlogged;   /* records the log refused (full disk, quota) */
	int log_err;              /* the last such error, -errno */
	struct sg_summary *sum;   /* from the first refusal on, unless -q */
	bool sum_failed;          /* out of memory for it: no summary, nothing else lost */
	pid_t pid;
};

static json_object *argv_json(const struct sg_plan *s)
{
	json_object *a = json_object_new_array();

	/* What is executed: the ruling options included. */
	for (int i = 0; i < s->argc; i++) {
		const char *arg = s->argv[i];
		json_object *e = sg_json_bytes(arg);
		const char *var;

		/*
		 * Never log a credential, or a piece of one, passed as an
		 * argument: judged on the argument, on its escaped text (what a
		 * reader of the record sees) and on the JSON written to the log
		 * (what grep sees).  An escape's last hex digit next to the
		 * argument's own bytes can spell a run the argument does not hold.
		 */
		var = sg_credential_in(&s->policy, s->env, arg);
		if (!var && e)
			var = sg_credential_shown(&s->policy, s->env, json_object_get_string(e),
						  json_object_to_json_string_ext(
							  e, JSON_C_TO_STRING_PLAIN |
								     JSON_C_TO_STRING_NOSLASHESCAPE));
		if (var) {
			char red[128];

			json_object_put(e);
			snprintf(red, sizeof(red), "(redacted: contains the value of %s or part of it)",
				 var);
			e = json_object_new_string(red);
		}
		json_object_array_add(a, e);
	}
	return a;
}

/*
 * sg_spawn()'s message.  When the command cannot be run (126, 127) it is
 * the error alone, and the command is named here, through the same test
 * as the log's command: a credential, or a piece of one, is never printed.
 */
static void print_spawn_msg(const struct sg_plan *s, int code, const char *msg)
{
	const char *var;

	if (code != SG_EXIT_NOTFOUND && code != SG_EXIT_NOEXEC)
		fprintf(stderr, "stepguard: %s\n", msg);
	else if ((var = sg_credential_in(&s->policy, s->env, s->o->argv[0])))
		fprintf(stderr, "stepguard: (the command, holding the value of %s or part of it, not shown): %s\n",
			var, msg);
	else
		fprintf(stderr, "stepguard: %s: %s\n", s->o->argv[0], msg);
}

static const char *backend_name(const struct run_state *st)
{
	return sg_confine_backend_name(st->conf);
}

/* Every refusal, from whichever backend: counted, logged, and said. */
static void denial(const struct sg_denial *d, void *ctx)
{
	struct run_state *st = ctx;
	int r;

	st->denials++;
	r = sg_denial_log(&st->log, d);
	if (r < 0) {
		/* The refusal stands; its record is lost, and that is said at the end. */
		st->unlogged++;
		st->log_err = r;
	}
	/*
	 * Made at the first refusal, so a step that is refused nothing pays
	 * nothing for it.  With the home the roots were checked against: the
	 * fix never names it.
	 */
	if (!st->sum && !st->sum_failed && !st->s->o->quiet) {
		char home[PATH_MAX];

		st->sum = sg_summary_new(sg_roots_home(st->s->env, home));
		st->sum_failed = !st->sum;
	}
	sg_summary_add(st->sum, d);
	if (!st->s->o->quiet)
		sg_denial_print(stderr, d);
}

static int step_forked(void *ctx, pid_t pid)
{
	struct run_state *st = ctx;

	return sg_confine_forked(st->conf, pid);
}

static int step_confine_child(void *ctx, const char **stage)
{
	struct run_state *st = ctx;

	return sg_confine_child(st->conf, stage);
}

static int armed(void *ctx, pid_t pid)
{
	struct run_state *st = ctx;

	(void)pid;
	return sg_confine_started(st->conf);
}

static int started(void *ctx, pid_t pid)
{
	struct run_state *st = ctx;
	const struct sg_plan *s = st->s;
	json_object *rec = json_object_new_object();
	json_object *roots = json_object_new_array();
	char cwd[PATH_MAX];
	int r;

	st->pid = pid;
	for (size_t i = 0; i < s->roots.n; i++)
		if (s->roots.v[i].fd >= 0)
			json_object_array_add(roots, sg_json_bytes(s->roots.v[i].path));
	json_object_object_add(rec, "pid", json_object_new_int64(pid));
	/* The step's uid: on eBPF this process stays root while the step does not. */
	json_object_object_add(rec, "uid", json_object_new_int64(s->user.uid));
	json_object_object_add(rec, "command", argv_json(s));
	if (getcwd(cwd, sizeof(cwd)))
		json_object_object_add(rec, "cwd", sg_json_bytes(cwd));
	json_object_object_add(rec, "roots", roots);
	if (s->tmp.path)
		json_object_object_add(rec, "tmpdir", sg_json_bytes(s->tmp.path));
	json_object_object_add(rec, "policy_digest", json_object_new_string(st->digest));
	json_object_object_add(rec, "mode", json_object_new_string(sg_mode_name(s->eff.mode)));
	if (s->exec_restricted) {
		json_object *ex = json_object_new_array();

		for (size_t i = 0; i < s->execs.n; i++)
			if (s->execs.v[i].fd >= 0)
				json_object_array_add(ex, sg_json_bytes(s->execs.v[i].path));
		json_object_object_add(rec, "exec_allow", ex);
	}
	sg_confine_start_record(st->conf, rec);
	r = sg_log_write(&st->log, "start", rec);
	if (r < 0)
		fprintf(stderr, "stepguard: cannot write to the log %s: %s\n", st->log.path,
			strerror(-r));
	return 0;
}

static int watch_fd(void *ctx)
{
	struct run_state *st = ctx;

	return sg_confine_event_fd(st->conf);
}

static int ready(void *ctx)
{
	struct run_state *st = ctx;

	return sg_confine_drain(st->conf, denial, st);
}

static void start_line(const struct run_state *st)
{
	const struct sg_plan *s = st->s;
	unsigned gaps = sg_confine_gaps(st->conf), accepted = sg_confine_accepted(st->conf);
	char g[1024], a[1024], sum[256];

	fprintf(stderr, "stepguard: step %s: write filter %s, seccomp", s->o->step ? s->o->step : "-",
		sg_confine_summary(st->conf, sum, sizeof(sum)));
	if (sg_confine_fallback_why(st->conf)[0] && s->o->verbose)
		fprintf(stderr, " [eBPF: %s]", sg_confine_fallback_why(st->conf));
	if (sg_confine_seccomp_why(st->conf)[0] && s->o->verbose)
		fprintf(stderr, " [seccomp generated at start: %s]", sg_confine_seccomp_why(st->conf));
	fprintf(stderr, "; not covered: %s", sg_gaps_str(gaps, g, sizeof(g)));
	if (gaps & accepted)
		fprintf(stderr, " (accepted by policy: %s)", sg_gaps_str(gaps & accepted, a, sizeof(a)));
	fprintf(stderr, "; user %s\n", s->user.name[0] ? s->user.name : "?");
	sg_confine_print_notes(st->conf, stderr);
	if (s->exec_restricted) {
		/*
		 * Said on every start: a hook or an MCP server that fails to
		 * start is then explained before its refusal lines come, and
		 * options the user did not type are named.
		 */
		fprintf(stderr, "stepguard: ruling %d: the step may execute only the model CLI%s",
			s->ruling.rule, s->policy.cli.exec_allow.n ? " and [model-cli] exec-allow" : "");
		if (s->argc > s->o->argc) {
			fprintf(stderr, "; added to its command line:");
			for (int i = 1; i <= s->argc - s->o->argc; i++)
				fprintf(stderr, " %s", s->argv[i]);
		}
		fputc('\n', stderr);
	}
	if (s->o->verbose && s->exec_restricted)
		for (size_t i = 0; i < s->execs.n; i++)
			fprintf(stderr, "stepguard:   executable: %s (%s)\n",
				s->execs.v[i].fd >= 0 ? s->execs.v[i].path : "absent, allows nothing",
				s->execs.v[i].what);
	if (s->o->verbose)
		for (size_t i = 0; i < s->roots.n; i++)
			if (s->roots.v[i].fd >= 0)
				fprintf(stderr, "stepguard:   writable: %s (%s)\n",
					s->roots.v[i].path, s->roots.v[i].what);
}

/*
 * The summary, when it is wanted (sg_summary_wanted()).  The fix names
 * the step's policy key when the step has a name; the labels the policy
 * has already are passed so that the suggestion never reuses one (a
 * [step:NAME] write.LABEL replaces the [writes] entry of that label).
 */
static void print_summary(const struct run_state *st, int code, unsigned long long lost)
{
	const struct sg_plan *s = st->s;
	const struct sg_writes *w[2] = { &s->policy.writes, s->step ? &s->step->writes : NULL };
	const char **labels;
	size_t n = 0;

	if (s->o->quiet || !sg_summary_wanted(st->sum, code != 0, s->o->verbose > 0))
		return;
	labels = calloc(s->policy.writes.n + (w[1] ? w[1]->n : 0) + 1, sizeof(*labels));
	if (!labels) {
		fprintf(stderr, "stepguard: out of memory for the summary of the refusals\n");
		return;
	}
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; w[k] && i < w[k]->n; i++)
			labels[n++] = w[k]->v[i].label;
	sg_summary_print(st->sum, stderr,
			 &(struct sg_summary_fix){ s->o->step, labels, n, lost });
	free(labels);
}

/*
 * The step's temporary directory, when it has one, once the step ended.
 * What cannot be removed is said, never left in silence; a kept one is
 * named, since nothing else says where it is.  True if it is gone.
 */
static bool remove_tmpdir(const struct sg_plan *s)
{
	char msg[PATH_MAX + 256];

	if (!s->tmp.path)
		return false;
	if (s->tmp.keep) {
		if (!s->o->quiet)
			fprintf(stderr, "stepguard: the step's temporary directory is kept: %s\n",
				s->tmp.path);
		return false;
	}
	if (sg_tmpdir_remove(&s->tmp, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "stepguard: the step's temporary directory could not be removed: %s\n",
			msg);
		return false;
	}
	return true;
}

int sg_step_run(const struct sg_plan *s)
{
	struct run_state st;
	struct sg_child_ops ops;
	struct sg_error err = { 0 };
	char msg[1024] = "";
	const char *stage = "become the step's user";
	int r, status = 0, code;

	memset(&st, 0, sizeof(st));
	st.s = s;
	st.log.fd = -1;

	r = sg_log_open(&st.log, s->log_path, s->o->step, s->env);
	if (r < 0) {
		fprintf(stderr, "stepguard: cannot open the log %s: %s; the step was not run\n",
			s->log_path, strerror(-r));
		return SG_EXIT_CONFINE;
	}
	/*
	 * The digest is for the log's records only: hashing the merged policy
	 * on every start of every step would be paid for nothing without one.
	 */
	if (st.log.fd >= 0 && sg_policy_digest(&s->policy, st.digest, sizeof(st.digest)) < 0) {
		fprintf(stderr, "stepguard: out of memory; the step was not run\n");
		sg_log_close(&st.log);
		return SG_EXIT_CONFINE;
	}

	r = sg_confine_prepare(&st.conf,
			       &(struct sg_confine_req){ &s->policy, s->eff.filter, s->eff.mode, &s->roots,
							 &s->user, s->exec_restricted ? &s->execs : NULL,
							 &s->sockets },
			       &err);
	if (r < 0) {
		fprintf(stderr, "stepguard: %s\nstepguard: the step was not run\n", err.msg);
		code = SG_EXIT_CONFINE;
		goto out;
	}
	/* Before the fork: see sg_confine_become_user() for who drops where. */
	r = sg_confine_become_user(st.conf, &stage);
	if (r < 0) {
		fprintf(stderr, "stepguard: cannot %s (user %s): %s; the step was not run\n", stage,
			s->user.name, strerror(-r));
		code = SG_EXIT_CONFINE;
		goto out;
	}
	if (!s->o->quiet)
		start_line(&st);

	ops = (struct sg_child_ops){ step_confine_child, step_forked, armed, started, watch_fd, ready,
				     &st };
	code = sg_spawn(s->argv, s->env, &ops, &status, msg, sizeof(msg));
	if (msg[0])
		print_spawn_msg(s, code, msg);
	if (st.pid > 0) {
		json_object *rec = json_object_new_object();
		struct sg_confine_end end;
		bool removed;

		sg_confine_finish(st.conf, denial, &st, &end);
		removed = remove_tmpdir(s);
		if (end.lost && !s->o->quiet)
			fprintf(stderr, "stepguard: %llu refusals could not be logged (ring buffer full)\n",
				(unsigned long long)end.lost);
		/*
		 * Records the log file refused are said even with -q: a log
		 * that silently misses refusals is the failure the log exists
		 * to prevent.  The end record (if it can still be written)
		 * counts them too.
		 */
		if (st.unlogged)
			fprintf(stderr, "stepguard: %lu of %lu refusal records could not be written to %s: %s\n",
				st.unlogged, st.denials, st.log.path, strerror(-st.log_err));
		if (!end.vouched) {
			/*
			 * Some write may have gone unchecked: say so loudly and
			 * fail the step, rather than vouch for it in silence.
			 */
			fprintf(stderr,
				"stepguard: the kernel skipped the eBPF filter %llu times while the step ran "
				"(fmod_ret recursion under full preemption); its writes cannot be vouched for\n",
				(unsigned long long)end.recursion_misses);
			if (code == 0)
				code = SG_EXIT_CONFINE;
		}

		json_object_object_add(rec, "pid", json_object_new_int64(st.pid));
		if (WIFEXITED(status))
			json_object_object_add(rec, "status", json_object_new_int(WEXITSTATUS(status)));
		else if (WIFSIGNALED(status))
			json_object_object_add(rec, "signal", json_object_new_int(WTERMSIG(status)));
		json_object_object_add(rec, "exit", json_object_new_int(code));
		json_object_object_add(rec, "denials", json_object_new_int64((int64_t)st.denials));
		json_object_object_add(rec, "lost", json_object_new_int64((int64_t)end.lost));
		json_object_object_add(rec, "unlogged", json_object_new_int64((int64_t)st.unlogged));
		if (end.has_misses)
			json_object_object_add(rec, "recursion_misses",
					       json_object_new_int64((int64_t)end.recursion_misses));
		if (s->tmp.path)
			json_object_object_add(rec, "tmpdir_removed", json_object_new_boolean(removed));
		json_object_object_add(rec, "backend", json_object_new_string(backend_name(&st)));
		json_object_object_add(rec, "policy_digest",
				       json_object_new_string(st.digest));
		r = sg_log_write(&st.log, "end", rec);
		if (r < 0)
			fprintf(stderr, "stepguard: the end record could not be written to %s: %s\n",
				st.log.path, strerror(-r));
		/* Last, after every other line: what a reader of a failed step looks for. */
		print_summary(&st, code, end.lost);
	} else {
		remove_tmpdir(s); /* the step never started: nothing of it to keep */
	}
out:
	sg_summary_free(st.sum);
	sg_confine_free(st.conf);
	sg_log_close(&st.log);
	return code;
}

int sg_policy_digest(const struct sg_policy *p, char *buf, size_t len)
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];
	char *text = NULL;
	size_t n = 0, o;
	FILE *f = open_memstream(&text, &n);

	if (!f)
		return -ENOMEM;
	/* Without origins: the same rules give the same digest wherever they live. */
	sg_policy_dump(p, f, false);
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	sha256_init(&ctx);
	sha256_update(&ctx, n, (const uint8_t *)text);
	sha256_digest(&ctx, sizeof(d), d);
	free(text);
	o = (size_t)snprintf(buf, len, "sha256:");
	for (size_t i = 0; i < sizeof(d) && o + 2 < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%02x", d[i]);
	return 0;
}
