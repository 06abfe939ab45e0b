// SPDX-License-Identifier: MIT
/*
 * fuzz_ruling.c — a command line and an environment to a ruling, on the
 * shipped default policy (as tests/test_ruling.c), and the explanation a
 * person reads.
 *
 * Input (tests/fuzz/fuzz_common.h): byte 0 is the number of argv strings
 * (mod 32); the rest, split at NUL bytes, is argv and then envp.
 *
 * Checked beyond the sanitizers: the ruling's fields are consistent (an
 * argument index inside argv, a refusal names its ruling), the explanation
 * fits its buffer as snprintf would, and it never shows the value of a
 * held credential, nor any run of SG_CREDENTIAL_RUN bytes of it
 * (policy/ruling.h).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/ruling.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/fuzz/fuzz_default.h"

/*
 * A value the explanation's own text cannot contain: at least 8 bytes,
 * printable, and with a '~' (which no template, option or variable name
 * of the default policy holds).  Only these can be looked for without
 * false alarms: whole, and in runs of SG_CREDENTIAL_RUN bytes that hold
 * the '~' (a shown argument holding '~' is quoted, and the value has no
 * quote, so such a run in the text comes from one argument alone).
 */
static bool distinctive(const char *v)
{
	size_t n = strlen(v);

	if (n < 8 || !strchr(v, '~'))
		return false;
	for (const char *q = v; *q; q++)
		if (*q < 0x20 || *q >= 0x7f || *q == '\'' || *q == '\\')
			return false;
	return true;
}

static void check_secrets(const struct sg_policy *p, char *const envp[], const char *text)
{
	for (size_t i = 0; i < p->credentials.n; i++) {
		size_t n = strlen(p->credentials.v[i]);

		for (char *const *e = envp; *e; e++) {
			const char *v;

			if (strncmp(*e, p->credentials.v[i], n) != 0 || (*e)[n] != '=')
				continue;
			v = *e + n + 1;
			if (!distinctive(v))
				continue;
			FUZZ_CHECK(!strstr(text, v), "the explanation shows %s's value:\n%s",
				   p->credentials.v[i], text);
			for (size_t j = 0; j + SG_CREDENTIAL_RUN <= strlen(v); j++)
				if (memchr(v + j, '~', SG_CREDENTIAL_RUN))
					FUZZ_CHECK(!memmem(text, strlen(text), v + j, SG_CREDENTIAL_RUN),
						   "the explanation shows part of %s's value (%.*s):\n%s",
						   p->credentials.v[i], SG_CREDENTIAL_RUN, v + j, text);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sg_policy *p = &fuzz_default_policy;
	struct fuzz_strings fs;
	struct sg_ruling r;
	char buf[4096], small[64];
	int n, m;

	if (fuzz_split(data, size, &fs) < 0)
		return 0;
	sg_ruling_decide(p, fs.v1, fs.v2, &r);
	FUZZ_CHECK(r.arg >= -1 && r.arg < fs.n1, "arg %d of %d", r.arg, fs.n1);
	FUZZ_CHECK(r.rule >= 0 && r.rule <= 2, "rule %d", r.rule);
	if (r.rule == 0)
		FUZZ_CHECK(r.reason == SG_OK || r.reason == SG_NO_COMMAND,
			   "refused (%d) without a ruling", r.reason);
	else
		FUZZ_CHECK(r.variable != NULL, "ruling %d without its variable", r.rule);
	if (fs.n1 == 0 || fs.v1[0][0] == '\0')
		FUZZ_CHECK(r.reason == SG_NO_COMMAND, "no command, reason %d", r.reason);
	/* Each ruling's condition, from the environment alone. */
	FUZZ_CHECK((r.rule == 1) == (sg_scrub_set(p, fs.v2) != NULL), "ruling 1 vs the scrub");
	if (r.rule == 0)
		FUZZ_CHECK(!sg_credential_held(p, fs.v2), "a held credential without ruling 2");

	n = sg_ruling_explain(p, &r, fs.v1, fs.v2, buf, sizeof(buf));
	FUZZ_CHECK(n > 0 && (size_t)n < sizeof(buf), "explanation length %d", n);
	FUZZ_CHECK(strlen(buf) == (size_t)n, "explanation length %d, string %zu", n, strlen(buf));
	check_secrets(p, fs.v2, buf);
	/* A short buffer: cut, terminated, same needed length. */
	m = sg_ruling_explain(p, &r, fs.v1, fs.v2, small, sizeof(small));
	FUZZ_CHECK(m == n, "needed length %d, then %d", n, m);
	FUZZ_CHECK(memchr(small, '\0', sizeof(small)) != NULL, "the cut explanation is not terminated");
	FUZZ_CHECK(strlen(small) == ((size_t)n < sizeof(small) ? (size_t)n : sizeof(small) - 1) &&
			   strncmp(small, buf, strlen(small)) == 0,
		   "the cut explanation is not a prefix:\n%s\n%s", small, buf);

	/* sg_quote_arg on every argument, with short and long limits. */
	for (int i = 0; i < fs.n1; i++) {
		char q[64];

		sg_quote_arg(fs.v1[i], 80, buf, sizeof(buf));
		FUZZ_CHECK(strlen(buf) < sizeof(buf), "quote");
		sg_quote_arg(fs.v1[i], 1000, q, sizeof(q));
		FUZZ_CHECK(memchr(q, '\0', sizeof(q)) != NULL, "quote not terminated");
	}
	fuzz_split_free(&fs);
	return 0;
}
