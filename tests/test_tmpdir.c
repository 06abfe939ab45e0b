// SPDX-License-Identifier: MIT
/*
 * Tests for launcher/tmpdir.c: the step's private temporary directory.
 * Each refusal is shown next to its allowed twin, and each removal next
 * to what it must leave alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "launcher/tmpdir.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/var/tmp/sg-test-tmpdir.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'", dir, dir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct sg_settings settings_base(const char *base)
{
	static char buf[PATH_MAX];
	struct sg_settings s;

	memset(&s, 0, sizeof(s));
	if (base) {
		snprintf(buf, sizeof(buf), "%s", base);
		s.tmpdir_base.s = buf;
		s.tmpdir_base.set = true;
		s.tmpdir_base.origin = (struct sg_origin){ "test.ini", 3 };
	}
	return s;
}

static void sub(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

static void test_sg_tmpdir_plan_default_is_tmp_and_on(void **state)
{
	struct sg_settings s = settings_base(NULL);
	char *env[] = { NULL };
	struct sg_tmpdir t;
	struct sg_error err = { 0 };

	(void)state;
	assert_int_equal(sg_tmpdir_plan(&t, &s, env, "/", getuid(), &err), 0);
	assert_true(t.on);
	assert_false(t.keep);
	assert_string_equal(t.base, "/tmp");
	sg_tmpdir_free(&t);
}

static void test_sg_tmpdir_plan_runner_temp_then_policy(void **state)
{
	struct sg_settings s = settings_base(NULL);
	char rt[PATH_MAX], pol[PATH_MAX], var[PATH_MAX + 16];
	char *env[] = { var, NULL };
	struct sg_tmpdir t;
	struct sg_error err = { 0 };

	(void)state;
	sub(rt, sizeof(rt), "runner");
	sub(pol, sizeof(pol), "policy");
	assert_int_equal(mkdir(rt, 0755), 0);
	assert_int_equal(mkdir(pol, 0755), 0);
	snprintf(var, sizeof(var), "RUNNER_TEMP=%s", rt);
	assert_int_equal(sg_tmpdir_plan(&t, &s, env, "/", getuid(), &err), 0);
	assert_string_equal(t.base, rt);
	assert_string_equal(t.base_why, "$RUNNER_TEMP");
	/* The policy's base wins over the runner's. */
	s = settings_base(pol);
	assert_int_equal(sg_tmpdir_plan(&t, &s, env, "/", getuid(), &err), 0);
	assert_string_equal(t.base, pol);
}

static void test_sg_tmpdir_plan_missing_base_is_an_error_not_tmp(void **state)
{
	struct sg_settings s = settings_base(NULL);
	char var[PATH_MAX + 16];
	char *env[] = { var, NULL };
	struct sg_tmpdir t;
	struct sg_error err = { 0 };

	(void)state;
	snprintf(var, sizeof(var), "RUNNER_TEMP=%s/absent", dir);
	assert_int_equal(sg_tmpdir_plan(&t, &s, env, "/", getuid(), &err), -ENOENT);
	assert_non_null(strstr(err.msg, "RUNNER_TEMP"));
	assert_non_null(strstr(err.msg, "tmpdir-base"));
	/* From the policy: its file and line. */
	s = settings_base("/nonexistent/base");
	assert_int_equal(sg_tmpdir_plan(&t, &s, env, "/", getuid(), &err), -ENOENT);
	assert_string_equal(err.file, "test.ini");
	assert_int_equal(err.line, 3);
}

static void test_sg_tmpdir_plan_off_and_kept(void **state)
{
	struct sg_settings s = settings_base(NULL);
	char *env[] = { NULL };
	struct sg_tmpdir t;
	struct sg_error err = { 0 };

	(void)state;
	s.tmpdir = SG_NO;
	assert_int_equal(sg_tmpdir_plan(&t, &s, env, "/", getuid(), &err), 0);
	assert_false(t.on);
	s.tmpdir = SG_YES;
	s.keep_tmpdir = SG_YES;
	assert_int_equal(sg_tmpdir_plan(&t, &s, env, "/", getuid(), &err), 0);
	assert_true(t.on);
	assert_true(t.keep);
}

/* Writable by others and not sticky: anyone could swap the step's directory. */
static void test_sg_tmpdir_plan_refuses_a_shared_base_unless_sticky(void **state)
{
	char b[PATH_MAX];
	struct sg_settings s;
	char *env[] = { NULL };
	struct sg_tmpdir t;
	struct sg_error err = { 0 };

	(void)state;
	sub(b, sizeof(b), "shared");
	assert_int_equal(mkdir(b, 0755), 0);
	assert_int_equal(chmod(b, 0777), 0);
	s = settings_base(b);
	assert_int_equal(sg_tmpdir_plan(&t, &s, env, "/", getuid(), &err), -EPERM);
	assert_non_null(strstr(err.msg, "not sticky"));
	assert_int_equal(chmod(b, 01777), 0);
	assert_int_equal(sg_tmpdir_plan(&t, &s, env, "/", getuid(), &err), 0);
	/* Group-writable is as shared. */
	assert_int_equal(chmod(b, 0770), 0);
	assert_int_equal(sg_tmpdir_plan(&t, &s, env, "/", getuid(), &err), -EPERM);
}

/* Its owner may rename anything in it, sticky or not. */
static void test_sg_tmpdir_plan_refuses_a_base_of_another_user(void **state)
{
	char b[PATH_MAX];
	struct sg_settings s;
	char *env[] = { NULL };
	struct sg_tmpdir t;
	struct sg_error err = { 0 };

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: giving a directory to another user needs root\n");
		skip();
		return;
	}
	sub(b, sizeof(b), "theirs");
	assert_int_equal(mkdir(b, 01777), 0);
	assert_int_equal(chown(b, 4242, 4242), 0);
	s = settings_base(b);
	assert_int_equal(sg_tmpdir_plan(&t, &s, env, "/", 1000, &err), -EPERM);
	assert_non_null(strstr(err.msg, "uid 4242"));
	/* The step's own user's base is fine. */
	assert_int_equal(sg_tmpdir_plan(&t, &s, env, "/", 4242, &err), 0);
}

static void made(struct sg_tmpdir *t, const char *base, const char *step)
{
	struct sg_settings s = settings_base(base);
	char *env[] = { NULL };
	struct sg_error err = { 0 };

	assert_int_equal(sg_tmpdir_plan(t, &s, env, "/", getuid(), &err), 0);
	assert_int_equal(sg_tmpdir_make(t, step, getuid(), getgid(), &err), 0);
}

static void test_sg_tmpdir_make_private_and_new_each_time(void **state)
{
	struct sg_tmpdir a, b;
	struct stat st;
	mode_t old = umask(0);

	(void)state;
	made(&a, dir, "build/x");
	made(&b, dir, "build/x");
	umask(old);
	assert_string_not_equal(a.path, b.path);
	assert_non_null(strstr(a.path, "/stepguard-build_x-"));
	assert_int_equal(stat(a.path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(st.st_uid, geteuid());
	sg_tmpdir_free(&a);
	sg_tmpdir_free(&b);
}

static void test_sg_tmpdir_make_chowns_to_the_step_user(void **state)
{
	struct sg_settings s = settings_base(NULL);
	char *env[] = { NULL };
	struct sg_error err = { 0 };
	struct sg_tmpdir t;
	struct stat st;

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: making a directory for another user needs root\n");
		skip();
		return;
	}
	s = settings_base(dir);
	assert_int_equal(sg_tmpdir_plan(&t, &s, env, "/", 4242, &err), 0);
	assert_int_equal(sg_tmpdir_make(&t, NULL, 4242, 4243, &err), 0);
	assert_int_equal(stat(t.path, &st), 0);
	assert_int_equal(st.st_uid, 4242);
	assert_int_equal(st.st_gid, 4243);
	assert_non_null(strstr(t.path, "/stepguard-step-"));
	sg_tmpdir_free(&t);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/*
 * What a step leaves is removed, a link to outside by its name only: the
 * files it points at, and a directory reached through it, stay.
 */
static void test_sg_tmpdir_remove_never_follows_links(void **state)
{
	char outside[PATH_MAX], victim[PATH_MAX + 8], p[PATH_MAX * 2], cmd[PATH_MAX * 2 + 16];
	struct sg_tmpdir t;
	char msg[512] = "";

	(void)state;
	sub(outside, sizeof(outside), "outside");
	assert_int_equal(mkdir(outside, 0755), 0);
	snprintf(victim, sizeof(victim), "%s/keep", outside);
	put(victim, "precious");

	made(&t, dir, "rm");
	snprintf(p, sizeof(p), "%s/a/b/c", t.path);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
	assert_int_equal(system(cmd), 0);
	snprintf(p, sizeof(p), "%s/a/b/c/f", t.path);
	put(p, "x");
	snprintf(p, sizeof(p), "%s/a/link-dir", t.path);
	assert_int_equal(symlink(outside, p), 0);
	snprintf(p, sizeof(p), "%s/link-file", t.path);
	assert_int_equal(symlink(victim, p), 0);
	/* A directory the step made unreadable and unwritable. */
	snprintf(p, sizeof(p), "%s/a/b", t.path);
	assert_int_equal(chmod(p, 0), 0);
	snprintf(p, sizeof(p), "%s/ro", t.path);
	assert_int_equal(mkdir(p, 0500), 0);

	msg[0] = '\0';
	assert_int_equal(sg_tmpdir_remove(&t, msg, sizeof(msg)), 0);
	assert_int_equal(access(t.path, F_OK), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(access(victim, F_OK), 0);
	assert_int_equal(access(outside, F_OK), 0);
	sg_tmpdir_free(&t);
}

static void test_sg_tmpdir_remove_keeps_a_kept_one(void **state)
{
	struct sg_tmpdir t;
	char msg[256];

	(void)state;
	made(&t, dir, "keep");
	t.keep = true;
	assert_int_equal(sg_tmpdir_remove(&t, msg, sizeof(msg)), 0);
	assert_int_equal(access(t.path, F_OK), 0);
	sg_tmpdir_free(&t);
}

extern void __asan_init(void) __attribute__((weak)); // NOLINT(bugprone-reserved-identifier): ASan's own symbol

/*
 * A step that ended out of memory still has its directory removed: the
 * removal allocates nothing.  The child takes every byte malloc() can
 * still give under RLIMIT_DATA 0, then removes a tree of a few levels.
 */
static void test_sg_tmpdir_remove_needs_no_memory(void **state)
{
	struct sg_tmpdir t;
	char p[PATH_MAX * 2], cmd[PATH_MAX * 8];
	pid_t pid;
	int status;

	(void)state;
	/*
	 * ASan's allocator aborts on a failed allocation, and allocation is
	 * what this starves; the runtime is there even when this file was not
	 * built with -fsanitize, so ask the linker, not the compiler.
	 */
	if (&__asan_init) {
		print_message("skipped: linked with ASan, whose allocator aborts when it runs out\n");
		skip();
		return;
	}
	made(&t, dir, "oom");
	snprintf(p, sizeof(p), "%s/a/b/c", t.path);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && touch '%s/f' '%s/../g'", p, p, p);
	assert_int_equal(system(cmd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 0, 0 };
		char msg[256];
		/* volatile: a compiler may otherwise drop an allocation it sees unused. */
		void *volatile v;

		if (setrlimit(RLIMIT_DATA, &rl) < 0)
			_exit(3);
		for (size_t sz = 1 << 20; sz >= 16; sz /= 2)
			/* Never freed: the point is that nothing is left to allocate. */
			while ((v = malloc(sz)) != NULL)
				*(volatile char *)v = 1;
		v = malloc(16);
		if (v != NULL)
			_exit(4); /* could not starve malloc here: the test proves nothing */
		_exit(sg_tmpdir_remove(&t, msg, sizeof(msg)) == 0 ? 0 : 5);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(access(t.path, F_OK), -1);
	sg_tmpdir_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sg_tmpdir_plan_default_is_tmp_and_on),
		cmocka_unit_test(test_sg_tmpdir_plan_runner_temp_then_policy),
		cmocka_unit_test(test_sg_tmpdir_plan_missing_base_is_an_error_not_tmp),
		cmocka_unit_test(test_sg_tmpdir_plan_off_and_kept),
		cmocka_unit_test(test_sg_tmpdir_plan_refuses_a_shared_base_unless_sticky),
		cmocka_unit_test(test_sg_tmpdir_plan_refuses_a_base_of_another_user),
		cmocka_unit_test(test_sg_tmpdir_make_private_and_new_each_time),
		cmocka_unit_test(test_sg_tmpdir_make_chowns_to_the_step_user),
		cmocka_unit_test(test_sg_tmpdir_remove_never_follows_links),
		cmocka_unit_test(test_sg_tmpdir_remove_keeps_a_kept_one),
		cmocka_unit_test(test_sg_tmpdir_remove_needs_no_memory),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
