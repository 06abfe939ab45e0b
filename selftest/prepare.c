// SPDX-License-Identifier: MIT
/*
 * selftest/prepare.c — what the self-test settles before its six runs:
 * the facts around them (kernel, LSMs, the step's user and HOME), the
 * probe, the work area and its preflight, and the rulings on fixed
 * command lines.
 */
#include "selftest/internal.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "confine/user.h"
#include "lib/env.h"
#include "lib/error.h"
#include "lib/exitcodes.h"
#include "policy/policy.h"

/* ---- the facts around the runs ---------------------------------------- */

static void read_lsm(struct selftest *s)
{
	FILE *f = fopen("/sys/kernel/security/lsm", "re");

	if (!f) {
		snprintf(s->lsm_err, sizeof(s->lsm_err), "cannot read /sys/kernel/security/lsm: %s",
			 strerror(errno));
		return;
	}
	if (!fgets(s->lsm, sizeof(s->lsm), f))
		snprintf(s->lsm_err, sizeof(s->lsm_err), "/sys/kernel/security/lsm is empty");
	s->lsm[strcspn(s->lsm, "\n")] = '\0';
	(void)fclose(f); /* read only: nothing to lose */
}

/* The probe: beside stepguard in a build tree, else where make install
 * puts it (PREFIX/bin/stepguard -> PREFIX/libexec/stepguard/). */
static int find_probe(struct selftest *s)
{
	char self[PATH_MAX], try[2][PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0) {
		sg_st_problem(s, "cannot read /proc/self/exe: %s", strerror(errno));
		return -ENOENT;
	}
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	snprintf(try[0], sizeof(try[0]), "%s/stepguard-probe", self);
	snprintf(try[1], sizeof(try[1]), "%s/../libexec/stepguard/stepguard-probe", self);
	for (int i = 0; i < 2; i++) {
		struct stat st;

		if (stat(try[i], &st) == 0 && S_ISREG(st.st_mode) && realpath(try[i], s->probe))
			return 0;
	}
	sg_st_problem(s, "the probe is missing: neither %s nor %s exists", try[0], try[1]);
	return -ENOENT;
}

int sg_st_prepare(struct selftest *s)
{
	const char *home = sg_env_get(s->envp, "HOME");
	struct sg_error err = { 0 };
	uint8_t rnd[4] = { 0 };

	if (!getcwd(s->cwd, sizeof(s->cwd)))
		snprintf(s->cwd, sizeof(s->cwd), "/");
	uname(&s->uts);
	read_lsm(s);
	if (sg_user_resolve(s->o->user, s->envp, &s->user, &err) < 0) {
		sg_st_problem(s, "%s", err.msg);
		return -EINVAL;
	}
	if (!home || !*home)
		home = s->user.home;
	if (!home || home[0] != '/') {
		sg_st_problem(s, "the step's HOME (\"%s\") is not an absolute path", home ? home : "");
		return -EINVAL;
	}
	snprintf(s->home, sizeof(s->home), "%s", home);
	while (strlen(s->home) > 1 && s->home[strlen(s->home) - 1] == '/')
		s->home[strlen(s->home) - 1] = '\0';

	/* The launcher's merged policy, for the variable and CLI names. */
	s->pol = s->o->merged;
	s->cli = s->pol->cli.names.n ? s->pol->cli.names.v[0] : "claude";
	s->tools = s->pol->cli.tools_option.n ? s->pol->cli.tools_option.v[0] : "--tools";
	if (s->o->n_allow_write) {
		s->abs_allow = calloc(s->o->n_allow_write + 1, sizeof(char *));
		for (size_t i = 0; s->abs_allow && i < s->o->n_allow_write; i++) {
			char b[PATH_MAX];

			s->abs_allow[i] = strdup(sg_st_absolute(s, s->o->allow_write[i], b, sizeof(b)));
			if (!s->abs_allow[i])
				break;
		}
		if (!s->abs_allow || !s->abs_allow[s->o->n_allow_write - 1]) {
			sg_st_problem(s, "out of memory");
			return -ENOMEM;
		}
	}

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		struct timespec t;

		clock_gettime(CLOCK_REALTIME, &t);
		memcpy(rnd, &t.tv_nsec, sizeof(rnd));
	}
	snprintf(s->nonce, sizeof(s->nonce), "%d-%02x%02x%02x%02x", (int)getpid(), rnd[0], rnd[1],
		 rnd[2], rnd[3]);
	if (find_probe(s) < 0 || sg_st_make_area(s) < 0)
		return -ENOENT;
	sg_st_preflight(s);
	return 0;
}

/* ---- the rulings, on fixed command lines ------------------------------ */

void sg_st_check_rulings(struct selftest *s)
{
	const struct ruling_check init[3] = {
		{ "scrub set, no tools option (ruling 1)", SCRUB_VAR, "1", NULL, SG_EXIT_REFUSED, 0,
		  false, { 0 } },
		{ "credential held, a tool granted (ruling 2)", CRED_VAR, "dummy", "Bash",
		  SG_EXIT_REFUSED, 0, false, { 0 } },
		{ "credential held, tools empty (ruling 2)", CRED_VAR, "dummy", "", SG_EXIT_OK, 0,
		  false, { 0 } },
	};

	memcpy(s->checks, init, sizeof(init));
	for (int i = 0; i < 3; i++) {
		struct ruling_check *c = &s->checks[i];
		char var[128];
		const char *set[2] = { var, NULL };
		const char **argv = calloc(ARGV_MAX(s), sizeof(*argv));
		struct buf err = { 0 };
		size_t n;
		char **env;

		snprintf(var, sizeof(var), "%s=%s", c->var, c->value);
		env = argv ? sg_st_make_env(s, set) : NULL;
		if (!env) {
			free(argv);
			sg_st_problem(s, "rulings: out of memory");
			return;
		}
		n = sg_st_common_args(s, argv, 0, s->work);
		argv[n++] = "--check";
		argv[n++] = "--";
		argv[n++] = s->cli;
		argv[n++] = "-p";
		argv[n++] = "hi";
		if (c->tools) {
			argv[n++] = s->tools;
			argv[n++] = c->tools;
		}
		argv[n] = NULL;
		c->status = sg_st_run_stepguard((char *const *)argv, env, s->work, CHECK_TIMEOUT_MS,
						 &c->out, &err);
		sg_st_buf_add(&c->out, sg_st_buf_str(&err), err.n);
		free(err.p);
		sg_st_strv_free(env);
		free(argv);
		c->ok = c->status == c->expect;
		if (!c->ok)
			sg_st_problem(s, "rulings: %s: stepguard --check exited %d, expected %d:\n%s", c->what,
				c->status, c->expect, sg_st_buf_str(&c->out));
	}
}
