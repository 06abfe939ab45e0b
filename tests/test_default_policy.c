// SPDX-License-Identifier: MIT
/*
 * Tests that the compiled-in default policy is the shipped rules.d.
 *
 * The default is generated at build time from the .ini files in rules.d by
 * policy/embed.sh; the files are the one source of truth.  These tests read
 * the files at run time, from $STEPGUARD_SOURCE_DIR/rules.d (the Makefile
 * sets it), and compare them with the compiled-in fragments: the same
 * names in the same order, the same bytes, the same merged policy.  A
 * missing STEPGUARD_SOURCE_DIR fails the tests: skipping would let a stale
 * binary pass.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/default_policy.h"
#include "policy/policy.h"

#define BUILTIN_PREFIX "built-in:"

struct rules {
	char *dir;    /* $STEPGUARD_SOURCE_DIR/rules.d */
	char **names; /* *.ini, sorted as make's $(sort) does (bytewise) */
	size_t n;
};

static const char *source_dir(void)
{
	const char *dir = getenv("STEPGUARD_SOURCE_DIR");

	if (!dir || !*dir)
		fail_msg("STEPGUARD_SOURCE_DIR is not set: run these tests through make, or set "
			 "it to the source tree (the directory holding rules.d/)");
	return dir;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* The .ini files of rules.d, as the Makefile's $(wildcard) finds them. */
static void rules_list(struct rules *r)
{
	DIR *d;
	struct dirent *e;

	memset(r, 0, sizeof(*r));
	assert_true(asprintf(&r->dir, "%s/rules.d", source_dir()) > 0);
	d = opendir(r->dir);
	if (!d)
		fail_msg("cannot open %s: %s", r->dir, strerror(errno));
	while ((e = readdir(d))) {
		char **v;

		/* A glob's "*" does not match a leading dot. */
		if (e->d_name[0] == '.' || !ends_with(e->d_name, ".ini"))
			continue;
		v = realloc(r->names, (r->n + 1) * sizeof(*v));
		assert_non_null(v);
		r->names = v;
		r->names[r->n] = strdup(e->d_name);
		assert_non_null(r->names[r->n]);
		r->n++;
	}
	closedir(d);
	qsort(r->names, r->n, sizeof(*r->names), cmp_names);
}

static void rules_free(struct rules *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->names[i]);
	free(r->names);
	free(r->dir);
	memset(r, 0, sizeof(*r));
}

/* Read PATH whole; *LEN is its size. */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	do {
		if (n == cap) {
			char *nb = realloc(buf, cap + 4096 + 1);

			assert_non_null(nb);
			buf = nb;
			cap += 4096;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	assert_false(ferror(f));
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static char *dump(const struct sg_policy *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	sg_policy_dump(p, f, false);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

static void parse_ok(struct sg_policy *p, const char *name, const char *text, size_t len)
{
	struct sg_error err;
	int r;

	memset(&err, 0, sizeof(err));
	r = sg_policy_parse(p, name, text, len, NULL, &err);
	if (r != 0)
		fail_msg("%s does not parse (%d): %s:%u: %s", name, r, err.file, err.line, err.msg);
}

static void parse_defaults(struct sg_policy *p)
{
	sg_policy_init(p);
	for (size_t i = 0; i < sg_n_default_fragments; i++)
		parse_ok(p, sg_default_fragments[i].name, sg_default_fragments[i].text,
			 sg_default_fragments[i].len);
}

/* ---- (a) the same files, in the same order --------------------------- */

static void test_sg_default_fragments_names_match_rules_d(void **state)
{
	struct rules r;

	(void)state;
	rules_list(&r);
	assert_true(r.n > 0);
	if (r.n != sg_n_default_fragments)
		fail_msg("%s has %zu *.ini files but %zu are compiled in: rebuild", r.dir, r.n,
			 sg_n_default_fragments);
	for (size_t i = 0; i < r.n; i++) {
		const char *name = sg_default_fragments[i].name;

		assert_non_null(name);
		assert_int_equal(strncmp(name, BUILTIN_PREFIX, strlen(BUILTIN_PREFIX)), 0);
		assert_string_equal(name + strlen(BUILTIN_PREFIX), r.names[i]);
	}
	rules_free(&r);
}

static void test_sg_default_fragments_include_the_defaults_file(void **state)
{
	bool found = false;

	(void)state;
	for (size_t i = 0; i < sg_n_default_fragments; i++)
		if (strcmp(sg_default_fragments[i].name, BUILTIN_PREFIX "10-defaults.ini") == 0)
			found = true;
	assert_true(found);
}

/* ---- (b) the same bytes ---------------------------------------------- */

static void test_sg_default_fragments_bytes_match_files(void **state)
{
	struct rules r;

	(void)state;
	rules_list(&r);
	assert_int_equal(r.n, sg_n_default_fragments);
	for (size_t i = 0; i < r.n; i++) {
		const struct sg_fragment *fr = &sg_default_fragments[i];
		char *path, *text;
		size_t len;

		assert_true(asprintf(&path, "%s/%s", r.dir, r.names[i]) > 0);
		text = read_file(path, &len);
		if (len != fr->len || memcmp(text, fr->text, len) != 0)
			fail_msg("%s differs from the compiled-in %s (%zu vs %zu bytes): rebuild",
				 path, fr->name, len, fr->len);
		/* Terminated, and no NUL inside: usable as a C string too. */
		assert_int_equal(fr->text[fr->len], '\0');
		assert_int_equal(strlen(fr->text), fr->len);
		free(text);
		free(path);
	}
	rules_free(&r);
}

/* ---- (c) the same merged policy -------------------------------------- */

static void test_sg_default_fragments_parse_like_the_files(void **state)
{
	struct rules r;
	struct sg_policy from_files, builtin;
	char *a, *b;

	(void)state;
	rules_list(&r);
	sg_policy_init(&from_files);
	for (size_t i = 0; i < r.n; i++) {
		char *path, *text, *name;
		size_t len;

		assert_true(asprintf(&path, "%s/%s", r.dir, r.names[i]) > 0);
		assert_true(asprintf(&name, "rules.d/%s", r.names[i]) > 0);
		text = read_file(path, &len);
		parse_ok(&from_files, name, text, len);
		free(text);
		free(name);
		free(path);
	}
	parse_defaults(&builtin);
	a = dump(&from_files);
	b = dump(&builtin);
	assert_string_equal(a, b);
	/* Not vacuous: the dump holds the model CLI's section. */
	assert_non_null(strstr(a, "[model-cli]\nnames = claude\n"));
	free(a);
	free(b);
	sg_policy_free(&from_files);
	sg_policy_free(&builtin);
	rules_free(&r);
}

/* ---- (d) the defaults are valid and hold what the issue names -------- */

static void test_sg_default_policy_validates(void **state)
{
	struct sg_policy p;
	struct sg_error err;
	int r;

	(void)state;
	parse_defaults(&p);
	memset(&err, 0, sizeof(err));
	r = sg_policy_validate(&p, &err);
	if (r != 0)
		fail_msg("defaults invalid: %s:%u: %s", err.file, err.line, err.msg);
	sg_policy_free(&p);
}

static void test_sg_default_policy_names_model_cli_and_tools_option(void **state)
{
	struct sg_policy p;

	(void)state;
	parse_defaults(&p);
	assert_true(sg_words_contains(&p.cli.names, "claude"));
	assert_true(sg_words_contains(&p.cli.tools_option, "--tools"));
	/* --tools must not grant anything by itself. */
	assert_false(sg_words_contains(&p.cli.tool_flags, "--tools"));
	sg_policy_free(&p);
}

static void test_sg_default_policy_tool_flags(void **state)
{
	/* The tool-granting options issue 12 names, and those before it. */
	static const char *const flags[] = {
		"--allowedTools", "--allowed-tools", "--mcp-config", "--dangerously-skip-permissions",
		"--allow-dangerously-skip-permissions", "--permission-mode", "--permission-prompt-tool",
		"--settings", "--plugin-dir", "--agents", "--input-format", "--plugin-url",
		"--plugin-dir-no-mcp", "--managed-settings", "--agent", "--remote-control",
		"--remote-control-session-name-prefix", "--teleport", "--bg", "--background",
		"--cloud", "--desktop", "--environment", "--file", "-w", "--worktree", "--tmux",
		"--chrome", "--ide", "--from-pr", "-r", "--resume", "-c", "--continue",
	};
	struct sg_policy p;

	(void)state;
	parse_defaults(&p);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!sg_words_contains(&p.cli.tool_flags, flags[i]))
			fail_msg("default [model-cli] tool-flags lacks %s", flags[i]);
	/* A tool flag must not also be classified as a harmless option. */
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		assert_false(sg_words_contains(&p.cli.flag_options, flags[i]));
		assert_false(sg_words_contains(&p.cli.value_options, flags[i]));
		assert_false(sg_words_contains(&p.cli.optional_value_options, flags[i]));
		assert_false(sg_words_contains(&p.cli.variadic_options, flags[i]));
	}
	sg_policy_free(&p);
}

static void test_sg_default_policy_credentials_and_scrub(void **state)
{
	static const char *const creds[] = {
		"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
		"AWS_BEARER_TOKEN_BEDROCK", "ANTHROPIC_FOUNDRY_API_KEY",
		"ANTHROPIC_FOUNDRY_AUTH_TOKEN", "ANTHROPIC_AWS_API_KEY",
		/* channels that carry a key without holding one */
		"CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR", "ANTHROPIC_CUSTOM_HEADERS",
	};
	struct sg_policy p;

	(void)state;
	parse_defaults(&p);
	for (size_t i = 0; i < sizeof(creds) / sizeof(creds[0]); i++)
		if (!sg_words_contains(&p.credentials, creds[i]))
			fail_msg("default [credentials] variables lacks %s", creds[i]);
	assert_true(sg_words_contains(&p.scrub, "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB"));
	assert_false(sg_words_contains(&p.credentials, "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB"));
	sg_policy_free(&p);
}

/*
 * The three keys of the exec allow-list work have their defaults: the
 * ruling options, the tool variables, and what a ruling step may execute.
 */
static void test_sg_default_policy_ruling_options_tool_variables_exec_allow(void **state)
{
	struct sg_policy p;

	(void)state;
	parse_defaults(&p);
	assert_int_equal(p.cli.ruling_options.n, 2);
	assert_string_equal(p.cli.ruling_options.v[0], "--strict-mcp-config");
	assert_string_equal(p.cli.ruling_options.v[1], "--setting-sources=user");
	/* both are options the lists parse, so the walk sees them given */
	assert_true(sg_words_contains(&p.cli.flag_options, "--strict-mcp-config"));
	assert_true(sg_words_contains(&p.cli.value_options, "--setting-sources"));
	assert_true(sg_words_contains(&p.cli.tool_variables, "CLAUDE_CODE_PLUGIN_DIRS"));
	assert_true(sg_words_contains(&p.cli.tool_variables, "CLAUDE_CONFIG_DIR"));
	/* a tool variable is no credential: it triggers no ruling by itself */
	for (size_t i = 0; i < p.cli.tool_variables.n; i++)
		assert_false(sg_words_contains(&p.credentials, p.cli.tool_variables.v[i]));
	assert_int_equal(p.cli.exec_allow.n, 1);
	assert_string_equal(p.cli.exec_allow.v[0], "git");
	sg_policy_free(&p);
}

static void test_sg_default_policy_base_settings(void **state)
{
	struct sg_policy p;
	const struct sg_write **w = NULL;
	bool dev_null = false;
	int n;

	(void)state;
	parse_defaults(&p);
	assert_int_equal(p.base.mode, SG_MODE_ENFORCE);
	assert_int_equal(p.base.filter, SG_FILTER_AUTO);
	/* Origins name the built-in fragment, so --check can say where. */
	assert_int_equal(strncmp(p.base.mode_origin.file, BUILTIN_PREFIX,
				 strlen(BUILTIN_PREFIX)), 0);
	n = sg_policy_step_writes(&p, NULL, &w);
	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		/* Every default root is absolute (optionally "?"-prefixed). */
		const char *path = w[i]->path[0] == '?' ? w[i]->path + 1 : w[i]->path;

		assert_int_equal(path[0], '/');
		if (strcmp(w[i]->path, "/dev/null") == 0)
			dev_null = true;
	}
	assert_true(dev_null);
	free(w);
	sg_policy_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sg_default_fragments_names_match_rules_d),
		cmocka_unit_test(test_sg_default_fragments_include_the_defaults_file),
		cmocka_unit_test(test_sg_default_fragments_bytes_match_files),
		cmocka_unit_test(test_sg_default_fragments_parse_like_the_files),
		cmocka_unit_test(test_sg_default_policy_validates),
		cmocka_unit_test(test_sg_default_policy_names_model_cli_and_tools_option),
		cmocka_unit_test(test_sg_default_policy_tool_flags),
		cmocka_unit_test(test_sg_default_policy_credentials_and_scrub),
		cmocka_unit_test(test_sg_default_policy_ruling_options_tool_variables_exec_allow),
		cmocka_unit_test(test_sg_default_policy_base_settings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
