// SPDX-License-Identifier: MIT
/*
 * Tests for launcher/summary.c: what a step's refusals add up to.  Each
 * case prints a summary into memory and reads its lines; each grouping
 * is shown next to what it must keep apart.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "launcher/summary.h"

static const struct sg_summary_fix no_fix = { NULL, NULL, 0, 0 };

static struct sg_denial refusal(unsigned op, const char *path)
{
	return (struct sg_denial){ .op = op, .decision = SG_DECISION_DENIED,
				   .reason = SG_WHY_OUTSIDE, .error = 1, .pid = 42,
				   .path = path, .path_len = path ? strlen(path) : 0,
				   .backend = "test" };
}

static void add(struct sg_summary *s, unsigned op, const char *path)
{
	struct sg_denial d = refusal(op, path);

	sg_summary_add(s, &d);
}

/* The summary's text, as stderr would get it; free it. */
static char *text(struct sg_summary *s, const struct sg_summary_fix *fix)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	sg_summary_print(s, f, fix);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static size_t lines(const char *t)
{
	size_t n = 0;

	for (; *t; t++)
		n += *t == '\n';
	return n;
}

/* Line I (from 0) of T, without its newline, into BUF. */
static const char *line(const char *t, size_t i, char *buf, size_t len)
{
	for (; i > 0 && t; i--) {
		t = strchr(t, '\n');
		if (t)
			t++;
	}
	assert_non_null(t);
	snprintf(buf, len, "%.*s", (int)strcspn(t, "\n"), t);
	return buf;
}

static void test_sg_summary_add_groups_by_the_objects_directory(void **state)
{
	struct sg_summary *s = sg_summary_new("/home/ci");
	char *t, l[512];

	(void)state;
	add(s, SG_OP_MKDIR, "/home/ci/.npm/_cacache");
	add(s, SG_OP_CREATE, "/home/ci/.npm/_update-notifier-last-checked");
	add(s, SG_OP_MKDIR, "/home/ci/.npm/_logs/");  /* a trailing slash names the same object */
	add(s, SG_OP_CHMOD, "/etc/hostname");
	t = text(s, &no_fix);
	assert_int_equal(lines(t), 2);
	assert_string_equal(line(t, 0, l, sizeof(l)),
			    "stepguard: 3 writes refused under /home/ci/.npm (mkdir, create); "
			    "if this step should write there: --allow-write /home/ci/.npm");
	assert_string_equal(line(t, 1, l, sizeof(l)),
			    "stepguard: 1 write refused under /etc (chmod); "
			    "if this step should write there: --allow-write /etc");
	assert_int_equal(sg_summary_count(s), 4);
	free(t);
	sg_summary_free(s);
}

/* A rename or a link counts where its first path, the one the record names, is. */
static void test_sg_summary_add_rename_counts_the_named_path(void **state)
{
	struct sg_summary *s = sg_summary_new(NULL);
	struct sg_denial d = refusal(SG_OP_RENAME, "/srv/a/old");
	char *t;

	(void)state;
	d.path2 = "/srv/b/new";
	d.path2_len = strlen(d.path2);
	sg_summary_add(s, &d);
	t = text(s, &no_fix);
	assert_non_null(strstr(t, "1 write refused under /srv/a (rename)"));
	assert_null(strstr(t, "/srv/b"));
	free(t);
	sg_summary_free(s);
}

static void test_sg_summary_print_folds_into_the_highest_ancestor(void **state)
{
	struct sg_summary *s = sg_summary_new(NULL);
	char *t, l[512];

	(void)state;
	add(s, SG_OP_CREATE, "/opt/a/b/c/f1");  /* in /opt/a/b/c */
	add(s, SG_OP_CREATE, "/opt/a/b/f2");    /* in /opt/a/b */
	add(s, SG_OP_UNLINK, "/opt/a/f3");      /* in /opt/a: the highest */
	add(s, SG_OP_CREATE, "/opt/ab/f4");     /* /opt/ab is not beneath /opt/a */
	add(s, SG_OP_CREATE, "/opt/ab/f5");
	t = text(s, &no_fix);
	assert_int_equal(lines(t), 2);
	/* the ops in the order first seen, across the folded groups */
	assert_string_equal(line(t, 0, l, sizeof(l)),
			    "stepguard: 3 writes refused under /opt/a (create, unlink); "
			    "if this step should write there: --allow-write /opt/a");
	assert_string_equal(line(t, 1, l, sizeof(l)),
			    "stepguard: 2 writes refused under /opt/ab (create); "
			    "if this step should write there: --allow-write /opt/ab");
	free(t);
	/* Printing again prints the same: folding is done once. */
	t = text(s, &no_fix);
	assert_string_equal(line(t, 0, l, sizeof(l)),
			    "stepguard: 3 writes refused under /opt/a (create, unlink); "
			    "if this step should write there: --allow-write /opt/a");
	free(t);
	sg_summary_free(s);
}

/*
 * Never folded into "/" or the home directory, nor offered as a fix:
 * stepguard refuses those roots, and folding into them would hide the
 * directory that could be allowed.
 */
static void test_sg_summary_print_never_folds_into_home_or_root(void **state)
{
	struct sg_summary *s = sg_summary_new("/home/ci");
	char *t, l[512];

	(void)state;
	add(s, SG_OP_CREATE, "/home/ci/.bashrc");
	add(s, SG_OP_CREATE, "/home/ci/.cache/pip/x");
	add(s, SG_OP_CREATE, "/home/ci/.cache/pip/y");
	add(s, SG_OP_MKDIR, "/home/ci/.cache/z");
	add(s, SG_OP_CREATE, "/x");
	add(s, SG_OP_CREATE, "/home/f");
	t = text(s, &no_fix);
	assert_int_equal(lines(t), 4);
	assert_string_equal(line(t, 0, l, sizeof(l)),
			    "stepguard: 3 writes refused under /home/ci/.cache (create, mkdir); "
			    "if this step should write there: --allow-write /home/ci/.cache");
	assert_string_equal(line(t, 1, l, sizeof(l)),
			    "stepguard: 1 write refused under / (create); "
			    "/ cannot be a writable root: it would allow every write");
	assert_string_equal(line(t, 2, l, sizeof(l)),
			    "stepguard: 1 write refused under /home (create); "
			    "/home cannot be a writable root: it contains the home directory");
	assert_string_equal(line(t, 3, l, sizeof(l)),
			    "stepguard: 1 write refused under /home/ci (create); "
			    "/home/ci cannot be a writable root: it is the home directory");
	free(t);
	sg_summary_free(s);
}

static void test_sg_summary_print_orders_by_count_then_path(void **state)
{
	struct sg_summary *s = sg_summary_new(NULL);
	char *t, l[512];

	(void)state;
	add(s, SG_OP_CREATE, "/c/1");
	for (int i = 0; i < 3; i++)
		add(s, SG_OP_CREATE, "/b/1");
	add(s, SG_OP_CREATE, "/a/1");
	add(s, SG_OP_CREATE, "/d/1");
	add(s, SG_OP_CREATE, "/d/2");
	t = text(s, &no_fix);
	assert_int_equal(lines(t), 4);
	assert_non_null(strstr(line(t, 0, l, sizeof(l)), "3 writes refused under /b "));
	assert_non_null(strstr(line(t, 1, l, sizeof(l)), "2 writes refused under /d "));
	assert_non_null(strstr(line(t, 2, l, sizeof(l)), "1 write refused under /a "));
	assert_non_null(strstr(line(t, 3, l, sizeof(l)), "1 write refused under /c "));
	free(t);
	sg_summary_free(s);
}

static void test_sg_summary_print_five_groups_then_the_others(void **state)
{
	struct sg_summary *s = sg_summary_new(NULL);
	char *t, l[512], p[32];

	(void)state;
	/* /d0 gets 8 refusals, /d1 7, ... /d7 1 */
	for (int d = 0; d < 8; d++)
		for (int i = 0; i < 8 - d; i++) {
			snprintf(p, sizeof(p), "/d%d/f%d", d, i);
			add(s, SG_OP_CREATE, p);
		}
	t = text(s, &no_fix);
	assert_int_equal(lines(t), 6);
	assert_non_null(strstr(line(t, 0, l, sizeof(l)), "8 writes refused under /d0 "));
	assert_non_null(strstr(line(t, 4, l, sizeof(l)), "4 writes refused under /d4 "));
	assert_string_equal(line(t, 5, l, sizeof(l)),
			    "stepguard: and 6 more writes refused under 3 other directories");
	free(t);
	sg_summary_free(s);

	/* Exactly five: no "other" line. */
	s = sg_summary_new(NULL);
	for (int d = 0; d < 5; d++) {
		snprintf(p, sizeof(p), "/e%d/f", d);
		add(s, SG_OP_CREATE, p);
	}
	t = text(s, &no_fix);
	assert_int_equal(lines(t), 5);
	assert_null(strstr(t, "other director"));
	free(t);
	sg_summary_free(s);
}

/*
 * A hostile step refusing in more directories than the table holds: the
 * first SG_SUMMARY_MAX_DIRS are kept, one beneath a kept one still counts
 * there, the rest are counted and said, never dropped.
 */
static void test_sg_summary_add_bounded_and_says_so(void **state)
{
	struct sg_summary *s = sg_summary_new(NULL);
	char *t, l[512], p[64];
	const int extra = 1000;

	(void)state;
	for (int d = 0; d < SG_SUMMARY_MAX_DIRS; d++) {
		snprintf(p, sizeof(p), "/k%d/f", d);
		add(s, SG_OP_CREATE, p);
	}
	for (int d = 0; d < extra; d++) {
		snprintf(p, sizeof(p), "/x%d/f", d);
		add(s, SG_OP_CREATE, p);
	}
	/* beneath the kept /k7, with the table full: counted in /k7 */
	add(s, SG_OP_CREATE, "/k7/sub/deeper/f");
	add(s, SG_OP_MKDIR, "/k7/sub/g");
	assert_int_equal(sg_summary_count(s), SG_SUMMARY_MAX_DIRS + extra + 2);
	t = text(s, &no_fix);
	assert_int_equal(lines(t), 6);
	assert_string_equal(line(t, 0, l, sizeof(l)),
			    "stepguard: 3 writes refused under /k7 (create, mkdir); "
			    "if this step should write there: --allow-write /k7");
	assert_non_null(strstr(line(t, 5, l, sizeof(l)), "stepguard: and "));
	assert_non_null(strstr(l, "under 251 other directories, 1000 more writes refused under "
				  "directories beyond the 256 this summary keeps"));
	free(t);
	sg_summary_free(s);
}

/*
 * Paths are bytes the record owns: copied by length (no NUL needed) and
 * printed escaped as the refusal lines are, so no line of the summary
 * can be split or forged by a path.
 */
static void test_sg_summary_print_escapes_and_copies(void **state)
{
	struct sg_summary *s = sg_summary_new(NULL);
	char buf[64], *t, l[512];
	struct sg_denial d;

	(void)state;
	memcpy(buf, "/w/evil\nstepguard: ok\xff/f" "GARBAGE", 31);
	d = refusal(SG_OP_CREATE, buf);
	d.path_len = 24; /* up to "/f", not the garbage after it */
	sg_summary_add(s, &d);
	memset(buf, 'Z', sizeof(buf)); /* the summary kept its own copy */
	t = text(s, &no_fix);
	assert_int_equal(lines(t), 1);
	assert_string_equal(line(t, 0, l, sizeof(l)),
			    "stepguard: 1 write refused under /w/evil\\x0astepguard: ok\\xff (create); "
			    "if this step should write there: --allow-write '/w/evil\\x0astepguard: ok\\xff'");
	assert_null(strstr(t, "GARBAGE"));
	free(t);
	sg_summary_free(s);

	/* A quote in the path stays one shell word. */
	s = sg_summary_new(NULL);
	add(s, SG_OP_CREATE, "/w/it's here/f");
	t = text(s, &no_fix);
	assert_non_null(strstr(t, "--allow-write '/w/it'\\''s here'\n"));
	free(t);
	sg_summary_free(s);
}

static void test_sg_summary_print_named_step_names_the_policy_key(void **state)
{
	const char *labels[] = { "npm", "cache" };
	struct sg_summary_fix fix = { "build", labels, 2, 0 };
	struct sg_summary *s = sg_summary_new("/home/ci");
	char *t, l[512];

	(void)state;
	add(s, SG_OP_MKDIR, "/home/ci/.npm/a");
	add(s, SG_OP_MKDIR, "/home/ci/.npm/b");
	add(s, SG_OP_MKDIR, "/home/ci/.npm/c");
	add(s, SG_OP_CREATE, "/var/lib/my cache!/x");
	add(s, SG_OP_CREATE, "/var/lib/my cache!/y");
	add(s, SG_OP_CREATE, "/srv/a/.cache/x");  /* "cache" is the policy's: "cache-2" */
	add(s, SG_OP_CREATE, "/srv/b/.cache/x");  /* and "cache-2" the line above's */
	add(s, SG_OP_CREATE, "/srv/$HOME/x");     /* a $ is written $$ */
	t = text(s, &fix);
	assert_int_equal(lines(t), 5);
	/* the policy has "npm" already: reusing it would replace that root */
	assert_string_equal(line(t, 0, l, sizeof(l)),
			    "stepguard: 3 writes refused under /home/ci/.npm (mkdir); "
			    "if step build should write there: [step:build] write.npm-2 = /home/ci/.npm "
			    "(or --allow-write /home/ci/.npm)");
	assert_string_equal(line(t, 1, l, sizeof(l)),
			    "stepguard: 2 writes refused under /var/lib/my cache! (create); "
			    "if step build should write there: [step:build] write.my-cache = /var/lib/my cache! "
			    "(or --allow-write '/var/lib/my cache!')");
	assert_non_null(strstr(t, "[step:build] write.HOME = /srv/$$HOME (or --allow-write '/srv/$HOME')\n"));
	assert_non_null(strstr(t, "[step:build] write.cache-2 = /srv/a/.cache "));
	assert_non_null(strstr(t, "[step:build] write.cache-3 = /srv/b/.cache "));
	free(t);
	sg_summary_free(s);
}

/* A directory the policy cannot spell gets the command-line fix only. */
static void test_sg_summary_print_named_step_unspellable_path(void **state)
{
	struct sg_summary_fix fix = { "build", NULL, 0, 0 };
	struct sg_summary *s = sg_summary_new(NULL);
	char *t, l[512];

	(void)state;
	add(s, SG_OP_CREATE, "/w/a ;b/f");   /* inih would read " ;b" as a comment */
	add(s, SG_OP_CREATE, "/w/nl\n/f");   /* bytes that print escaped */
	add(s, SG_OP_CREATE, "/w/.../f");    /* nothing left for a label: "dir" */
	t = text(s, &fix);
	assert_int_equal(lines(t), 3);
	assert_string_equal(line(t, 0, l, sizeof(l)),
			    "stepguard: 1 write refused under /w/... (create); "
			    "if step build should write there: [step:build] write.dir = /w/... "
			    "(or --allow-write /w/...)");
	assert_string_equal(line(t, 1, l, sizeof(l)),
			    "stepguard: 1 write refused under /w/a ;b (create); "
			    "if step build should write there: --allow-write '/w/a ;b'");
	assert_string_equal(line(t, 2, l, sizeof(l)),
			    "stepguard: 1 write refused under /w/nl\\x0a (create); "
			    "if step build should write there: --allow-write '/w/nl\\x0a'");
	free(t);
	sg_summary_free(s);
}

static void test_sg_summary_print_audited_would_have_been(void **state)
{
	struct sg_summary *s = sg_summary_new(NULL);
	struct sg_denial d = refusal(SG_OP_CREATE, "/opt/tool/state");
	char *t, l[512];

	(void)state;
	d.decision = SG_DECISION_AUDITED;
	d.error = 0;
	sg_summary_add(s, &d);
	sg_summary_add(s, &d);
	assert_int_equal(sg_summary_audited(s), 2);
	/* audit mode: said even when the step succeeds, since that is the roll-out's question */
	assert_true(sg_summary_wanted(s, false, false));
	t = text(s, &no_fix);
	assert_string_equal(line(t, 0, l, sizeof(l)),
			    "stepguard: 2 writes would have been refused under /opt/tool (create); "
			    "if this step should write there: --allow-write /opt/tool");
	free(t);
	sg_summary_free(s);
}

static void test_sg_summary_wanted_failure_or_verbose(void **state)
{
	struct sg_summary *s = sg_summary_new(NULL);

	(void)state;
	assert_false(sg_summary_wanted(NULL, true, true));
	/* nothing refused: nothing to say, even failing or with -v */
	assert_false(sg_summary_wanted(s, true, true));
	add(s, SG_OP_CHMOD, "/etc/hostname");
	assert_true(sg_summary_wanted(s, true, false));
	assert_true(sg_summary_wanted(s, false, true));
	assert_false(sg_summary_wanted(s, false, false));
	sg_summary_free(s);
}

/* What no root would change gets its own line, with no fix. */
static void test_sg_summary_print_other_refusals_without_a_fix(void **state)
{
	struct sg_summary *s = sg_summary_new(NULL);
	struct sg_denial d;
	char *t, l[512];

	(void)state;
	d = refusal(SG_OP_KILL, NULL);
	d.reason = SG_WHY_GUARD;
	sg_summary_add(s, &d);
	d = refusal(SG_OP_EXEC, "/usr/bin/bash");
	d.reason = SG_WHY_NOT_ALLOWED;
	sg_summary_add(s, &d);
	d = refusal(SG_OP_CHMOD, "ome/ci/.profile");
	d.truncated = true;
	sg_summary_add(s, &d);
	d = refusal(SG_OP_CHMOD, "/work/x");
	d.reason = SG_WHY_FOREIGN;
	sg_summary_add(s, &d);
	add(s, SG_OP_CREATE, "/etc/x");
	t = text(s, &no_fix);
	assert_int_equal(lines(t), 2);
	assert_non_null(strstr(line(t, 0, l, sizeof(l)), "1 write refused under /etc (create)"));
	assert_string_equal(line(t, 1, l, sizeof(l)),
			    "stepguard: 4 operations refused that no writable root would allow "
			    "(ops: kill, exec, chmod; reasons: guard, foreign, not-allowed, path truncated)");
	assert_null(strstr(t, "/usr/bin"));
	assert_null(strstr(t, "/work"));
	free(t);
	sg_summary_free(s);
}

static void test_sg_summary_print_ops_at_most_four_in_first_seen_order(void **state)
{
	struct sg_summary *s = sg_summary_new(NULL);
	char *t;

	(void)state;
	add(s, SG_OP_UTIMES, "/o/a");
	add(s, SG_OP_CHMOD, "/o/a");
	add(s, SG_OP_UTIMES, "/o/b");
	add(s, SG_OP_SYMLINK, "/o/c");
	add(s, SG_OP_OPEN, "/o/d");
	add(s, SG_OP_CREATE, "/o/e");
	t = text(s, &no_fix);
	assert_non_null(strstr(t, "6 writes refused under /o (utimes, chmod, symlink, open, ...);"));
	free(t);
	sg_summary_free(s);
}

static void test_sg_summary_print_lost_records_make_the_count_low(void **state)
{
	struct sg_summary_fix fix = { NULL, NULL, 0, 37 };
	struct sg_summary *s = sg_summary_new(NULL);
	char *t, l[512];

	(void)state;
	add(s, SG_OP_CREATE, "/etc/x");
	t = text(s, &fix);
	assert_int_equal(lines(t), 2);
	assert_string_equal(line(t, 1, l, sizeof(l)),
			    "stepguard: these counts may be low: 37 more refusals could not be reported");
	free(t);
	t = text(s, &no_fix); /* none lost: not said */
	assert_int_equal(lines(t), 1);
	assert_null(strstr(t, "may be low"));
	free(t);
	sg_summary_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sg_summary_add_groups_by_the_objects_directory),
		cmocka_unit_test(test_sg_summary_add_rename_counts_the_named_path),
		cmocka_unit_test(test_sg_summary_print_folds_into_the_highest_ancestor),
		cmocka_unit_test(test_sg_summary_print_never_folds_into_home_or_root),
		cmocka_unit_test(test_sg_summary_print_orders_by_count_then_path),
		cmocka_unit_test(test_sg_summary_print_five_groups_then_the_others),
		cmocka_unit_test(test_sg_summary_add_bounded_and_says_so),
		cmocka_unit_test(test_sg_summary_print_escapes_and_copies),
		cmocka_unit_test(test_sg_summary_print_named_step_names_the_policy_key),
		cmocka_unit_test(test_sg_summary_print_named_step_unspellable_path),
		cmocka_unit_test(test_sg_summary_print_audited_would_have_been),
		cmocka_unit_test(test_sg_summary_wanted_failure_or_verbose),
		cmocka_unit_test(test_sg_summary_print_other_refusals_without_a_fix),
		cmocka_unit_test(test_sg_summary_print_ops_at_most_four_in_first_seen_order),
		cmocka_unit_test(test_sg_summary_print_lost_records_make_the_count_low),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
