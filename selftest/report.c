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
		printf("  probe         %s, run as %s -p %s \"\" -- TARGET...\n\n", s->probe, s->cli,
		       s->tools);
		printf("  %-6s %-7s | %-13s | %-16s | %-12s | %-25s | %s\n", "scrub", "order",
		       sg_st_cells[0].label, sg_st_cells[1].label, sg_st_cells[2].label, sg_st_cells[3].label, sg_st_cells[4].label);
		for (int i = 0; i < N_RUNS; i++) {
			const struct run *r = &s->runs[i];

			if (!r->attempted)
				continue;
			printf("  %-6s %-7s | %-13s | %-16s | %-12s | %-25s | %s\n",
			       sg_st_scrub_label(r->scrub), i < N_RUNS / 2 ? "forward" : "reverse",
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
