/* SPDX-License-Identifier: MIT */
/* fuzz_default.h — the compiled-in default policy (the shipped rules.d), parsed once. */
#ifndef STEPGUARD_FUZZ_DEFAULT_H
#define STEPGUARD_FUZZ_DEFAULT_H

#include "policy/default_policy.h"
#include "policy/policy.h"
#include "tests/fuzz/fuzz_common.h"

/* Lives for the whole run: reachable, so LeakSanitizer does not count it. */
static struct sg_policy fuzz_default_policy;

/*
 * libFuzzer's hook, once before the first input: a target that includes
 * this header (one per fuzzer binary) has the default policy loaded.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct sg_error err;

	(void)argc;
	(void)argv;
	sg_policy_init(&fuzz_default_policy);
	for (size_t i = 0; i < sg_n_default_fragments; i++)
		FUZZ_CHECK(sg_policy_parse(&fuzz_default_policy, sg_default_fragments[i].name,
					   sg_default_fragments[i].text, sg_default_fragments[i].len,
					   NULL, &err) == 0,
			   "the default policy: %s:%u: %s", err.file, err.line, err.msg);
	FUZZ_CHECK(sg_policy_validate(&fuzz_default_policy, &err) == 0,
		   "the default policy: %s:%u: %s", err.file, err.line, err.msg);
	return 0;
}

#endif
