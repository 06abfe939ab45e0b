// SPDX-License-Identifier: MIT
/* test_options.c — the command line and the STEPGUARD_* variables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/exitcodes.h"
#include "launcher/options.h"

#define ARGV(...) ((char *[]){ "stepguard", __VA_ARGS__, NULL })

static char *no_env[] = { NULL };

/* ARGC is ignored: counted from the NULL-terminated ARGV, so no case can get it wrong. */
/* MSG (256 bytes) gets the error's text. */
static int parse(int argc, char **argv, char **envp, struct sg_options *o, char *msg)
{
	struct sg_error err = { 0 };
	int r;

	(void)argc;
	for (argc = 0; argv[argc]; argc++)
		;
	r = sg_options_parse(argc, argv, envp, o, &err);
	/* about no file: every option error is the command line's */
	assert_string_equal(err.file, "");
	/* the callers' buffers are 256 bytes: every option message fits */
	assert_true(strlen(err.msg) < 256);
	memcpy(msg, err.msg, strlen(err.msg) + 1);
	return r;
}

static void test_sg_options_parse_command_after_double_dash(void **state)
{
	char **argv = ARGV("-s", "build", "--", "make", "-j2");
	struct sg_options o;
	char msg[256];

	(void)state;
	assert_int_equal(parse(5, argv, no_env, &o, msg), 0);
	assert_string_equal(o.step, "build");
	assert_int_equal(o.argc, 2);
	assert_string_equal(o.argv[0], "make");
	assert_string_equal(o.argv[1], "-j2");
	assert_null(o.argv[2]);
	sg_options_free(&o);
}

static void test_sg_options_parse_stops_at_first_operand(void **state)
{
	/* The command's own options must not be taken as stepguard's. */
	char **argv = ARGV("claude", "-p", "hi", "--tools", "");
	struct sg_options o;
	char msg[256];

	(void)state;
	assert_int_equal(parse(5, argv, no_env, &o, msg), 0);
	assert_null(o.policy);
	assert_int_equal(o.argc, 5);
	assert_string_equal(o.argv[1], "-p");
	sg_options_free(&o);
}

static void test_sg_options_parse_all_long_options(void **state)
{
	char **argv = ARGV("--policy", "/p.ini", "--rules-dir", "/r", "--step", "lint", "--workdir",
			   "/w", "--allow-write", "/a", "--allow-write", "/b", "--filter",
			   "landlock", "--mode", "audit", "--log", "/l.json", "--check", "-v", "-v",
			   "--", "true");
	struct sg_options o;
	char msg[256];

	(void)state;
	assert_int_equal(parse(23, argv, no_env, &o, msg), 0);
	assert_string_equal(o.policy, "/p.ini");
	assert_true(o.policy_explicit);
	assert_string_equal(o.rules_dir, "/r");
	assert_string_equal(o.step, "lint");
	assert_string_equal(o.workdir, "/w");
	assert_int_equal(o.n_allow_write, 2);
	assert_string_equal(o.allow_write[1], "/b");
	assert_int_equal(o.filter, SG_FILTER_LANDLOCK);
	assert_int_equal(o.mode, SG_MODE_AUDIT);
	assert_string_equal(o.log, "/l.json");
	assert_true(o.check);
	assert_int_equal(o.verbose, 2);
	assert_int_equal(o.argc, 1);
	sg_options_free(&o);
}

static void test_sg_options_parse_short_options(void **state)
{
	char **argv = ARGV("-p", "/p.ini", "-s", "x", "-w", "/w", "-q", "true");
	struct sg_options o;
	char msg[256];

	(void)state;
	assert_int_equal(parse(8, argv, no_env, &o, msg), 0);
	assert_string_equal(o.policy, "/p.ini");
	assert_string_equal(o.step, "x");
	assert_string_equal(o.workdir, "/w");
	assert_true(o.quiet);
	sg_options_free(&o);
}

static void test_sg_options_parse_environment_fills_in(void **state)
{
	char *env[] = { "STEPGUARD_POLICY=/env.ini", "STEPGUARD_STEP=envstep",
			"STEPGUARD_LOG=/env.log", NULL };
	char **argv = ARGV("true");
	struct sg_options o;
	char msg[256];

	(void)state;
	assert_int_equal(parse(2, argv, env, &o, msg), 0);
	assert_string_equal(o.policy, "/env.ini");
	assert_true(o.policy_explicit);
	assert_string_equal(o.step, "envstep");
	assert_string_equal(o.log, "/env.log");
	sg_options_free(&o);
}

static void test_sg_options_parse_command_line_beats_environment(void **state)
{
	char *env[] = { "STEPGUARD_POLICY=/env.ini", "STEPGUARD_STEP=envstep", NULL };
	char **argv = ARGV("-p", "/cli.ini", "-s", "clistep", "true");
	struct sg_options o;
	char msg[256];

	(void)state;
	assert_int_equal(parse(6, argv, env, &o, msg), 0);
	assert_string_equal(o.policy, "/cli.ini");
	assert_string_equal(o.step, "clistep");
	sg_options_free(&o);
}

static void test_sg_options_parse_empty_environment_ignored(void **state)
{
	char *env[] = { "STEPGUARD_POLICY=", NULL };
	char **argv = ARGV("true");
	struct sg_options o;
	char msg[256];

	(void)state;
	assert_int_equal(parse(2, argv, env, &o, msg), 0);
	assert_null(o.policy);
	assert_false(o.policy_explicit);
	sg_options_free(&o);
}

static void test_sg_options_parse_refusals(void **state)
{
	struct {
		char **argv;
		int argc;
		const char *needle;
	} cases[] = {
		{ ARGV("--filter", "seccomp", "true"), 4, "--filter" },
		{ ARGV("--mode", "loose", "true"), 4, "--mode" },
		{ ARGV("--bogus", "true"), 3, "unknown option" },
		{ ARGV("--policy"), 2, "needs a value" },
		{ ARGV("-s", "bad name", "true"), 4, "step name" },
		{ ARGV("-q", "-v", "true"), 4, "contradict" },
		{ ARGV("--json", "true"), 3, "--self-test" },
		{ ARGV("--check", "--self-test"), 3, "separate" },
		{ ARGV("--self-test", "--", "true"), 4, "no command" },
		{ ARGV("--model-cli", "/opt/claude", "true"), 4, "--model-cli goes with --self-test" },
		{ ARGV("--check", "--model-cli", "/opt/claude"), 4, "--model-cli goes with --self-test" },
		{ ARGV("--self-test", "--model-cli", ""), 4, "path of the model CLI" },
		{ ARGV("--self-test", "--model-cli"), 3, "needs a value" },
		{ ARGV("-v"), 2, "no command" },
		{ ARGV("--allow-write", "", "true"), 4, "path" },
		{ ARGV("--log", "", "true"), 4, "path" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sg_options o;
		char msg[256] = "";

		assert_int_equal(parse(cases[i].argc, cases[i].argv, no_env, &o, msg), -22);
		if (!strstr(msg, cases[i].needle))
			fail_msg("case %zu: message \"%s\" lacks \"%s\"", i, msg, cases[i].needle);
		sg_options_free(&o);
	}
}

/* The option at fault is named, wherever getopt_long() was in its argument. */
static void test_sg_options_parse_names_the_option_at_fault(void **state)
{
	struct {
		char **argv;
		const char *msg;
	} cases[] = {
		/* an unknown letter first in a cluster: optind has not moved (was "stepguard") */
		{ ARGV("-xv", "--", "true"), "unknown option -x in \"-xv\" (see stepguard --help)" },
		/* last in a cluster: optind has moved past it (was the whole "-vx") */
		{ ARGV("-vx", "--", "true"), "unknown option -x in \"-vx\" (see stepguard --help)" },
		{ ARGV("-qvx", "--", "true"), "unknown option -x in \"-qvx\" (see stepguard --help)" },
		/* after other arguments, with and without a value */
		{ ARGV("-s", "lint", "-v", "-x", "--", "true"), "unknown option -x (see stepguard --help)" },
		{ ARGV("-x"), "unknown option -x (see stepguard --help)" },
		{ ARGV("-v", "-p"), "option -p needs a value (see stepguard --help)" },
		{ ARGV("-vp"), "option -p needs a value in \"-vp\" (see stepguard --help)" },
		{ ARGV("--bogus", "true"), "unknown option --bogus (see stepguard --help)" },
		{ ARGV("--bogus=1", "true"), "unknown option --bogus (see stepguard --help)" },
		{ ARGV("--s", "true"), "ambiguous option --s (see stepguard --help)" },
		{ ARGV("--check=yes"),
		  "option --check takes no value, given \"--check=yes\" (see stepguard --help)" },
		{ ARGV("-v", "--policy"), "option --policy needs a value (see stepguard --help)" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sg_options o;
		char msg[256] = "";

		assert_int_equal(parse(0, cases[i].argv, no_env, &o, msg), -22);
		if (strcmp(msg, cases[i].msg) != 0)
			fail_msg("case %zu: \"%s\", want \"%s\"", i, msg, cases[i].msg);
		sg_options_free(&o);
	}
	/* the allowed side: the same letters that exist, clustered, parse */
	{
		struct sg_options o;
		char msg[256] = "";

		assert_int_equal(parse(0, ARGV("-vv", "--", "true"), no_env, &o, msg), 0);
		assert_int_equal(o.verbose, 2);
		sg_options_free(&o);
	}
}

/*
 * A permuting getopt_long() (stepguard audit's) skips operands before the
 * option it fails on: the first option-like argument from AT on is named.
 */
static void test_sg_option_error_permuted_operands(void **state)
{
	char *argv[] = { "audit", "a.log", "b.log", "-xh", NULL };
	char msg[256];

	(void)state;
	sg_option_error(msg, sizeof(msg), '?', argv, 1, 'x', NULL, "stepguard audit --help");
	assert_string_equal(msg, "unknown option -x in \"-xh\" (see stepguard audit --help)");
	/* a lone "-" is an operand (standard input), never the option */
	argv[1] = "-";
	argv[3] = "-s";
	sg_option_error(msg, sizeof(msg), ':', argv, 1, 's', NULL, "stepguard audit --help");
	assert_string_equal(msg, "option -s needs a value (see stepguard audit --help)");
}

static void test_sg_options_parse_model_cli(void **state)
{
	char **argv = ARGV("--self-test", "--model-cli", "/opt/claude", "--json", "-v");
	struct sg_options o;
	char msg[256];

	(void)state;
	assert_int_equal(parse(0, argv, no_env, &o, msg), 0);
	assert_true(o.self_test);
	assert_string_equal(o.model_cli, "/opt/claude");
	assert_true(o.json);
	assert_int_equal(o.argc, 0);
	sg_options_free(&o);
	/* "=" as well; and without the option, no CLI is run */
	assert_int_equal(parse(0, ARGV("--model-cli=claude", "--self-test"), no_env, &o, msg), 0);
	assert_string_equal(o.model_cli, "claude");
	sg_options_free(&o);
	assert_int_equal(parse(0, ARGV("--self-test"), no_env, &o, msg), 0);
	assert_null(o.model_cli);
	sg_options_free(&o);
}

static void test_sg_options_parse_check_without_command(void **state)
{
	char **argv = ARGV("--check");
	struct sg_options o;
	char msg[256];

	(void)state;
	assert_int_equal(parse(2, argv, no_env, &o, msg), 0);
	assert_true(o.check);
	assert_int_equal(o.argc, 0);
	sg_options_free(&o);
}

static void test_sg_options_parse_repeatable_calls(void **state)
{
	/* getopt keeps state; a second parse must start afresh. */
	char **a = ARGV("-s", "one", "true");
	char **b = ARGV("-s", "two", "false");
	struct sg_options o;
	char msg[256];

	(void)state;
	assert_int_equal(parse(4, a, no_env, &o, msg), 0);
	sg_options_free(&o);
	assert_int_equal(parse(4, b, no_env, &o, msg), 0);
	assert_string_equal(o.step, "two");
	assert_string_equal(o.argv[0], "false");
	sg_options_free(&o);
}

static void test_exit_codes_are_distinct(void **state)
{
	int codes[] = { SG_EXIT_USAGE, SG_EXIT_CONFINE, SG_EXIT_REFUSED, SG_EXIT_NOEXEC,
			SG_EXIT_NOTFOUND, SG_EXIT_SELFTEST };

	(void)state;
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		assert_true(codes[i] > 0 && codes[i] < 128);
		for (size_t j = i + 1; j < sizeof(codes) / sizeof(codes[0]); j++)
			assert_int_not_equal(codes[i], codes[j]);
	}
	assert_int_equal(SG_EXIT_NOTFOUND, 127);
	assert_int_equal(SG_EXIT_NOEXEC, 126);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sg_options_parse_command_after_double_dash),
		cmocka_unit_test(test_sg_options_parse_stops_at_first_operand),
		cmocka_unit_test(test_sg_options_parse_all_long_options),
		cmocka_unit_test(test_sg_options_parse_short_options),
		cmocka_unit_test(test_sg_options_parse_environment_fills_in),
		cmocka_unit_test(test_sg_options_parse_command_line_beats_environment),
		cmocka_unit_test(test_sg_options_parse_empty_environment_ignored),
		cmocka_unit_test(test_sg_options_parse_refusals),
		cmocka_unit_test(test_sg_options_parse_names_the_option_at_fault),
		cmocka_unit_test(test_sg_option_error_permuted_operands),
		cmocka_unit_test(test_sg_options_parse_model_cli),
		cmocka_unit_test(test_sg_options_parse_check_without_command),
		cmocka_unit_test(test_sg_options_parse_repeatable_calls),
		cmocka_unit_test(test_exit_codes_are_distinct),
	};

	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
