// SPDX-License-Identifier: MIT
/*
 * fuzz_policy.c — policy text to a merged policy, as the launcher builds
 * it: a main file, then a drop-in merged over it, then the checks on the
 * whole, then each step's settings and writable roots with ${WORKDIR},
 * ${HOME} and ${env:NAME} expanded.
 *
 * Input: the main file, a NUL byte, the drop-in.  Without a NUL there is
 * no drop-in; a second NUL is part of the drop-in (which the line scan
 * must refuse).  Both go through sg_policy_parse and so through the
 * strict line scan (policy/scan.c) and inih.
 *
 * Beyond crashes, leaks and undefined behaviour, two promises of
 * policy/policy.h are checked: a merged policy dumps as INI that parses
 * back (with the same syscall validator), and the dump of that parse is
 * the same text.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/expand.h"
#include "policy/policy.h"
#include "tests/fuzz/fuzz_common.h"

#define MAIN_NAME "/etc/stepguard/stepguard.ini"
#define DROPIN_NAME "/etc/stepguard/rules.d/50-fuzz.ini"

/* A fixed environment, so every run of an input is the same. */
static char *const fuzz_env[] = {
	"PATH=/usr/bin:/bin",
	"HOME=/home/runner",
	"XDG_CACHE_HOME=/home/runner/.cache",
	"RUNNER_TEMP=/home/runner/work/_temp",
	"CACHE=/var/cache/ci",
	"EMPTY=",
	"SUB=sub dir",
	"DUP=first",
	"DUP=second",
	"LITERAL=${HOME}",
	"REL=relative/path",
	"NOEQUALS",
	"ANTHROPIC_API_KEY=sk-ant-fuzz",
	NULL,
};

/* As the launcher validates [seccomp] names (launcher/policy_load.c). */
static bool known(const char *name)
{
	return seccomp_syscall_resolve_name(name) != __NR_SCMP_ERROR;
}

static char *dump(const struct sg_policy *p, bool origins, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	FUZZ_CHECK(f != NULL, "open_memstream");
	sg_policy_dump(p, f, origins);
	FUZZ_CHECK(fclose(f) == 0, "fclose");
	return buf;
}

/* Expand as launcher/roots.c and launcher/step.c do; only the outcome matters. */
static void expand(const char *raw, const struct sg_expand_vars *vars)
{
	char msg[256], *out = (char *)1;
	int r;

	if (raw[0] == '?')
		raw++;
	r = sg_expand(raw, vars, &out, msg, sizeof(msg));
	/* The parse checked the syntax, so only a missing variable is left. */
	FUZZ_CHECK(r == 0 || r == -EINVAL, "sg_expand(\"%s\") = %d", raw, r);
	if (r == 0) {
		FUZZ_CHECK(out != NULL, "sg_expand(\"%s\") gave no string", raw);
		free(out);
	} else {
		FUZZ_CHECK(out == NULL, "sg_expand(\"%s\") failed and left a string", raw);
		FUZZ_CHECK(memchr(msg, '\0', sizeof(msg)) != NULL, "message not terminated");
	}
}

static void use_step(const struct sg_policy *p, const struct sg_step *step)
{
	static const struct sg_expand_vars with_home = { "/home/runner/work/repo",
							 "/home/runner", fuzz_env };
	static const struct sg_expand_vars without_home = { "/w", NULL, fuzz_env };
	const struct sg_write **w = NULL;
	struct sg_settings eff;
	int n;

	sg_policy_effective(p, step, &eff);
	n = sg_policy_step_writes(p, step, &w);
	FUZZ_CHECK(n >= 0, "sg_policy_step_writes = %d", n);
	for (int i = 0; i < n; i++) {
		FUZZ_CHECK(w[i]->path[0] != '\0', "an empty root was returned");
		expand(w[i]->path, &with_home);
		expand(w[i]->path, &without_home);
	}
	free(w);
	if (eff.log.set && eff.log.s[0]) {
		expand(eff.log.s, &with_home);
		expand(eff.log.s, &without_home);
	}
}

static void round_trip(const struct sg_policy *p)
{
	struct sg_policy q;
	struct sg_error err;
	size_t alen = 0, blen = 0, olen = 0;
	char *a = dump(p, false, &alen), *b, *o;
	int r;

	o = dump(p, true, &olen); /* the origins' comments: only for the sanitizers */
	free(o);
	sg_policy_init(&q);
	memset(&err, 0, sizeof(err));
	r = sg_policy_parse(&q, "dump", a, alen, known, &err);
	FUZZ_CHECK(r == 0, "the dump does not parse back: %s:%u: %s\n--- dump ---\n%s", err.file,
		   err.line, err.msg, a);
	b = dump(&q, false, &blen);
	FUZZ_CHECK(alen == blen && memcmp(a, b, alen) == 0,
		   "the dump of the parsed dump differs\n--- first ---\n%s--- second ---\n%s", a, b);
	sg_policy_free(&q);
	free(a);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *sep = memchr(text, '\0', size);
	size_t main_len = sep ? (size_t)(sep - text) : size;
	struct sg_policy p;
	struct sg_error err;
	int r;

	sg_policy_init(&p);
	memset(&err, 0, sizeof(err));
	r = sg_policy_parse(&p, MAIN_NAME, text, main_len, known, &err);
	if (r == 0 && sep)
		r = sg_policy_parse(&p, DROPIN_NAME, sep + 1, size - main_len - 1, known, &err);
	FUZZ_CHECK(r == 0 || r == -EINVAL, "sg_policy_parse = %d", r);
	if (r < 0) {
		/* The error names a file and says something. */
		FUZZ_CHECK(memchr(err.file, '\0', sizeof(err.file)) && err.file[0],
			   "error without a file");
		FUZZ_CHECK(memchr(err.msg, '\0', sizeof(err.msg)) && err.msg[0],
			   "error without a message");
		sg_policy_free(&p);
		return 0;
	}
	(void)sg_policy_validate(&p, &err);
	use_step(&p, NULL);
	for (size_t i = 0; i < p.n_steps; i++) {
		FUZZ_CHECK(sg_policy_step(&p, p.steps[i].name) == &p.steps[i], "step lookup");
		use_step(&p, &p.steps[i]);
	}
	round_trip(&p);
	sg_policy_free(&p);
	return 0;
}
