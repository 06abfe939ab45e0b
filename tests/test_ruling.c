// SPDX-License-Identifier: MIT
/* test_ruling.c — rulings 1 and 2 and the argv analysis, on the shipped defaults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>

#include "policy/default_policy.h"
#include "policy/policy.h"
#include "policy/ruling.h"

static struct sg_policy pol;

static int setup(void **state)
{
	struct sg_error err;

	(void)state;
	sg_policy_init(&pol);
	for (size_t i = 0; i < sg_n_default_fragments; i++)
		if (sg_policy_parse(&pol, sg_default_fragments[i].name, sg_default_fragments[i].text,
				    sg_default_fragments[i].len, NULL, &err) < 0)
			return -1;
	return sg_policy_validate(&pol, &err);
}

static int teardown(void **state)
{
	(void)state;
	sg_policy_free(&pol);
	return 0;
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })
#define ENV(...) ((char *[]){ __VA_ARGS__, NULL })
static char *no_env[] = { "PATH=/usr/bin:/bin", NULL };
static char *scrub_env[] = { "PATH=/usr/bin", "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=1", NULL };
static char *cred_env[] = { "ANTHROPIC_API_KEY=sk-secret-123", NULL };

static struct sg_ruling decide(char **argv, char **envp)
{
	struct sg_ruling r;

	sg_ruling_decide(&pol, argv, envp, &r);
	return r;
}

static void test_sg_ruling_decide_no_ruling_applies(void **state)
{
	struct sg_ruling r = decide(ARGV("sh", "-c", "make && claude -p hi"), no_env);

	(void)state;
	assert_int_equal(r.rule, 0);
	assert_int_equal(r.reason, SG_OK);
}

static void test_sg_ruling_decide_scrub_zero_is_not_set(void **state)
{
	struct sg_ruling r = decide(ARGV("sh", "-c", "x"), ENV("CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=0"));

	(void)state;
	assert_int_equal(r.rule, 0);
	assert_int_equal(r.reason, SG_OK);
	r = decide(ARGV("sh"), ENV("CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=00"));
	assert_int_equal(r.rule, 1); /* only exactly "0" is off */
	assert_int_equal(r.reason, SG_NOT_MODEL_CLI);
}

static void test_sg_ruling_decide_scrub_empty_is_not_set(void **state)
{
	struct sg_ruling r = decide(ARGV("make"), ENV("CLAUDE_CODE_SUBPROCESS_ENV_SCRUB="));

	(void)state;
	assert_int_equal(r.rule, 0);
	assert_int_equal(r.reason, SG_OK);
}

static void test_sg_ruling_decide_scrub_any_other_value_is_set(void **state)
{
	struct sg_ruling r = decide(ARGV("make"), ENV("CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=false"));

	(void)state;
	assert_int_equal(r.rule, 1);
	assert_string_equal(r.variable, "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB");
	assert_int_equal(r.reason, SG_NOT_MODEL_CLI);
}

static void test_sg_ruling_decide_scrub_without_tools_refused(void **state)
{
	struct sg_ruling r = decide(ARGV("claude", "-p", "hi"), scrub_env);

	(void)state;
	assert_int_equal(r.rule, 1);
	assert_int_equal(r.reason, SG_NO_TOOLS_OPTION);
}

static void test_sg_ruling_decide_scrub_with_empty_tools_runs(void **state)
{
	struct sg_ruling r = decide(ARGV("claude", "-p", "hi", "--tools", ""), scrub_env);

	(void)state;
	assert_int_equal(r.rule, 1);
	assert_int_equal(r.reason, SG_OK);
}

static void test_sg_ruling_decide_tools_equals_empty_runs(void **state)
{
	struct sg_ruling r = decide(ARGV("claude", "--tools=", "-p", "hi"), cred_env);

	(void)state;
	assert_int_equal(r.rule, 2);
	assert_int_equal(r.reason, SG_OK);
	r = decide(ARGV("claude", "--tools=Bash", "-p", "hi"), cred_env);
	assert_int_equal(r.reason, SG_TOOLS_NOT_EMPTY);
	assert_int_equal(r.arg, 1);
}

static void test_sg_ruling_decide_credential_with_tool_refused(void **state)
{
	struct sg_ruling r = decide(ARGV("claude", "-p", "hi", "--tools", "Bash"), cred_env);

	(void)state;
	assert_int_equal(r.rule, 2);
	assert_string_equal(r.variable, "ANTHROPIC_API_KEY");
	assert_int_equal(r.reason, SG_TOOLS_NOT_EMPTY);
	assert_int_equal(r.arg, 4);
}

static void test_sg_ruling_decide_credential_without_tools_refused(void **state)
{
	struct sg_ruling r = decide(ARGV("claude", "-p", "hi"), cred_env);

	(void)state;
	assert_int_equal(r.rule, 2);
	assert_int_equal(r.reason, SG_NO_TOOLS_OPTION);
}

static void test_sg_ruling_decide_each_credential_variable(void **state)
{
	static char *vars[] = { "ANTHROPIC_API_KEY=a", "ANTHROPIC_AUTH_TOKEN=b",
				"CLAUDE_CODE_OAUTH_TOKEN=c" };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		char *env[] = { vars[i], NULL };
		struct sg_ruling r = decide(ARGV("make", "test"), env);

		assert_int_equal(r.rule, 2);
		assert_int_equal(r.reason, SG_NOT_MODEL_CLI);
		r = decide(ARGV("claude", "--tools", "", "-p", "x"), env);
		assert_int_equal(r.reason, SG_OK);
	}
}

static void test_sg_ruling_decide_empty_credential_not_held(void **state)
{
	struct sg_ruling r = decide(ARGV("make"), ENV("ANTHROPIC_API_KEY="));

	(void)state;
	assert_int_equal(r.rule, 0);
	assert_int_equal(r.reason, SG_OK);
}

static void test_sg_ruling_decide_duplicate_env_entry_counts(void **state)
{
	/* execve passes both entries on; the empty first one must not hide the second. */
	struct sg_ruling r = decide(ARGV("make"), ENV("ANTHROPIC_API_KEY=", "ANTHROPIC_API_KEY=k"));

	(void)state;
	assert_int_equal(r.rule, 2);
	assert_int_equal(r.reason, SG_NOT_MODEL_CLI);
}

static void test_sg_ruling_decide_shell_wrapper_refused(void **state)
{
	struct sg_ruling r = decide(ARGV("sh", "-c", "claude -p hi --tools ''"), cred_env);

	(void)state;
	assert_int_equal(r.reason, SG_NOT_MODEL_CLI);
	assert_int_equal(r.arg, 0);
}

static void test_sg_ruling_decide_env_npx_bash_wrappers_refused(void **state)
{
	(void)state;
	assert_int_equal(decide(ARGV("env", "claude", "--tools", ""), scrub_env).reason,
			 SG_NOT_MODEL_CLI);
	assert_int_equal(decide(ARGV("npx", "claude", "--tools", ""), scrub_env).reason,
			 SG_NOT_MODEL_CLI);
	assert_int_equal(decide(ARGV("bash", "script.sh"), scrub_env).reason, SG_NOT_MODEL_CLI);
	assert_int_equal(decide(ARGV("/usr/bin/env", "-i", "claude"), cred_env).reason,
			 SG_NOT_MODEL_CLI);
}

static void test_sg_ruling_decide_cli_by_path_accepted(void **state)
{
	struct sg_ruling r = decide(ARGV("/usr/local/bin/claude", "--tools", "", "-p", "hi"),
				    cred_env);

	(void)state;
	assert_int_equal(r.reason, SG_OK);
	r = decide(ARGV("/usr/local/bin/claude-wrapper", "--tools", ""), cred_env);
	assert_int_equal(r.reason, SG_NOT_MODEL_CLI);
}

static void test_sg_ruling_decide_tool_flag_with_empty_tools_refused(void **state)
{
	struct sg_ruling r = decide(ARGV("claude", "-p", "hi", "--tools", "", "--allowedTools",
					 "Bash"),
				    cred_env);

	(void)state;
	assert_int_equal(r.reason, SG_TOOL_FLAG);
	assert_int_equal(r.arg, 5);
}

static void test_sg_ruling_decide_tool_flag_equals_form_refused(void **state)
{
	struct sg_ruling r = decide(ARGV("claude", "--tools", "", "--allowed-tools=Bash"),
				    scrub_env);

	(void)state;
	assert_int_equal(r.reason, SG_TOOL_FLAG);
	assert_int_equal(r.arg, 3);
}

/* ---- every option the shipped rules.d lists ------------------------- */

/*
 * The two [model-cli] lists of the shipped rules.d, copied here by hand on
 * purpose: moving an option from one list to the other (--settings as a
 * value option "takes" its JSON, and the settings it loads grant tools)
 * must fail a test, not follow along.  Changing rules.d means changing
 * these lists, deliberately.
 */
static const char *const shipped_tool_flags[] = {
	"--allowedTools", "--allowed-tools", "--mcp-config",
	"--dangerously-skip-permissions", "--allow-dangerously-skip-permissions",
	"--permission-mode", "--permission-prompt-tool", "--settings",
	"--plugin-dir", "--agents",
};

static const char *const shipped_value_options[] = {
	"--model", "--fallback-model", "--system-prompt", "--system-prompt-file",
	"--append-system-prompt", "--append-system-prompt-file", "--output-format",
	"--input-format", "--max-turns", "--max-budget-usd", "--json-schema",
	"--session-id", "--setting-sources",
};

static const char *const reason_names[] = {
	[SG_OK] = "SG_OK",
	[SG_NO_COMMAND] = "SG_NO_COMMAND",
	[SG_NOT_MODEL_CLI] = "SG_NOT_MODEL_CLI",
	[SG_NO_TOOLS_OPTION] = "SG_NO_TOOLS_OPTION",
	[SG_TOOLS_NOT_EMPTY] = "SG_TOOLS_NOT_EMPTY",
	[SG_TOOL_FLAG] = "SG_TOOL_FLAG",
	[SG_UNKNOWN_OPTION] = "SG_UNKNOWN_OPTION",
	[SG_MISSING_VALUE] = "SG_MISSING_VALUE",
	[SG_FLAG_WITH_VALUE] = "SG_FLAG_WITH_VALUE",
	[SG_SUBCOMMAND] = "SG_SUBCOMMAND",
};

static const char *reason_name(enum sg_reason r)
{
	return (size_t)r < ARRAY_SIZE(reason_names) && reason_names[r] ? reason_names[r] : "?";
}

/* The ruling on ARGV must have reason WANT; OPT and WHAT say which case failed. */
static void reason_is(char **argv, char **envp, enum sg_reason want, const char *opt,
		      const char *what)
{
	struct sg_ruling r = decide(argv, envp);

	if (r.reason != want)
		fail_msg("%s %s: %s, want %s", opt, what, reason_name(r.reason), reason_name(want));
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, got;

	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	do {
		char *nb = realloc(buf, n + 4096 + 1);

		assert_non_null(nb);
		buf = nb;
		got = fread(buf + n, 1, 4096, f);
		n += got;
	} while (got > 0);
	assert_false(ferror(f));
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/*
 * The shipped rules.d files themselves, merged in lexical order as
 * stepguard merges them (glob sorts bytewise in the C locale, as make's
 * $(sort) does).  The compiled-in policy the rulings use is generated from
 * these files; test_default_policy checks that the two are the same bytes.
 * A missing STEPGUARD_SOURCE_DIR fails: skipping would pass untested.
 */
static void parse_rules_d(struct sg_policy *p)
{
	const char *src = getenv("STEPGUARD_SOURCE_DIR");
	char pattern[PATH_MAX];
	struct sg_error err;
	glob_t g;

	if (!src || !*src)
		fail_msg("STEPGUARD_SOURCE_DIR is not set: run these tests through make, or set "
			 "it to the source tree (the directory holding rules.d/)");
	snprintf(pattern, sizeof(pattern), "%s/rules.d/*.ini", src);
	if (glob(pattern, 0, NULL, &g) != 0)
		fail_msg("no file matches %s", pattern);
	sg_policy_init(p);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		size_t len;
		char *text = slurp(g.gl_pathv[i], &len);

		memset(&err, 0, sizeof(err));
		if (sg_policy_parse(p, g.gl_pathv[i], text, len, NULL, &err) != 0)
			fail_msg("%s:%u: %s", err.file, err.line, err.msg);
		free(text);
	}
	globfree(&g);
}

/* rules.d's KEY holds exactly WANT, in any order; every difference is named. */
static void list_is(const char *key, const struct sg_words *got, const char *const *want,
		    size_t n)
{
	bool same = true;

	for (size_t i = 0; i < n; i++)
		if (!sg_words_contains(got, want[i])) {
			print_error("rules.d [model-cli] %s lacks %s\n", key, want[i]);
			same = false;
		}
	for (size_t i = 0; i < got->n; i++) {
		bool expected = false;

		for (size_t k = 0; k < n; k++)
			expected = expected || strcmp(got->v[i], want[k]) == 0;
		if (!expected) {
			print_error("rules.d [model-cli] %s has %s, which this test does not expect there\n",
				    key, got->v[i]);
			same = false;
		}
	}
	if (!same)
		fail_msg("rules.d [model-cli] %s is not the list this test pins", key);
}

/*
 * A tool flag is refused bare and as --flag=value, under either ruling,
 * wherever it stands: its value would grant what --tools "" took away.
 * SG_TOOL_FLAG, not SG_UNKNOWN_OPTION: a flag dropped from the list is
 * refused only as long as no other list happens to name it.
 */
static void tool_flag_refused(char *flag)
{
	char eq[256];

	snprintf(eq, sizeof(eq), "%s={}", flag);
	reason_is(ARGV("claude", "--tools", "", flag, "{}", "-p", "hi"), cred_env, SG_TOOL_FLAG,
		  flag, "after --tools \"\"");
	reason_is(ARGV("claude", flag, "{}", "--tools", "", "-p", "hi"), scrub_env, SG_TOOL_FLAG,
		  flag, "before --tools \"\"");
	reason_is(ARGV("claude", "--tools", "", eq, "-p", "hi"), cred_env, SG_TOOL_FLAG, eq,
		  "as --flag=value");
	assert_int_equal(decide(ARGV("claude", "--tools", "", flag, "{}"), cred_env).arg, 3);
}

/*
 * A value option takes the word after it, whatever that word looks like:
 * a tool flag, a subcommand, or --tools itself, which as a value leaves
 * the CLI its default tools.
 */
static void value_option_takes_its_value(char *opt)
{
	char eq[256];

	snprintf(eq, sizeof(eq), "%s=--allowedTools", opt);
	reason_is(ARGV("claude", "--tools", "", opt, "--allowedTools", "-p", "hi"), cred_env, SG_OK,
		  opt, "with the value --allowedTools");
	reason_is(ARGV("claude", opt, "mcp", "--tools", "", "-p", "hi"), cred_env, SG_OK, opt,
		  "with the value mcp");
	reason_is(ARGV("claude", "--tools", "", eq, "-p", "hi"), scrub_env, SG_OK, eq,
		  "as --option=value");
	/* the refused side: the --tools it takes is text, not the tools option */
	reason_is(ARGV("claude", "-p", "hi", opt, "--tools", ""), cred_env, SG_NO_TOOLS_OPTION, opt,
		  "before --tools \"\"");
	reason_is(ARGV("claude", "--tools", "", "-p", "hi", opt), cred_env, SG_MISSING_VALUE, opt,
		  "last, without a value");
}

/*
 * The pinned list first, so a flag moved out of tool-flags fails with
 * what it would let run; then every flag rules.d lists, then the lists
 * themselves, so a flag added to rules.d must be added here too.
 */
static void test_sg_ruling_decide_every_default_tool_flag_refused(void **state)
{
	struct sg_policy files;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(shipped_tool_flags); i++)
		tool_flag_refused((char *)shipped_tool_flags[i]);
	parse_rules_d(&files);
	for (size_t i = 0; i < files.cli.tool_flags.n; i++)
		tool_flag_refused(files.cli.tool_flags.v[i]);
	list_is("tool-flags", &files.cli.tool_flags, shipped_tool_flags,
		ARRAY_SIZE(shipped_tool_flags));
	/* the allowed side: the same command without the flag runs */
	reason_is(ARGV("claude", "--tools", "", "-p", "hi"), cred_env, SG_OK, "(none)",
		  "without a tool flag");
	sg_policy_free(&files);
}

static void test_sg_ruling_decide_every_default_value_option_takes_its_value(void **state)
{
	struct sg_policy files;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(shipped_value_options); i++)
		value_option_takes_its_value((char *)shipped_value_options[i]);
	parse_rules_d(&files);
	for (size_t i = 0; i < files.cli.value_options.n; i++)
		value_option_takes_its_value(files.cli.value_options.v[i]);
	list_is("value-options", &files.cli.value_options, shipped_value_options,
		ARRAY_SIZE(shipped_value_options));
	sg_policy_free(&files);
}

static void test_sg_ruling_decide_last_tools_does_not_rescue(void **state)
{
	(void)state;
	assert_int_equal(decide(ARGV("claude", "--tools", "Bash", "--tools", ""), cred_env).reason,
			 SG_TOOLS_NOT_EMPTY);
	assert_int_equal(decide(ARGV("claude", "--tools", "", "--tools", "Read"), cred_env).reason,
			 SG_TOOLS_NOT_EMPTY);
	assert_int_equal(decide(ARGV("claude", "--tools", "", "--tools=", "-p", "x"), cred_env).reason,
			 SG_OK);
}

static void test_sg_ruling_decide_tools_is_variadic(void **state)
{
	/* commander reads "--tools <tools...>": "hi" would be a tool, not the prompt. */
	struct sg_ruling r = decide(ARGV("claude", "-p", "--tools", "", "hi"), cred_env);

	(void)state;
	assert_int_equal(r.reason, SG_TOOLS_NOT_EMPTY);
	assert_int_equal(r.arg, 4);
	r = decide(ARGV("claude", "-p", "--tools", "", "--", "hi"), cred_env);
	assert_int_equal(r.reason, SG_OK);
}

static void test_sg_ruling_decide_after_double_dash_is_prompt(void **state)
{
	struct sg_ruling r = decide(ARGV("claude", "--tools", "", "-p", "--", "--allowedTools",
					 "Bash", "--tools", "Bash"),
				    cred_env);

	(void)state;
	assert_int_equal(r.reason, SG_OK);
	/* and a --tools "" after "--" is a prompt too: it does not count */
	r = decide(ARGV("claude", "-p", "--", "--tools", ""), cred_env);
	assert_int_equal(r.reason, SG_NO_TOOLS_OPTION);
}

static void test_sg_ruling_decide_value_option_swallows_tools(void **state)
{
	/* "--tools" here is the system prompt's text: the CLI keeps its tools. */
	struct sg_ruling r = decide(ARGV("claude", "-p", "hi", "--system-prompt", "--tools", ""),
				    cred_env);

	(void)state;
	assert_int_equal(r.reason, SG_NO_TOOLS_OPTION);
	r = decide(ARGV("claude", "--model", "opus", "--tools", "", "-p", "hi"), cred_env);
	assert_int_equal(r.reason, SG_OK);
	r = decide(ARGV("claude", "--model=opus", "--tools", "", "-p", "hi"), cred_env);
	assert_int_equal(r.reason, SG_OK);
}

static void test_sg_ruling_decide_optional_value_option(void **state)
{
	(void)state;
	/* "-d" takes "api" but not "--tools" (it starts with '-'). */
	assert_int_equal(decide(ARGV("claude", "-d", "--tools", "", "-p", "x"), cred_env).reason,
			 SG_OK);
	assert_int_equal(decide(ARGV("claude", "-d", "api", "--tools", ""), cred_env).reason, SG_OK);
}

static void test_sg_ruling_decide_variadic_option(void **state)
{
	(void)state;
	assert_int_equal(decide(ARGV("claude", "--add-dir", "a", "b", "--tools", "", "-p", "x"),
				cred_env).reason,
			 SG_OK);
	assert_int_equal(decide(ARGV("claude", "--add-dir", "--tools", ""), cred_env).reason,
			 SG_MISSING_VALUE);
}

static void test_sg_ruling_decide_unknown_option_refused(void **state)
{
	struct sg_ruling r = decide(ARGV("claude", "--frobnicate", "--tools", "", "-p", "x"),
				    cred_env);

	(void)state;
	assert_int_equal(r.reason, SG_UNKNOWN_OPTION);
	assert_int_equal(r.arg, 1);
	/* bundled short options are not in the lists either */
	assert_int_equal(decide(ARGV("claude", "-pc", "--tools", ""), cred_env).reason,
			 SG_UNKNOWN_OPTION);
}

static void test_sg_ruling_decide_tools_without_value_refused(void **state)
{
	(void)state;
	assert_int_equal(decide(ARGV("claude", "-p", "hi", "--tools"), cred_env).reason,
			 SG_MISSING_VALUE);
	assert_int_equal(decide(ARGV("claude", "--tools", "-p", "hi"), cred_env).reason,
			 SG_MISSING_VALUE);
	assert_int_equal(decide(ARGV("claude", "--tools", "", "--model"), cred_env).reason,
			 SG_MISSING_VALUE);
}

static void test_sg_ruling_decide_flag_with_value_refused(void **state)
{
	(void)state;
	assert_int_equal(decide(ARGV("claude", "--print=yes", "--tools", ""), cred_env).reason,
			 SG_FLAG_WITH_VALUE);
	assert_int_equal(decide(ARGV("claude", "--print", "--tools", ""), cred_env).reason, SG_OK);
}

static void test_sg_ruling_decide_subcommand_refused(void **state)
{
	struct sg_ruling r = decide(ARGV("claude", "mcp", "add", "x", "--tools", ""), cred_env);

	(void)state;
	assert_int_equal(r.reason, SG_SUBCOMMAND);
	assert_int_equal(r.arg, 1);
	assert_int_equal(decide(ARGV("claude", "--tools", "", "--", "mcp"), cred_env).reason,
			 SG_SUBCOMMAND);
	/* a later operand with the same word is part of the prompt */
	assert_int_equal(decide(ARGV("claude", "-p", "explain", "mcp", "--tools", ""), cred_env)
				 .reason,
			 SG_OK);
	assert_int_equal(decide(ARGV("claude", "-p", "explain mcp", "--tools", ""), cred_env).reason,
			 SG_OK);
}

static void test_sg_ruling_decide_both_rulings_name_both_variables(void **state)
{
	struct sg_ruling r = decide(ARGV("make"), ENV("CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=1",
						      "CLAUDE_CODE_OAUTH_TOKEN=t"));

	(void)state;
	assert_int_equal(r.rule, 1);
	assert_string_equal(r.variable, "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB");
	assert_non_null(r.other);
	assert_string_equal(r.other, "CLAUDE_CODE_OAUTH_TOKEN");
}

static void test_sg_ruling_decide_no_command(void **state)
{
	char *empty[] = { NULL };

	(void)state;
	assert_int_equal(decide(empty, no_env).reason, SG_NO_COMMAND);
	assert_int_equal(decide(ARGV(""), cred_env).reason, SG_NO_COMMAND);
}

static void test_sg_ruling_explain_names_ruling_variable_and_fix(void **state)
{
	char *argv[] = { "claude", "-p", "hi", NULL };
	struct sg_ruling r = decide(argv, scrub_env);
	char buf[1024];

	(void)state;
	sg_ruling_explain(&pol, &r, argv, scrub_env, buf, sizeof(buf));
	assert_non_null(strstr(buf, "ruling 1"));
	assert_non_null(strstr(buf, "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB"));
	assert_non_null(strstr(buf, "--tools \"\""));
	assert_non_null(strstr(buf, "fix:"));
}

static void test_sg_ruling_explain_never_prints_credential(void **state)
{
	char *argv[] = { "claude", "--tools", "sk-secret-123", NULL };
	struct sg_ruling r = decide(argv, cred_env);
	char buf[1024];

	(void)state;
	assert_int_equal(r.reason, SG_TOOLS_NOT_EMPTY);
	sg_ruling_explain(&pol, &r, argv, cred_env, buf, sizeof(buf));
	assert_null(strstr(buf, "sk-secret-123"));
	assert_non_null(strstr(buf, "ANTHROPIC_API_KEY"));
	assert_non_null(strstr(buf, "ruling 2"));
	/* an ordinary offending argument is shown */
	{
		char *argv2[] = { "claude", "--tools", "Bash", NULL };
		r = decide(argv2, cred_env);
		sg_ruling_explain(&pol, &r, argv2, cred_env, buf, sizeof(buf));
		assert_non_null(strstr(buf, "Bash"));
	}
}

/* A key of the shape of Anthropic's: a public prefix, then the secret. */
#define KEY_PREFIX "sk-ant-api03-"
#define KEY_SECRET "Zq8vN3xKpL2mRt7wYb4cHd9fJs6gTa1eUo5iWk0nXr"
static char *key_env[] = { "PATH=/usr/bin", "ANTHROPIC_API_KEY=" KEY_PREFIX KEY_SECRET, NULL };

/* The variable named by sg_credential_in(), never NULL */
static void names_key(const char *got)
{
	assert_non_null(got);
	assert_string_equal(got, "ANTHROPIC_API_KEY");
}

static void test_sg_credential_in_whole_and_parts(void **state)
{
	const char *key = KEY_PREFIX KEY_SECRET;
	char buf[128];

	(void)state;
	names_key(sg_credential_in(&pol, key_env, key));
	/* cut short, the tail, one piece of a split, a run inside an option */
	snprintf(buf, sizeof(buf), "%.20s", key);
	names_key(sg_credential_in(&pol, key_env, buf));
	names_key(sg_credential_in(&pol, key_env, key + 30));
	snprintf(buf, sizeof(buf), "--x=%.*s=1", SG_CREDENTIAL_RUN, &KEY_SECRET[9]);
	names_key(sg_credential_in(&pol, key_env, buf));
	/* the allowed side: shorter runs, other words, no credential held */
	snprintf(buf, sizeof(buf), "%.*s", SG_CREDENTIAL_RUN - 1, &KEY_SECRET[9]);
	assert_null(sg_credential_in(&pol, key_env, buf));
	assert_null(sg_credential_in(&pol, key_env, "--tools"));
	assert_null(sg_credential_in(&pol, key_env, "Bash"));
	assert_null(sg_credential_in(&pol, no_env, key));
	/* a value shorter than the run is matched whole */
	names_key(sg_credential_in(&pol, ENV("ANTHROPIC_API_KEY=ab"), "xaby"));
	assert_null(sg_credential_in(&pol, ENV("ANTHROPIC_API_KEY=ab"), "a-b"));
	/* any occurrence counts: a second, different value is not hidden by the first */
	names_key(sg_credential_in(&pol, ENV("ANTHROPIC_API_KEY=first-value",
					     "ANTHROPIC_API_KEY=" KEY_SECRET),
				   &KEY_SECRET[20]));
}

/* Fails if BUF holds SG_CREDENTIAL_RUN bytes in a row of the secret. */
static void assert_no_secret(const char *buf, const char *what)
{
	const char *sec = KEY_SECRET;

	for (size_t j = 0; j + SG_CREDENTIAL_RUN <= strlen(sec); j++)
		if (memmem(buf, strlen(buf), sec + j, SG_CREDENTIAL_RUN))
			fail_msg("%s: the explanation shows \"%.*s\" of the key: %s", what,
				 SG_CREDENTIAL_RUN, sec + j, buf);
}

/*
 * Every place the explanation quotes an argument, with the key whole, cut
 * short, split in two, or a piece of it: the variable is named, no byte
 * run of the secret is shown.
 */
static void test_sg_ruling_explain_never_prints_part_of_credential(void **state)
{
	const char *key = KEY_PREFIX KEY_SECRET;
	char start[64], tail[64], piece[32], opt[64];
	char buf[2048];
	struct {
		char **argv;
		enum sg_reason reason;
	} cases[] = {
		{ ARGV("claude", "--tools", (char *)key), SG_TOOLS_NOT_EMPTY },
		{ ARGV("claude", "--tools", start), SG_TOOLS_NOT_EMPTY },
		{ ARGV("claude", "--tools", "", "--tools", tail), SG_TOOLS_NOT_EMPTY },
		{ ARGV(piece, "--tools", ""), SG_NOT_MODEL_CLI },
		{ ARGV("claude", "--tools", "", opt), SG_UNKNOWN_OPTION },
		{ ARGV("claude", "--tools", "", "--verbose=" KEY_SECRET), SG_FLAG_WITH_VALUE },
	};

	(void)state;
	snprintf(start, sizeof(start), "%.30s", key);           /* the prefix and 17 bytes */
	snprintf(tail, sizeof(tail), "%s", key + 30);            /* the rest */
	snprintf(piece, sizeof(piece), "%.12s", &KEY_SECRET[5]); /* from the middle */
	snprintf(opt, sizeof(opt), "--%.8s=1", &KEY_SECRET[20]);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sg_ruling r = decide(cases[i].argv, key_env);

		assert_int_equal(r.rule, 2);
		assert_int_equal(r.reason, cases[i].reason);
		sg_ruling_explain(&pol, &r, cases[i].argv, key_env, buf, sizeof(buf));
		assert_no_secret(buf, cases[i].argv[r.arg]);
		if (!strstr(buf, "ANTHROPIC_API_KEY or part of it, not shown"))
			fail_msg("case %zu: the variable is not named: %s", i, buf);
	}
	/* the allowed side: an argument of no credential is still shown */
	{
		char **argv = ARGV("claude", "--tools", "", "--no-such-option");
		struct sg_ruling r = decide(argv, key_env);

		sg_ruling_explain(&pol, &r, argv, key_env, buf, sizeof(buf));
		assert_non_null(strstr(buf, "--no-such-option"));
		assert_null(strstr(buf, "not shown"));
	}
}

static void test_sg_ruling_explain_offending_option_named(void **state)
{
	char *argv[] = { "claude", "--tools", "", "--mcp-config", "x.json", NULL };
	struct sg_ruling r = decide(argv, cred_env);
	char buf[1024];

	(void)state;
	sg_ruling_explain(&pol, &r, argv, cred_env, buf, sizeof(buf));
	assert_non_null(strstr(buf, "--mcp-config"));
	assert_non_null(strstr(buf, "grants tools"));
}

static void test_sg_quote_arg_escapes_and_marks_truncation(void **state)
{
	char buf[256];

	(void)state;
	assert_string_equal(sg_quote_arg("--tools", 80, buf, sizeof(buf)), "--tools");
	assert_string_equal(sg_quote_arg("", 80, buf, sizeof(buf)), "''");
	assert_string_equal(sg_quote_arg("a b", 80, buf, sizeof(buf)), "'a b'");
	assert_string_equal(sg_quote_arg("a\nb", 80, buf, sizeof(buf)), "'a\\x0ab'");
	assert_string_equal(sg_quote_arg("it's", 80, buf, sizeof(buf)), "'it'\\''s'");
	assert_string_equal(sg_quote_arg("abcdefgh", 3, buf, sizeof(buf)), "abc... (5 more bytes)");
}

static void test_sg_ruling_decide_custom_cli_names(void **state)
{
	struct sg_policy p;
	struct sg_error err;
	static const char extra[] = "[model-cli]\nnames = claude claude-code\n";
	struct sg_ruling r;

	(void)state;
	sg_policy_init(&p);
	for (size_t i = 0; i < sg_n_default_fragments; i++)
		assert_int_equal(sg_policy_parse(&p, sg_default_fragments[i].name,
						 sg_default_fragments[i].text,
						 sg_default_fragments[i].len, NULL, &err),
				 0);
	assert_int_equal(sg_policy_parse(&p, "extra.ini", extra, sizeof(extra) - 1, NULL, &err), 0);
	sg_ruling_decide(&p, ARGV("claude-code", "--tools", ""), cred_env, &r);
	assert_int_equal(r.reason, SG_OK);
	sg_ruling_decide(&p, ARGV("codex", "--tools", ""), cred_env, &r);
	assert_int_equal(r.reason, SG_NOT_MODEL_CLI);
	sg_policy_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sg_ruling_decide_no_ruling_applies),
		cmocka_unit_test(test_sg_ruling_decide_scrub_zero_is_not_set),
		cmocka_unit_test(test_sg_ruling_decide_scrub_empty_is_not_set),
		cmocka_unit_test(test_sg_ruling_decide_scrub_any_other_value_is_set),
		cmocka_unit_test(test_sg_ruling_decide_scrub_without_tools_refused),
		cmocka_unit_test(test_sg_ruling_decide_scrub_with_empty_tools_runs),
		cmocka_unit_test(test_sg_ruling_decide_tools_equals_empty_runs),
		cmocka_unit_test(test_sg_ruling_decide_credential_with_tool_refused),
		cmocka_unit_test(test_sg_ruling_decide_credential_without_tools_refused),
		cmocka_unit_test(test_sg_ruling_decide_each_credential_variable),
		cmocka_unit_test(test_sg_ruling_decide_empty_credential_not_held),
		cmocka_unit_test(test_sg_ruling_decide_duplicate_env_entry_counts),
		cmocka_unit_test(test_sg_ruling_decide_shell_wrapper_refused),
		cmocka_unit_test(test_sg_ruling_decide_env_npx_bash_wrappers_refused),
		cmocka_unit_test(test_sg_ruling_decide_cli_by_path_accepted),
		cmocka_unit_test(test_sg_ruling_decide_tool_flag_with_empty_tools_refused),
		cmocka_unit_test(test_sg_ruling_decide_tool_flag_equals_form_refused),
		cmocka_unit_test(test_sg_ruling_decide_every_default_tool_flag_refused),
		cmocka_unit_test(test_sg_ruling_decide_every_default_value_option_takes_its_value),
		cmocka_unit_test(test_sg_ruling_decide_last_tools_does_not_rescue),
		cmocka_unit_test(test_sg_ruling_decide_tools_is_variadic),
		cmocka_unit_test(test_sg_ruling_decide_after_double_dash_is_prompt),
		cmocka_unit_test(test_sg_ruling_decide_value_option_swallows_tools),
		cmocka_unit_test(test_sg_ruling_decide_optional_value_option),
		cmocka_unit_test(test_sg_ruling_decide_variadic_option),
		cmocka_unit_test(test_sg_ruling_decide_unknown_option_refused),
		cmocka_unit_test(test_sg_ruling_decide_tools_without_value_refused),
		cmocka_unit_test(test_sg_ruling_decide_flag_with_value_refused),
		cmocka_unit_test(test_sg_ruling_decide_subcommand_refused),
		cmocka_unit_test(test_sg_ruling_decide_both_rulings_name_both_variables),
		cmocka_unit_test(test_sg_ruling_decide_no_command),
		cmocka_unit_test(test_sg_ruling_explain_names_ruling_variable_and_fix),
		cmocka_unit_test(test_sg_ruling_explain_never_prints_credential),
		cmocka_unit_test(test_sg_credential_in_whole_and_parts),
		cmocka_unit_test(test_sg_ruling_explain_never_prints_part_of_credential),
		cmocka_unit_test(test_sg_ruling_explain_offending_option_named),
		cmocka_unit_test(test_sg_quote_arg_escapes_and_marks_truncation),
		cmocka_unit_test(test_sg_ruling_decide_custom_cli_names),
	};

	return cmocka_run_group_tests_name("ruling", tests, setup, teardown);
}
