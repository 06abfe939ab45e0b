/* SPDX-License-Identifier: MIT */
/* check.h — stepguard --check: the effective policy and the decision. */
#ifndef STEPGUARD_CHECK_H
#define STEPGUARD_CHECK_H

#include <stdio.h>

#include "confine/confine.h"
#include "launcher/options.h"
#include "launcher/policy_load.h"
#include "launcher/roots.h"
#include "policy/policy.h"
#include "policy/ruling.h"

/*
 * Print the report and return the exit status: 0 only if the step would
 * run; SG_EXIT_REFUSED for a ruling; SG_EXIT_USAGE for a policy or root
 * error (ROOTS NULL and ROOT_ERR set); SG_EXIT_CONFINE when the write
 * filter cannot be prepared (CONF NULL and CONFINE_ERR says why).
 */
int sg_check_report(FILE *f, const struct sg_options *o, const struct sg_policy *p,
		    const struct sg_sources *srcs, const struct sg_step *step,
		    const struct sg_settings *eff, const struct sg_ruling *ruling,
		    const struct sg_roots *roots, const struct sg_error *root_err,
		    const struct sg_confine *conf, const char *confine_err, char *const envp[]);

#endif
