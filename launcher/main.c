// SPDX-License-Identifier: MIT
/*
 * main.c — stepguard: options → plan (policy, user, rulings, roots, log)
 * → confinement → exec.  Each stage is a module that returns -errno; this
 * file and step.c print, once, with the file, line and fix.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "audit/audit.h"
#include "launcher/check.h"
#include "launcher/options.h"
#include "launcher/plan.h"
#include "launcher/step.h"
#include "launcher/unload.h"
#include "lib/exitcodes.h"
#include "selftest/selftest.h"

#ifndef STEPGUARD_VERSION
#define STEPGUARD_VERSION "0.0.0-dev"
#endif

extern char **environ;

static int self_test(const struct sg_plan *pl)
{
	const struct sg_options *o = pl->o;
	struct sg_selftest_args a = {
		.policy = o->policy,
		.rules_dir = o->rules_dir,
		.step = o->step,
		.user = o->user,
		.filter = o->filter,
		.mode = o->mode,
		.allow_write = o->allow_write,
		.n_allow_write = o->n_allow_write,
		.model_cli = o->model_cli,
		.json = o->json,
		.verbose = o->verbose,
		.quiet = o->quiet,
		.merged = &pl->policy,
	};

	return sg_self_test(&a, pl->env);
}

/* The step itself: refused by the rulings, by its roots or log, or run. */
static int run(struct sg_plan *pl)
{
	char msg[2048];

	sg_plan_step(pl);
	if (pl->o->check)
		return sg_check_run(stdout, pl);
	/* Refuse by the rulings first: that is the answer the user needs. */
	if (pl->ruling.reason != SG_OK) {
		sg_ruling_explain(&pl->policy, &pl->ruling, pl->o->argv, pl->env, msg, sizeof(msg));
		fprintf(stderr, "stepguard: %s\n", msg);
		return pl->ruling.reason == SG_NO_COMMAND ? SG_EXIT_USAGE : SG_EXIT_REFUSED;
	}
	if (!pl->argv) {
		fprintf(stderr, "stepguard: out of memory; the step was not run\n");
		return SG_EXIT_CONFINE;
	}
	if (pl->roots_r < 0) {
		if (pl->roots_r == -ENOMEM)
			fprintf(stderr, "stepguard: out of memory resolving the writable roots\n");
		else
			sg_plan_print_error(&pl->roots_err);
		return SG_EXIT_USAGE;
	}
	if (pl->execs_r == -ENOENT) {
		/* The CLI is not found: said as any command that is not (step.c). */
		const char *var = sg_credential_in(&pl->policy, pl->env, pl->o->argv[0]);

		if (var)
			fprintf(stderr, "stepguard: (the command, holding the value of %s or part of it, "
					"not shown): %s\n", var, strerror(ENOENT));
		else
			fprintf(stderr, "stepguard: %s: %s\n", pl->o->argv[0], strerror(ENOENT));
		return SG_EXIT_NOTFOUND;
	}
	if (pl->execs_r < 0) {
		const char *var = sg_credential_in(&pl->policy, pl->env, pl->execs_err.msg);

		/* A file the CLI needs cannot be opened; the message names paths. */
		if (var)
			fprintf(stderr, "stepguard: the model CLI's files cannot be resolved (the message, "
					"holding the value of %s or part of it, not shown); the step was not run\n",
				var);
		else
			fprintf(stderr, "stepguard: %s; the step was not run\n",
				pl->execs_r == -ENOMEM ? "out of memory" : pl->execs_err.msg);
		return SG_EXIT_CONFINE;
	}
	if (pl->tmp_r < 0) {
		sg_plan_print_error(&pl->tmp_err);
		return SG_EXIT_USAGE;
	}
	if (pl->log_r < 0) {
		fprintf(stderr, "stepguard: %s\n", pl->log_r == -ENOMEM ? "out of memory" : pl->log_msg);
		return SG_EXIT_USAGE;
	}
	/* Last before the run, so that a step refused above leaves nothing behind. */
	{
		struct sg_error err = { 0 };

		if (sg_plan_make_tmpdir(pl, &err) < 0) {
			fprintf(stderr, "stepguard: %s; the step was not run\n", err.msg);
			/* One made before the failure is removed: sg_step_run() would have. */
			sg_tmpdir_remove(&pl->tmp, err.msg, sizeof(err.msg));
			return SG_EXIT_CONFINE;
		}
	}
	return sg_step_run(pl);
}

int main(int argc, char **argv)
{
	struct sg_options opt;
	struct sg_plan plan;
	struct sg_error err = { 0 };
	int r, status;

	/* A subcommand, not a command to confine: "stepguard -- audit" runs one. */
	if (argc > 1 && strcmp(argv[1], "audit") == 0)
		return sg_audit_main(argc - 1, argv + 1, environ);

	r = sg_options_parse(argc, argv, environ, &opt, &err);
	if (r < 0) {
		sg_plan_print_error(&err);
		sg_options_free(&opt);
		return SG_EXIT_USAGE;
	}
	if (opt.help || opt.version || opt.unload) {
		if (opt.help)
			fputs(sg_usage, stdout);
		else if (opt.version)
			printf("stepguard %s\n", STEPGUARD_VERSION);
		status = opt.unload && !opt.help && !opt.version ? sg_unload_run(&opt) : SG_EXIT_OK;
		sg_options_free(&opt);
		return status;
	}

	/* As before the plan: a policy error without a file is stepguard's own. */
	snprintf(err.file, sizeof(err.file), "stepguard");
	r = sg_plan_base(&plan, &opt, environ, &err);
	if (r == -ENOMEM)
		fprintf(stderr, "stepguard: out of memory\n");
	else if (r < 0)
		sg_plan_print_error(&err);
	if (r < 0)
		status = SG_EXIT_USAGE;
	else if (opt.self_test)
		status = self_test(&plan);
	else
		status = run(&plan);
	sg_plan_free(&plan);
	sg_options_free(&opt);
	return status;
}
