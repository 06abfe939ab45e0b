// SPDX-License-Identifier: MIT
/*
 * main.c — stepguard: options → policy → user → rulings → roots →
 * confinement → exec.  Each stage is a module that returns -errno; this
 * file and step.c print, once, with the file, line and fix.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/loader.h"
#include "audit/audit.h"
#include "launcher/check.h"
#include "confine/confine.h"
#include "lib/exitcodes.h"
#include "launcher/options.h"
#include "launcher/policy_load.h"
#include "launcher/roots.h"
#include "selftest/selftest.h"
#include "launcher/step.h"
#include "confine/user.h"
#include "policy/policy.h"
#include "policy/ruling.h"

#ifndef STEPGUARD_VERSION
#define STEPGUARD_VERSION "0.0.0-dev"
#endif

extern char **environ;

static void print_error(const struct sg_error *err)
{
	if (err->line)
		fprintf(stderr, "stepguard: %s:%u: %s\n", err->file, err->line, err->msg);
	else if (err->file[0])
		fprintf(stderr, "stepguard: %s: %s\n", err->file, err->msg);
	else /* from the command line, not a file */
		fprintf(stderr, "stepguard: %s\n", err->msg);
}

int main(int argc, char **argv)
{
	struct sg_options opt;
	struct sg_policy pol;
	struct sg_sources srcs = { 0 };
	struct sg_roots roots = { 0 };
	struct sg_error err = { .file = "stepguard" };
	struct sg_ruling ruling;
	struct sg_settings eff;
	struct sg_user user;
	const struct sg_step *step;
	char **env = NULL;
	char msg[2048] = "";
	int r, status;

	/* A subcommand, not a command to confine: "stepguard -- audit" runs one. */
	if (argc > 1 && strcmp(argv[1], "audit") == 0)
		return sg_audit_main(argc - 1, argv + 1, environ);

	r = sg_options_parse(argc, argv, environ, &opt, msg, sizeof(msg));
	if (r < 0) {
		fprintf(stderr, "stepguard: %s\n", msg);
		sg_options_free(&opt);
		return SG_EXIT_USAGE;
	}
	if (opt.help) {
		fputs(sg_usage, stdout);
		sg_options_free(&opt);
		return SG_EXIT_OK;
	}
	if (opt.version) {
		printf("stepguard %s\n", STEPGUARD_VERSION);
		sg_options_free(&opt);
		return SG_EXIT_OK;
	}

	if (opt.unload) {
		/*
		 * The pinned filter outlives every stepguard; this is how it
		 * goes away.  Running steps keep their confinement unless
		 * --force: then they lose it, which is why it must be asked for.
		 */
		r = sg_bpf_unload(NULL, opt.force, msg, sizeof(msg));
		sg_options_free(&opt);
		if (r == -ENOENT) {
			printf("stepguard: nothing to unload (no pins of this build)\n");
			return SG_EXIT_OK;
		}
		if (r < 0) {
			fprintf(stderr, "stepguard: cannot unload the eBPF filter: %s%s\n",
				msg[0] ? msg : strerror(-r),
				r == -EBUSY ? "\nHint: steps are still confined; --force removes their filter too" : "");
			return SG_EXIT_CONFINE;
		}
		printf("stepguard: eBPF filter unloaded\n");
		return SG_EXIT_OK;
	}

	sg_policy_init(&pol);
	r = sg_policy_load(&opt, environ, &pol, &srcs, &err);
	if (r < 0) {
		if (r == -ENOMEM)
			fprintf(stderr, "stepguard: out of memory reading the policy\n");
		else
			print_error(&err);
		status = SG_EXIT_USAGE;
		goto out;
	}
	step = sg_policy_step(&pol, opt.step);
	sg_policy_effective(&pol, step, &eff);
	/* The command line wins over the policy. */
	if (opt.mode != SG_MODE_UNSET)
		eff.mode = opt.mode;
	if (opt.filter != SG_FILTER_UNSET)
		eff.filter = opt.filter;

	/* Who the step runs as decides its HOME, which the roots depend on. */
	r = sg_user_resolve(opt.user, environ, &user, msg, sizeof(msg));
	if (r < 0) {
		fprintf(stderr, "stepguard: %s\n", msg);
		status = SG_EXIT_USAGE;
		goto out;
	}
	env = sg_user_env(&user, environ);
	if (!env) {
		fprintf(stderr, "stepguard: out of memory\n");
		status = SG_EXIT_USAGE;
		goto out;
	}

	if (opt.self_test) {
		status = sg_self_test(&opt, env);
		goto out;
	}

	sg_ruling_decide(&pol, opt.argv, env, &ruling);
	r = sg_roots_resolve(&pol, step, &opt, env, &roots, &err);

	if (opt.check) {
		struct sg_confine conf;
		char cmsg[1024] = "";
		int cr = -1;

		/* Prepared, never applied: --check says whether the step would run. */
		if (r == 0) {
			struct sg_step_ctx sc = { &opt, &pol, &eff, &roots, &user, env, "" };
			char *log = NULL;

			/* A log the run would refuse is an invalid policy here too. */
			r = sg_step_log_path(&sc, &log, err.msg, sizeof(err.msg));
			free(log);
			if (r < 0) {
				snprintf(err.file, sizeof(err.file), "log");
				err.line = 0;
			}
		}
		if (r == 0)
			cr = sg_confine_prepare(&conf, &pol, eff.filter, eff.mode, &roots, cmsg,
						sizeof(cmsg));
		status = sg_check_report(stdout, &opt, &pol, &srcs, step, &eff, &ruling,
					 r < 0 ? NULL : &roots, r < 0 ? &err : NULL,
					 cr == 0 ? &conf : NULL, r == 0 && cr < 0 ? cmsg : NULL, env);
		if (cr == 0)
			sg_confine_free(&conf);
		goto out;
	}

	/* Refuse by the rulings first: that is the answer the user needs. */
	if (ruling.reason != SG_OK) {
		sg_ruling_explain(&pol, &ruling, opt.argv, env, msg, sizeof(msg));
		fprintf(stderr, "stepguard: %s\n", msg);
		status = ruling.reason == SG_NO_COMMAND ? SG_EXIT_USAGE : SG_EXIT_REFUSED;
		goto out;
	}
	if (r < 0) {
		if (r == -ENOMEM)
			fprintf(stderr, "stepguard: out of memory resolving the writable roots\n");
		else
			print_error(&err);
		status = SG_EXIT_USAGE;
		goto out;
	}

	{
		struct sg_step_ctx sc = { &opt, &pol, &eff, &roots, &user, env, "" };

		status = sg_step_run(&sc);
	}
out:
	sg_env_free(env);
	sg_roots_free(&roots);
	sg_sources_free(&srcs);
	sg_policy_free(&pol);
	sg_options_free(&opt);
	return status;
}
