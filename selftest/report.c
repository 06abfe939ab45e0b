// SPDX-License-Identifier: MIT
/* selftest/report.c — the self-test's table and its JSON document. */
#include "selftest/internal.h"

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

/* The first line of B, escaped and cut for a table cell. */
static const char *first_line(const struct buf *b, char *out, size_t len)
{
	char raw[64];
	const char *p = sg_st_buf_str(b);
	size_t n = strcspn(p, "\n");

	snprintf(raw, sizeof(raw), "%.*s%s", (int)(n < 40 ? n : 40), p, n > 40 ? "..." : "");
	sg_st_escape_line(raw, out, len);
	if (!*out)
		snprintf(out, len, "(nothing)");
	return out;
}

static const char *field(json_object *rec, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(rec, key, &v) ? json_object_get_string(v) : "?";
}

static void print_model_cli(const struct selftest *s)
{
	const struct model_cli *m = s->cli_run;
	const struct cli_run *r[2] = { &m->control, &m->confined };
	char a[160], b[160];
	size_t n;

	printf("  model CLI (--model-cli):\n");
	printf("    command       %s -p hi %s \"\"\n", m->path[0] ? m->path : s->o->model_cli, s->tools);
	if (m->skipped) {
		printf("    not run       %s\n\n", m->skipped);
		return;
	}
	printf("    environment   ANTHROPIC_BASE_URL=http://127.0.0.1:PORT (the stub), "
	       "ANTHROPIC_API_KEY=(a dummy), CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1,\n"
	       "                  HOME beside the work dir, TMPDIR stepguard's own; PATH, the locale "
	       "and SUDO_* kept; nothing else\n");
	printf("    planted       hooks SessionStart, UserPromptSubmit and Stop in the project's "
	       "and the user's settings,\n"
	       "                  and a project stdio MCP server (.mcp.json); each would write a "
	       "marker in the work dir\n");
	printf("    backend       %s\n\n", m->backend[0] ? m->backend : "unknown (no start record)");
	printf("    %-32s | %-20s | %s\n", "", "without stepguard", "under stepguard");
	printf("    %-32s | %-20d | %d\n", "status", r[0]->status, r[1]->status);
	printf("    %-32s | %-20s | %s\n", "output", first_line(&r[0]->out, a, sizeof(a)),
	       first_line(&r[1]->out, b, sizeof(b)));
	snprintf(a, sizeof(a), "%u (%u message%s)", r[0]->stub_requests, r[0]->stub_messages,
		 r[0]->stub_messages == 1 ? "" : "s");
	snprintf(b, sizeof(b), "%u (%u message%s)", r[1]->stub_requests, r[1]->stub_messages,
		 r[1]->stub_messages == 1 ? "" : "s");
	printf("    %-32s | %-20s | %s\n", "requests to the stub", a, b);
	for (int k = 0; k < N_PLANTS; k++) {
		bool moot = k >= PLANT_USER && m->home_replaced;

		printf("    %-32s | %-20s | %s\n", sg_st_plants[k].label,
		       r[0]->p[k].err ? "unknown" : r[0]->p[k].ran ? "ran" : "did not run",
		       r[1]->p[k].err ? "unknown" : r[1]->p[k].ran ? "ran"
		       : moot ? "not planted (see below)" : "did not run");
	}
	if (m->home_replaced)
		printf("    (stepguard gives the step its user's own HOME, where the self-test writes "
		       "nothing:\n     the user's hooks are not where the CLI looks, and are not judged)\n");
	if (s->o->verbose)
		for (int i = 0; i < 2; i++) {
			printf("    %s, in %s:\n", i ? "under stepguard" : "without stepguard", r[i]->dir);
			for (size_t k = 0; r[i]->stub_log && r[i]->stub_log[k]; k++)
				printf("      stub: %s\n", r[i]->stub_log[k]);
			printf("      stub: %s\n", r[i]->stub_end);
			for (int k = 0; k < N_PLANTS; k++)
				printf("      %s: %s\n", r[i]->p[k].marker,
				       r[i]->p[k].ran ? "there" : "absent");
			if (r[i]->err.n)
				printf("      stderr: %s\n", first_line(&r[i]->err, a, sizeof(a)));
		}
	n = m->denials ? json_object_array_length(m->denials) : 0;
	printf("    refused execs (the step's log):%s\n", n ? "" : " none");
	for (size_t i = 0; i < n; i++) {
		json_object *rec = json_object_array_get_idx(m->denials, i);

		/* Paths in the log are escaped already: shown as they are. */
		printf("      %s (comm %s, %s)\n", field(rec, "path"), field(rec, "comm"),
		       field(rec, "reason"));
	}
	printf("\n");
}

/* One read of the holder, for -v and the control line: "LABEL WHAT". */
static void print_peek(const struct peek *p, int k, const char *who)
{
	printf("%s %s ", k ? "," : "", sg_st_peeks[k].label);
	if (!p->reported)
		printf("%s silent", who);
	else if (strcmp(p->probe_said, "read") == 0)
		printf("read %zu bytes, %s", p->got, p->marker ? "the marker" : "no marker");
	else
		printf("refused %s", p->errname);
}

static void print_holder(const struct selftest *s)
{
	const struct holder *h = &s->holder;

	if (!h->word[0] && !h->control[0].reported) {
		printf("  holder        none: %s\n", h->error[0] ? h->error : "not started");
		return;
	}
	printf("  holder        pid %d, user %s, no capabilities, not under stepguard (the probe, "
	       "--hold):\n                a marker in its environment and at 0x%jx\n",
	       (int)h->pid, s->user.name, h->addr);
	if (h->proven) {
		printf("  control read  landed: as %s, unconfined, the self-test read the marker through "
		       "%s, %s and %s\n", s->user.name, sg_st_peeks[0].label, sg_st_peeks[1].label,
		       sg_st_peeks[2].label);
		return;
	}
	printf("  control read  did not land, so the probe's refusals prove nothing:\n               ");
	for (int k = 0; k < N_PEEKS; k++)
		print_peek(&h->control[k], k, "control");
	printf("\n");
}

void sg_st_print_human(const struct selftest *s, int status)
{
	const struct sg_selftest_args *o = s->o;
	char g[512];

	if (!o->quiet) {
		printf("stepguard self-test: the four-write probe under the real confinement\n");
		printf("  user          %s (uid %u, %s)\n", s->user.name[0] ? s->user.name : "?",
		       (unsigned)s->user.uid, s->user.why ? s->user.why : "?");
		printf("  home          %s\n", s->home);
		if (s->have_top)
			printf("  work dir      %s\n", s->work);
		printf("  probe         %s, run as %s -p %s \"\" -- TARGET... exec-sh=MARKER "
		       "exec-touch=MARKER peek=PID:ADDRESS:LENGTH\n", s->probe, s->cli, s->tools);
		print_holder(s);
		printf("\n  %-6s %-7s | %-13s | %-16s | %-12s | %-25s | %-9s | %-15s | %-10s | %s\n",
		       "scrub", "order", sg_st_cells[0].label, sg_st_cells[1].label,
		       sg_st_cells[2].label, sg_st_cells[3].label, sg_st_cells[4].label,
		       sg_st_execs[0].label, sg_st_execs[1].label, "other process");
		for (int i = 0; i < N_RUNS; i++) {
			const struct run *r = &s->runs[i];

			if (!r->attempted)
				continue;
			printf("  %-6s %-7s | %-13s | %-16s | %-12s | %-25s | %-9s | %-15s | %-10s | %s\n",
			       sg_st_scrub_label(r->scrub), i < N_RUNS / 2 ? "forward" : "reverse",
			       r->c[0].result, r->c[1].result, r->c[2].result, r->c[3].result,
			       r->c[4].result, r->x[0].result, r->x[1].result,
			       r->peek_result ? r->peek_result : "not tried");
			if (!o->verbose)
				continue;
			for (int c = 0; c < N_CELLS; c++)
				printf("      %s: probe %s %s\n", r->c[c].path,
				       r->c[c].reported ? r->c[c].probe_said : "silent",
				       r->c[c].errname);
			for (int x = 0; x < N_EXECS; x++)
				printf("      %s: probe %s %s %s\n", r->x[x].marker,
				       r->x[x].reported ? r->x[x].program : sg_st_execs[x].label,
				       r->x[x].reported ? r->x[x].probe_said : "silent",
				       r->x[x].errname);
			printf("      (%s; the step's log has %d refused exec%s)\n",
			       r->ruling ? "a ruling step: the execs must be refused"
					 : "no ruling: the execs must run",
			       r->exec_denials, r->exec_denials == 1 ? "" : "s");
			printf("      other process:");
			for (int k = 0; k < N_PEEKS; k++)
				print_peek(&r->p[k], k, "probe");
			printf("\n");
		}
		printf("  (scrub 1: a ruling step, where both execs must be refused with EACCES; in the "
		       "other runs both must run)\n");
		printf("  (other process: the probe's reads of the holder's environment and memory, by "
		       "/proc/PID/environ,\n   /proc/PID/mem and process_vm_readv; in every run each "
		       "must be refused with EACCES or EPERM)\n");
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
		if (s->cli_run)
			print_model_cli(s);
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
	if (status == SG_EXIT_OK) {
		char cli_pass[160];
		int peeks = 0;

		for (int i = 0; i < N_RUNS; i++)
			peeks += s->runs[i].attempted ? N_PEEKS : 0;
		int ruling = 0;

		snprintf(cli_pass, sizeof(cli_pass), ", and the model CLI answered ok with none of its %d "
			 "planted hooks and servers run (each ran without stepguard)", N_PLANTS);
		for (int i = 0; i < N_RUNS; i++)
			ruling += s->runs[i].ruling;
		printf("PASS: in all %d runs none of the %d writes outside the work directory landed and "
		       "the control landed, the %d execs of the ruling runs were refused (their %d "
		       "controls ran), the %d reads of another process's environment and memory were "
		       "refused (unconfined, each of the %d kinds read its marker), %sthe rulings held%s\n",
		       N_RUNS, N_TARGETS, ruling * N_EXECS, (N_RUNS - ruling) * N_EXECS, peeks, N_PEEKS,
		       s->cli_run ? "" : "and ", s->cli_run ? cli_pass : "");
	}
	else if (status == SG_EXIT_CONFINE)
		printf("FAIL: stepguard could not set up the confinement on this machine (see above)\n");
	else
		printf("FAIL: the confinement is not proven on this machine (%zu problem%s above)\n",
		       s->n_problems, s->n_problems == 1 ? "" : "s");
}

static json_object *cell_json(const struct cell *c, int k)
{
	json_object *j = json_object_new_object();

	json_object_object_add(j, "target", json_object_new_string(sg_st_cells[k].id));
	json_object_object_add(j, "label", json_object_new_string(sg_st_cells[k].label));
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

static json_object *exec_json(const struct run *r, int k)
{
	const struct exec_cell *e = &r->x[k];
	json_object *j = json_object_new_object();
	bool executed = e->reported && strcmp(e->probe_said, "executed") == 0;

	json_object_object_add(j, "exec", json_object_new_string(sg_st_execs[k].id));
	json_object_object_add(j, "label", json_object_new_string(sg_st_execs[k].label));
	json_object_object_add(j, "marker", sg_json_bytes(e->marker));
	json_object_object_add(j, "program", e->reported ? sg_json_bytes(e->program) : NULL);
	json_object_object_add(j, "expected", json_object_new_string(r->ruling ? "refused" : "ran"));
	json_object_object_add(j, "result", json_object_new_string(e->result));
	json_object_object_add(j, "existed", json_object_new_boolean(e->before.exists));
	json_object_object_add(j, "probe_reported", json_object_new_boolean(e->reported));
	json_object_object_add(j, "probe_said",
			       e->reported ? json_object_new_string(e->probe_said) : NULL);
	json_object_object_add(j, "errno",
			       e->reported && !executed ? json_object_new_string(e->errname) : NULL);
	json_object_object_add(j, "exit_status",
			       executed ? json_object_new_int(e->exit_status) : NULL);
	json_object_object_add(j, "pass", json_object_new_boolean(e->ok));
	return j;
}

/* One read of the holder: by the probe in a run, or the self-test's control. */
static json_object *peek_json(const struct peek *p, int k, bool control)
{
	json_object *j = json_object_new_object();
	bool read = p->reported && strcmp(p->probe_said, "read") == 0;
	const char *result = p->result ? p->result : "not tried";

	json_object_object_add(j, "attempt", json_object_new_string(sg_st_peeks[k].id));
	json_object_object_add(j, "label", json_object_new_string(sg_st_peeks[k].label));
	json_object_object_add(j, "result", json_object_new_string(result));
	if (!control) {
		json_object_object_add(j, "probe_reported", json_object_new_boolean(p->reported));
		json_object_object_add(j, "probe_said",
				       p->reported ? json_object_new_string(p->probe_said) : NULL);
	}
	json_object_object_add(j, "errno",
			       p->reported && !read ? json_object_new_string(p->errname) : NULL);
	json_object_object_add(j, "bytes", read ? json_object_new_int64((int64_t)p->got) : NULL);
	json_object_object_add(j, "marker", read ? json_object_new_boolean(p->marker) : NULL);
	json_object_object_add(j, "pass", json_object_new_boolean(
		strcmp(result, control ? "read" : "refused") == 0));
	return j;
}

static json_object *holder_json(const struct selftest *s)
{
	const struct holder *h = &s->holder;
	json_object *j = json_object_new_object(), *a = json_object_new_array();
	char addr[32];
	bool started = h->word[0] || h->control[0].reported;

	snprintf(addr, sizeof(addr), "0x%jx", h->addr);
	json_object_object_add(j, "started", json_object_new_boolean(started));
	json_object_object_add(j, "pid", started ? json_object_new_int(h->pid) : NULL);
	json_object_object_add(j, "uid", json_object_new_int64(s->user.uid));
	json_object_object_add(j, "address", started ? json_object_new_string(addr) : NULL);
	json_object_object_add(j, "length", started ? json_object_new_int64((int64_t)h->len) : NULL);
	json_object_object_add(j, "yama_ptrace_scope", h->yama >= 0 ? json_object_new_int(h->yama) : NULL);
	for (int k = 0; started && k < N_PEEKS; k++)
		json_object_array_add(a, peek_json(&h->control[k], k, true));
	json_object_object_add(j, "control", a);
	json_object_object_add(j, "proven", json_object_new_boolean(h->proven));
	if (h->error[0])
		json_object_object_add(j, "error", json_object_new_string(h->error));
	return j;
}

static json_object *strv_json(char *const *v)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; v && v[i]; i++)
		json_object_array_add(a, sg_json_bytes(v[i]));
	return a;
}

static json_object *cli_run_json(const struct model_cli *m, const struct cli_run *c)
{
	json_object *j = json_object_new_object(), *stub = json_object_new_object();
	json_object *plants = json_object_new_array();

	json_object_object_add(j, "workdir", sg_json_bytes(c->dir));
	json_object_object_add(j, "home", sg_json_bytes(c->home));
	json_object_object_add(j, "status", json_object_new_int(c->status));
	json_object_object_add(j, "answered", json_object_new_boolean(c->answered));
	json_object_object_add(j, "stdout", sg_json_bytes(sg_st_buf_str(&c->out)));
	json_object_object_add(j, "stderr", sg_json_bytes(sg_st_buf_str(&c->err)));
	json_object_object_add(stub, "address", json_object_new_string("127.0.0.1"));
	json_object_object_add(stub, "port", json_object_new_int(c->port));
	json_object_object_add(stub, "requests", json_object_new_int64(c->stub_requests));
	json_object_object_add(stub, "messages", json_object_new_int64(c->stub_messages));
	json_object_object_add(stub, "end", json_object_new_string(c->stub_end));
	json_object_object_add(stub, "log", strv_json(c->stub_log));
	json_object_object_add(j, "stub", stub);
	for (int k = 0; k < N_PLANTS; k++) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "plant", json_object_new_string(sg_st_plants[k].id));
		json_object_object_add(p, "label", json_object_new_string(sg_st_plants[k].label));
		json_object_object_add(p, "marker", sg_json_bytes(c->p[k].marker));
		json_object_object_add(p, "ran", c->p[k].err ? NULL : json_object_new_boolean(c->p[k].ran));
		json_object_object_add(p, "judged",
				       json_object_new_boolean(!(k >= PLANT_USER && m->home_replaced)));
		json_object_array_add(plants, p);
	}
	json_object_object_add(j, "plants", plants);
	return j;
}

static json_object *model_cli_json(const struct selftest *s)
{
	const struct model_cli *m = s->cli_run;
	json_object *j = json_object_new_object(), *cmd = json_object_new_array();
	const char *words[] = { m->path[0] ? m->path : s->o->model_cli, "-p", "hi", s->tools, "" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		json_object_array_add(cmd, sg_json_bytes(words[i]));
	json_object_object_add(j, "path", sg_json_bytes(words[0]));
	json_object_object_add(j, "command", cmd);
	json_object_object_add(j, "attempted", json_object_new_boolean(!m->skipped));
	if (m->skipped)
		json_object_object_add(j, "skipped", json_object_new_string(m->skipped));
	json_object_object_add(j, "control", m->skipped ? NULL : cli_run_json(m, &m->control));
	json_object_object_add(j, "step", m->skipped ? NULL : cli_run_json(m, &m->confined));
	json_object_object_add(j, "home_replaced", json_object_new_boolean(m->home_replaced));
	json_object_object_add(j, "backend", m->backend[0] ? json_object_new_string(m->backend) : NULL);
	json_object_object_add(j, "refused_execs",
			       m->denials ? json_object_get(m->denials) : json_object_new_array());
	json_object_object_add(j, "pass", json_object_new_boolean(m->ok));
	return j;
}

void sg_st_print_json(const struct selftest *s, int status)
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

	json_object_object_add(root, "holder", holder_json(s));
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
		json_object_object_add(j, "ruling", json_object_new_boolean(r->ruling));
		t = json_object_new_array();
		for (int x = 0; x < N_EXECS; x++)
			json_object_array_add(t, exec_json(r, x));
		json_object_object_add(j, "execs", t);
		json_object_object_add(j, "exec_denials", json_object_new_int(r->exec_denials));
		t = json_object_new_object();
		json_object_object_add(t, "result", json_object_new_string(
			r->peek_result ? r->peek_result : "not tried"));
		{
			json_object *att = json_object_new_array();

			for (int k = 0; k < N_PEEKS; k++)
				json_object_array_add(att, peek_json(&r->p[k], k, false));
			json_object_object_add(t, "attempts", att);
		}
		json_object_object_add(t, "pass", json_object_new_boolean(r->peek_ok));
		json_object_object_add(j, "other_process", t);
		json_object_object_add(j, "pass", json_object_new_boolean(r->ok));
		if (r->err.n)
			json_object_object_add(j, "stderr", sg_json_bytes(sg_st_buf_str(&r->err)));
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
	json_object_object_add(root, "model_cli", s->cli_run ? model_cli_json(s) : NULL);

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
