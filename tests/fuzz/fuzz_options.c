// SPDX-License-Identifier: MIT
/*
 * fuzz_options.c — stepguard's own command line and STEPGUARD_*
 * variables (launcher/options.c, getopt_long, no side effects), and then
 * the ruling on the command it names, on the shipped default policy, as
 * launcher/main.c goes from one to the other.
 *
 * Input (tests/fuzz/fuzz_common.h): byte 0 is argc (mod 32), argv[0]
 * included; the rest, split at NUL bytes, is argv and then envp.
 *
 * Checked beyond the sanitizers: on success the command is the tail of
 * argv (o.argv[o.argc] is its NULL), a step name is plain, and every
 * message is terminated and not empty.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/options.h"
#include "policy/ruling.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/fuzz/fuzz_default.h"

static bool plain_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-' || *s == '.'))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_strings fs;
	struct sg_options o;
	struct sg_ruling r;
	struct sg_error err;
	int ret;

	if (fuzz_split(data, size, &fs) < 0)
		return 0;
	memset(&err, 'X', sizeof(err));
	ret = sg_options_parse(fs.n1, fs.v1, fs.v2, &o, &err);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL, "sg_options_parse = %d", ret);
	if (ret < 0) {
		FUZZ_CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL && err.msg[0] != '\0',
			   "a refusal without a message");
	} else {
		FUZZ_CHECK(o.argc >= 0 && o.argc <= fs.n1, "argc %d of %d", o.argc, fs.n1);
		FUZZ_CHECK(o.argv == fs.v1 + (fs.n1 - o.argc), "the command is not argv's tail");
		FUZZ_CHECK(o.argv[o.argc] == NULL, "the command is not NULL-terminated");
		FUZZ_CHECK(!o.step || plain_name(o.step), "step name \"%s\"", o.step);
		FUZZ_CHECK(!o.policy || o.policy[0], "an empty policy name");
		for (size_t i = 0; i < o.n_allow_write; i++)
			FUZZ_CHECK(o.allow_write[i][0], "an empty --allow-write");
		if (o.argc > 0) {
			char buf[2048];

			sg_ruling_decide(&fuzz_default_policy, o.argv, fs.v2, &r);
			FUZZ_CHECK(r.arg >= -1 && r.arg < o.argc, "ruling arg %d of %d", r.arg, o.argc);
			sg_ruling_explain(&fuzz_default_policy, &r, o.argv, fs.v2, buf, sizeof(buf));
		}
	}
	sg_options_free(&o);
	fuzz_split_free(&fs);
	return 0;
}
