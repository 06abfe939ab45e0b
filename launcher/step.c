// SPDX-License-Identifier: MIT
/*
 * step.c — run one step: log, confinement, identity, supervision, status.
 *
 * Order, and why:
 *   1. open the log (as the caller: root may be needed to append to it);
 *   2. prepare the write filter and seccomp (nothing is enforced yet);
 *   3. become the step's user, for good: the supervisor in this process
 *      acts on the step's behalf and must never hold more rights than it;
 *   4. fork; the child sets no_new_privs, the write filter, seccomp, and
 *      execs (confine.c, run.c);
 *   5. supervise and forward signals until the step exits; log the end.
 */
#include "launcher/step.h"

#include <errno.h>
#include <limits.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "confine/confine.h"
#include "lib/exitcodes.h"
#include "lib/log.h"
#include "launcher/run.h"
#include "confine/supervisor/supervisor.h"
#include "policy/expand.h"
#include "policy/ruling.h"

#include <nettle/sha2.h>

struct run_state {
	struct sg_step_ctx *s;
	struct sg_confine conf;
	struct sg_log log;
	struct sg_supervisor *sup;
	unsigned long denials;
	pid_t pid;
};

static json_object *argv_json(const struct sg_step_ctx *s)
{
	json_object *a = json_object_new_array();

	for (int i = 0; i < s->o->argc; i++) {
		const char *arg = s->o->argv[i];
		/* Never log a credential, or a piece of one, passed as an argument. */
		const char *var = sg_credential_in(s->p, s->env, arg);

		if (var) {
			char red[128];

			snprintf(red, sizeof(red), "(redacted: contains the value of %s or part of it)",
				 var);
			json_object_array_add(a, json_object_new_string(red));
		} else {
			json_object_array_add(a, sg_json_bytes(arg));
		}
	}
	return a;
}

/*
 * sg_spawn()'s message.  When the command cannot be run (126, 127) it is
 * the error alone, and the command is named here, through the same test
 * as the log's command: a credential, or a piece of one, is never printed.
 */
static void print_spawn_msg(const struct sg_step_ctx *s, int code, const char *msg)
{
	const char *var;

	if (code != SG_EXIT_NOTFOUND && code != SG_EXIT_NOEXEC)
		fprintf(stderr, "stepguard: %s\n", msg);
	else if ((var = sg_credential_in(s->p, s->env, s->o->argv[0])))
		fprintf(stderr, "stepguard: (the command, holding the value of %s or part of it, not shown): %s\n",
			var, msg);
	else
		fprintf(stderr, "stepguard: %s: %s\n", s->o->argv[0], msg);
}

static json_object *gaps_json(unsigned gaps)
{
	json_object *a = json_object_new_array();
	const char *name;

	for (unsigned i = 0; (name = sg_gap_name(i)) != NULL; i++)
		if (gaps & sg_gap_bit(i))
			json_object_array_add(a, json_object_new_string(name));
	return a;
}

static const char *backend_name(const struct run_state *st)
{
	return sg_confine_backend_name(&st->conf);
}

/* Realtime of an event stamped with CLOCK_BOOTTIME in the kernel. */
static void event_time(uint64_t boot_ns, char buf[32])
{
	struct timespec rt, bt, at;
	int64_t ns;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec -
	     ((int64_t)bt.tv_sec * 1000000000 + bt.tv_nsec - (int64_t)boot_ns);
	at.tv_sec = (time_t)(ns / 1000000000);
	at.tv_nsec = (long)(ns % 1000000000);
	sg_log_format_time(&at, buf);
}

static json_object *event_path(const struct sg_event *ev, int which, bool *cut)
{
	size_t n;
	const char *p = sg_bpf_event_path(ev, which, &n);
	char *z;
	json_object *o;

	/* which: 0 the first path, 1 the second (bpf/events.c) */
	*cut = ev->flags & (which == 0 ? SG_EV_PATH_TRUNC : SG_EV_PATH2_TRUNC);
	if (!p)
		return NULL;
	z = strndup(p, n);
	if (!z)
		return NULL;
	o = sg_json_bytes(z);
	free(z);
	return o;
}

/* One denial record per event of the eBPF filter (docs/log-format.md). */
static int bpf_event(const struct sg_event *ev, void *ctx)
{
	struct run_state *st = ctx;
	json_object *rec = json_object_new_object(), *p1, *p2;
	char comm[SG_COMM_LEN + 1], t[32];
	bool cut1 = false, cut2 = false;

	st->denials++;
	memcpy(comm, ev->comm, SG_COMM_LEN);
	comm[SG_COMM_LEN] = '\0';
	event_time(ev->time_ns, t);
	json_object_object_add(rec, "event_time", json_object_new_string(t));
	json_object_object_add(rec, "pid", json_object_new_int64(ev->pid));
	json_object_object_add(rec, "uid", json_object_new_int64(ev->uid));
	json_object_object_add(rec, "comm", sg_json_bytes(comm));
	json_object_object_add(rec, "op", json_object_new_string(sg_bpf_op_name(ev->op)));
	p1 = event_path(ev, 0, &cut1);
	p2 = event_path(ev, 1, &cut2);
	if (p1)
		json_object_object_add(rec, "path", p1);
	if (p2)
		json_object_object_add(rec, "path2", p2);
	/* A path the kernel could not give whole says so: never cut silently. */
	if (cut1 || cut2)
		json_object_object_add(rec, "path_truncated", json_object_new_boolean(1));
	json_object_object_add(rec, "decision",
			       json_object_new_string(sg_bpf_decision_name(ev->decision)));
	json_object_object_add(rec, "reason", json_object_new_string(sg_bpf_reason_name(ev->reason)));
	json_object_object_add(rec, "errno", json_object_new_int(-ev->error));
	json_object_object_add(rec, "backend", json_object_new_string(backend_name(st)));
	sg_log_write(&st->log, "denial", rec);
	if (!st->s->o->quiet) {
		size_t n;
		const char *p = sg_bpf_event_path(ev, 0, &n);
		char raw[512], esc[1024];

		snprintf(raw, sizeof(raw), "%.*s", p ? (int)(n < sizeof(raw) - 1 ? n : sizeof(raw) - 1) : 0,
			 p ? p : "");
		sg_escape_bytes(raw, esc, sizeof(esc));
		fprintf(stderr, "stepguard: %s %s %s (pid %u, %s)\n",
			ev->decision == SG_DECISION_AUDITED ? "audited" : "refused",
			sg_bpf_op_name(ev->op), esc, ev->pid, sg_bpf_reason_name(ev->reason));
	}
	return 0;
}

/*
 * A fmod_ret program the kernel skips because it is already running on
 * that CPU (possible under full preemption) decides nothing, and the call
 * goes through.  The kernel counts such misses per program: their sum
 * before and after the step tells whether any check may have been skipped
 * while it ran (by this step or another process: the programs are shared).
 */
static uint64_t recursion_misses(struct sg_bpf *b)
{
	struct sg_bpf_prog progs[64];
	uint64_t sum = 0;
	size_t n = 0;

	if (!b || sg_bpf_progs(b, progs, sizeof(progs) / sizeof(progs[0]), &n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		sum += progs[i].recursion_misses;
	return sum;
}

static int step_forked(void *ctx, pid_t pid)
{
	struct run_state *st = ctx;

	return sg_confine_forked(&st->conf, pid);
}

static int step_confine_child(void *ctx, const char **stage)
{
	struct run_state *st = ctx;

	return sg_confine_child(&st->conf, stage);
}

static int started(void *ctx, pid_t pid)
{
	struct run_state *st = ctx;
	const struct sg_step_ctx *s = st->s;
	json_object *rec = json_object_new_object();
	json_object *roots = json_object_new_array();
	char cwd[PATH_MAX];
	int r;

	st->pid = pid;
	if (st->conf.supervise) {
		int fd = sg_confine_listener(&st->conf);

		if (fd < 0)
			return fd;
		r = sg_supervisor_new(&st->sup, fd, st->conf.roots, st->conf.n_roots);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < s->roots->n; i++)
		if (s->roots->v[i].fd >= 0)
			json_object_array_add(roots, sg_json_bytes(s->roots->v[i].resolved));
	json_object_object_add(rec, "pid", json_object_new_int64(pid));
	/* The step's uid: on eBPF this process stays root while the step does not. */
	json_object_object_add(rec, "uid", json_object_new_int64(s->user->uid));
	json_object_object_add(rec, "command", argv_json(s));
	if (getcwd(cwd, sizeof(cwd)))
		json_object_object_add(rec, "cwd", sg_json_bytes(cwd));
	json_object_object_add(rec, "roots", roots);
	json_object_object_add(rec, "policy_digest", json_object_new_string(s->policy_digest));
	json_object_object_add(rec, "backend", json_object_new_string(backend_name(st)));
	json_object_object_add(rec, "mode", json_object_new_string(sg_mode_name(s->eff->mode)));
	if (sg_confine_is_bpf(&st->conf)) {
		json_object_object_add(rec, "bpf_reused", json_object_new_boolean(st->conf.binfo.reused));
		json_object_object_add(rec, "bpf_programs", json_object_new_int((int)st->conf.binfo.n_progs));
		json_object_object_add(rec, "bpf_open_ms", json_object_new_double(st->conf.binfo.open_ms));
	} else {
		json_object_object_add(rec, "landlock_abi", json_object_new_int(st->conf.ll.abi));
	}
	json_object_object_add(rec, "not_covered", gaps_json(st->conf.gaps));
	json_object_object_add(rec, "accepted_gaps", gaps_json(st->conf.accepted & st->conf.gaps));
	r = sg_log_write(&st->log, "start", rec);
	if (r < 0)
		fprintf(stderr, "stepguard: cannot write to the log %s: %s\n", st->log.path,
			strerror(-r));
	return 0;
}

static int watch_fd(void *ctx)
{
	struct run_state *st = ctx;

	if (st->conf.bpf)
		return sg_bpf_epoll_fd(st->conf.bpf);
	return st->sup ? sg_supervisor_fd(st->sup) : -1;
}

static int ready(void *ctx)
{
	struct run_state *st = ctx;
	struct sg_sup_event ev;
	int r;

	if (st->conf.bpf) {
		r = sg_bpf_poll(st->conf.bpf, 0, bpf_event, st);
		return r < 0 && r != -EINTR ? r : 0;
	}
	r = sg_supervisor_handle(st->sup, &ev);

	if (r == 1) {
		json_object *rec = json_object_new_object();

		st->denials++;
		json_object_object_add(rec, "pid", json_object_new_int64(ev.pid));
		json_object_object_add(rec, "uid", json_object_new_int64(getuid()));
		json_object_object_add(rec, "op", json_object_new_string(ev.op));
		json_object_object_add(rec, "path", sg_json_bytes(ev.path));
		json_object_object_add(rec, "decision", json_object_new_string("denied"));
		json_object_object_add(rec, "errno", json_object_new_int(-ev.result));
		json_object_object_add(rec, "backend", json_object_new_string("supervisor"));
		sg_log_write(&st->log, "denial", rec);
		if (!st->s->o->quiet) {
			char path[512];

			sg_escape_bytes(ev.path, path, sizeof(path));
			fprintf(stderr, "stepguard: refused %s %s (pid %d)\n", ev.op, path, (int)ev.pid);
		}
		return 0;
	}
	return r < 0 ? r : 0;
}

/* The log path: --log / STEPGUARD_LOG, else the policy's, expanded. */
int sg_step_log_path(const struct sg_step_ctx *s, char **out, char *msg, size_t len)
{
	struct sg_expand_vars vars = { s->roots->v[0].resolved, sg_env_get(s->env, "HOME"), s->env };
	char m[256], dir[PATH_MAX], *slash;
	char *path = NULL;

	*out = NULL;
	if (s->o->log) {
		path = strdup(s->o->log);
	} else if (s->eff->log.set && *s->eff->log.s) {
		if (sg_expand(s->eff->log.s, &vars, &path, m, sizeof(m)) < 0) {
			snprintf(msg, len, "%s:%u: log: %s", s->eff->log.origin.file,
				 s->eff->log.origin.line, m);
			return -EINVAL;
		}
	} else {
		return 0;
	}
	if (!path)
		return -ENOMEM;
	if (path[0] != '/') {
		char cwd[PATH_MAX], *abs;

		if (!getcwd(cwd, sizeof(cwd)) || asprintf(&abs, "%s/%s", cwd, path) < 0) {
			free(path);
			return -ENOMEM;
		}
		free(path);
		path = abs;
	}
	/*
	 * A log the step can write is a log the step can forge or erase:
	 * refuse one inside a writable root.
	 */
	/* Cut short, DIR would not be the log's directory, and the check below would judge another. */
	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
		snprintf(msg, len, "log %s: the path is too long", path);
		free(path);
		return -ENAMETOOLONG;
	}
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	{
		char real[PATH_MAX];

		if (!realpath(dir, real)) {
			snprintf(msg, len, "log %s: its directory: %s", path, strerror(errno));
			free(path);
			return -ENOENT;
		}
		for (size_t i = 0; i < s->roots->n; i++)
			if (s->roots->v[i].fd >= 0 && s->roots->v[i].is_dir &&
			    sg_path_covers(s->roots->v[i].resolved, real)) {
				snprintf(msg, len,
					 "log %s is inside the writable root %s, where the step could rewrite it; "
					 "put it outside (for example under $RUNNER_TEMP)",
					 path, s->roots->v[i].resolved);
				free(path);
				return -EPERM;
			}
	}
	*out = path;
	return 0;
}

static void start_line(const struct run_state *st)
{
	const struct sg_step_ctx *s = st->s;
	char g[256], a[256];

	if (sg_confine_is_bpf(&st->conf))
		fprintf(stderr, "stepguard: step %s: write filter %s (%s, %u programs), seccomp",
			s->o->step ? s->o->step : "-", backend_name(st),
			st->conf.binfo.reused ? "pinned programs reused" : "programs loaded and pinned",
			st->conf.binfo.n_progs);
	else
		fprintf(stderr, "stepguard: step %s: write filter %s (Landlock ABI %d), seccomp",
			s->o->step ? s->o->step : "-", backend_name(st), st->conf.ll.abi);
	if (st->conf.why[0] && s->o->verbose)
		fprintf(stderr, " [eBPF: %s]", st->conf.why);
	fprintf(stderr, "; not covered: %s", sg_gaps_str(st->conf.gaps, g, sizeof(g)));
	if (st->conf.gaps & st->conf.accepted)
		fprintf(stderr, " (accepted by policy: %s)",
			sg_gaps_str(st->conf.gaps & st->conf.accepted, a, sizeof(a)));
	fprintf(stderr, "; user %s\n", s->user->name[0] ? s->user->name : "?");
	if (sg_confine_is_bpf(&st->conf) && st->conf.binfo.stale[0])
		/*
		 * Another build's programs may still be attached: they do not
		 * confine this step, but every hook now runs in both sets, and
		 * only the build that made them (or root) removes them.
		 */
		fprintf(stderr, "stepguard: note: eBPF pins of other builds, left alone: %s\n",
			st->conf.binfo.stale);
	if (st->conf.ll.denied_fs)
		/* Over-blocking, not a hole: say it, so a failing rename is explained. */
		fprintf(stderr, "stepguard: note: Landlock ABI 1 refuses renames and links across "
				"directories, even inside the writable roots\n");
	if (s->o->verbose)
		for (size_t i = 0; i < s->roots->n; i++)
			if (s->roots->v[i].fd >= 0)
				fprintf(stderr, "stepguard:   writable: %s (%s)\n",
					s->roots->v[i].resolved, s->roots->v[i].what);
}

int sg_step_run(struct sg_step_ctx *s)
{
	struct run_state st;
	struct sg_child_ops ops;
	char msg[1024] = "", *path = NULL;
	uint64_t misses_before = 0;
	int r, status = 0, code;

	memset(&st, 0, sizeof(st));
	st.s = s;
	st.log.fd = -1;

	r = sg_step_log_path(s, &path, msg, sizeof(msg));
	if (r < 0) {
		fprintf(stderr, "stepguard: %s\n", r == -ENOMEM ? "out of memory" : msg);
		return SG_EXIT_USAGE;
	}
	r = sg_log_open(&st.log, path, s->o->step, s->env);
	if (r < 0) {
		fprintf(stderr, "stepguard: cannot open the log %s: %s; the step was not run\n", path,
			strerror(-r));
		free(path);
		return SG_EXIT_CONFINE;
	}
	free(path);
	/*
	 * The digest is for the log's records only: hashing the merged policy
	 * on every start of every step would be paid for nothing without one.
	 */
	if (st.log.fd >= 0 && sg_policy_digest(s->p, s->policy_digest, sizeof(s->policy_digest)) < 0) {
		fprintf(stderr, "stepguard: out of memory; the step was not run\n");
		sg_log_close(&st.log);
		return SG_EXIT_CONFINE;
	}

	r = sg_confine_prepare(&st.conf, s->p, s->eff->filter, s->eff->mode, s->roots, msg,
			       sizeof(msg));
	if (r < 0) {
		fprintf(stderr, "stepguard: %s\nstepguard: the step was not run\n", msg);
		code = SG_EXIT_CONFINE;
		goto out;
	}
	/*
	 * Landlock: become the step's user here, for good, before the fork:
	 * the supervisor in this process acts for the step and must hold no
	 * more rights than it.  eBPF: stay root to read the filter's events
	 * and remove the scope at the end; the child drops once marked.
	 */
	st.conf.user = s->user;
	r = sg_confine_is_bpf(&st.conf) ? 0 : sg_user_drop(s->user);
	if (r < 0) {
		fprintf(stderr, "stepguard: cannot become user %s: %s; the step was not run\n",
			s->user->name, strerror(-r));
		code = SG_EXIT_CONFINE;
		goto out;
	}
	if (!s->o->quiet)
		start_line(&st);

	misses_before = recursion_misses(st.conf.bpf);
	ops = (struct sg_child_ops){ step_confine_child, step_forked, started, watch_fd, ready, &st };
	code = sg_spawn(s->o->argv, s->env, &ops, &status, msg, sizeof(msg));
	if (msg[0])
		print_spawn_msg(s, code, msg);
	if (st.pid > 0) {
		json_object *rec = json_object_new_object();
		uint64_t lost = 0;

		if (st.conf.bpf) {
			struct sg_bpf_counts counts;

			/* What the step did last is still in the ring: read it all. */
			while (sg_bpf_poll(st.conf.bpf, 0, bpf_event, &st) > 0)
				;
			if (sg_bpf_scope_counts(st.conf.bpf, st.conf.scope, &counts) == 0)
				lost = counts.lost;
			if (lost && !s->o->quiet)
				fprintf(stderr, "stepguard: %llu refusals could not be logged (ring buffer full)\n",
					(unsigned long long)lost);
		}

		json_object_object_add(rec, "pid", json_object_new_int64(st.pid));
		if (WIFEXITED(status))
			json_object_object_add(rec, "status", json_object_new_int(WEXITSTATUS(status)));
		else if (WIFSIGNALED(status))
			json_object_object_add(rec, "signal", json_object_new_int(WTERMSIG(status)));
		json_object_object_add(rec, "exit", json_object_new_int(code));
		json_object_object_add(rec, "denials", json_object_new_int64((int64_t)st.denials));
		json_object_object_add(rec, "lost", json_object_new_int64((int64_t)lost));
		if (st.conf.bpf) {
			uint64_t missed = recursion_misses(st.conf.bpf) - misses_before;

			json_object_object_add(rec, "recursion_misses",
					       json_object_new_int64((int64_t)missed));
			if (missed) {
				/*
				 * Some write may have gone unchecked: say so loudly and
				 * fail the step, rather than vouch for it in silence.
				 */
				fprintf(stderr,
					"stepguard: the kernel skipped the eBPF filter %llu times while the step ran "
					"(fmod_ret recursion under full preemption); its writes cannot be vouched for\n",
					(unsigned long long)missed);
				if (code == 0)
					code = SG_EXIT_CONFINE;
				json_object_object_add(rec, "exit", json_object_new_int(code));
			}
		}
		json_object_object_add(rec, "backend", json_object_new_string(backend_name(&st)));
		json_object_object_add(rec, "policy_digest",
				       json_object_new_string(s->policy_digest));
		sg_log_write(&st.log, "end", rec);
	}
out:
	if (st.sup)
		sg_supervisor_free(st.sup);
	sg_confine_free(&st.conf);
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
