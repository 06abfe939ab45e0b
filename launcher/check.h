/* SPDX-License-Identifier: MIT */
/* check.h — stepguard --check: the effective policy and the decision. */
#ifndef STEPGUARD_CHECK_H
#define STEPGUARD_CHECK_H

#include <stdio.h>

#include "launcher/plan.h"

/*
 * stepguard --check: prepare the confinement of PL's step without
 * applying it, print the report to F and return the exit status: 0 only
 * if the step would run; SG_EXIT_REFUSED for a ruling; SG_EXIT_USAGE for
 * a policy, root or log error; SG_EXIT_CONFINE when the write filter
 * cannot be set up.
 */
int sg_check_run(FILE *f, const struct sg_plan *pl);

#endif
