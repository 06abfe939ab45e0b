// SPDX-License-Identifier: MIT
/* test_policy_load.c — finding, checking and layering the policy files. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "launcher/policy_load.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/sg-test-load.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *put(const char *name, const char *text, mode_t mode)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
	return path;
}

static const char *sub(const char *name, mode_t mode)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(mkdir(path, mode), 0);
	assert_int_equal(chmod(path, mode), 0);
	return path;
}

static char *no_env[] = { NULL };

static int load(const char *policy, const char *rules, struct sg_policy *p,
		struct sg_sources *s, struct sg_error *err)
{
	struct sg_options o;

	memset(&o, 0, sizeof(o));
	o.policy = policy;
	o.policy_explicit = policy != NULL;
	o.rules_dir = rules;
	sg_policy_init(p);
	memset(s, 0, sizeof(*s));
	memset(err, 0, sizeof(*err));
	return sg_policy_load(&o, no_env, p, s, err);
}

static void done(struct sg_policy *p, struct sg_sources *s)
{
	sg_policy_free(p);
	sg_sources_free(s);
}

static void test_sg_policy_owner_ok_modes_and_owners(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_int_equal(sg_policy_owner_ok(0, S_IFREG | 0644, 1000, NULL, &why), 0);
	assert_int_equal(sg_policy_owner_ok(1000, S_IFREG | 0600, 1000, NULL, &why), 0);
	assert_int_equal(sg_policy_owner_ok(0, S_IFREG | 0664, 0, NULL, &why), -EPERM);
	assert_non_null(strstr(why, "chmod go-w"));
	assert_int_equal(sg_policy_owner_ok(0, S_IFREG | 0646, 0, NULL, &why), -EPERM);
	assert_int_equal(sg_policy_owner_ok(1000, S_IFREG | 0644, 1001, NULL, &why), -EPERM);
	assert_non_null(strstr(why, "chown"));
}

static void test_sg_policy_owner_ok_sudo_user(void **state)
{
	const char *why;

	(void)state;
	/* Under sudo, the invoking user's own policy file is accepted... */
	assert_int_equal(sg_policy_owner_ok(1000, S_IFREG | 0644, 0, "1000", &why), 0);
	/* ...but only as root, only for that uid, only for a well-formed number. */
	assert_int_equal(sg_policy_owner_ok(1000, S_IFREG | 0644, 1001, "1000", &why), -EPERM);
	assert_int_equal(sg_policy_owner_ok(1000, S_IFREG | 0644, 0, "1001", &why), -EPERM);
	assert_int_equal(sg_policy_owner_ok(1000, S_IFREG | 0644, 0, "1000x", &why), -EPERM);
	assert_int_equal(sg_policy_owner_ok(1000, S_IFREG | 0644, 0, "", &why), -EPERM);
	/* and never for a group-writable file */
	assert_int_equal(sg_policy_owner_ok(1000, S_IFREG | 0664, 0, "1000", &why), -EPERM);
}

static void test_sg_policy_load_explicit_missing_file(void **state)
{
	struct sg_policy p;
	struct sg_sources s;
	struct sg_error err;
	char path[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/nope.ini", dir);
	assert_int_equal(load(path, NULL, &p, &s, &err), -ENOENT);
	assert_string_equal(err.file, path);
	assert_non_null(strstr(err.msg, "No such file"));
	done(&p, &s);
}

static void test_sg_policy_load_unknown_key_names_file_and_line(void **state)
{
	const char *path = put("bad.ini", "# line 1\n[writes]\nalow = /x\n[stepguard]\nmodd = x\n",
			       0644);
	struct sg_policy p;
	struct sg_sources s;
	struct sg_error err;
	char copy[256];

	(void)state;
	snprintf(copy, sizeof(copy), "%s", path);
	/* line 3 is a valid [writes] label; line 5 is the unknown key */
	assert_int_equal(load(copy, NULL, &p, &s, &err), -EINVAL);
	assert_string_equal(err.file, copy);
	assert_int_equal(err.line, 5);
	assert_non_null(strstr(err.msg, "modd"));
	done(&p, &s);
}

static void test_sg_policy_load_group_writable_refused(void **state)
{
	const char *path = put("gw.ini", "[stepguard]\nmode = audit\n", 0664);
	struct sg_policy p;
	struct sg_sources s;
	struct sg_error err;
	char copy[256];

	(void)state;
	snprintf(copy, sizeof(copy), "%s", path);
	assert_int_equal(load(copy, NULL, &p, &s, &err), -EPERM);
	assert_non_null(strstr(err.msg, "writable by group or others"));
	assert_int_equal(chmod(copy, 0644), 0);
	done(&p, &s);
	assert_int_equal(load(copy, NULL, &p, &s, &err), 0);
	assert_int_equal(p.base.mode, SG_MODE_AUDIT);
	done(&p, &s);
}

static void test_sg_policy_load_other_owner_refused(void **state)
{
	const char *path = put("owned.ini", "[stepguard]\nmode = audit\n", 0644);
	struct sg_policy p;
	struct sg_sources s;
	struct sg_error err;
	char copy[256];

	(void)state;
	if (geteuid() != 0) {
		print_message("skipped: only root can give a file to another user\n");
		skip();
		return;
	}
	snprintf(copy, sizeof(copy), "%s", path);
	assert_int_equal(chown(copy, 4242, 4242), 0);
	assert_int_equal(load(copy, NULL, &p, &s, &err), -EPERM);
	assert_non_null(strstr(err.msg, "owned by another user"));
	done(&p, &s);
}

static void test_sg_policy_load_not_a_regular_file(void **state)
{
	const char *d = sub("adir.ini", 0755);
	struct sg_policy p;
	struct sg_sources s;
	struct sg_error err;
	char copy[256];

	(void)state;
	snprintf(copy, sizeof(copy), "%s", d);
	assert_int_not_equal(load(copy, NULL, &p, &s, &err), 0);
	done(&p, &s);
}

static void test_sg_policy_load_dropins_in_lexical_order(void **state)
{
	const char *rules = sub("rules.d", 0755);
	char rcopy[256], main_file[256];
	struct sg_policy p;
	struct sg_sources s;
	struct sg_error err;

	(void)state;
	snprintf(rcopy, sizeof(rcopy), "%s", rules);
	snprintf(main_file, sizeof(main_file), "%s",
		 put("main.ini", "[stepguard]\nfilter = landlock\nmode = audit\n", 0644));
	put("rules.d/20-b.ini", "[stepguard]\nmode = enforce\n", 0644);
	put("rules.d/10-a.ini", "[stepguard]\nmode = audit\nfilter = bpf-fmod\n", 0644);
	put("rules.d/README", "this is not a policy\n", 0644);
	put("rules.d/30-c.ini.bak", "[nonsense\n", 0644);
	put("rules.d/.40-hidden.ini", "[nonsense\n", 0644);
	assert_int_equal(load(main_file, rcopy, &p, &s, &err), 0);
	assert_int_equal(p.base.mode, SG_MODE_ENFORCE); /* 20-b after 10-a */
	assert_int_equal(p.base.filter, SG_FILTER_BPF_FMOD); /* drop-in over main */
	assert_non_null(strstr(p.base.mode_origin.file, "20-b.ini"));
	/* built-ins, main, 10-a, 20-b; nothing else */
	assert_string_equal(s.v[s.n - 3].name, main_file);
	assert_non_null(strstr(s.v[s.n - 2].name, "10-a.ini"));
	assert_non_null(strstr(s.v[s.n - 1].name, "20-b.ini"));
	done(&p, &s);
}

static void test_sg_policy_load_explicit_policy_reads_no_system_dropins(void **state)
{
	char main_file[256];
	struct sg_policy p;
	struct sg_sources s;
	struct sg_error err;

	(void)state;
	snprintf(main_file, sizeof(main_file), "%s", put("alone.ini", "[stepguard]\n", 0644));
	assert_int_equal(load(main_file, NULL, &p, &s, &err), 0);
	for (size_t i = 0; i < s.n; i++)
		assert_null(strstr(s.v[i].name, "/etc/stepguard/rules.d"));
	assert_string_equal(s.v[s.n - 1].name, main_file);
	done(&p, &s);
}

static void test_sg_policy_load_defaults_always_first(void **state)
{
	char main_file[256];
	struct sg_policy p;
	struct sg_sources s;
	struct sg_error err;

	(void)state;
	/* A policy that only adds a root must not switch the rulings off. */
	snprintf(main_file, sizeof(main_file), "%s",
		 put("writes-only.ini", "[writes]\ncache = /var/cache/x\n", 0644));
	assert_int_equal(load(main_file, NULL, &p, &s, &err), 0);
	assert_true(sg_words_contains(&p.credentials, "ANTHROPIC_API_KEY"));
	assert_true(sg_words_contains(&p.scrub, "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB"));
	assert_true(sg_words_contains(&p.cli.names, "claude"));
	assert_string_equal(s.v[0].state, "built-in");
	done(&p, &s);
}

static void test_sg_policy_load_writable_rules_dir_refused(void **state)
{
	const char *rules = sub("open.d", 0777);
	char rcopy[256];
	struct sg_policy p;
	struct sg_sources s;
	struct sg_error err;

	(void)state;
	snprintf(rcopy, sizeof(rcopy), "%s", rules);
	assert_int_equal(load(NULL, rcopy, &p, &s, &err), -EPERM);
	assert_string_equal(err.file, rcopy);
	done(&p, &s);
}

static void test_sg_policy_load_missing_explicit_rules_dir(void **state)
{
	char rules[256];
	struct sg_policy p;
	struct sg_sources s;
	struct sg_error err;

	(void)state;
	snprintf(rules, sizeof(rules), "%s/absent.d", dir);
	assert_int_equal(load(NULL, rules, &p, &s, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "No such file"));
	done(&p, &s);
}

static void test_sg_policy_load_dropin_error_names_dropin(void **state)
{
	const char *rules = sub("err.d", 0755);
	char rcopy[256];
	struct sg_policy p;
	struct sg_sources s;
	struct sg_error err;

	(void)state;
	snprintf(rcopy, sizeof(rcopy), "%s", rules);
	put("err.d/20-ci.ini", "[writes]\ncache = /x\n\n[stepguard]\nalow = yes\n", 0644);
	assert_int_equal(load(NULL, rcopy, &p, &s, &err), -EINVAL);
	assert_non_null(strstr(err.file, "err.d/20-ci.ini"));
	assert_int_equal(err.line, 5);
	assert_non_null(strstr(err.msg, "\"alow\""));
	done(&p, &s);
}

/*
 * [seccomp] names are checked by the filter's own validator
 * (sg_seccomp_known_syscall): a name libseccomp knows only on another
 * architecture (socketcall, a negative pseudo number here) is refused at
 * its line, not later when the filter is built.
 */
static void test_sg_policy_load_seccomp_names_native_only(void **state)
{
	const char *rules = sub("seccomp.d", 0755);
	struct sg_policy p;
	struct sg_sources s = { 0 };
	struct sg_error err = { 0 };
	char rcopy[256];
	static const char *const bad[] = { "ptrase", "socketcall" };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[128];

		snprintf(rcopy, sizeof(rcopy), "%s", rules);
		snprintf(text, sizeof(text), "[seccomp]\ndeny = ptrace %s\n", bad[i]);
		put("seccomp.d/30-seccomp.ini", text, 0644);
		assert_int_equal(load(NULL, rcopy, &p, &s, &err), -EINVAL);
		assert_non_null(strstr(err.file, "seccomp.d/30-seccomp.ini"));
		assert_int_equal(err.line, 2);
		assert_non_null(strstr(err.msg, bad[i]));
		done(&p, &s);
	}
	/* the allowed side: native names load */
	snprintf(rcopy, sizeof(rcopy), "%s", rules);
	put("seccomp.d/30-seccomp.ini", "[seccomp]\ndeny = ptrace acct\n", 0644);
	assert_int_equal(load(NULL, rcopy, &p, &s, &err), 0);
	done(&p, &s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sg_policy_owner_ok_modes_and_owners),
		cmocka_unit_test(test_sg_policy_owner_ok_sudo_user),
		cmocka_unit_test(test_sg_policy_load_explicit_missing_file),
		cmocka_unit_test(test_sg_policy_load_unknown_key_names_file_and_line),
		cmocka_unit_test(test_sg_policy_load_group_writable_refused),
		cmocka_unit_test(test_sg_policy_load_other_owner_refused),
		cmocka_unit_test(test_sg_policy_load_not_a_regular_file),
		cmocka_unit_test(test_sg_policy_load_dropins_in_lexical_order),
		cmocka_unit_test(test_sg_policy_load_explicit_policy_reads_no_system_dropins),
		cmocka_unit_test(test_sg_policy_load_defaults_always_first),
		cmocka_unit_test(test_sg_policy_load_writable_rules_dir_refused),
		cmocka_unit_test(test_sg_policy_load_missing_explicit_rules_dir),
		cmocka_unit_test(test_sg_policy_load_dropin_error_names_dropin),
		cmocka_unit_test(test_sg_policy_load_seccomp_names_native_only),
	};

	return cmocka_run_group_tests_name("policy_load", tests, setup, teardown);
}
