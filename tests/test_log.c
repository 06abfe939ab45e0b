// SPDX-License-Identifier: MIT
/* test_log.c — the JSON lines: escaping of bytes, one record per line, appends. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "confine/confine.h"
#include "lib/log.h"
#include "confine/user.h"

static const char *esc(const char *s)
{
	static char buf[512];

	sg_escape_bytes(s, buf, sizeof(buf));
	return buf;
}

static void test_sg_escape_bytes_plain_and_utf8_kept(void **state)
{
	(void)state;
	assert_string_equal(esc("/home/u/.bashrc"), "/home/u/.bashrc");
	assert_string_equal(esc("/tmp/caf\xc3\xa9"), "/tmp/caf\xc3\xa9");
	assert_string_equal(esc("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");
}

static void test_sg_escape_bytes_invalid_control_and_backslash(void **state)
{
	(void)state;
	assert_string_equal(esc("a\xff" "b"), "a\\xffb");
	assert_string_equal(esc("new\nline"), "new\\x0aline");
	assert_string_equal(esc("back\\slash"), "back\\x5cslash");
	assert_string_equal(esc("\xc3"), "\\xc3");           /* truncated sequence */
	assert_string_equal(esc("\xc0\xaf"), "\\xc0\\xaf");   /* overlong '/' */
	assert_string_equal(esc("\xed\xa0\x80"), "\\xed\\xa0\\x80"); /* surrogate */
	assert_string_equal(esc("\x7f"), "\\x7f");
}

static void test_sg_escape_bytes_reports_size_and_never_overruns(void **state)
{
	char small[6];

	(void)state;
	assert_int_equal(sg_escape_bytes("\xff\xff", NULL, 0), 9);
	memset(small, 'Z', sizeof(small));
	sg_escape_bytes("abcdefgh", small, sizeof(small));
	assert_int_equal(small[5], '\0');
	assert_string_equal(small, "abcde");
}

/*
 * Found by tests/fuzz (log target, tests/fuzz/regress/log/): an escape
 * that did not fit after plain bytes left the rest of the buffer as it
 * was, so launcher/step.c printed stale stack bytes after a cut path.
 */
static void test_sg_escape_bytes_cut_before_escape_is_terminated(void **state)
{
	char buf[8];

	(void)state;
	memset(buf, 'Z', sizeof(buf));
	assert_int_equal(sg_escape_bytes("/tmp/a\\b", buf, sizeof(buf)), 12);
	assert_string_equal(buf, "/tmp/a");
	memset(buf, 'Z', sizeof(buf));
	sg_escape_bytes("abcde\x01", buf, sizeof(buf));
	assert_string_equal(buf, "abcde");
}

/*
 * A cut never splits a UTF-8 character: the text ends before the first one
 * that does not fit whole, and what is there is still valid UTF-8.
 */
static void test_sg_escape_bytes_cut_backs_off_to_a_character(void **state)
{
	/* "ab" then é (2 bytes), € (3 bytes), 😀 (4 bytes) */
	static const char in[] = "ab\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
	static const struct {
		size_t len;
		const char *want;
	} cuts[] = {
		{ 3, "ab" },
		{ 4, "ab" },                     /* é's lead byte alone would fit */
		{ 5, "ab\xc3\xa9" },
		{ 6, "ab\xc3\xa9" },               /* one of the three bytes of € */
		{ 7, "ab\xc3\xa9" },               /* two of them */
		{ 8, "ab\xc3\xa9\xe2\x82\xac" },
		{ 11, "ab\xc3\xa9\xe2\x82\xac" },     /* three of the four bytes of 😀 */
		{ 12, "ab\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" },
	};
	char buf[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		memset(buf, 'Z', sizeof(buf));
		assert_int_equal(sg_escape_bytes(in, buf, cuts[i].len), sizeof(in));
		if (strcmp(buf, cuts[i].want) != 0)
			fail_msg("cut to %zu bytes: \"%s\", want \"%s\"", cuts[i].len, buf,
				 cuts[i].want);
		assert_int_equal(buf[cuts[i].len], 'Z'); /* nothing written past LEN */
	}
	/* invalid bytes are escaped, and an escape that does not fit ends the text too */
	memset(buf, 'Z', sizeof(buf));
	sg_escape_bytes("a\xc3(", buf, 5);
	assert_string_equal(buf, "a");
	memset(buf, 'Z', sizeof(buf));
	sg_escape_bytes("a\xc3(", buf, 6);
	assert_string_equal(buf, "a\\xc3");
}

static void test_sg_log_write_appends_one_parsable_line_each(void **state)
{
	char path[] = "/tmp/sg-test-log.XXXXXX";
	int fd = mkstemp(path);
	struct sg_log l;
	char *env[] = { "STEPGUARD_RUN_ID=run-42", NULL };
	char line[4096];
	FILE *f;
	int n = 0;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(sg_log_open(&l, path, "build", env), 0);
	for (int i = 0; i < 3; i++) {
		json_object *rec = json_object_new_object();

		json_object_object_add(rec, "path", sg_json_bytes("/tmp/x\xff\n"));
		json_object_object_add(rec, "i", json_object_new_int(i));
		assert_int_equal(sg_log_write(&l, "denial", rec), 0);
	}
	sg_log_close(&l);

	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		json_object *o = json_tokener_parse(line), *v;

		assert_non_null(o);
		assert_true(json_object_object_get_ex(o, "event", &v));
		assert_string_equal(json_object_get_string(v), "denial");
		assert_true(json_object_object_get_ex(o, "step", &v));
		assert_string_equal(json_object_get_string(v), "build");
		assert_true(json_object_object_get_ex(o, "run", &v));
		assert_string_equal(json_object_get_string(v), "run-42");
		assert_true(json_object_object_get_ex(o, "path", &v));
		assert_string_equal(json_object_get_string(v), "/tmp/x\\xff\\x0a");
		assert_true(json_object_object_get_ex(o, "time", &v));
		assert_int_equal(strlen(json_object_get_string(v)), 27);
		assert_true(json_object_object_get_ex(o, "i", &v));
		assert_int_equal(json_object_get_int(v), n);
		json_object_put(o);
		n++;
	}
	fclose(f);
	unlink(path);
	assert_int_equal(n, 3);
}

/*
 * Steps sharing one log: two writers, each with its own open file
 * description (two stepguards), and a line already there.  Every record
 * lands after what is in the file at the time of its write (O_APPEND),
 * none over another's; a writer at its own offset would overwrite the
 * first line and the other's records.
 */
static void test_sg_log_write_two_writers_append_after_each_other(void **state)
{
	char path[] = "/tmp/sg-test-log.XXXXXX";
	int fd = mkstemp(path);
	struct sg_log a, b;
	char *env_a[] = { "STEPGUARD_RUN_ID=run-a", NULL };
	char *env_b[] = { "STEPGUARD_RUN_ID=run-b", NULL };
	static const char first[] = "{\"event\":\"earlier\"}\n";
	static const char *const want[] = { "earlier", "run-a", "run-b", "run-a", "run-b" };
	char line[4096];
	FILE *f;
	int n = 0;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, first, sizeof(first) - 1), (ssize_t)(sizeof(first) - 1));
	close(fd);
	assert_int_equal(sg_log_open(&a, path, "a", env_a), 0);
	assert_int_equal(sg_log_open(&b, path, "b", env_b), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(sg_log_write(&a, "denial", json_object_new_object()), 0);
		assert_int_equal(sg_log_write(&b, "denial", json_object_new_object()), 0);
	}
	sg_log_close(&a);
	sg_log_close(&b);

	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		json_object *o = json_tokener_parse(line), *v;

		if (!o)
			fail_msg("line %d is not one JSON record: %s", n + 1, line);
		if (n >= 5)
			fail_msg("more than 5 lines: %s", line);
		if (n == 0)
			assert_true(json_object_object_get_ex(o, "event", &v));
		else
			assert_true(json_object_object_get_ex(o, "run", &v));
		if (strcmp(json_object_get_string(v), want[n]) != 0)
			fail_msg("line %d: %s, want %s (a record written over another)", n + 1,
				 json_object_get_string(v), want[n]);
		json_object_put(o);
		n++;
	}
	fclose(f);
	unlink(path);
	assert_int_equal(n, 5);
}

static void test_sg_log_open_refuses_symlink(void **state)
{
	char dir[] = "/tmp/sg-test-logdir.XXXXXX";
	char link[128], target[128];
	struct sg_log l;
	char *env[] = { NULL };

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(link, sizeof(link), "%s/log", dir);
	assert_int_equal(symlink(target, link), 0);
	/* a planted symlink must not make stepguard append to another file */
	assert_true(sg_log_open(&l, link, "s", env) < 0);
	assert_int_equal(access(target, F_OK), -1);
	unlink(link);
	rmdir(dir);
}

static void test_sg_log_open_without_path_is_silent(void **state)
{
	struct sg_log l;
	char *env[] = { NULL };

	(void)state;
	assert_int_equal(sg_log_open(&l, NULL, "s", env), 0);
	assert_int_equal(l.fd, -1);
	assert_int_equal(sg_log_write(&l, "start", json_object_new_object()), 0);
	assert_true(strlen(l.run_id) >= 16); /* random when nothing names the run */
}

static void test_sg_gaps_str_and_parse(void **state)
{
	char buf[256];
	unsigned g = 0;

	(void)state;
	assert_string_equal(sg_gaps_str(0, buf, sizeof(buf)), "none");
	sg_gaps_str(SG_GAP_ATTRIBUTES | SG_GAP_SCOPING, buf, sizeof(buf));
	assert_non_null(strstr(buf, "attributes"));
	assert_non_null(strstr(buf, "scoping"));
	assert_null(strstr(buf, "truncate"));
	assert_int_equal(sg_gap_parse("truncate", &g), 0);
	assert_int_equal(g, SG_GAP_TRUNCATE);
	assert_int_equal(sg_gap_parse("abstract-sockets", &g), 0);
	assert_int_equal(g, SG_GAP_ABSTRACT);
	sg_gaps_str(SG_GAP_ABSTRACT, buf, sizeof(buf));
	assert_string_equal(buf, "abstract-sockets (datagrams to abstract sockets out of the step)");
	assert_int_equal(sg_gap_parse("everything", &g), -22);
}

static void test_sg_user_env_sets_home_only_on_drop(void **state)
{
	char *envp[] = { "PATH=/bin", "HOME=/root", "USER=root", NULL };
	struct sg_user u;
	char **env;

	(void)state;
	memset(&u, 0, sizeof(u));
	snprintf(u.name, sizeof(u.name), "runner");
	snprintf(u.home, sizeof(u.home), "/home/runner");
	env = sg_user_env(&u, envp);
	assert_non_null(env);
	assert_string_equal(env[1], "HOME=/root"); /* no drop: untouched */
	sg_env_free(env);
	u.drop = true;
	env = sg_user_env(&u, envp);
	assert_string_equal(env[0], "PATH=/bin");
	assert_string_equal(env[1], "HOME=/home/runner");
	assert_string_equal(env[2], "USER=runner");
	assert_string_equal(env[3], "LOGNAME=runner");
	assert_null(env[4]);
	sg_env_free(env);
}

static void test_sg_user_resolve_unprivileged_cannot_switch(void **state)
{
	char *envp[] = { NULL };
	struct sg_user u;
	struct sg_error err = { 0 };

	(void)state;
	if (getuid() == 0) {
		/* root may run as nobody, and the drop is planned, not done */
		assert_int_equal(sg_user_resolve("nobody", envp, &u, &err), 0);
		assert_true(u.drop);
		assert_int_not_equal(u.uid, 0);
	} else {
		assert_int_equal(sg_user_resolve("root", envp, &u, &err), -1);
		assert_non_null(strstr(err.msg, "only root"));
	}
	assert_int_equal(sg_user_resolve("no-such-user-xyz", envp, &u, &err), -2);
}

/*
 * Unnamed: the calling user's name and home stay empty (no password
 * database read), everything the drop and the roots use is the same; a
 * user who changes is still looked up in full.
 */
static void test_sg_user_resolve_unnamed_only_for_the_caller(void **state)
{
	char *envp[] = { NULL };
	struct sg_user named, unnamed;
	struct sg_error err = { 0 };

	(void)state;
	assert_int_equal(sg_user_resolve(NULL, envp, &named, &err), 0);
	assert_int_equal(sg_user_resolve_unnamed(NULL, envp, &unnamed, &err), 0);
	assert_string_equal(unnamed.name, "");
	assert_string_equal(unnamed.home, "");
	assert_int_equal(unnamed.uid, named.uid);
	assert_int_equal(unnamed.gid, named.gid);
	assert_false(unnamed.drop);
	assert_int_equal(unnamed.drop, named.drop);
	if (getuid() == 0) {
		assert_int_equal(sg_user_resolve_unnamed("nobody", envp, &unnamed, &err), 0);
		assert_true(unnamed.drop);
		assert_string_equal(unnamed.name, "nobody");
		assert_true(unnamed.n_groups >= 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sg_escape_bytes_plain_and_utf8_kept),
		cmocka_unit_test(test_sg_escape_bytes_invalid_control_and_backslash),
		cmocka_unit_test(test_sg_escape_bytes_reports_size_and_never_overruns),
		cmocka_unit_test(test_sg_escape_bytes_cut_before_escape_is_terminated),
		cmocka_unit_test(test_sg_escape_bytes_cut_backs_off_to_a_character),
		cmocka_unit_test(test_sg_log_write_appends_one_parsable_line_each),
		cmocka_unit_test(test_sg_log_write_two_writers_append_after_each_other),
		cmocka_unit_test(test_sg_log_open_refuses_symlink),
		cmocka_unit_test(test_sg_log_open_without_path_is_silent),
		cmocka_unit_test(test_sg_gaps_str_and_parse),
		cmocka_unit_test(test_sg_user_env_sets_home_only_on_drop),
		cmocka_unit_test(test_sg_user_resolve_unprivileged_cannot_switch),
		cmocka_unit_test(test_sg_user_resolve_unnamed_only_for_the_caller),
	};

	return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
