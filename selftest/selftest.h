/* SPDX-License-Identifier: MIT */
/*
 * selftest.h — stepguard --self-test: the trial's four-write probe, run
 * under the real confinement through the same launch path as a step.
 *
 * The probe is a separate program (stepguard-probe, selftest/probe.c)
 * that stepguard runs as a step, six times (scrub unset, 0, 1, then 1, 0,
 * unset); every write is judged from outside, after the probe exits.
 * See docs/self-test.md for the output and the statuses.
 */
#ifndef STEPGUARD_SELFTEST_H
#define STEPGUARD_SELFTEST_H

#include "launcher/options.h"

/*
 * Run the self-test with the options O (policy, drop-ins, filter, user,
 * ... are passed on to each step) and ENVP, the step's environment (HOME
 * is the step user's).  Prints the report (O->json: one JSON document)
 * and cleans up everything it created.  Returns stepguard's exit status:
 * SG_EXIT_OK on a pass, SG_EXIT_SELFTEST when it did not pass,
 * SG_EXIT_CONFINE when stepguard could not set up the confinement at all.
 */
int sg_self_test(const struct sg_options *o, char *const envp[]);

#endif
