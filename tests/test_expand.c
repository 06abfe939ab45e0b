// SPDX-License-Identifier: MIT
/*
 * Tests for policy/expand.c: ${WORKDIR}, ${HOME}, ${env:NAME} and $$.
 *
 * The property that matters for a writable root is the negative one: an
 * unset or empty variable is an error, never an empty string, so
 * "${env:CACHE}/x" cannot quietly become "/x" and "${HOME}" cannot become
 * "" (the current directory) or "/".  Each refusal sits next to the
 * accepted form it differs from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/expand.h"

static char *const test_env[] = {
	"PATH=/usr/bin:/bin",
	"CACHE=/var/cache/ci",
	"EMPTY=",
	"SUB=sub dir",
	"DUP=first",
	"DUP=second",
	"CACHE_DIR=/not/this/one",
	"LITERAL=${HOME}",
	"NOEQUALS",
	NULL,
};

static const struct sg_expand_vars vars = {
	.workdir = "/work/repo",
	.home = "/home/ci",
	.envp = test_env,
};

/* Expand IN with V and expect WANT. */
static void expect(const char *in, const struct sg_expand_vars *v, const char *want)
{
	char msg[256] = "", *out = NULL;
	int r = sg_expand(in, v, &out, msg, sizeof(msg));

	if (r != 0)
		fail_msg("sg_expand(\"%s\") = %d: %s", in, r, msg);
	assert_non_null(out);
	assert_string_equal(out, want);
	free(out);
}

/*
 * Expand IN with V and expect -EINVAL, no output, and NEEDLE in the
 * message.  OUT starts as a sentinel so "left untouched" is caught too.
 */
static void expect_error(const char *in, const struct sg_expand_vars *v, const char *needle)
{
	static char sentinel[] = "sentinel";
	char msg[256] = "", *out = sentinel;
	int r = sg_expand(in, v, &out, msg, sizeof(msg));

	if (r != -EINVAL)
		fail_msg("sg_expand(\"%s\") = %d (out \"%s\"), expected -EINVAL", in, r,
			 out ? out : "(null)");
	assert_null(out);
	if (!strstr(msg, needle))
		fail_msg("sg_expand(\"%s\"): message \"%s\" lacks \"%s\"", in, msg, needle);
}

/* ---- sg_expand --------------------------------------------------------- */

static void test_sg_expand_plain_text_unchanged(void **state)
{
	(void)state;
	expect("/var/tmp", &vars, "/var/tmp");
	expect("?/dev/tty", &vars, "?/dev/tty");
	expect("/a{b}c", &vars, "/a{b}c");
	/* An empty input is an empty output, not NULL. */
	expect("", &vars, "");
}

static void test_sg_expand_workdir(void **state)
{
	(void)state;
	expect("${WORKDIR}", &vars, "/work/repo");
	expect("${WORKDIR}/build/out", &vars, "/work/repo/build/out");
}

static void test_sg_expand_workdir_unknown(void **state)
{
	struct sg_expand_vars v = vars;

	(void)state;
	v.workdir = NULL;
	expect_error("${WORKDIR}/x", &v, "WORKDIR");
	/* The same vars still expand what they know. */
	expect("${HOME}/x", &v, "/home/ci/x");
}

static void test_sg_expand_home(void **state)
{
	(void)state;
	expect("${HOME}", &vars, "/home/ci");
	expect("${HOME}/.cache/tool", &vars, "/home/ci/.cache/tool");
}

static void test_sg_expand_home_unset(void **state)
{
	struct sg_expand_vars v = vars;

	(void)state;
	v.home = NULL;
	expect_error("${HOME}/.cache", &v, "HOME");
	expect_error("${HOME}", &v, "not set");
	/* Without ${HOME}, HOME being unset does not matter. */
	expect("${WORKDIR}/x", &v, "/work/repo/x");
}

static void test_sg_expand_home_empty(void **state)
{
	struct sg_expand_vars v = vars;

	(void)state;
	v.home = "";
	expect_error("${HOME}", &v, "HOME");
	expect_error("${HOME}/x", &v, "empty");
	v.home = "/root";
	expect("${HOME}/x", &v, "/root/x");
}

static void test_sg_expand_env(void **state)
{
	(void)state;
	expect("${env:CACHE}", &vars, "/var/cache/ci");
	expect("${env:CACHE}/tool", &vars, "/var/cache/ci/tool");
	expect("/x/${env:SUB}/y", &vars, "/x/sub dir/y");
}

static void test_sg_expand_env_unset(void **state)
{
	(void)state;
	expect_error("${env:NOT_THERE}/x", &vars, "NOT_THERE");
	expect_error("${env:NOT_THERE}", &vars, "not set");
	/* A name without "=" in envp is not a definition. */
	expect_error("${env:NOEQUALS}", &vars, "NOEQUALS");
	/* envp NULL: every variable is unset. */
	{
		struct sg_expand_vars v = vars;

		v.envp = NULL;
		expect_error("${env:CACHE}", &v, "CACHE");
	}
	expect("${env:CACHE}", &vars, "/var/cache/ci");
}

static void test_sg_expand_env_empty(void **state)
{
	(void)state;
	expect_error("${env:EMPTY}/x", &vars, "EMPTY");
	expect_error("${env:EMPTY}", &vars, "empty");
}

/*
 * The one property a writable root depends on: whatever is unset, the
 * result is an error, never "" and never "/".
 */
static void test_sg_expand_unset_never_yields_empty_or_root(void **state)
{
	struct sg_expand_vars v = { .workdir = NULL, .home = NULL, .envp = test_env };
	static const char *const inputs[] = {
		"${env:X}", "/${env:X}", "${env:X}/", "${env:EMPTY}", "${env:EMPTY}/",
		"${HOME}", "${HOME}/", "${WORKDIR}", "${WORKDIR}/",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		char msg[256] = "", *out = NULL;
		int r = sg_expand(inputs[i], &v, &out, msg, sizeof(msg));

		if (r != -EINVAL || out)
			fail_msg("\"%s\" gave %d and \"%s\"", inputs[i], r, out ? out : "(null)");
		assert_true(msg[0] != '\0');
	}
}

static void test_sg_expand_dollar_dollar(void **state)
{
	(void)state;
	expect("/a$$b", &vars, "/a$b");
	expect("$$$$", &vars, "$$");
	/* "$${HOME}" is a literal "$" then literal "{HOME}": not expanded. */
	expect("/x/$${HOME}", &vars, "/x/${HOME}");
	/* "$$$$" pairs first, then a real expansion. */
	expect("/x/$$$$${HOME}", &vars, "/x/$$/home/ci");
}

static void test_sg_expand_several_in_one_string(void **state)
{
	(void)state;
	expect("${WORKDIR}:${HOME}:${env:CACHE}:$$", &vars,
	       "/work/repo:/home/ci:/var/cache/ci:$");
	expect("${HOME}${HOME}", &vars, "/home/ci/home/ci");
	/* One bad expansion anywhere spoils the whole string. */
	expect_error("${WORKDIR}/${HOME}/${env:NOT_THERE}", &vars, "NOT_THERE");
}

static void test_sg_expand_values_are_not_expanded_again(void **state)
{
	(void)state;
	/* LITERAL holds "${HOME}": inserted as text, never re-read. */
	expect("/x/${env:LITERAL}", &vars, "/x/${HOME}");
}

static void test_sg_expand_invalid_variable_name(void **state)
{
	(void)state;
	expect_error("${env:1BAD}", &vars, "invalid variable name");
	expect_error("${env:A-B}", &vars, "${env:A-B}");
	expect_error("${env:A B}", &vars, "invalid variable name");
	expect_error("${env:A.B}", &vars, "invalid variable name");
	/* The syntax check alone refuses them too. */
	assert_int_equal(sg_expand("${env:1BAD}", NULL, NULL, NULL, 0), -EINVAL);
	expect("${env:PATH}", &vars, "/usr/bin:/bin");
}

static void test_sg_expand_variable_name_too_long(void **state)
{
	char in[300 + 8], *p = in;

	(void)state;
	p += sprintf(p, "${env:");
	memset(p, 'A', 300);
	p[300] = '}';
	p[301] = '\0';
	expect_error(in, &vars, "too long");
}

static void test_sg_expand_unterminated(void **state)
{
	(void)state;
	expect_error("${HOME", &vars, "unterminated");
	expect_error("/x/${env:CACHE", &vars, "unterminated");
	expect_error("${", &vars, "unterminated");
	expect("/x/${env:CACHE}", &vars, "/x//var/cache/ci");
}

static void test_sg_expand_unknown_expansion(void **state)
{
	(void)state;
	expect_error("${FOO}/x", &vars, "${FOO}");
	expect_error("${home}", &vars, "unknown expansion");
	expect_error("${}", &vars, "unknown expansion");
	expect_error("${env:}", &vars, "${env:}");
	expect_error("${ENV:CACHE}", &vars, "unknown expansion");
	expect_error("${ HOME}", &vars, "unknown expansion");
	expect("${HOME}", &vars, "/home/ci");
}

static void test_sg_expand_stray_dollar(void **state)
{
	(void)state;
	expect_error("/a/$x", &vars, "stray");
	expect_error("/a/$", &vars, "$$");
	expect_error("$HOME/x", &vars, "stray");
	expect_error("$(id)", &vars, "stray");
	expect("/a/$$x", &vars, "/a/$x");
}

static void test_sg_expand_syntax_only(void **state)
{
	static char sentinel[] = "sentinel";
	char msg[128] = "", *out = sentinel;

	(void)state;
	/* Well-formed: 0, and *OUT is NULL; variables need not be known. */
	assert_int_equal(sg_expand("${HOME}/${env:UNSET_HERE}/${WORKDIR}$$", NULL, &out, msg,
				   sizeof(msg)),
			 0);
	assert_null(out);
	/* OUT and MSG may be NULL. */
	assert_int_equal(sg_expand("${HOME}", NULL, NULL, NULL, 0), 0);
	/* Malformed text is refused without any variables. */
	assert_int_equal(sg_expand("${FOO}", NULL, NULL, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "${FOO}"));
	assert_int_equal(sg_expand("/$x", NULL, NULL, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(sg_expand("${env:X", NULL, NULL, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "unterminated"));
}

static void test_sg_expand_message_buffer_respected(void **state)
{
	char msg[16];

	(void)state;
	memset(msg, 'Z', sizeof(msg));
	assert_int_equal(sg_expand("${env:NOT_THERE_AT_ALL}", &vars, NULL, msg, 8), -EINVAL);
	assert_int_equal(strlen(msg), 7); /* truncated and terminated inside 8 */
	assert_int_equal(msg[8], 'Z');    /* nothing written past MSGLEN */
	/* No message buffer at all is fine. */
	assert_int_equal(sg_expand("${FOO}", &vars, NULL, NULL, 0), -EINVAL);
	assert_int_equal(sg_expand("${FOO}", &vars, NULL, msg, 0), -EINVAL);
}

/* ---- sg_env_get -------------------------------------------------------- */

static void test_sg_env_get_first_occurrence_wins(void **state)
{
	(void)state;
	assert_string_equal(sg_env_get(test_env, "DUP"), "first");
}

static void test_sg_env_get_exact_name_only(void **state)
{
	(void)state;
	/* "CACHE" is not "CACHE_DIR", and "CACH" is not "CACHE". */
	assert_string_equal(sg_env_get(test_env, "CACHE"), "/var/cache/ci");
	assert_string_equal(sg_env_get(test_env, "CACHE_DIR"), "/not/this/one");
	assert_null(sg_env_get(test_env, "CACH"));
	assert_null(sg_env_get(test_env, "NOEQUALS"));
	assert_null(sg_env_get(test_env, "MISSING"));
}

static void test_sg_env_get_empty_value_is_not_unset(void **state)
{
	(void)state;
	assert_non_null(sg_env_get(test_env, "EMPTY"));
	assert_string_equal(sg_env_get(test_env, "EMPTY"), "");
}

static void test_sg_env_get_null_or_empty_envp(void **state)
{
	char *const none[] = { NULL };

	(void)state;
	assert_null(sg_env_get(NULL, "PATH"));
	assert_null(sg_env_get(none, "PATH"));
	assert_non_null(sg_env_get(test_env, "PATH"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sg_expand_plain_text_unchanged),
		cmocka_unit_test(test_sg_expand_workdir),
		cmocka_unit_test(test_sg_expand_workdir_unknown),
		cmocka_unit_test(test_sg_expand_home),
		cmocka_unit_test(test_sg_expand_home_unset),
		cmocka_unit_test(test_sg_expand_home_empty),
		cmocka_unit_test(test_sg_expand_env),
		cmocka_unit_test(test_sg_expand_env_unset),
		cmocka_unit_test(test_sg_expand_env_empty),
		cmocka_unit_test(test_sg_expand_unset_never_yields_empty_or_root),
		cmocka_unit_test(test_sg_expand_dollar_dollar),
		cmocka_unit_test(test_sg_expand_several_in_one_string),
		cmocka_unit_test(test_sg_expand_values_are_not_expanded_again),
		cmocka_unit_test(test_sg_expand_invalid_variable_name),
		cmocka_unit_test(test_sg_expand_variable_name_too_long),
		cmocka_unit_test(test_sg_expand_unterminated),
		cmocka_unit_test(test_sg_expand_unknown_expansion),
		cmocka_unit_test(test_sg_expand_stray_dollar),
		cmocka_unit_test(test_sg_expand_syntax_only),
		cmocka_unit_test(test_sg_expand_message_buffer_respected),
		cmocka_unit_test(test_sg_env_get_first_occurrence_wins),
		cmocka_unit_test(test_sg_env_get_exact_name_only),
		cmocka_unit_test(test_sg_env_get_empty_value_is_not_unset),
		cmocka_unit_test(test_sg_env_get_null_or_empty_envp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
