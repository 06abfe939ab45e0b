/* SPDX-License-Identifier: MIT */
/* step.h — run one confined step (see step.c for the order and why). */
#ifndef STEPGUARD_STEP_H
#define STEPGUARD_STEP_H

#include "launcher/plan.h"
#include "policy/policy.h"

/* Run the step of PL (its roots and log path valid).  Prints its own
 * errors; returns stepguard's exit status. */
int sg_step_run(const struct sg_plan *pl);

/* sha256 of the merged policy's canonical dump, as "sha256:HEX". */
int sg_policy_digest(const struct sg_policy *p, char *buf, size_t len);

#endif
