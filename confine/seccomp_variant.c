// SPDX-License-Identifier: MIT
/*
 * seccomp_variant.c — what each variant of the filter adds to the rules
 * of sg_seccomp_build(): the one description of a variant, shared by the
 * launcher (when it generates the filter at run time), the build-time
 * generator (confine/seccomp_gen.c) and the unit test that compares the
 * two, so the prebuilt programs and the generated ones cannot drift.
 *
 * Kept apart from seccomp_prebuilt.c, which reads the generated tables:
 * the generator links this file, and cannot link what it has not yet
 * written.  This file prints nothing and returns -errno.
 */
#include "confine/seccomp.h"
#include "confine/supervisor/supervisor.h"

#include <errno.h>

const char *sg_seccomp_variant_name(enum sg_seccomp_variant v)
{
	switch (v) {
	case SG_SECCOMP_PLAIN:
		return "plain";
	case SG_SECCOMP_SUPERVISED:
		return "supervised";
	case SG_SECCOMP_SUPERVISED_EXEC:
		return "supervised-exec";
	case SG_SECCOMP_N_VARIANTS:
	default:
		return "?";
	}
}

int sg_seccomp_add_variant_rules(scmp_filter_ctx ctx, enum sg_seccomp_variant v)
{
	int r;

	switch (v) {
	case SG_SECCOMP_PLAIN:
		return 0;
	case SG_SECCOMP_SUPERVISED:
		return sg_supervisor_add_rules(ctx);
	case SG_SECCOMP_SUPERVISED_EXEC:
		/* A ruling step's execs come too, so that each refusal is reported. */
		r = sg_supervisor_add_rules(ctx);
		return r < 0 ? r : sg_supervisor_add_exec_rules(ctx);
	case SG_SECCOMP_N_VARIANTS:
	default:
		return -EINVAL;
	}
}

/*
 * sg_supervisor_add_rules()'s own refusals, asked without a rule database:
 * the prebuilt path must turn the supervisor down exactly where the
 * generated one would, or a kernel without user notification would get a
 * filter whose load fails, instead of the gap the launcher reports
 * (test_seccomp checks the two answers at every API level).
 */
int sg_seccomp_notify_available(void)
{
	if (sizeof(long) != 8)
		return -EOPNOTSUPP;
	return seccomp_api_get() >= 5 ? 0 : -EOPNOTSUPP;
}
