// SPDX-License-Identifier: MIT
/*
 * selftest/modelcli.c — `stepguard --self-test --model-cli PATH`: after
 * the six probe runs, the real model CLI, run as a ruling-2 step.
 *
 *   stepguard [the caller's options] -w DIR -- PATH -p hi --tools ""
 *
 * in a work directory that holds a planted project hook (SessionStart,
 * UserPromptSubmit, Stop), a project stdio MCP server (.mcp.json, enabled
 * by the settings) and, in the step's scratch HOME, the same three hooks
 * as the user's.  Each would write a marker in the work directory, where
 * writes land: only the exec rule can stop them.  (The ruling options
 * the policy adds, --setting-sources=user --strict-mcp-config, keep the
 * CLI from loading the project's plants at all, and a SessionStart hook
 * runs only where the CLI can keep its session, which it cannot in a
 * HOME outside the work directory; the user's UserPromptSubmit and Stop
 * hooks it starts all the same, and those are the kernel's to refuse.)  The
 * key is a dummy and ANTHROPIC_BASE_URL points at the stub the self-test
 * serves on 127.0.0.1 (stubapi.c), so nothing leaves the machine.
 *
 * It passes only if the CLI printed "ok", exited 0, the stub was asked,
 * and no marker exists.  Before that, the same CLI runs once without
 * stepguard, as the step's user, in a copy of the plants (the control):
 * each plant must run there, or its absence under stepguard proves
 * nothing (a CLI that stopped reading hooks would pass otherwise).
 */
#include "selftest/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/env.h"
#include "lib/exitcodes.h"
#include "selftest/stubapi.h"

/* Clearly not a key: the stub never looks, and nothing else is asked. */
#define DUMMY_KEY "dummy-stepguard-self-test"
#define STUB_MAX_REQUESTS 64

const struct sg_st_plant_name sg_st_plants[N_PLANTS] = {
	{ "project-hook-SessionStart", "project hook SessionStart" },
	{ "project-hook-UserPromptSubmit", "project hook UserPromptSubmit" },
	{ "project-hook-Stop", "project hook Stop" },
	{ "project-mcp-server", "project MCP server (.mcp.json)" },
	{ "user-hook-SessionStart", "user hook SessionStart" },
	{ "user-hook-UserPromptSubmit", "user hook UserPromptSubmit" },
	{ "user-hook-Stop", "user hook Stop" },
};

/* ---- the plants ------------------------------------------------------- */

/* 'PATH' for sh, with each ' as '\'' : a hook's command is a shell line. */
static char *sh_quote(const char *p)
{
	size_t n = 3;
	char *q, *o;

	for (const char *c = p; *c; c++)
		n += *c == '\'' ? 4 : 1;
	if (!(q = malloc(n)))
		return NULL;
	o = q;
	*o++ = '\'';
	for (const char *c = p; *c; c++)
		if (*c == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *c;
		}
	*o++ = '\'';
	*o = '\0';
	return q;
}

/* {"hooks": [{"type": "command", "command": "echo ... > 'MARKER'"}]} */
static json_object *hook(const char *marker)
{
	json_object *h = json_object_new_object(), *list = json_object_new_array();
	json_object *entry = json_object_new_object();
	char *q = sh_quote(marker), *cmd = NULL;

	if (!q || asprintf(&cmd, "echo stepguard-self-test-hook > %s", q) < 0)
		cmd = NULL;
	free(q);
	json_object_object_add(h, "type", json_object_new_string("command"));
	json_object_object_add(h, "command", cmd ? json_object_new_string(cmd) : NULL);
	free(cmd);
	json_object_array_add(list, h);
	json_object_object_add(entry, "hooks", list);
	list = json_object_new_array();
	json_object_array_add(list, entry);
	return list;
}

/* Written as the step's user would find it; a file that exists is not ours: refused. */
static int write_json(const struct selftest *s, const char *path, json_object *j)
{
	const char *text = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644), r = 0;
	size_t n = strlen(text);

	if (fd < 0)
		r = -errno;
	else if (write(fd, text, n) != (ssize_t)n || fsync(fd) < 0)
		r = -(errno ? errno : EIO);
	if (fd >= 0 && close(fd) < 0 && r == 0)
		r = -errno;
	/* TEXT is J's: freed only now. */
	json_object_put(j);
	return r < 0 ? r : sg_st_give(s, path);
}

/*
 * Write J (taken, freed) to DIR/NAME as write_json() does; WHAT
 * (PATH_MAX bytes) gets the path, for the message if it fails.
 */
static int write_json_at(const struct selftest *s, const char *dir, const char *name,
			 json_object *j, char *what)
{
	char file[PATH_MAX];

	if (sg_st_pathf(file, sizeof(file), "%s/%s", dir, name) < 0) {
		json_object_put(j);
		return -ENAMETOOLONG;
	}
	snprintf(what, PATH_MAX, "%s", file);
	return write_json(s, file, j);
}

/*
 * TOP/NAME, the run's work directory, with the project's plants and the
 * markers' names (the CLI's TMPDIR is the one stepguard gives each step);
 * TOP/NAME-home, its HOME, with the user's
 * plants in .claude/settings.json (beside the work directory: stepguard
 * refuses a work directory that holds HOME).  All given to the step's
 * user.
 */
/* WHAT (PATH_MAX bytes) gets the path at fault. */
static int plant(struct selftest *s, struct cli_run *c, const char *name, char *what)
{
	char claude[PATH_MAX], cfg[PATH_MAX];
	json_object *j, *hooks, *servers, *srv, *args;
	int r;

	/* Only for the message: a path too long is the error of the line after. */
	(void)sg_st_pathf(what, PATH_MAX, "%s/%s", s->top, name);
	if (sg_st_pathf(c->dir, sizeof(c->dir), "%s/%s", s->top, name) < 0 ||
	    sg_st_pathf(c->home, sizeof(c->home), "%s/%s-home", s->top, name) < 0 ||
	    sg_st_pathf(claude, sizeof(claude), "%s/.claude", c->dir) < 0 ||
	    sg_st_pathf(cfg, sizeof(cfg), "%s/.claude", c->home) < 0)
		return -ENAMETOOLONG;
	for (int k = 0; k < N_PLANTS; k++)
		if (sg_st_pathf(c->p[k].marker, sizeof(c->p[k].marker), "%s/stepguard-selftest-%s-%s",
				c->dir, sg_st_plants[k].id, s->nonce) < 0)
			return -ENAMETOOLONG;
	{
		const char *const dirs[] = { c->dir, claude, c->home, cfg };

		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			snprintf(what, PATH_MAX, "%s", dirs[i]);
			if (mkdir(dirs[i], 0755) < 0)
				return -errno;
			if ((r = sg_st_give(s, dirs[i])) < 0)
				return r;
		}
	}

	/* The project's settings: three hooks, and every project MCP server enabled. */
	j = json_object_new_object();
	hooks = json_object_new_object();
	json_object_object_add(hooks, "SessionStart", hook(c->p[0].marker));
	json_object_object_add(hooks, "UserPromptSubmit", hook(c->p[1].marker));
	json_object_object_add(hooks, "Stop", hook(c->p[2].marker));
	json_object_object_add(j, "hooks", hooks);
	json_object_object_add(j, "enableAllProjectMcpServers", json_object_new_boolean(1));
	if ((r = write_json_at(s, claude, "settings.json", j, what)) < 0)
		return r;

	/* A stdio MCP server: the marker is its $0, so no quoting is involved. */
	j = json_object_new_object();
	servers = json_object_new_object();
	srv = json_object_new_object();
	args = json_object_new_array();
	json_object_array_add(args, json_object_new_string("-c"));
	json_object_array_add(args, json_object_new_string("echo stepguard-self-test-mcp > \"$0\""));
	json_object_array_add(args, json_object_new_string(c->p[PLANT_MCP].marker));
	json_object_object_add(srv, "type", json_object_new_string("stdio"));
	json_object_object_add(srv, "command", json_object_new_string("/bin/sh"));
	json_object_object_add(srv, "args", args);
	json_object_object_add(servers, "stepguard-selftest", srv);
	json_object_object_add(j, "mcpServers", servers);
	if ((r = write_json_at(s, c->dir, ".mcp.json", j, what)) < 0)
		return r;

	/* The user's settings: --setting-sources=user, the ruling options, keeps them. */
	j = json_object_new_object();
	hooks = json_object_new_object();
	json_object_object_add(hooks, "SessionStart", hook(c->p[PLANT_USER].marker));
	json_object_object_add(hooks, "UserPromptSubmit", hook(c->p[PLANT_USER + 1].marker));
	json_object_object_add(hooks, "Stop", hook(c->p[PLANT_USER + 2].marker));
	json_object_object_add(j, "hooks", hooks);
	return write_json_at(s, cfg, "settings.json", j, what);
}

/* ---- one run of the CLI ----------------------------------------------- */

/*
 * The CLI's environment: made here, not the caller's, so that no real
 * credential, provider switch (Bedrock, Vertex), proxy or configuration
 * of the caller's reaches it.  Kept: PATH, the locale, and SUDO_* (which
 * tell stepguard the step's user).  Not CLAUDE_CONFIG_DIR, which would
 * keep the user's settings out of HOME: a ruling step refuses it (it is
 * one of the policy's tool variables).
 */
static char **cli_env(const struct selftest *s, const struct cli_run *c)
{
	static const char *const keep[] = { "PATH", "LANG", "LC_ALL", "LC_CTYPE",
					    "SUDO_UID", "SUDO_GID", "SUDO_USER" };
	const size_t max = sizeof(keep) / sizeof(keep[0]) + 10;
	char **env = calloc(max + 1, sizeof(*env));
	size_t n = 0;
	bool ok = env != NULL;

	for (size_t i = 0; ok && i < sizeof(keep) / sizeof(keep[0]); i++) {
		const char *v = sg_env_get(s->envp, keep[i]);

		if (v || strcmp(keep[i], "PATH") == 0)
			ok = asprintf(&env[n++], "%s=%s", keep[i],
				      v ? v : "/usr/local/bin:/usr/bin:/bin") >= 0;
	}
	ok = ok && asprintf(&env[n++], "HOME=%s", c->home) >= 0 &&
	     asprintf(&env[n++], "USER=%s", s->user.name) >= 0 &&
	     asprintf(&env[n++], "LOGNAME=%s", s->user.name) >= 0 &&
	     asprintf(&env[n++], "ANTHROPIC_BASE_URL=http://127.0.0.1:%d", c->port) >= 0 &&
	     asprintf(&env[n++], "ANTHROPIC_API_KEY=%s", DUMMY_KEY) >= 0 &&
	     asprintf(&env[n++], "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1") >= 0;
	if (!ok) {
		/* asprintf leaves its pointer undefined on failure: clear it first. */
		if (env && n)
			env[n - 1] = NULL;
		sg_st_strv_free(env);
		return NULL;
	}
	return env;
}

/* "ok" on a line of its own: what the CLI prints for the stub's answer. */
static bool said_ok(const struct buf *b)
{
	const char *p = sg_st_buf_str(b);

	while (*p) {
		size_t n = strcspn(p, "\n");
		size_t m = n;

		while (m > 0 && (p[m - 1] == '\r' || p[m - 1] == ' '))
			m--;
		if (m == 2 && strncmp(p, "ok", 2) == 0)
			return true;
		p += n + (p[n] == '\n');
	}
	return false;
}

/*
 * Run the CLI in C's directory against a stub of its own: under stepguard
 * when CONFINED, else directly as the step's user.
 */
static void cli_once(struct selftest *s, struct model_cli *m, struct cli_run *c, bool confined)
{
	const char **argv = calloc(ARGV_MAX(s) + 8, sizeof(*argv));
	struct sg_stub st;
	struct sg_stub_log log;
	char **env = NULL;
	size_t n = 0;
	int r;

	c->attempted = true;
	c->status = -ENOMEM;
	if (!argv) {
		sg_st_problem(s, "model CLI: out of memory");
		return;
	}
	if ((r = sg_stub_start(&st, CLI_TIMEOUT_MS + 10000, STUB_MAX_REQUESTS)) < 0) {
		c->status = r;
		free(argv);
		sg_st_problem(s, "model CLI: cannot serve the stub API on 127.0.0.1: %s", strerror(-r));
		return;
	}
	c->port = st.port;
	if (!(env = cli_env(s, c))) {
		(void)sg_stub_stop(&st, &log);
		sg_stub_log_free(&log);
		free(argv);
		sg_st_problem(s, "model CLI: out of memory");
		return;
	}
	if (confined) {
		n = sg_st_common_args(s, argv, 0, c->dir);
		argv[n++] = "--log";
		argv[n++] = m->log;
		argv[n++] = "--";
	}
	argv[n++] = m->path;
	argv[n++] = "-p";
	argv[n++] = "hi";
	argv[n++] = s->tools;
	argv[n++] = "";
	argv[n] = NULL;
	if (confined)
		c->status = sg_st_run_stepguard((char *const *)argv, env, c->dir, CLI_TIMEOUT_MS,
						&c->out, &c->err);
	else
		c->status = sg_st_run_program(m->path, (char *const *)argv, env, c->dir, &s->user,
					      CLI_TIMEOUT_MS, &c->out, &c->err);
	sg_st_strv_free(env);
	free(argv);
	if (sg_stub_stop(&st, &log) < 0)
		sg_st_problem(s, "model CLI: out of memory reading the stub's report");
	c->stub_log = log.lines;
	c->stub_requests = log.requests;
	c->stub_messages = log.messages;
	snprintf(c->stub_end, sizeof(c->stub_end), "%s", log.end);
	c->answered = said_ok(&c->out);
	for (int k = 0; k < N_PLANTS; k++) {
		struct stat st_m;

		if (lstat(c->p[k].marker, &st_m) == 0)
			c->p[k].ran = true;
		else if (errno != ENOENT)
			c->p[k].err = errno;
	}
}

/* The confined run's log: its backend, and each refused exec's record, kept as it is. */
static void read_log(struct model_cli *m)
{
	FILE *f = fopen(m->log, "re");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		json_object *rec = json_tokener_parse(line), *v;
		const char *ev;

		if (!rec)
			continue;
		ev = json_object_object_get_ex(rec, "event", &v) ? json_object_get_string(v) : "";
		if (strcmp(ev, "start") == 0 && json_object_object_get_ex(rec, "backend", &v)) {
			snprintf(m->backend, sizeof(m->backend), "%s", json_object_get_string(v));
		} else if (strcmp(ev, "denial") == 0 && json_object_object_get_ex(rec, "op", &v) &&
			   strcmp(json_object_get_string(v), "exec") == 0) {
			if (!m->denials)
				m->denials = json_object_new_array();
			if (m->denials)
				json_object_array_add(m->denials, json_object_get(rec));
		}
		json_object_put(rec);
	}
	free(line);
	(void)fclose(f); /* read only: nothing to lose */
}

/* The first lines of what a run printed, for a problem. */
static void head(const struct buf *b, char *out, size_t len)
{
	char raw[512];

	snprintf(raw, sizeof(raw), "%s", sg_st_buf_str(b));
	for (int lines = 0, i = 0; raw[i]; i++)
		if (raw[i] == '\n' && ++lines == 5) {
			raw[i] = '\0';
			break;
		}
	snprintf(out, len, "%s", raw);
}

/* ---- judging ---------------------------------------------------------- */

static void judge(struct selftest *s, struct model_cli *m)
{
	struct cli_run *ctl = &m->control, *c = &m->confined;
	char h[600];

	/* The control: the CLI works with the stub, and every plant runs without stepguard. */
	if (!ctl->answered) {
		head(ctl->status == 0 ? &ctl->out : &ctl->err, h, sizeof(h));
		sg_st_problem(s, "model CLI: even without stepguard, %s did not answer \"ok\" "
			"(status %d)%s%s", m->path, ctl->status, *h ? ":\n" : "", h);
	}
	for (int k = 0; k < N_PLANTS; k++)
		if (!ctl->p[k].ran && !(k >= PLANT_USER && m->home_replaced))
			sg_st_problem(s, "model CLI: without stepguard the %s did not run either (no "
				"marker %s): the CLI did not start it, so its absence under stepguard "
				"proves nothing", sg_st_plants[k].label, ctl->p[k].marker);

	/* Under stepguard: it answered, and nothing it must not start ran. */
	if (c->status != 0) {
		head(&c->err, h, sizeof(h));
		if (c->status == SG_EXIT_CONFINE)
			s->confine_failed = true;
		sg_st_problem(s, "model CLI: stepguard -- %s -p hi %s \"\" exited with status %d%s%s%s",
			m->path, s->tools, c->status,
			c->status == SG_EXIT_REFUSED ? " (refused by a ruling)"
			: c->status == SG_EXIT_CONFINE ? " (the confinement could not be set up)" : "",
			*h ? ":\n" : "", h);
	}
	if (!c->answered) {
		head(&c->out, h, sizeof(h));
		sg_st_problem(s, "model CLI: under stepguard the CLI did not print \"ok\"%s%s",
			*h ? "; it printed:\n" : " (it printed nothing)", h);
	}
	if (c->stub_messages == 0)
		sg_st_problem(s, "model CLI: under stepguard the stub API answered no POST /v1/messages "
			"(%u request%s; the stub: %s)", c->stub_requests,
			c->stub_requests == 1 ? "" : "s", c->stub_end);
	for (int k = 0; k < N_PLANTS; k++) {
		if (c->p[k].err) {
			sg_st_problem(s, "model CLI: cannot check the marker %s: %s", c->p[k].marker,
				strerror(c->p[k].err));
		} else if (c->p[k].ran) {
			/* A tool ran with the credential in its environment: ruling 2 did not hold. */
			s->landed_any = true;
			sg_st_problem(s, "model CLI: under stepguard the %s ran: its marker %s appeared, "
				"where a ruling step may execute only the model CLI and [model-cli] "
				"exec-allow", sg_st_plants[k].label, c->p[k].marker);
		}
	}
	m->ok = c->status == 0 && c->answered && c->stub_messages > 0;
	for (int k = 0; k < N_PLANTS; k++)
		m->ok = m->ok && !c->p[k].ran && !c->p[k].err &&
			(ctl->p[k].ran || (k >= PLANT_USER && m->home_replaced));
	m->ok = m->ok && ctl->answered;
}

void sg_st_model_cli(struct selftest *s)
{
	struct model_cli *m = s->cli_run;
	char abs[PATH_MAX];
	char what[PATH_MAX] = "";
	struct stat st;
	int r;

	if (!m)
		return;
	if (s->confine_failed) {
		m->skipped = "the confinement could not be set up";
		return;
	}
	snprintf(m->path, sizeof(m->path), "%s", sg_st_absolute(s, s->o->model_cli, abs, sizeof(abs)));
	r = stat(m->path, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
	if (r < 0) {
		m->skipped = "it is not a file";
		sg_st_problem(s, "model CLI: %s: %s", m->path,
			r == -EINVAL ? "not a regular file" : strerror(-r));
		return;
	}
	if ((r = sg_st_user_can(s, m->path, X_OK)) < 0) {
		m->skipped = "the step's user cannot execute it";
		sg_st_problem(s, "model CLI: user %s cannot execute %s even without stepguard (%s)",
			s->user.name, m->path, strerror(-r));
		return;
	}
	if (sg_st_pathf(m->log, sizeof(m->log), "%s/cli.log", s->priv) < 0 ||
	    (r = plant(s, &m->control, "cli-control", what)) < 0 ||
	    (r = plant(s, &m->confined, "cli-step", what)) < 0) {
		m->skipped = "its work directory could not be prepared";
		sg_st_problem(s, "model CLI: cannot prepare %s: %s", *what ? what : s->priv,
			strerror(r < 0 ? -r : ENAMETOOLONG));
		return;
	}
	m->skipped = NULL;
	/*
	 * A stepguard that drops to a user gives the step that user's HOME,
	 * where the self-test writes nothing: the user's hooks are then not
	 * where the CLI looks, and prove nothing either way.
	 */
	m->home_replaced = s->user.drop;
	cli_once(s, m, &m->control, false);
	cli_once(s, m, &m->confined, true);
	read_log(m);
	judge(s, m);
}

static void cli_run_free(struct cli_run *c)
{
	sg_st_buf_free(&c->out);
	sg_st_buf_free(&c->err);
	sg_st_strv_free(c->stub_log);
	c->stub_log = NULL;
}

void sg_st_model_cli_free(struct model_cli *m)
{
	if (!m)
		return;
	cli_run_free(&m->control);
	cli_run_free(&m->confined);
	json_object_put(m->denials);
	free(m);
}
