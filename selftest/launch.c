// SPDX-License-Identifier: MIT
/*
 * selftest/launch.c — starting a child stepguard for the self-test: its
 * command line (the caller's options), its environment (credentials and
 * scrub variables dropped), its captured output and its time limit.
 */
#include "selftest/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "confine/user.h"
#include "lib/exitcodes.h"
#include "policy/policy.h"

/* Always removed from the step's environment, whatever the policy lists. */
static const char *const default_credentials[] = { "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN",
						    "CLAUDE_CODE_OAUTH_TOKEN" };

/* ---- small helpers ---------------------------------------------------- */

void sg_st_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void sg_st_buf_add(struct buf *b, const char *data, size_t n)
{
	char *p;

	if (b->n + n > CAPTURE_MAX) {
		b->truncated = true;
		n = CAPTURE_MAX - b->n;
	}
	if (n == 0)
		return;
	p = realloc(b->p, b->n + n + 1);
	if (!p) {
		b->truncated = true;
		return;
	}
	b->p = p;
	memcpy(b->p + b->n, data, n);
	b->n += n;
	b->p[b->n] = '\0';
}

const char *sg_st_buf_str(const struct buf *b)
{
	return b->p ? b->p : "";
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* A relative path from the caller means the caller's directory; the
 * steps run elsewhere, so make it absolute (without resolving links). */
const char *sg_st_absolute(const struct selftest *s, const char *p, char *buf, size_t len)
{
	if (!p || p[0] == '/' || sg_st_pathf(buf, len, "%s/%s", s->cwd, p) < 0)
		return p; /* too long: passed on as given, for stepguard to refuse */
	return buf;
}

/* ---- running stepguard ------------------------------------------------ */

void sg_st_buf_free(struct buf *b)
{
	free(b->p);
	*b = (struct buf){ 0 };
}

/*
 * Run PROG with ARGV and ENV in CWD, as the user AS (NULL or not a drop:
 * as we are), stdin from /dev/null, stdout and stderr captured.  Returns
 * its exit status (128+N for signal N), or -errno if it could not be
 * started.  A program that outlives TIMEOUT_MS is asked to stop (SIGTERM,
 * which stepguard forwards to its step), then killed.
 */
int sg_st_run_program(const char *prog, char *const argv[], char *const env[], const char *cwd,
		      const struct sg_user *as, int timeout_ms, struct buf *out, struct buf *err)
{
	int po[2], pe[2], status;
	struct pollfd pf[2];
	struct timespec t0;
	bool termed = false, killed = false;
	int limit = timeout_ms;
	pid_t pid;

	if (pipe2(po, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(pe, O_CLOEXEC) < 0) {
		int e = errno;

		close(po[0]);
		close(po[1]);
		return -e;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(po[0]);
		close(po[1]);
		close(pe[0]);
		close(pe[1]);
		return -e;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC), e;

		if (null < 0 || dup2(null, 0) < 0 || dup2(po[1], 1) < 0 || dup2(pe[1], 2) < 0)
			_exit(SG_EXIT_CONFINE);
		if (cwd && chdir(cwd) < 0) {
			dprintf(2, "stepguard: self-test: cannot enter %s: %s\n", cwd, strerror(errno));
			_exit(SG_EXIT_CONFINE);
		}
		if (as && sg_user_drop(as) < 0) {
			dprintf(2, "stepguard: self-test: cannot become user %s\n", as->name);
			_exit(SG_EXIT_CONFINE);
		}
		execve(prog, argv, env);
		e = errno;
		dprintf(2, "stepguard: self-test: cannot execute %s: %s\n", prog, strerror(e));
		/* A stepguard that cannot start confines nothing: 71, as a run says it. */
		if (strcmp(prog, "/proc/self/exe") == 0)
			_exit(SG_EXIT_CONFINE);
		_exit(e == ENOENT ? SG_EXIT_NOTFOUND : SG_EXIT_NOEXEC);
	}
	close(po[1]);
	close(pe[1]);
	pf[0] = (struct pollfd){ .fd = po[0], .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = pe[0], .events = POLLIN };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (pf[0].fd >= 0 || pf[1].fd >= 0) {
		long left = timeout_ms - ms_since(&t0);
		int n;

		if (left <= 0) {
			/* A descendant may hold the pipes open: stop waiting on them. */
			if (!termed) {
				kill(pid, SIGTERM);
				termed = true;
				timeout_ms += 5000;
				continue;
			}
			kill(pid, SIGKILL);
			killed = true;
			break;
		}
		n = poll(pf, 2, (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		for (int i = 0; i < 2; i++) {
			char chunk[4096];
			ssize_t got;

			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = read(pf[i].fd, chunk, sizeof(chunk));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				close(pf[i].fd);
				pf[i].fd = -1;
				continue;
			}
			sg_st_buf_add(i == 0 ? out : err, chunk, (size_t)got);
		}
	}
	for (int i = 0; i < 2; i++)
		if (pf[i].fd >= 0)
			close(pf[i].fd);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (termed) {
		char m[96];

		snprintf(m, sizeof(m), "\nstepguard: self-test: stopped after %d s%s\n",
			 limit / 1000, killed ? " (killed)" : "");
		sg_st_buf_add(err, m, strlen(m));
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 255;
}

/* /proc/self/exe: this very binary, even if its path has changed. */
int sg_st_run_stepguard(char *const argv[], char *const env[], const char *cwd, int timeout_ms,
			struct buf *out, struct buf *err)
{
	return sg_st_run_program("/proc/self/exe", argv, env, cwd, NULL, timeout_ms, out, err);
}

/* The arguments every stepguard we start shares: the caller's options, so
 * the self-test proves the confinement a step would get with them, and
 * -w WORKDIR. */
size_t sg_st_common_args(struct selftest *s, const char **a, size_t n, const char *workdir)
{
	const struct sg_selftest_args *o = s->o;

	a[n++] = "stepguard";
	a[n++] = "-q";
	if (o->policy) {
		a[n++] = "--policy";
		a[n++] = sg_st_absolute(s, o->policy, s->abs_policy, sizeof(s->abs_policy));
	}
	if (o->rules_dir) {
		a[n++] = "--rules-dir";
		a[n++] = sg_st_absolute(s, o->rules_dir, s->abs_rules, sizeof(s->abs_rules));
	}
	if (o->step) {
		a[n++] = "--step";
		a[n++] = o->step;
	}
	if (o->filter != SG_FILTER_UNSET) {
		a[n++] = "--filter";
		a[n++] = sg_filter_name(o->filter);
	}
	if (o->mode != SG_MODE_UNSET) {
		a[n++] = "--mode";
		a[n++] = sg_mode_name(o->mode);
	}
	if (o->user) {
		a[n++] = "--user";
		a[n++] = o->user;
	}
	for (size_t i = 0; i < o->n_allow_write && s->abs_allow; i++) {
		a[n++] = "--allow-write";
		a[n++] = s->abs_allow[i];
	}
	a[n++] = "-w";
	a[n++] = workdir;
	return n;
}

static bool is_listed(const struct sg_words *w, const char *name, size_t len)
{
	for (size_t i = 0; i < w->n; i++)
		if (strlen(w->v[i]) == len && strncmp(w->v[i], name, len) == 0)
			return true;
	return false;
}

/*
 * The step's environment without the credential and scrub variables (the
 * policy's and the well-known ones), without the policy's tool variables
 * (a ruling step that has one is refused, and the runs prove a compliant
 * step), and without what the self-test sets, plus SET (NAME=VALUE
 * strings, NULL-terminated).
 */
char **sg_st_make_env(const struct selftest *s, const char *const set[])
{
	size_t n = 0, k = 0;
	char **env;

	while (s->envp[n])
		n++;
	for (size_t i = 0; set[i]; i++)
		n++;
	env = calloc(n + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (char *const *e = s->envp; *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
		bool drop = is_listed(&s->pol->credentials, *e, len) ||
			    is_listed(&s->pol->scrub, *e, len) ||
			    is_listed(&s->pol->cli.tool_variables, *e, len);

		for (size_t i = 0; i < sizeof(default_credentials) / sizeof(default_credentials[0]); i++)
			drop |= strlen(default_credentials[i]) == len &&
				strncmp(*e, default_credentials[i], len) == 0;
		for (size_t i = 0; set[i]; i++)
			drop |= strncmp(*e, set[i], len + 1) == 0;
		drop |= len == strlen(SCRUB_VAR) && strncmp(*e, SCRUB_VAR, len) == 0;
		if (!drop && !(env[k++] = strdup(*e)))
			goto oom;
	}
	for (size_t i = 0; set[i]; i++)
		if (!(env[k++] = strdup(set[i])))
			goto oom;
	return env;
oom:
	sg_st_strv_free(env);
	return NULL;
}
