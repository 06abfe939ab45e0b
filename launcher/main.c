// SPDX-License-Identifier: MIT
/*
 * main.c — stepguard: options → policy → rulings → roots → confinement →
 * exec.  Each stage is a module that returns -errno; this file is the only
 * place that prints, once, with the file, line and fix.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/check.h"
#include "launcher/exitcodes.h"
#include "launcher/options.h"
#include "launcher/policy_load.h"
#include "launcher/roots.h"
#include "launcher/run.h"
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
	else
		fprintf(stderr, "stepguard: %s: %s\n", err->file, err->msg);
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
	const struct sg_step *step;
	char msg[2048];
	int r, status;

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
	/* The command line and STEPGUARD_LOG win over the policy. */
	if (opt.mode != SG_MODE_UNSET)
		eff.mode = opt.mode;
	if (opt.filter != SG_FILTER_UNSET)
		eff.filter = opt.filter;

	sg_ruling_decide(&pol, opt.argv, environ, &ruling);
	r = sg_roots_resolve(&pol, step, &opt, environ, &roots, &err);

	if (opt.check) {
		status = sg_check_report(stdout, &opt, &pol, &srcs, step, &eff, &ruling,
					 r < 0 ? NULL : &roots, r < 0 ? &err : NULL, environ);
		goto out;
	}

	/* Refuse by the rulings first: that is the answer the user needs. */
	if (opt.argc > 0 && ruling.reason != SG_OK) {
		sg_ruling_explain(&pol, &ruling, opt.argv, environ, msg, sizeof(msg));
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

	if (opt.self_test) {
		fprintf(stderr,
			"stepguard: --self-test needs a write filter, and this build has none yet; "
			"nothing was tested\n");
		status = SG_EXIT_CONFINE;
		goto out;
	}
	status = sg_run_step(&opt, &pol, &eff, &roots, environ);
out:
	sg_roots_free(&roots);
	sg_sources_free(&srcs);
	sg_policy_free(&pol);
	sg_options_free(&opt);
	return status;
}
