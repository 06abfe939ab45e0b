/* SPDX-License-Identifier: MIT */
/*
 * selftest.h — stepguard --self-test: the trial's four-write probe, run
 * under the real confinement through the same launch path as a step.
 *
 * The probe is a separate program (stepguard-probe, selftest/probe.c)
 * that stepguard runs as a step, six times (scrub unset, 0, 1, then 1, 0,
 * unset); after its writes it tries two execs, refused in the ruling runs
 * (scrub 1) and run in the others, then three reads of another process
 * of the step's user, refused in every run.  Every write and exec is
 * judged from outside, after the probe exits; each read by the marker it
 * would have returned, which the probe is not told.  With --model-cli, the real CLI runs
 * last, against a stub of the Messages API, with planted hooks and an
 * MCP server that must not run.  See docs/self-test.md for the output
 * and the statuses.
 */
#ifndef STEPGUARD_SELFTEST_H
#define STEPGUARD_SELFTEST_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"

/*
 * What the self-test is run with: the command line's options that it
 * passes on to each step (each NULL or unset when not given), and the
 * merged policy, for the names of the scrub and credential variables and
 * of the model CLI.  Filled by the launcher from its plan, so the
 * self-test needs nothing of the launcher's.
 */
struct sg_selftest_args {
	const char *policy;       /* -p */
	const char *rules_dir;    /* --rules-dir */
	const char *step;         /* -s */
	const char *user;         /* --user */
	enum sg_filter filter;
	enum sg_mode mode;
	const char *const *allow_write;
	size_t n_allow_write;
	const char *model_cli;    /* --model-cli: also run this CLI, as a ruling-2 step */
	bool json;
	int verbose;
	bool quiet;
	const struct sg_policy *merged;
};

/*
 * Run the self-test with A and ENVP, the step's environment (HOME is the
 * step user's).  Prints the report (A->json: one JSON document) and
 * cleans up everything it created.  Returns stepguard's exit status:
 * SG_EXIT_OK on a pass, SG_EXIT_SELFTEST when it did not pass,
 * SG_EXIT_CONFINE when stepguard could not set up the confinement at all.
 */
int sg_self_test(const struct sg_selftest_args *a, char *const envp[]);

#endif
