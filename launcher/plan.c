// SPDX-License-Identifier: MIT
/* plan.c — the plan of a step (plan.h), computed once, printed by no one. */
#include "launcher/plan.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/env.h"
#include "policy/expand.h"

void sg_plan_print_error(const struct sg_error *err)
{
	if (err->line)
		fprintf(stderr, "stepguard: %s:%u: %s\n", err->file, err->line, err->msg);
	else if (err->file[0])
		fprintf(stderr, "stepguard: %s: %s\n", err->file, err->msg);
	else /* from the command line, not a file */
		fprintf(stderr, "stepguard: %s\n", err->msg);
}

int sg_plan_base(struct sg_plan *pl, const struct sg_options *o, char *const envp[],
		 struct sg_error *err)
{
	int r;

	memset(pl, 0, sizeof(*pl));
	pl->tmp.fd = pl->tmp.base_fd = -1; /* sg_plan_free() closes what is open */
	pl->o = o;
	sg_policy_init(&pl->policy);
	r = sg_policy_load(o, envp, &pl->policy, &pl->sources, err);
	if (r < 0)
		return r;
	pl->step = sg_policy_step(&pl->policy, o->step);
	sg_policy_effective(&pl->policy, pl->step, &pl->eff);
	/* The command line wins over the policy. */
	if (o->mode != SG_MODE_UNSET)
		pl->eff.mode = o->mode;
	if (o->filter != SG_FILTER_UNSET)
		pl->eff.filter = o->filter;

	/*
	 * Who the step runs as decides its HOME, which the roots depend on.
	 * Quiet, no start line shows the user's name: a step that runs as
	 * its caller then reads no password database (docs/performance.md).
	 */
	r = o->quiet ? sg_user_resolve_unnamed(o->user, envp, &pl->user, err)
		     : sg_user_resolve(o->user, envp, &pl->user, err);
	if (r < 0)
		return r == -ENOMEM ? r : -EINVAL;
	pl->env = sg_user_env(&pl->user, envp);
	if (!pl->env)
		return -ENOMEM;
	return 0;
}

void sg_plan_step(struct sg_plan *pl)
{
	struct sg_error *err = &pl->roots_err;

	sg_ruling_decide(&pl->policy, pl->o->argv, pl->env, &pl->ruling);
	/*
	 * A hook, an MCP server or a plugin is a tool, and the CLI starts
	 * them from what it reads (files, the environment, stdin), which no
	 * command line shows: so a step the rulings let run may execute only
	 * the CLI and what the policy names.  Resolved now, from the same
	 * PATH the exec will search, before anything of the step runs.
	 */
	/* The command to execute: a ruling step gets the ruling options. */
	if (sg_ruling_argv(&pl->policy, &pl->ruling, pl->o->argv, &pl->argv) == 0)
		while (pl->argv[pl->argc])
			pl->argc++;
	if (pl->ruling.rule != 0 && pl->ruling.reason == SG_OK) {
		pl->exec_restricted = true;
		pl->execs_r = sg_execs_resolve(&pl->policy, pl->o->argv[0], &pl->execs,
					       &pl->execs_err);
	}
	snprintf(err->file, sizeof(err->file), "stepguard");
	pl->roots_r = sg_roots_resolve(&pl->policy, pl->step, pl->o, pl->env, &pl->roots, err);
	if (pl->roots_r < 0)
		return;
	pl->roots_r = sg_sockets_resolve(&pl->policy, &pl->sockets, err);
	if (pl->roots_r < 0)
		return;
	pl->tmp_r = sg_tmpdir_plan(&pl->tmp, &pl->eff, pl->env, pl->roots.v[0].path, pl->user.uid,
				   &pl->tmp_err);
	if (pl->tmp_r < 0)
		return;
	/* A log the run would refuse is an invalid plan, for --check too. */
	pl->log_r = sg_plan_log_path(pl, &pl->log_path, pl->log_msg, sizeof(pl->log_msg));
}

/* Every name a tool may read its temporary directory from. */
static const char *const tmp_vars[] = { "TMPDIR", "TMP", "TEMP", "TEMPDIR" };

int sg_plan_make_tmpdir(struct sg_plan *pl, struct sg_error *err)
{
	int r;

	if (!pl->tmp.on)
		return 0;
	r = sg_tmpdir_make(&pl->tmp, pl->o->step, pl->user.uid, pl->user.gid, err);
	if (r < 0)
		return r;
	r = sg_roots_add_made(&pl->roots, pl->tmp.fd, pl->tmp.path, "temporary directory");
	for (size_t i = 0; r == 0 && i < sizeof(tmp_vars) / sizeof(tmp_vars[0]); i++)
		r = sg_env_set(&pl->env, tmp_vars[i], pl->tmp.path);
	if (r < 0)
		snprintf(err->msg, sizeof(err->msg), "cannot set up the step's temporary directory %s: %s",
			 pl->tmp.path, strerror(-r));
	return r;
}

void sg_plan_free(struct sg_plan *pl)
{
	free(pl->argv); /* the array only: its strings are the options' and the policy's */
	free(pl->log_path);
	sg_env_free(pl->env);
	sg_roots_free(&pl->roots);
	sg_roots_free(&pl->sockets);
	sg_roots_free(&pl->execs);
	sg_tmpdir_free(&pl->tmp);
	sg_sources_free(&pl->sources);
	sg_policy_free(&pl->policy);
	memset(pl, 0, sizeof(*pl));
}

/* The log path: --log / STEPGUARD_LOG, else the policy's, expanded. */
int sg_plan_log_path(const struct sg_plan *s, char **out, char *msg, size_t len)
{
	struct sg_expand_vars vars = { s->roots.v[0].path, sg_env_get(s->env, "HOME"), s->env };
	char m[256], dir[PATH_MAX], *slash;
	char *path = NULL;

	*out = NULL;
	if (s->o->log) {
		path = strdup(s->o->log);
	} else if (s->eff.log.set && *s->eff.log.s) {
		if (sg_expand(s->eff.log.s, &vars, &path, m, sizeof(m)) < 0) {
			snprintf(msg, len, "%s:%u: log: %s", s->eff.log.origin.file,
				 s->eff.log.origin.line, m);
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
		for (size_t i = 0; i < s->roots.n; i++)
			if (s->roots.v[i].fd >= 0 && s->roots.v[i].is_dir &&
			    sg_path_covers(s->roots.v[i].path, real)) {
				snprintf(msg, len,
					 "log %s is inside the writable root %s, where the step could rewrite it; "
					 "put it outside (for example under $RUNNER_TEMP)",
					 path, s->roots.v[i].path);
				free(path);
				return -EPERM;
			}
	}
	*out = path;
	return 0;
}

