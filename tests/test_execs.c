// SPDX-License-Identifier: MIT
/*
 * Tests for launcher/execs.c: what a ruling step may execute, resolved
 * at start.  Files are judged by identity, so each check stats what the
 * resolver kept.
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "launcher/execs.h"
#include "launcher/roots.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/var/tmp/sg-test-execs.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Does OUT hold the file PATH (by identity), with fd open? */
static bool holds(const struct sg_roots *out, const char *path)
{
	struct stat want, st;

	if (stat(path, &want) < 0)
		return false;
	for (size_t i = 0; i < out->n; i++)
		if (out->v[i].fd >= 0 && fstat(out->v[i].fd, &st) == 0 && st.st_dev == want.st_dev &&
		    st.st_ino == want.st_ino)
			return true;
	return false;
}

static void policy_with(struct sg_policy *p, const char *const *allow, size_t n)
{
	memset(p, 0, sizeof(*p));
	p->cli.exec_allow.v = (char **)allow;
	p->cli.exec_allow.n = n;
}

static void script(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
}

/* A dynamic binary brings its ELF interpreter: the kernel opens it for execution too. */
static void test_sg_execs_resolve_adds_the_elf_interpreter(void **state)
{
	struct sg_policy p;
	struct sg_roots out;
	struct sg_error err = { 0 };
	char interp[PATH_MAX];
	FILE *f;

	(void)state;
	f = popen("readelf -l /usr/bin/true 2>/dev/null | sed -n 's/.*interpreter: \\(.*\\)]/\\1/p'", "r");
	if (!f || !fgets(interp, sizeof(interp), f)) {
		if (f)
			pclose(f);
		print_message("skipped: readelf cannot tell /usr/bin/true's interpreter\n");
		skip();
	}
	pclose(f);
	interp[strcspn(interp, "\n")] = '\0';
	policy_with(&p, NULL, 0);
	assert_int_equal(sg_execs_resolve(&p, "/usr/bin/true", &out, &err), 0);
	assert_true(holds(&out, "/usr/bin/true"));
	assert_true(holds(&out, interp));
	/* the allowed side: nothing else */
	assert_int_equal(out.n, 2);
	sg_roots_free(&out);
}

/* A script brings its interpreter, and "env X" brings X, found on PATH. */
static void test_sg_execs_resolve_follows_scripts_and_env(void **state)
{
	struct sg_policy p;
	struct sg_roots out;
	struct sg_error err = { 0 };
	char path[128];

	(void)state;
	script("cli-sh", "#!/bin/sh -e\necho hi\n");
	script("cli-env", "#!/usr/bin/env sh\necho hi\n");
	policy_with(&p, NULL, 0);
	snprintf(path, sizeof(path), "%s/cli-sh", dir);
	assert_int_equal(sg_execs_resolve(&p, path, &out, &err), 0);
	assert_true(holds(&out, path));
	assert_true(holds(&out, "/bin/sh"));
	assert_false(holds(&out, "/usr/bin/env"));
	sg_roots_free(&out);

	snprintf(path, sizeof(path), "%s/cli-env", dir);
	assert_int_equal(sg_execs_resolve(&p, path, &out, &err), 0);
	assert_true(holds(&out, path));
	assert_true(holds(&out, "/usr/bin/env"));
	assert_true(holds(&out, "/bin/sh")); /* what env runs, by PATH */
	sg_roots_free(&out);
}

/* exec-allow names are found on PATH; one this machine lacks allows nothing. */
static void test_sg_execs_resolve_exec_allow(void **state)
{
	static const char *const allow[] = { "true", "no-such-program-xyz" };
	struct sg_policy p;
	struct sg_roots out;
	struct sg_error err = { 0 };
	bool kept = false;

	(void)state;
	policy_with(&p, allow, 2);
	assert_int_equal(sg_execs_resolve(&p, "/bin/busybox", &out, &err), 0);
	assert_true(holds(&out, "/bin/busybox"));
	assert_true(holds(&out, "/usr/bin/true"));
	for (size_t i = 0; i < out.n; i++)
		if (out.v[i].fd < 0 && out.v[i].given && strcmp(out.v[i].given, allow[1]) == 0)
			kept = true;
	assert_true(kept);
	sg_roots_free(&out);
}

/* A CLI that is not found is -ENOENT, with strerror's words alone (the caller names it). */
static void test_sg_execs_resolve_missing_cli(void **state)
{
	struct sg_policy p;
	struct sg_roots out;
	struct sg_error err = { 0 };

	(void)state;
	policy_with(&p, NULL, 0);
	assert_int_equal(sg_execs_resolve(&p, "no-such-cli-xyz", &out, &err), -ENOENT);
	assert_string_equal(err.msg, strerror(ENOENT));
	sg_roots_free(&out);
	script("cli-bad", "#!/no/such/interpreter\n");
	{
		char path[128];

		snprintf(path, sizeof(path), "%s/cli-bad", dir);
		/* a missing interpreter is another failure than a missing CLI */
		assert_int_equal(sg_execs_resolve(&p, path, &out, &err), -ENOEXEC);
		assert_non_null(strstr(err.msg, "/no/such/interpreter"));
		sg_roots_free(&out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sg_execs_resolve_adds_the_elf_interpreter),
		cmocka_unit_test(test_sg_execs_resolve_follows_scripts_and_env),
		cmocka_unit_test(test_sg_execs_resolve_exec_allow),
		cmocka_unit_test(test_sg_execs_resolve_missing_cli),
	};

	return cmocka_run_group_tests_name("execs", tests, setup, teardown);
}
