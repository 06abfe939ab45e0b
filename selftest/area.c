// SPDX-License-Identifier: MIT
/* selftest/area.c — the self-test's work area, and judging each write from outside. */
#include "selftest/selftest.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include <nettle/sha2.h>
#include "confine/confine.h"
#include "lib/exitcodes.h"
#include "lib/log.h"
#include "confine/user.h"
#include "lib/env.h"
#include "policy/policy.h"
#include "selftest/internal.h"

/* What the probe writes; the control must hold exactly this. */
static const char probe_marker[] = "stepguard-probe\n";


/* ---- the work area ---------------------------------------------------- */

int sg_st_rm_rf_at(int dfd, const char *name) // NOLINT(misc-no-recursion): depth bounded by RLIMIT_NOFILE, one open directory per level (then -EMFILE)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno != ENOTDIR && errno != ELOOP)
			return -errno;
		return unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			int q = sg_st_rm_rf_at(dirfd(d), de->d_name);

			if (q < 0 && r == 0)
				r = q;
		}
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && r == 0)
		r = -errno;
	return r;
}

/*
 * Could the step's user do MODE on PATH without stepguard?  Asked of the
 * kernel as that user, unconfined: a child drops to the user first.
 */
int sg_st_user_can(const struct selftest *s, const char *path, int mode)
{
	int status;
	pid_t pid;

	if (!s->user.drop)
		return faccessat(AT_FDCWD, path, mode, AT_EACCESS) == 0 ? 0 : -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (sg_user_drop(&s->user) < 0)
			_exit(255);
		_exit(faccessat(AT_FDCWD, path, mode, AT_EACCESS) == 0 ? 0 : errno & 0x7f);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 255)
		return -EPERM;
	return -WEXITSTATUS(status);
}

/* PATH, made by us, is given to the step's user when the step drops to one. */
int sg_st_give(const struct selftest *s, const char *path)
{
	if (s->user.drop && chown(path, s->user.uid, s->user.gid) < 0)
		return -errno;
	return 0;
}

/*
 * The work area in BASE: TOP/work (the step's work directory) with
 * work/config (its configuration directory), TOP/bin/CLI (the link to the
 * probe) and TOP/private (the step logs).  0, or -errno with *WHAT set.
 */
static int make_area_in(struct selftest *s, const char *base, const char **what)
{
	*what = base;
	if (sg_st_pathf(s->top, sizeof(s->top), "%s/stepguard-selftest.XXXXXX", base) < 0)
		return -ENAMETOOLONG;
	if (!mkdtemp(s->top))
		return -errno;
	s->have_top = true;
	*what = s->top;
	/* PATH_MAX / 2: room below for the per-run names. */
	if (sg_st_pathf(s->work, sizeof(s->work) / 2, "%s/work", s->top) < 0 ||
	    sg_st_pathf(s->config, sizeof(s->config), "%s/config", s->work) < 0 ||
	    sg_st_pathf(s->bin, sizeof(s->bin), "%s/bin", s->top) < 0 ||
	    sg_st_pathf(s->priv, sizeof(s->priv), "%s/private", s->top) < 0 ||
	    sg_st_pathf(s->cli_path, sizeof(s->cli_path), "%s/%s", s->bin, s->cli) < 0)
		return -ENAMETOOLONG;
	if (mkdir(s->work, 0700) < 0 || mkdir(s->config, 0700) < 0 || mkdir(s->bin, 0755) < 0 ||
	    mkdir(s->priv, 0700) < 0 || symlink(s->probe, s->cli_path) < 0)
		return -errno;
	/*
	 * work and config belong to the step's user, so the control can land;
	 * so does the top, so that a refusal in the work dir's parent is the
	 * filter's and not the file system's.  bin (the CLI link) and private
	 * (the logs) stay the caller's: the step must not replace the one or
	 * rewrite the other.
	 */
	{
		const char *const own[] = { s->top, s->work, s->config };

		for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
			int r = sg_st_give(s, own[i]);

			if (r < 0) {
				*what = own[i];
				return r;
			}
		}
	}
	/* A $TMPDIR private to the caller is out of the step user's reach. */
	return sg_st_user_can(s, s->work, W_OK | X_OK);
}

/*
 * $TMPDIR first, unless it is /tmp or below it (/tmp is one of the
 * targets), then /var/tmp.
 */
int sg_st_make_area(struct selftest *s)
{
	const char *t = sg_env_get(s->envp, "TMPDIR");
	char real[PATH_MAX], tmp[PATH_MAX];
	const char *bases[2] = { NULL, "/var/tmp" }, *what = NULL;
	int r = -ENOENT;

	if (t && t[0] == '/' && realpath(t, real) && strcmp(real, "/") != 0 &&
	    !(realpath("/tmp", tmp) && sg_path_covers(tmp, real)) && strcmp(real, "/var/tmp") != 0)
		bases[0] = real;
	for (int i = 0; i < 2; i++) {
		if (!bases[i])
			continue;
		r = make_area_in(s, bases[i], &what);
		if (r == 0)
			return 0;
		if (s->have_top)
			sg_st_rm_rf_at(AT_FDCWD, s->top);
		s->have_top = false;
	}
	sg_st_problem(s, "cannot prepare a work area for user %s: %s: %s", s->user.name, what,
		strerror(-r));
	return r;
}

void sg_st_preflight(struct selftest *s)
{
	const struct {
		const char *path;
		int mode;
		const char *why;
	} need[] = {
		{ s->home, W_OK | X_OK, "a refusal in $HOME proves nothing" },
		{ "/tmp", W_OK | X_OK, "a refusal in /tmp proves nothing" },
		{ s->top, W_OK | X_OK, "a refusal in the work dir's parent proves nothing" },
		{ s->work, W_OK | X_OK, "the control cannot land" },
		{ s->probe, X_OK, "the probe cannot run" },
	};

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		int r = sg_st_user_can(s, need[i].path, need[i].mode);

		if (r < 0)
			sg_st_problem(s, "user %s cannot %s %s even without stepguard (%s), so %s",
				s->user.name[0] ? s->user.name : "?",
				need[i].mode & W_OK ? "write in" : "execute", need[i].path,
				strerror(-r), need[i].why);
	}
}

/* ---- judging from outside --------------------------------------------- */

void sg_st_snap_take(const char *path, struct snap *sn)
{
	memset(sn, 0, sizeof(*sn));
	if (lstat(path, &sn->st) < 0) {
		sn->err = errno == ENOENT ? 0 : errno;
		return;
	}
	sn->exists = true;
	if (S_ISREG(sn->st.st_mode)) {
		/* O_NONBLOCK: never hang on a file swapped for a FIFO. */
		int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		struct sha256_ctx ctx;
		uint8_t chunk[8192];
		ssize_t n;

		if (fd < 0)
			return;
		sha256_init(&ctx);
		while ((n = read(fd, chunk, sizeof(chunk))) > 0)
			sha256_update(&ctx, (size_t)n, chunk);
		close(fd);
		if (n == 0) {
			sha256_digest(&ctx, sizeof(sn->hash), sn->hash);
			sn->hashed = true;
		}
	}
}

static bool ts_eq(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static bool snap_same(const struct snap *a, const struct snap *b)
{
	if (a->exists != b->exists)
		return false;
	if (!a->exists)
		return true;
	return a->st.st_dev == b->st.st_dev && a->st.st_ino == b->st.st_ino &&
	       a->st.st_mode == b->st.st_mode && a->st.st_uid == b->st.st_uid &&
	       a->st.st_gid == b->st.st_gid && a->st.st_size == b->st.st_size &&
	       ts_eq(&a->st.st_mtim, &b->st.st_mtim) && ts_eq(&a->st.st_ctim, &b->st.st_ctim) &&
	       a->hashed == b->hashed && memcmp(a->hash, b->hash, sizeof(a->hash)) == 0;
}

/*
 * A file that was there before the run is never deleted.  The probe only
 * appends, so if the same file grew and its first bytes are what it held,
 * cut it back and restore its times; anything else is left and reported.
 */
static void restore(struct cell *c, const struct snap *after)
{
	const struct snap *b = &c->before;
	struct sha256_ctx ctx;
	uint8_t chunk[8192], d[SHA256_DIGEST_SIZE];
	off_t left = b->st.st_size;
	int fd;

	snprintf(c->fate, sizeof(c->fate), "it existed before the run and was changed; left as it is now");
	if (!S_ISREG(b->st.st_mode) || !b->hashed || !after->exists ||
	    after->st.st_dev != b->st.st_dev || after->st.st_ino != b->st.st_ino ||
	    after->st.st_size < b->st.st_size)
		return;
	fd = open(c->path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	sha256_init(&ctx);
	while (left > 0) {
		ssize_t n = read(fd, chunk, left < (off_t)sizeof(chunk) ? (size_t)left : sizeof(chunk));

		if (n <= 0)
			break;
		sha256_update(&ctx, (size_t)n, chunk);
		left -= n;
	}
	sha256_digest(&ctx, sizeof(d), d);
	if (left == 0 && memcmp(d, b->hash, sizeof(d)) == 0 && ftruncate(fd, b->st.st_size) == 0) {
		struct timespec t[2] = { b->st.st_atim, b->st.st_mtim };

		(void)futimens(fd, t);
		snprintf(c->fate, sizeof(c->fate),
			 "it existed before the run; cut back to its former %lld bytes",
			 (long long)b->st.st_size);
	}
	close(fd);
}

void sg_st_judge_cell(struct selftest *s, struct run *r, int k)
{
	struct cell *c = &r->c[k];
	struct snap after;

	sg_st_snap_take(c->path, &after);
	if (after.err || c->before.err) {
		c->result = "unknown";
		sg_st_problem(s, "run %d (scrub %s): cannot check %s from outside: %s", (int)(r - s->runs) + 1,
			sg_st_scrub_label(r->scrub), c->path, strerror(after.err ? after.err : c->before.err));
		return;
	}
	c->landed = !snap_same(&c->before, &after);
	c->result = c->landed ? "landed" : c->reported ? "refused" : "not tried";
	if (k == CONTROL)
		return;
	if (c->landed && !c->before.exists) {
		if (unlinkat(AT_FDCWD, c->path, 0) == 0 ||
		    (errno == EISDIR && unlinkat(AT_FDCWD, c->path, AT_REMOVEDIR) == 0))
			snprintf(c->fate, sizeof(c->fate), "removed");
		else
			snprintf(c->fate, sizeof(c->fate), "could not be removed: %s", strerror(errno));
	} else if (c->landed) {
		restore(c, &after);
	}
	if (c->landed) {
		s->landed_any = true;
		sg_st_problem(s, "run %d (scrub %s): the write to the %s landed: %s (%s)",
			(int)(r - s->runs) + 1, sg_st_scrub_label(r->scrub), sg_st_cells[k].label, c->path, c->fate);
	} else if (c->reported && strcmp(c->probe_said, "landed") == 0) {
		sg_st_problem(s, "run %d (scrub %s): the probe says its write to %s landed, but it is not there",
			(int)(r - s->runs) + 1, sg_st_scrub_label(r->scrub), c->path);
	}
}

/* The control must be there, a regular file of the step's user holding
 * what the probe wrote: proof that the probe ran, as that user. */
void sg_st_judge_control(struct selftest *s, struct run *r)
{
	struct cell *c = &r->c[CONTROL];
	int n = (int)(r - s->runs) + 1;
	struct stat st = { 0 };
	char text[sizeof(probe_marker) + 8];
	ssize_t got = -1;
	int fd;

	sg_st_judge_cell(s, r, CONTROL);
	/* A probe that never ran is reported once, by its run's status. */
	if (!c->landed && !c->reported && r->status != 0)
		return;
	if (!c->landed) {
		sg_st_problem(s, "run %d (scrub %s): the control write in the work directory did not land%s%s%s",
			n, sg_st_scrub_label(r->scrub), c->reported ? " (the probe got " : "",
			c->reported ? c->errname : "", c->reported ? ")" : "");
		return;
	}
	fd = open(c->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		got = read(fd, text, sizeof(text));
	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)strlen(probe_marker) || memcmp(text, probe_marker, (size_t)got) != 0)
		sg_st_problem(s, "run %d (scrub %s): the control %s is not what the probe writes", n,
			sg_st_scrub_label(r->scrub), c->path);
	else if (st.st_uid != s->user.uid)
		sg_st_problem(s, "run %d (scrub %s): the control is owned by uid %u, not by the step's user %s (uid %u)",
			n, sg_st_scrub_label(r->scrub), (unsigned)st.st_uid, s->user.name,
			(unsigned)s->user.uid);
	if (unlink(c->path) < 0)
		sg_st_problem(s, "run %d: cannot remove the control %s: %s", n, c->path, strerror(errno));
}

/*
 * An exec the probe tried, judged from outside by its marker.  In a ruling
 * run the marker must be absent and the probe must have been refused with
 * EACCES (the attempt happened, and the kernel said no: another errno, a
 * missing /bin/sh say, proves nothing).  In the other runs the marker must
 * be there, the step user's: exec is restricted only under a ruling, and
 * this is the control that the same exec works when it is not.
 */
void sg_st_judge_exec(struct selftest *s, struct run *r, int k)
{
	struct exec_cell *e = &r->x[k];
	const char *label = sg_st_execs[k].label;
	int n = (int)(r - s->runs) + 1;
	struct snap after;
	bool eacces, executed;

	sg_st_snap_take(e->marker, &after);
	if (after.err || e->before.err) {
		e->result = "unknown";
		sg_st_problem(s, "run %d (scrub %s): cannot check %s from outside: %s", n,
			sg_st_scrub_label(r->scrub), e->marker,
			strerror(after.err ? after.err : e->before.err));
		return;
	}
	e->ran = !snap_same(&e->before, &after);
	executed = e->reported && strcmp(e->probe_said, "executed") == 0;
	eacces = e->reported && strcmp(e->probe_said, "refused") == 0 &&
		 strcmp(e->errname, "EACCES") == 0;
	e->result = e->ran ? "ran" : !e->reported ? "not tried" : eacces ? "refused"
		  : executed ? "executed" : "failed";
	if (r->ruling) {
		e->ok = !e->ran && eacces;
		/* A program that ran is the failure this exists for, as a write that landed. */
		if (e->ran || executed)
			s->landed_any = true;
		if (e->ran)
			sg_st_problem(s, "run %d (scrub %s, a ruling step): the %s ran: its marker %s "
				"appeared, where a ruling step may execute only the model CLI and "
				"[model-cli] exec-allow", n, sg_st_scrub_label(r->scrub), label, e->marker);
		else if (executed)
			sg_st_problem(s, "run %d (scrub %s, a ruling step): the probe's %s (%s) was "
				"executed (exit status %s), where a ruling step may execute only the "
				"model CLI and [model-cli] exec-allow", n, sg_st_scrub_label(r->scrub),
				label, e->program, e->errname);
		else if (e->reported && !eacces)
			sg_st_problem(s, "run %d (scrub %s, a ruling step): the %s (%s) failed with %s, "
				"not EACCES: that is no refusal, so it proves nothing", n,
				sg_st_scrub_label(r->scrub), label, e->program, e->errname);
	} else {
		e->ok = e->ran && S_ISREG(after.st.st_mode) && after.st.st_uid == s->user.uid;
		if (!e->ran && e->reported)
			sg_st_problem(s, "run %d (scrub %s): the control %s (%s) did not run (the probe "
				"says %s %s): outside a ruling a step's execs must not be restricted, "
				"and a refusal of what cannot run proves nothing", n,
				sg_st_scrub_label(r->scrub), label, e->program, e->probe_said, e->errname);
		else if (e->ran && !e->ok)
			sg_st_problem(s, "run %d (scrub %s): the marker of the control %s is not a "
				"regular file of the step's user %s: %s", n, sg_st_scrub_label(r->scrub),
				label, s->user.name, e->marker);
	}
	if (after.exists && !e->before.exists && unlink(e->marker) < 0)
		sg_st_problem(s, "run %d: cannot remove the marker %s: %s", n, e->marker,
			strerror(errno));
}

/* The probe's exec line: exec<TAB>MARKER<TAB>PROGRAM<TAB>executed|refused<TAB>WHAT. */
static bool parse_exec_line(struct run *r, char *line)
{
	char *f[5], *save = NULL;
	int nf = 0;

	for (char *t = strtok_r(line, "\t", &save); t && nf < 5; t = strtok_r(NULL, "\t", &save))
		f[nf++] = t;
	if (nf != 5 || strcmp(f[0], "exec") != 0 ||
	    (strcmp(f[3], "executed") != 0 && strcmp(f[3], "refused") != 0))
		return false;
	for (int k = 0; k < N_EXECS; k++) {
		struct exec_cell *e = &r->x[k];
		char esc[PATH_MAX * 4];

		sg_st_escape_line(e->marker, esc, sizeof(esc));
		if (e->reported || strcmp(esc, f[1]) != 0)
			continue;
		e->reported = true;
		snprintf(e->program, sizeof(e->program), "%s", f[2]);
		snprintf(e->probe_said, sizeof(e->probe_said), "%s", f[3]);
		snprintf(e->errname, sizeof(e->errname), "%s", f[4]);
		if (strcmp(f[3], "executed") == 0) {
			char *end;
			long v;

			errno = 0;
			v = strtol(f[4], &end, 10);
			e->exit_status = errno || *end || end == f[4] || v < 0 || v > 255 ? -1 : (int)v;
		}
		return true;
	}
	return false;
}

/* One line per target: TARGET<TAB>landed|refused<TAB>ERRNO (probe.c). */
void sg_st_parse_report(struct selftest *s, struct run *r)
{
	char *text = r->out.p, *save = NULL;

	for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f1 = strchr(line, '\t'), *f2 = f1 ? strchr(f1 + 1, '\t') : NULL;
		bool matched = false;

		if (strncmp(line, "peek\t", 5) == 0) {
			char *copy = strdup(line);

			if (!copy || !sg_st_parse_peek_line(s, r, copy))
				sg_st_problem(s, "run %d: the probe printed an unexpected line: %.200s",
					(int)(r - s->runs) + 1, line);
			free(copy);
			continue;
		}
		if (strncmp(line, "exec\t", 5) == 0) {
			/* Split on a copy: the line is shown whole if it is not one of ours. */
			char *copy = strdup(line);

			if (!copy || !parse_exec_line(r, copy))
				sg_st_problem(s, "run %d: the probe printed an unexpected line: %.200s",
					(int)(r - s->runs) + 1, line);
			free(copy);
			continue;
		}
		if (f2) {
			*f1++ = '\0';
			*f2++ = '\0';
		}
		for (int k = 0; f2 && k < N_CELLS && !matched; k++) {
			char esc[PATH_MAX * 4];

			sg_st_escape_line(r->c[k].path, esc, sizeof(esc));
			if (r->c[k].reported || strcmp(esc, line) != 0 ||
			    (strcmp(f1, "landed") != 0 && strcmp(f1, "refused") != 0))
				continue;
			r->c[k].reported = matched = true;
			snprintf(r->c[k].probe_said, sizeof(r->c[k].probe_said), "%s", f1);
			snprintf(r->c[k].errname, sizeof(r->c[k].errname), "%s", f2);
		}
		if (!matched)
			sg_st_problem(s, "run %d: the probe printed an unexpected line: %.200s",
				(int)(r - s->runs) + 1, line);
	}
}

/* The start record of the step's log: what enforced. */
void sg_st_read_start(struct selftest *s, struct run *r, const char *log)
{
	FILE *f = fopen(log, "re");
	char *line = NULL;
	size_t cap = 0;

	r->abi = -1;
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		json_object *rec = json_tokener_parse(line), *v;

		if (!rec)
			continue;
		if (json_object_object_get_ex(rec, "event", &v) &&
		    strcmp(json_object_get_string(v), "denial") == 0 &&
		    json_object_object_get_ex(rec, "op", &v) &&
		    strcmp(json_object_get_string(v), "exec") == 0)
			r->exec_denials++;
		else if (json_object_object_get_ex(rec, "event", &v) &&
		    strcmp(json_object_get_string(v), "start") == 0) {
			if (json_object_object_get_ex(rec, "backend", &v))
				snprintf(r->backend, sizeof(r->backend), "%s", json_object_get_string(v));
			if (json_object_object_get_ex(rec, "landlock_abi", &v))
				r->abi = json_object_get_int(v);
			if (!s->gaps && json_object_object_get_ex(rec, "not_covered", &v) &&
			    json_object_is_type(v, json_type_array)) {
				size_t n = json_object_array_length(v);

				s->gaps = calloc(n + 1, sizeof(char *));
				for (size_t i = 0; s->gaps && i < n; i++)
					s->gaps[i] = strdup(json_object_get_string(
						json_object_array_get_idx(v, i)));
			}
		}
		json_object_put(rec);
	}
	free(line);
	(void)fclose(f); /* read only: nothing to lose */
}

