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

/*
 * [credentials] variables of the shipped rules.d, pinned by hand like the
 * option lists below: the CLI's own credential variables, then the
 * channels that carry a key without holding one (a descriptor, a header),
 * then the identity token it exchanges for one.  Dropping one lets a step
 * that holds the key run with its full tool set.
 */
static const char *const shipped_credentials[] = {
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
	"AWS_BEARER_TOKEN_BEDROCK", "ANTHROPIC_FOUNDRY_API_KEY", "ANTHROPIC_FOUNDRY_AUTH_TOKEN",
	"ANTHROPIC_AWS_API_KEY", "CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR",
	"CLAUDE_CODE_OAUTH_TOKEN_FILE_DESCRIPTOR", "ANTHROPIC_CUSTOM_HEADERS",
	"ANTHROPIC_IDENTITY_TOKEN", "ANTHROPIC_IDENTITY_TOKEN_FILE",
};

static void test_sg_ruling_decide_each_credential_variable(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(shipped_credentials) / sizeof(shipped_credentials[0]); i++) {
		char var[128], *env[] = { var, NULL };
		struct sg_ruling r;

		/* a descriptor number is as held as a key */
		snprintf(var, sizeof(var), "%s=3", shipped_credentials[i]);
		r = decide(ARGV("sh", "-c", "claude -p hi"), env);
		if (r.rule != 2 || r.reason != SG_NOT_MODEL_CLI)
			fail_msg("%s held: rule %d, reason %d; want ruling 2 refusing the wrapper",
				 shipped_credentials[i], r.rule, (int)r.reason);
		assert_string_equal(r.variable, shipped_credentials[i]);
		r = decide(ARGV("claude", "--tools", "", "-p", "x"), env);
		assert_int_equal(r.rule, 2);
		assert_int_equal(r.reason, SG_OK);
		/* the allowed side: empty is not held */
		snprintf(var, sizeof(var), "%s=", shipped_credentials[i]);
		r = decide(ARGV("sh", "-c", "claude -p hi"), env);
		assert_int_equal(r.rule, 0);
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
	"--allowedTools", "--allowed-tools", "--dangerously-skip-permissions",
	"--allow-dangerously-skip-permissions", "--permission-mode", "--permission-prompt-tool",
	"--settings", "--mcp-config", "--managed-settings", "--project-config-root",
	"--plugin-dir", "--plugin-dir-no-mcp", "--plugin-url", "--agent", "--agents",
	"--input-format", "--remote-control", "--remote-control-session-name-prefix",
	"--teleport", "--bg", "--background", "--cloud", "--desktop", "--environment",
	"--remote", "--rc", "--sdk-url", "--file", "-w", "--worktree", "--tmux", "--chrome",
	"--ide", "--channels", "--dangerously-load-development-channels", "-r", "--resume",
	"-c", "--continue", "--from-pr",
};

static const char *const shipped_value_options[] = {
	"--model", "--fallback-model", "--system-prompt", "--append-system-prompt",
	"--output-format", "--max-budget-usd", "--json-schema", "--session-id",
	"--setting-sources", "--effort", "-n", "--name", "--system-prompt-snapshot",
	"--debug-file", "--permission-prompts", "--autocompact", "--system-prompt-file",
	"--append-system-prompt-file", "--max-turns",
};

static const char *const shipped_flag_options[] = {
	"-p", "--print", "--verbose", "--include-partial-messages", "--replay-user-messages",
	"--fork-session", "--strict-mcp-config", "--no-session-persistence",
	"--disable-slash-commands", "-h", "--help", "-v", "--version", "--bare", "--safe-mode",
	"--restricted", "--no-chrome", "--exclude-dynamic-system-prompt-sections",
	"--include-hook-events", "--forward-subagent-text", "--ax-screen-reader", "--brief",
};

static const char *const shipped_optional_value_options[] = {
	"-d", "--debug", "--prompt-suggestions",
};

static const char *const shipped_variadic_options[] = {
	"--disallowedTools", "--disallowed-tools", "--add-dir", "--betas",
};

/* 2.1.332's --help, its hidden commands, and what it dispatches on first. */
static const char *const shipped_subcommands[] = {
	"agents", "attach", "auth", "auto-mode", "doctor", "gateway", "import", "install", "logs",
	"mcp", "plugin", "plugins", "purge", "respawn", "rm", "setup-token", "stop", "kill",
	"ultrareview", "update", "upgrade", "apply-project-settings", "design-login",
	"edit-chrome-settings", "edit-hook", "edit-memory-settings", "edit-permission-rules",
	"edit-sandbox-settings", "edit-skill-overrides", "import-conversations", "project",
	"sandbox", "workspace-trust", "worktree-hook", "remote-control", "rc", "remote", "sync",
	"bridge", "daemon", "self-hosted-agent-proxy", "self-hosted-runner",
};

static const char *const shipped_ruling_options[] = {
	"--strict-mcp-config", "--setting-sources=user",
};

static const char *const shipped_tool_variables[] = {
	"CLAUDE_CODE_PLUGIN_DIRS", "CLAUDE_CODE_PLUGIN_CACHE_DIR", "CLAUDE_CODE_PLUGIN_SEED_DIR",
	"CLAUDE_CODE_PLUGIN_MCPB_DIR", "CLAUDE_CONFIG_DIR", "CLAUDE_CODE_MANAGED_SETTINGS_PATH",
	"CLAUDE_CODE_REMOTE_SETTINGS_PATH", "CLAUDE_CODE_MOCK_REMOTE_SETTINGS",
	"CLAUDE_CODE_REMOTE_MCP_CONFIG", "CLAUDE_CODE_SSE_PORT", "CLAUDE_CODE_AUTO_CONNECT_IDE",
	"CLAUDE_CODE_ENABLE_CFC", "CLAUDE_CODE_EVEN_MORE_DANGEROUSLY_SKIP_PERMISSIONS",
	"BUN_OPTIONS", "BUN_INSPECT", "BUN_INSPECT_CONNECT_TO", "BUN_INSPECT_PRELOAD",
	"LD_PRELOAD", "LD_AUDIT",
};

static const char *const shipped_exec_allow[] = { "git" };

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
	[SG_TOOL_VARIABLE] = "SG_TOOL_VARIABLE",
	[SG_RULING_OPTION] = "SG_RULING_OPTION",
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
			print_error("rules.d %s lacks %s\n", key, want[i]);
			same = false;
		}
	for (size_t i = 0; i < got->n; i++) {
		bool expected = false;

		for (size_t k = 0; k < n; k++)
			expected = expected || strcmp(got->v[i], want[k]) == 0;
		if (!expected) {
			print_error("rules.d %s has %s, which this test does not expect there\n", key,
				    got->v[i]);
			same = false;
		}
	}
	if (!same)
		fail_msg("rules.d %s is not the list this test pins", key);
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

	/* "--flag=value"; a short flag takes it attached ("-rID"), as commander reads it */
	snprintf(eq, sizeof(eq), flag[1] == '-' ? "%s={}" : "%s{}", flag);
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
	int ro = -1;

	for (size_t k = 0; k < pol.cli.ruling_options.n; k++)
		if (strncmp(pol.cli.ruling_options.v[k], opt, strlen(opt)) == 0 &&
		    pol.cli.ruling_options.v[k][strlen(opt)] == '=')
			ro = (int)k;
	if (ro >= 0) {
		/*
		 * A ruling option's value is compared: refused at the option
		 * itself, not at the --allowedTools it took as its value.
		 */
		const char *want = strchr(pol.cli.ruling_options.v[ro], '=') + 1;
		struct sg_ruling r = decide(ARGV("claude", "--tools", "", opt, "--allowedTools"),
					    cred_env);

		if (r.reason != SG_RULING_OPTION || r.arg != 3)
			fail_msg("%s --allowedTools: %s at %d, want SG_RULING_OPTION at 3", opt,
				 reason_name(r.reason), r.arg);
		reason_is(ARGV("claude", "--tools", "", opt, (char *)want, "-p", "hi"), cred_env, SG_OK,
			  opt, "with the ruling option's value");
		reason_is(ARGV("claude", "--tools", "", "-p", "hi", opt), cred_env, SG_MISSING_VALUE,
			  opt, "last, without a value");
		return;
	}
	snprintf(eq, sizeof(eq), "%s=--allowedTools", opt);
	reason_is(ARGV("claude", "--tools", "", opt, "--allowedTools", "-p", "hi"), cred_env, SG_OK,
		  opt, "with the value --allowedTools");
	reason_is(ARGV("claude", opt, "mcp", "--tools", "", "-p", "hi"), cred_env, SG_OK, opt,
		  "with the value mcp");
	/* "-n=x" is "-n" with "=x" to commander; stepguard does not take values attached */
	reason_is(ARGV("claude", "--tools", "", eq, "-p", "hi"), scrub_env,
		  opt[1] == '-' ? SG_OK : SG_UNKNOWN_OPTION, eq, "as --option=value");
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
	list_is("[model-cli] tool-flags", &files.cli.tool_flags, shipped_tool_flags,
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
	list_is("[model-cli] value-options", &files.cli.value_options, shipped_value_options,
		ARRAY_SIZE(shipped_value_options));
	sg_policy_free(&files);
}

/* A flag option takes nothing: the word after it is an operand, here a subcommand. */
static void test_sg_ruling_decide_every_default_flag_option_takes_no_value(void **state)
{
	struct sg_policy files;

	(void)state;
	parse_rules_d(&files);
	for (size_t i = 0; i < files.cli.flag_options.n; i++) {
		char *flag = files.cli.flag_options.v[i], eq[256];
		struct sg_ruling r = decide(ARGV("claude", "--tools", "", flag, "mcp"), cred_env);

		if (r.reason != SG_SUBCOMMAND || r.arg != 4)
			fail_msg("%s mcp: %s at %d, want SG_SUBCOMMAND at 4", flag,
				 reason_name(r.reason), r.arg);
		reason_is(ARGV("claude", "--tools", "", flag, "--", "hi"), cred_env, SG_OK, flag,
			  "before -- hi");
		snprintf(eq, sizeof(eq), "%s=x", flag);
		if (flag[1] == '-')
			reason_is(ARGV("claude", "--tools", "", eq), cred_env, SG_FLAG_WITH_VALUE, eq,
				  "with a value");
	}
	list_is("[model-cli] flag-options", &files.cli.flag_options, shipped_flag_options,
		ARRAY_SIZE(shipped_flag_options));
	sg_policy_free(&files);
}

/* An optional value is the next word unless it starts with '-'. */
static void test_sg_ruling_decide_every_default_optional_value_option(void **state)
{
	struct sg_policy files;

	(void)state;
	parse_rules_d(&files);
	for (size_t i = 0; i < files.cli.optional_value_options.n; i++) {
		char *opt = files.cli.optional_value_options.v[i];

		reason_is(ARGV("claude", "--tools", "", opt, "mcp", "-p", "x"), cred_env, SG_OK, opt,
			  "taking mcp as its value");
		reason_is(ARGV("claude", opt, "--tools", "", "-p", "x"), cred_env, SG_OK, opt,
			  "before --tools, without a value");
		reason_is(ARGV("claude", "--tools", "", opt), cred_env, SG_OK, opt, "last");
	}
	list_is("[model-cli] optional-value-options", &files.cli.optional_value_options,
		shipped_optional_value_options, ARRAY_SIZE(shipped_optional_value_options));
	sg_policy_free(&files);
}

/*
 * A variadic option takes the words up to the next option; "--opt=v"
 * takes only v: the CLI reads the words after it as operands, so
 * "--add-dir=x mcp list" lists MCP servers and must be refused.
 */
static void test_sg_ruling_decide_every_default_variadic_option(void **state)
{
	struct sg_policy files;

	(void)state;
	parse_rules_d(&files);
	for (size_t i = 0; i < files.cli.variadic_options.n; i++) {
		char *opt = files.cli.variadic_options.v[i], eq[256];
		struct sg_ruling r;

		reason_is(ARGV("claude", opt, "a", "mcp", "--tools", "", "-p", "x"), cred_env, SG_OK,
			  opt, "taking a and mcp");
		reason_is(ARGV("claude", opt, "--tools", ""), cred_env, SG_MISSING_VALUE, opt,
			  "without a value");
		snprintf(eq, sizeof(eq), "%s=a", opt);
		r = decide(ARGV("claude", "--tools", "", eq, "mcp", "list"), cred_env);
		if (r.reason != SG_SUBCOMMAND || r.arg != 4)
			fail_msg("%s mcp list: %s at %d, want SG_SUBCOMMAND at 4", eq,
				 reason_name(r.reason), r.arg);
	}
	list_is("[model-cli] variadic-options", &files.cli.variadic_options,
		shipped_variadic_options, ARRAY_SIZE(shipped_variadic_options));
	sg_policy_free(&files);
}

/* Every subcommand is refused as the first operand; a later operand is prompt. */
static void test_sg_ruling_decide_every_default_subcommand_refused(void **state)
{
	struct sg_policy files;

	(void)state;
	parse_rules_d(&files);
	for (size_t i = 0; i < files.cli.subcommands.n; i++) {
		char *sub = files.cli.subcommands.v[i];
		struct sg_ruling r = decide(ARGV("claude", sub, "--tools", ""), cred_env);

		if (r.reason != SG_SUBCOMMAND || r.arg != 1)
			fail_msg("claude %s: %s at %d, want SG_SUBCOMMAND at 1", sub,
				 reason_name(r.reason), r.arg);
		reason_is(ARGV("claude", "-p", "explain", sub, "--tools", ""), cred_env, SG_OK, sub,
			  "as a later operand");
	}
	list_is("[model-cli] subcommands", &files.cli.subcommands, shipped_subcommands,
		ARRAY_SIZE(shipped_subcommands));
	sg_policy_free(&files);
}

/*
 * The harmless options issue 12 names, each with a value where it takes
 * one: accepted under a ruling (refused as unknown before).
 */
static void test_sg_ruling_decide_harmless_options_accepted(void **state)
{
	static const char *const cases[][2] = {
		{ "--bare", NULL },
		{ "--safe-mode", NULL },
		{ "--restricted", NULL },
		{ "--effort", "low" },
		{ "-n", "review" },
		{ "--name", "review" },
		{ "--autocompact", "auto" },
		{ "--no-chrome", NULL },
		{ "--exclude-dynamic-system-prompt-sections", NULL },
		{ "--system-prompt-snapshot", "off" },
		{ "--debug-file", "/tmp/debug.log" },
		{ "--include-hook-events", NULL },
		{ "--forward-subagent-text", NULL },
		{ "--prompt-suggestions", NULL },
		{ "--permission-prompts", "none" },
		{ "--ax-screen-reader", NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *opt = (char *)cases[i][0], *val = (char *)cases[i][1];

		if (val)
			reason_is(ARGV("claude", "-p", "--tools", "", opt, val, "--", "hi"), cred_env,
				  SG_OK, opt, "with its value");
		else
			reason_is(ARGV("claude", "-p", "--tools", "", opt, "--", "hi"), cred_env, SG_OK,
				  opt, "alone");
	}
	/* the refused side: still refused without --tools "" */
	reason_is(ARGV("claude", "-p", "--bare", "--", "hi"), cred_env, SG_NO_TOOLS_OPTION, "--bare",
		  "without --tools");
}

/* "-rID" is "-r ID" and "-cp" is "-c -p" to commander: the tool flag. */
static void test_sg_ruling_decide_short_tool_flag_with_attached_value(void **state)
{
	struct sg_ruling r = decide(ARGV("claude", "--tools", "", "-rsession-id"), cred_env);

	(void)state;
	assert_int_equal(r.reason, SG_TOOL_FLAG);
	assert_int_equal(r.arg, 3);
	assert_int_equal(decide(ARGV("claude", "-cp", "--tools", ""), cred_env).reason, SG_TOOL_FLAG);
	assert_int_equal(decide(ARGV("claude", "-wname", "--tools", ""), cred_env).reason,
			 SG_TOOL_FLAG);
	/* the other side: a bundle of harmless flags stays unknown, not a tool flag */
	assert_int_equal(decide(ARGV("claude", "-pv", "--tools", ""), cred_env).reason,
			 SG_UNKNOWN_OPTION);
}

/*
 * Each shipped tool variable, set and not empty, refuses a ruling step
 * (either ruling) and names itself; empty, or with no ruling, it is not
 * judged.
 */
static void test_sg_ruling_decide_every_default_tool_variable_refused(void **state)
{
	struct sg_policy files;

	(void)state;
	parse_rules_d(&files);
	for (size_t i = 0; i < ARRAY_SIZE(shipped_tool_variables); i++) {
		const char *var = shipped_tool_variables[i];
		char set[128], empty[128];
		char *cred[] = { "ANTHROPIC_API_KEY=k", set, NULL };
		char *scrub[] = { set, "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=1", NULL };
		char *cred_empty[] = { "ANTHROPIC_API_KEY=k", empty, NULL };
		char *none[] = { set, NULL };
		char **ok = ARGV("claude", "-p", "--tools", "", "--", "hi");
		struct sg_ruling r;

		snprintf(set, sizeof(set), "%s=/tmp/x", var);
		snprintf(empty, sizeof(empty), "%s=", var);
		r = decide(ok, cred);
		if (r.reason != SG_TOOL_VARIABLE || !r.detail || strcmp(r.detail, var) != 0)
			fail_msg("%s set, ruling 2: %s (%s), want SG_TOOL_VARIABLE naming it", var,
				 reason_name(r.reason), r.detail ? r.detail : "no variable");
		reason_is(ok, scrub, SG_TOOL_VARIABLE, var, "set, ruling 1");
		reason_is(ok, cred_empty, SG_OK, var, "empty");
		r = decide(ARGV("make"), none);
		assert_int_equal(r.rule, 0);
		assert_int_equal(r.reason, SG_OK);
	}
	list_is("[model-cli] tool-variables", &files.cli.tool_variables, shipped_tool_variables,
		ARRAY_SIZE(shipped_tool_variables));
	sg_policy_free(&files);
}

/* A ruling option given with another value is refused, naming the ruling option. */
static void test_sg_ruling_decide_ruling_option_with_another_value_refused(void **state)
{
	static const char *const other[][2] = {
		{ "--setting-sources", "project" },
		{ "--setting-sources", "user,project" },
		{ "--setting-sources", "" },
		{ "--setting-sources=user,project,local", NULL },
		{ "--setting-sources=", NULL },
	};
	struct sg_ruling r;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(other); i++) {
		char *a = (char *)other[i][0], *v = (char *)other[i][1];

		r = v ? decide(ARGV("claude", "-p", "--tools", "", a, v, "--", "hi"), cred_env)
		      : decide(ARGV("claude", "-p", "--tools", "", a, "--", "hi"), cred_env);
		if (r.reason != SG_RULING_OPTION || r.arg != 4 || !r.detail ||
		    strcmp(r.detail, "--setting-sources=user") != 0)
			fail_msg("%s %s: %s at %d, want SG_RULING_OPTION at 4 naming "
				 "--setting-sources=user",
				 a, v ? v : "", reason_name(r.reason), r.arg);
	}
	/* the allowed side: the same value, in either form; after "--" it is prompt */
	assert_int_equal(decide(ARGV("claude", "-p", "--tools", "", "--setting-sources", "user",
				     "--", "hi"),
				cred_env).reason,
			 SG_OK);
	assert_int_equal(decide(ARGV("claude", "--setting-sources=user", "--strict-mcp-config", "-p",
				     "--tools", ""),
				scrub_env).reason,
			 SG_OK);
	assert_int_equal(decide(ARGV("claude", "-p", "--tools", "", "--", "--setting-sources",
				     "project"),
				cred_env).reason,
			 SG_OK);
	/* with no ruling, nothing is judged */
	assert_int_equal(decide(ARGV("claude", "--setting-sources", "project"), no_env).reason, SG_OK);
}

static void assert_argv(char **got, char **want)
{
	size_t i;

	for (i = 0; want[i]; i++) {
		if (!got[i])
			fail_msg("argv[%zu]: missing, want \"%s\"", i, want[i]);
		if (strcmp(got[i], want[i]) != 0)
			fail_msg("argv[%zu]: \"%s\", want \"%s\"", i, got[i], want[i]);
	}
	if (got[i])
		fail_msg("argv[%zu]: \"%s\", want the end", i, got[i]);
}

/* The command line a ruling step runs, from a decision on ARGV and ENVP. */
static char **run_argv(char **argv, char **envp)
{
	struct sg_ruling r = decide(argv, envp);
	char **out = (char **)1;

	assert_int_equal(sg_ruling_argv(&pol, &r, argv, &out), 0);
	assert_non_null(out);
	return out;
}

/*
 * A ruling step runs with the ruling options right after argv[0], each
 * unless the command already gives it with its value; any other step runs
 * its command line unchanged.
 */
static void test_sg_ruling_argv_adds_the_ruling_options(void **state)
{
	struct sg_policy files;
	char **v;

	(void)state;
	v = run_argv(ARGV("claude", "-p", "--tools", "", "--", "hi"), cred_env);
	assert_argv(v, ARGV("claude", "--strict-mcp-config", "--setting-sources=user", "-p",
			    "--tools", "", "--", "hi"));
	free(v);
	v = run_argv(ARGV("/opt/bin/claude", "--tools=", "-p", "hi"), scrub_env);
	assert_argv(v, ARGV("/opt/bin/claude", "--strict-mcp-config", "--setting-sources=user",
			    "--tools=", "-p", "hi"));
	free(v);
	/* already given, in either form: not again */
	v = run_argv(ARGV("claude", "--setting-sources", "user", "--tools", "", "-p", "--", "hi"),
		     cred_env);
	assert_argv(v, ARGV("claude", "--strict-mcp-config", "--setting-sources", "user", "--tools",
			    "", "-p", "--", "hi"));
	free(v);
	v = run_argv(ARGV("claude", "--tools", "", "--strict-mcp-config", "--setting-sources=user"),
		     cred_env);
	assert_argv(v, ARGV("claude", "--tools", "", "--strict-mcp-config", "--setting-sources=user"));
	free(v);
	/* the same words as prompt text after "--" do not count */
	v = run_argv(ARGV("claude", "-p", "--tools", "", "--", "--strict-mcp-config"), cred_env);
	assert_argv(v, ARGV("claude", "--strict-mcp-config", "--setting-sources=user", "-p",
			    "--tools", "", "--", "--strict-mcp-config"));
	free(v);
	/* no ruling, or a refused step: unchanged */
	v = run_argv(ARGV("make", "test"), no_env);
	assert_argv(v, ARGV("make", "test"));
	free(v);
	v = run_argv(ARGV("claude", "--tools", "Bash"), cred_env);
	assert_argv(v, ARGV("claude", "--tools", "Bash"));
	free(v);
	/* the strings are shared, not copied */
	{
		char **argv = ARGV("claude", "--tools", "");

		v = run_argv(argv, cred_env);
		assert_ptr_equal(v[0], argv[0]);
		assert_ptr_equal(v[3], argv[1]);
		free(v);
	}
	parse_rules_d(&files);
	list_is("[model-cli] ruling-options", &files.cli.ruling_options, shipped_ruling_options,
		ARRAY_SIZE(shipped_ruling_options));
	sg_policy_free(&files);
}

static void test_sg_ruling_argv_empty_command(void **state)
{
	struct sg_ruling r = decide((char *[]){ NULL }, cred_env);
	char *empty[] = { NULL }, **v = NULL;

	(void)state;
	assert_int_equal(sg_ruling_argv(&pol, &r, empty, &v), 0);
	assert_non_null(v);
	assert_null(v[0]);
	free(v);
}

/*
 * exec-allow is enforced by the launcher and the kernel (launcher/execs.c,
 * the backends); here only its shipped words are pinned: git, because with
 * --tools "" the CLI runs itself (as "rg") and, in a repository, git.
 */
static void test_sg_default_exec_allow_and_credentials_pinned(void **state)
{
	struct sg_policy files;

	(void)state;
	parse_rules_d(&files);
	list_is("[model-cli] exec-allow", &files.cli.exec_allow, shipped_exec_allow,
		ARRAY_SIZE(shipped_exec_allow));
	list_is("[credentials] variables", &files.credentials, shipped_credentials,
		ARRAY_SIZE(shipped_credentials));
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

/*
 * In print mode the CLI registers no subcommand, so the words after "--"
 * are the prompt, a subcommand's name included; without -p, 2.1.332 runs
 * "claude --tools '' -- doctor" as the doctor.
 */
static void test_sg_ruling_decide_after_double_dash_in_print_mode_is_prompt(void **state)
{
	struct sg_ruling r;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(shipped_subcommands); i++) {
		char *sub = (char *)shipped_subcommands[i];

		reason_is(ARGV("claude", "-p", "--tools", "", "--", sub), cred_env, SG_OK, sub,
			  "after -p ... --");
		reason_is(ARGV("claude", "--tools", "", "--print", "--", sub, "list"), scrub_env,
			  SG_OK, sub, "after --print ... --");
		/* the refused side: without print mode it is dispatched */
		r = decide(ARGV("claude", "--tools", "", "--", sub), cred_env);
		if (r.reason != SG_SUBCOMMAND || r.arg != 4)
			fail_msg("%s after -- without -p: %s at %d, want SG_SUBCOMMAND at 4", sub,
				 reason_name(r.reason), r.arg);
	}
	/* "-p" as another option's value is not print mode; after "--" it is prompt text */
	assert_int_equal(decide(ARGV("claude", "--model", "-p", "--tools", "", "--", "doctor"),
				cred_env).reason,
			 SG_SUBCOMMAND);
	assert_int_equal(decide(ARGV("claude", "--tools", "", "--", "-p", "doctor"), cred_env).reason,
			 SG_OK);
	/* before "--" the first operand is checked in print mode too */
	r = decide(ARGV("claude", "-p", "doctor", "--tools", ""), cred_env);
	assert_int_equal(r.reason, SG_SUBCOMMAND);
	assert_int_equal(r.arg, 2);
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
	/*
	 * A value shorter than a run is no secret (a descriptor number):
	 * only an argument that is the value is hidden, not every argument
	 * holding its bytes.
	 */
	names_key(sg_credential_in(&pol, ENV("ANTHROPIC_API_KEY=ab"), "ab"));
	assert_null(sg_credential_in(&pol, ENV("ANTHROPIC_API_KEY=ab"), "xaby"));
	assert_null(sg_credential_in(&pol, ENV("ANTHROPIC_API_KEY=ab"), "a-b"));
	{
		char **fd = ENV("CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR=3");
		const char *got = sg_credential_in(&pol, fd, "3");

		assert_non_null(got);
		assert_string_equal(got, "CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR");
		assert_null(sg_credential_in(&pol, fd, "--max-turns=3"));
		assert_null(sg_credential_in(&pol, fd, "fix the 3 bugs"));
	}
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
		/*
		 * Three bytes of the key after a byte shown as \x1e: the
		 * escape's "1e" and "Uo" spell "1eUo" of the key, which the
		 * argument alone does not hold (found by tests/fuzz).
		 */
		{ ARGV("claude", "--tools", "", "--x\x1e" "Uo5"), SG_UNKNOWN_OPTION },
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

/*
 * An option nobody classified may grant tools: the hint says so and how
 * to find out, and does not invite listing it as harmless.
 */
static void test_sg_ruling_explain_unknown_option_hint(void **state)
{
	char **argv = ARGV("claude", "--tools", "", "--frobnicate", "-p", "x");
	struct sg_ruling r = decide(argv, cred_env);
	char buf[1024];

	(void)state;
	assert_int_equal(r.reason, SG_UNKNOWN_OPTION);
	sg_ruling_explain(&pol, &r, argv, cred_env, buf, sizeof(buf));
	assert_non_null(strstr(buf, "--frobnicate"));
	assert_non_null(strstr(buf, "unknown to this stepguard's model"));
	assert_non_null(strstr(buf, "may take a value or grant tools"));
	assert_non_null(strstr(buf, "--help"));
	assert_null(strstr(buf, "list it"));
	assert_null(strstr(buf, "flag-options or value-options"));
}

static void test_sg_ruling_explain_tool_variable_and_ruling_option(void **state)
{
	char **env = ENV("ANTHROPIC_API_KEY=k", "CLAUDE_CODE_PLUGIN_DIRS=/work/plugins");
	char **argv = ARGV("claude", "-p", "--tools", "", "--", "hi");
	char **argv2 = ARGV("claude", "-p", "--tools", "", "--setting-sources", "project");
	struct sg_ruling r = decide(argv, env);
	char buf[1024];

	(void)state;
	sg_ruling_explain(&pol, &r, argv, env, buf, sizeof(buf));
	assert_non_null(strstr(buf, "ruling 2"));
	assert_non_null(strstr(buf, "CLAUDE_CODE_PLUGIN_DIRS is set"));
	assert_non_null(strstr(buf, "tool-variables"));
	assert_non_null(strstr(buf, "unset CLAUDE_CODE_PLUGIN_DIRS"));
	r = decide(argv2, cred_env);
	sg_ruling_explain(&pol, &r, argv2, cred_env, buf, sizeof(buf));
	assert_non_null(strstr(buf, "--setting-sources"));
	assert_non_null(strstr(buf, "the ruling option --setting-sources=user"));
	assert_non_null(strstr(buf, "fix:"));
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
		cmocka_unit_test(test_sg_ruling_decide_every_default_flag_option_takes_no_value),
		cmocka_unit_test(test_sg_ruling_decide_every_default_optional_value_option),
		cmocka_unit_test(test_sg_ruling_decide_every_default_variadic_option),
		cmocka_unit_test(test_sg_ruling_decide_every_default_subcommand_refused),
		cmocka_unit_test(test_sg_ruling_decide_harmless_options_accepted),
		cmocka_unit_test(test_sg_ruling_decide_short_tool_flag_with_attached_value),
		cmocka_unit_test(test_sg_ruling_decide_every_default_tool_variable_refused),
		cmocka_unit_test(test_sg_ruling_decide_ruling_option_with_another_value_refused),
		cmocka_unit_test(test_sg_ruling_argv_adds_the_ruling_options),
		cmocka_unit_test(test_sg_ruling_argv_empty_command),
		cmocka_unit_test(test_sg_default_exec_allow_and_credentials_pinned),
		cmocka_unit_test(test_sg_ruling_decide_after_double_dash_in_print_mode_is_prompt),
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
		cmocka_unit_test(test_sg_ruling_explain_unknown_option_hint),
		cmocka_unit_test(test_sg_ruling_explain_tool_variable_and_ruling_option),
		cmocka_unit_test(test_sg_quote_arg_escapes_and_marks_truncation),
		cmocka_unit_test(test_sg_ruling_decide_custom_cli_names),
	};

	return cmocka_run_group_tests_name("ruling", tests, setup, teardown);
}
