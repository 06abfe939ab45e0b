/* SPDX-License-Identifier: MIT */
/* fuzz_default.h — the compiled-in default policy (the shipped rules.d), parsed once. */
#ifndef STEPGUARD_FUZZ_DEFAULT_H
#define STEPGUARD_FUZZ_DEFAULT_H

#include "policy/default_policy.h"
#include "policy/policy.h"
#include "tests/fuzz/fuzz_common.h"

/* Lives for the whole run: reachable, so LeakSanitizer does not count it. */
static struct sg_policy fuzz_default_policy;

static inline void fuzz_load_default_policy(void)
{
	struct sg_error err;

	sg_policy_init(&fuzz_default_policy);
	for (size_t i = 0; i < sg_n_default_fragments; i++)
		FUZZ_CHECK(sg_policy_parse(&fuzz_default_policy, sg_default_fragments[i].name,
					   sg_default_fragments[i].text, sg_default_fragments[i].len,
					   NULL, &err) == 0,
			   "the default policy: %s:%u: %s", err.file, err.line, err.msg);
	FUZZ_CHECK(sg_policy_validate(&fuzz_default_policy, &err) == 0,
		   "the default policy: %s:%u: %s", err.file, err.line, err.msg);
}

#endif
