// SPDX-License-Identifier: MIT
#include "launcher/roots.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "policy/expand.h"

void sg_roots_free(struct sg_roots *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].given);
		free((char *)r->v[i].path); /* ours: strdup()ed below */
		if (r->v[i].fd >= 0)
			close(r->v[i].fd);
	}
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

static void root_error(struct sg_error *err, const struct sg_root *e, const char *fmt,
		       ...) __attribute__((format(printf, 3, 4)));

static void root_error(struct sg_error *err, const struct sg_root *e, const char *fmt,
		       ...)
{
	char msg[sizeof(err->msg) - 100];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* No origin: the command line, no file to name. */
	sg_errorf(err, 0, e->origin.file, e->origin.file ? e->origin.line : 0, "%s: %s", e->what, msg);
}

static int add(struct sg_roots *r, const char *given, bool optional, const char *what,
	       const struct sg_origin *origin, const char *home, bool want_dir,
	       struct sg_error *err)
{
	struct sg_root *e, *v;
	char buf[PATH_MAX];
	struct stat st;

	v = realloc(r->v, (r->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->v = v;
	e = &v[r->n];
	memset(e, 0, sizeof(*e));
	e->fd = -1;
	snprintf(e->what, sizeof(e->what), "%s", what);
	if (origin)
		e->origin = *origin;
	e->given = strdup(given);
	if (!e->given)
		return -ENOMEM;
	r->n++;

	/* O_PATH: no permission needed to read it, and no side effects of open. */
	e->fd = open(given, O_PATH | O_CLOEXEC);
	if (e->fd < 0) {
		int errnum = errno;

		if (errnum == ENOENT && optional)
			return 0;
		root_error(err, e, "cannot open \"%s\": %s", given, strerror(errnum));
		return -errnum;
	}
	if (fstat(e->fd, &st) < 0) {
		int errnum = errno;
		root_error(err, e, "cannot stat \"%s\": %s", given, strerror(errnum));
		return -errnum;
	}
	e->is_dir = S_ISDIR(st.st_mode);
	if (want_dir && !e->is_dir) {
		root_error(err, e, "\"%s\" is not a directory", given);
		return -ENOTDIR;
	}
	{
		char proc[64];
		ssize_t n;

		/* The path of what we opened, not of what the name means now. */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", e->fd);
		n = readlink(proc, buf, sizeof(buf) - 1);
		if (n > 0 && buf[0] == '/') {
			buf[n] = '\0';
		} else if (!realpath(given, buf)) {
			int errnum = errno;
			root_error(err, e, "cannot resolve \"%s\": %s", given, strerror(errnum));
			return -errnum;
		}
	}
	e->path = strdup(buf);
	if (!e->path)
		return -ENOMEM;

	/*
	 * A root of "/" allows every write, and a root at or above $HOME
	 * allows the very writes stepguard exists to refuse (~/.bashrc):
	 * both are refused rather than silently defeating the filter.
	 */
	if (strcmp(e->path, "/") == 0) {
		root_error(err, e, "\"%s\" resolves to \"/\", which would allow every write",
			   given);
		return -EPERM;
	}
	if (home && sg_path_covers(e->path, home)) {
		root_error(err, e, "\"%s\" contains the home directory %s; choose a narrower directory",
			   e->path, home);
		return -EPERM;
	}
	return 0;
}

const char *sg_roots_home(char *const envp[], char buf[PATH_MAX])
{
	const char *home_env = sg_env_get(envp, "HOME");
	struct passwd *pw;

	/*
	 * The home directory is what the refusal in add() protects, so an
	 * unset HOME (env -i) must not switch the check off: fall back to the
	 * password database's home of the user the step runs as.
	 */
	if (home_env && *home_env && realpath(home_env, buf))
		return buf;
	pw = getpwuid(geteuid());
	if (pw && pw->pw_dir && *pw->pw_dir && realpath(pw->pw_dir, buf))
		return buf;
	return NULL;
}

int sg_roots_resolve(const struct sg_policy *p, const struct sg_step *step,
		     const struct sg_options *o, char *const envp[], struct sg_roots *out,
		     struct sg_error *err)
{
	const struct sg_write **writes = NULL;
	const char *home_env = sg_env_get(envp, "HOME");
	char home_buf[PATH_MAX], cwd[PATH_MAX];
	const char *home = sg_roots_home(envp, home_buf);
	struct sg_expand_vars vars;
	int n, r;

	memset(out, 0, sizeof(*out));

	if (!o->workdir && !getcwd(cwd, sizeof(cwd))) {
		err->file[0] = '\0';
		err->line = 0;
		snprintf(err->msg, sizeof(err->msg), "cannot get the current directory: %s",
			 strerror(errno));
		return -errno;
	}
	r = add(out, o->workdir ? o->workdir : cwd, false, "work directory", NULL, home, true,
		err);
	if (r < 0)
		return r;
	for (size_t i = 0; i < o->n_allow_write; i++) {
		r = add(out, o->allow_write[i], false, "--allow-write", NULL, home, false, err);
		if (r < 0)
			return r;
	}

	vars.workdir = out->v[0].path;
	vars.home = home_env;
	vars.envp = envp;
	n = sg_policy_step_writes(p, step, &writes);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		const char *raw = writes[i]->path;
		bool optional = raw[0] == '?';
		_cleanup_free_ char *path = NULL;
		char what[160], msg[256];

		/* Named where it is written, so the fix of an error is found at once. */
		if (writes[i]->step)
			snprintf(what, sizeof(what), "[step:%s] write.%s", writes[i]->step,
				 writes[i]->label);
		else
			snprintf(what, sizeof(what), "[writes] %s", writes[i]->label);
		r = sg_expand(optional ? raw + 1 : raw, &vars, &path, msg, sizeof(msg));
		if (r < 0) {
			snprintf(err->file, sizeof(err->file), "%s", writes[i]->origin.file);
			err->line = writes[i]->origin.line;
			snprintf(err->msg, sizeof(err->msg), "%s: %s", what, msg);
			free(writes);
			return r;
		}
		if (path[0] != '/') {
			snprintf(err->file, sizeof(err->file), "%s", writes[i]->origin.file);
			err->line = writes[i]->origin.line;
			snprintf(err->msg, sizeof(err->msg), "%s: \"%s\" is not an absolute path",
				 what, path);
			free(writes);
			return -EINVAL;
		}
		r = add(out, path, optional, what, &writes[i]->origin, home, false, err);
		if (r < 0) {
			free(writes);
			return r;
		}
	}
	free(writes);
	return 0;
}

int sg_sockets_resolve(const struct sg_policy *p, struct sg_roots *out, struct sg_error *err)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < p->sockets.n; i++) {
		const char *w = p->sockets.v[i];
		bool optional = w[0] == '?';
		struct sg_root *e;
		struct stat st;
		int r;

		/*
		 * Opened following links (/dev/log is one, to the journal's
		 * socket): what is allowed is the socket itself, by identity,
		 * so a later swap of the name allows nothing new.
		 */
		r = add(out, optional ? w + 1 : w, optional, "[sockets] allow", &p->sockets.origin, NULL,
			false, err);
		if (r < 0)
			return r;
		e = &out->v[out->n - 1];
		if (e->fd >= 0 && (fstat(e->fd, &st) < 0 || !S_ISSOCK(st.st_mode))) {
			root_error(err, e, "\"%s\" is not a UNIX socket", e->path);
			return -ENOTSOCK;
		}
	}
	return 0;
}

int sg_roots_add_made(struct sg_roots *r, int dirfd, const char *path, const char *what)
{
	struct sg_root *e, *v = realloc(r->v, (r->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	r->v = v;
	e = &v[r->n];
	memset(e, 0, sizeof(*e));
	snprintf(e->what, sizeof(e->what), "%s", what);
	/* The directory stepguard holds, not its name again: it was just made, and is new. */
	e->fd = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (e->fd < 0)
		return -errno;
	r->n++;
	e->is_dir = true;
	e->given = strdup(path);
	e->path = strdup(path);
	if (!e->given || !e->path)
		return -ENOMEM;
	return 0;
}
