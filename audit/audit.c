// SPDX-License-Identifier: MIT
/*
 * audit.c — read stepguard's JSON lines (docs/log-format.md) and count
 * them.  Pure: it reads the FILE * it is given and makes no other
 * syscalls, so its tests need nothing but memory.
 *
 * Every line is either a record that is counted, a record of an event we
 * do not know (counted as such), a record of another step under --step
 * (counted as such), or a problem: counted, and the first few kept with
 * their file, line and reason.  Nothing is skipped without a trace.
 */
#include "audit/audit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ARR (N elements of SIZE) with room for one more, zeroed; NULL on ENOMEM. */
static void *grow(void *arr, size_t n, size_t size)
{
	char *v = realloc(arr, (n + 1) * size);

	if (v)
		memset(v + n * size, 0, size);
	return v;
}

/* ---- problems ------------------------------------------------------------ */

__attribute__((format(printf, 4, 5))) static int problem(struct sg_audit *a, const char *file,
							 uint64_t line, const char *fmt, ...)
{
	struct sg_problem *p;
	va_list ap;
	int r;

	a->problem_lines++;
	if (a->n_problems == SG_AUDIT_PROBLEMS_KEPT)
		return 0;
	p = &a->problems[a->n_problems];
	p->line = line;
	p->file = sg_audit_display(file, strlen(file));
	va_start(ap, fmt);
	r = vasprintf(&p->reason, fmt, ap);
	va_end(ap);
	if (!p->file || r < 0) {
		free(p->file);
		p->file = NULL;
		return -ENOMEM;
	}
	a->n_problems++;
	return 0;
}

/* ---- one record ------------------------------------------------------------ */

/* The fields stepguard audit reads; strings are display-safe copies. */
struct rec {
	char *event, *step, *run, *op, *path, *path2, *decision, *comm, *backend;
	long long pid, status, signal, lost, denials, misses;
	bool has_pid, has_status, has_signal, has_lost, has_denials, has_misses;
	bool no_path, truncated;
	char why[128]; /* why the record is refused */
};

static void rec_free(struct rec *r)
{
	free(r->event);
	free(r->step);
	free(r->run);
	free(r->op);
	free(r->path);
	free(r->path2);
	free(r->decision);
	free(r->comm);
	free(r->backend);
}

/* 1: KEY is a string, copied display-safe to *OUT; 0: absent; -EINVAL: not
 * a string (R->why says so); -ENOMEM. */
static int get_str(json_object *o, const char *key, char **out, struct rec *r)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_string)) {
		snprintf(r->why, sizeof(r->why), "\"%s\" is not a string", key);
		return -EINVAL;
	}
	*out = sg_audit_display(json_object_get_string(v), (size_t)json_object_get_string_len(v));
	return *out ? 1 : -ENOMEM;
}

/* As get_str, for an integer; NONNEG: a count, which cannot be negative. */
static int get_int(json_object *o, const char *key, long long *out, bool *has, bool nonneg,
		   struct rec *r)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_int) ||
	    (nonneg && json_object_get_int64(v) < 0)) {
		snprintf(r->why, sizeof(r->why), "\"%s\" is not %s", key,
			 nonneg ? "a count" : "an integer");
		return -EINVAL;
	}
	*out = (long long)json_object_get_int64(v);
	*has = true;
	return 1;
}

/* As get_str, for a boolean. */
static int get_bool(json_object *o, const char *key, bool *out, struct rec *r)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_boolean)) {
		snprintf(r->why, sizeof(r->why), "\"%s\" is not true or false", key);
		return -EINVAL;
	}
	*out = json_object_get_boolean(v);
	return 1;
}

static int require(int got, const char *key, struct rec *r)
{
	/* Only an event we know is named: the reason ends up in Markdown
	 * outside a code span, and text from the log must not. */
	bool known = strcmp(r->event, "start") == 0 || strcmp(r->event, "end") == 0 ||
		     strcmp(r->event, "denial") == 0;

	if (got == 0) {
		snprintf(r->why, sizeof(r->why), "%s record without \"%s\"",
			 known ? r->event : "a", key);
		return -EINVAL;
	}
	return got;
}

/* Fill R from O: every field we read has its type checked, present or not. */
static int rec_read(json_object *o, struct rec *r)
{
	int e;

	r->pid = -1;
	e = get_str(o, "event", &r->event, r);
	if (e == 0)
		snprintf(r->why, sizeof(r->why), "no \"event\"");
	if (e <= 0)
		return e ? e : -EINVAL;
	if ((e = require(get_str(o, "step", &r->step, r), "step", r)) < 0 ||
	    (e = get_str(o, "run", &r->run, r)) < 0 ||
	    (e = get_int(o, "pid", &r->pid, &r->has_pid, false, r)) < 0 ||
	    (e = get_str(o, "backend", &r->backend, r)) < 0)
		return e;
	if (strcmp(r->event, "denial") == 0) {
		if ((e = require(get_str(o, "op", &r->op, r), "op", r)) < 0 ||
		    (e = get_str(o, "path", &r->path, r)) < 0 ||
		    (e = get_str(o, "path2", &r->path2, r)) < 0 ||
		    (e = get_bool(o, "path_truncated", &r->truncated, r)) < 0 ||
		    (e = get_str(o, "comm", &r->comm, r)) < 0 ||
		    (e = require(get_str(o, "decision", &r->decision, r), "decision", r)) < 0)
			return e;
		/* What the eBPF guard refuses need not have a path (bpf(2), a
		 * signal): "path" is then absent or empty.  An empty "path2"
		 * is the absent second path of an operation that has one. */
		if (!r->path || !*r->path) {
			free(r->path);
			r->no_path = true;
			if (!(r->path = strdup(SG_AUDIT_NO_PATH)))
				return -ENOMEM;
		}
		if (r->path2 && !*r->path2) {
			free(r->path2);
			r->path2 = NULL;
		}
		/* Landlock writes "" for a process that exited before its
		 * comm was read: no name, as in a log from before comm. */
		if (r->comm && !*r->comm) {
			free(r->comm);
			r->comm = NULL;
		}
		if (strcmp(r->decision, "denied") != 0 && strcmp(r->decision, "audited") != 0) {
			snprintf(r->why, sizeof(r->why),
				 "\"decision\" is neither \"denied\" nor \"audited\"");
			return -EINVAL;
		}
	} else if (strcmp(r->event, "end") == 0) {
		if ((e = get_int(o, "status", &r->status, &r->has_status, false, r)) < 0 ||
		    (e = get_int(o, "signal", &r->signal, &r->has_signal, false, r)) < 0 ||
		    (e = get_int(o, "lost", &r->lost, &r->has_lost, true, r)) < 0 ||
		    (e = get_int(o, "denials", &r->denials, &r->has_denials, true, r)) < 0 ||
		    (e = get_int(o, "recursion_misses", &r->misses, &r->has_misses, true, r)) < 0)
			return e;
	}
	return 0;
}

static struct sg_audit_step *step_get(struct sg_audit *a, const char *name)
{
	bool added;
	struct sg_entry *e = sg_table_get(&a->step_ix, name, &added);
	struct sg_audit_step *s;

	if (!e)
		return NULL;
	if (!added)
		return &a->steps[e->ix];
	e->ix = a->n_steps;
	s = grow(a->steps, a->n_steps, sizeof(*s));
	if (!s)
		return NULL;
	a->steps = s;
	s = &a->steps[a->n_steps];
	if (!(s->name = strdup(name)))
		return NULL;
	a->n_steps++;
	return s;
}

/* The records of step S (index SI) under R's run id, added if new. */
static struct sg_audit_runid *runid_get(struct sg_audit *a, size_t si, const struct rec *r)
{
	const char *run = r->run ? r->run : "";
	struct sg_audit_runid *g;
	struct sg_entry *e;
	bool added;
	char *key;

	if (asprintf(&key, "%s\x1f%s", r->step, run) < 0)
		return NULL;
	e = sg_table_get(&a->runid_ix, key, &added);
	free(key);
	if (!e)
		return NULL;
	if (!added)
		return &a->runids[e->ix];
	e->ix = a->n_runids;
	g = grow(a->runids, a->n_runids, sizeof(*g));
	if (!g)
		return NULL;
	a->runids = g;
	g = &a->runids[a->n_runids++];
	g->step_ix = si;
	g->step = strdup(r->step);
	g->run = strdup(run);
	return g->step && g->run ? g : NULL;
}

uint64_t sg_audit_missing(const struct sg_audit_runid *r)
{
	/* Without an end record that counts, end_denials is 0: nothing missing. */
	return r->end_denials > r->held ? r->end_denials - r->held : 0;
}

bool sg_audit_incomplete(const struct sg_audit_runid *r)
{
	return sg_audit_missing(r) || r->lost || r->recursion_misses || r->unfinished;
}

/* A run is one stepguard invocation: its start and end share run and pid. */
static int run_seen(struct sg_audit *a, struct sg_audit_step *s, struct sg_audit_runid *g,
		    const struct rec *r, unsigned flag)
{
	char *key;
	struct sg_entry *e;
	bool added;

	if (asprintf(&key, "%s\x1f%s\x1f%lld", r->step, r->run ? r->run : "", r->pid) < 0)
		return -ENOMEM;
	e = sg_table_get(&a->runs, key, &added);
	free(key);
	if (!e)
		return -ENOMEM;
	if (added) {
		s->runs++;
		g->runs++;
	}
	/* Unfinished: started and not ended, whichever record came first. */
	if (flag == SG_RUN_STARTED && !(e->flags & SG_RUN_STARTED) && !(e->flags & SG_RUN_ENDED)) {
		s->unfinished++;
		g->unfinished++;
	}
	if (flag == SG_RUN_ENDED && (e->flags & SG_RUN_STARTED) && !(e->flags & SG_RUN_ENDED)) {
		s->unfinished--;
		g->unfinished--;
	}
	e->flags |= flag;
	return 0;
}

/* What an end record says the backend saw, held against the log. */
static void run_ended(struct sg_audit_step *s, struct sg_audit_runid *g, const struct rec *r)
{
	uint64_t lost = r->has_lost ? (uint64_t)r->lost : 0;
	uint64_t misses = r->has_misses ? (uint64_t)r->misses : 0;
	uint64_t denials = r->has_denials ? (uint64_t)r->denials : 0;

	s->lost += lost;
	g->lost += lost;
	s->recursion_misses += misses;
	g->recursion_misses += misses;
	s->end_denials += denials;
	g->end_denials += denials;
	g->counted |= r->has_denials;
}

static int add_backend(struct sg_audit_step *s, const char *b)
{
	char **v;

	if (!b)
		return 0;
	for (size_t i = 0; i < s->n_backends; i++)
		if (strcmp(s->backends[i], b) == 0)
			return 0;
	v = grow(s->backends, s->n_backends, sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->backends = v;
	if (!(v[s->n_backends] = strdup(b)))
		return -ENOMEM;
	s->n_backends++;
	return 0;
}

static int add_outcome(struct sg_audit_step *s, const struct rec *r)
{
	enum sg_outcome_kind kind = r->has_status ? SG_OUTCOME_STATUS :
				    r->has_signal ? SG_OUTCOME_SIGNAL :
						    SG_OUTCOME_UNKNOWN;
	long long value = r->has_status ? r->status : r->has_signal ? r->signal : 0;
	struct sg_outcome *oc;

	for (size_t i = 0; i < s->n_outcomes; i++)
		if (s->outcomes[i].kind == kind && s->outcomes[i].value == value) {
			s->outcomes[i].n++;
			return 0;
		}
	oc = grow(s->outcomes, s->n_outcomes, sizeof(*oc));
	if (!oc)
		return -ENOMEM;
	s->outcomes = oc;
	oc = &s->outcomes[s->n_outcomes++];
	oc->kind = kind;
	oc->value = value;
	oc->n = 1;
	return 0;
}

static int count(struct sg_table *t, const char *name, bool audited)
{
	bool added;
	struct sg_entry *e = sg_table_get(t, name, &added);

	if (!e)
		return -ENOMEM;
	if (audited)
		e->c.audited++;
	else
		e->c.denied++;
	return 0;
}

/* 1: KEY was not in the set T yet (it is now); 0: it was; -ENOMEM. */
static int set_add(struct sg_table *t, const char *key)
{
	bool added;

	return sg_table_get(t, key, &added) ? added : -ENOMEM;
}

/*
 * Who tried: a process by its name, with the distinct pids that carried
 * it, or by its pid alone when the record has no name.  The keys start
 * with a letter of their own so that a comm cannot pass for a pid.
 */
static int add_proc(struct sg_audit *a, const struct rec *r, bool audited)
{
	struct sg_audit_proc *p;
	struct sg_entry *e;
	long long *pids;
	bool added;
	char *key;
	int n;

	if (r->comm)
		n = asprintf(&key, "c%s", r->comm);
	else if (r->has_pid)
		n = asprintf(&key, "p%lld", r->pid);
	else
		n = asprintf(&key, "u");
	if (n < 0)
		return -ENOMEM;
	e = sg_table_get(&a->proc_ix, key, &added);
	free(key);
	if (!e)
		return -ENOMEM;
	if (added) {
		e->ix = a->n_procs;
		p = grow(a->procs, a->n_procs, sizeof(*p));
		if (!p)
			return -ENOMEM;
		a->procs = p;
		a->n_procs++;
		if (r->comm && !(a->procs[e->ix].comm = strdup(r->comm)))
			return -ENOMEM;
	}
	p = &a->procs[e->ix];
	if (audited)
		p->c.audited++;
	else
		p->c.denied++;
	if (!r->has_pid)
		return 0;
	if (asprintf(&key, "%zu\x1f%lld", e->ix, r->pid) < 0)
		return -ENOMEM;
	n = set_add(&a->proc_pids, key);
	free(key);
	if (n <= 0)
		return n;
	pids = grow(p->pids, p->n_pids, sizeof(*pids));
	if (!pids)
		return -ENOMEM;
	p->pids = pids;
	pids[p->n_pids++] = r->pid;
	return 0;
}

/* The hit's processes: a pid counts once per run (pids are reused). */
static int hit_proc(struct sg_audit *a, size_t ix, const struct rec *r)
{
	char *key;
	int n;

	if (!r->has_pid)
		return 0;
	if (asprintf(&key, "%zu\x1f%s\x1f%lld", ix, r->run ? r->run : "", r->pid) < 0)
		return -ENOMEM;
	n = set_add(&a->hit_pids, key);
	free(key);
	if (n > 0)
		a->hits[ix].procs++;
	return n < 0 ? n : 0;
}

static int add_hit(struct sg_audit *a, const struct rec *r, bool audited)
{
	struct sg_entry *e;
	struct sg_hit *h;
	bool added;
	char *key;

	if (asprintf(&key, "%c\x1f%s\x1f%s\x1f%s", audited ? 'a' : 'd', r->step, r->op,
		     r->path) < 0)
		return -ENOMEM;
	e = sg_table_get(&a->hit_ix, key, &added);
	free(key);
	if (!e)
		return -ENOMEM;
	if (!added) {
		a->hits[e->ix].n++;
		a->hits[e->ix].truncated |= r->truncated;
		return hit_proc(a, e->ix, r);
	}
	e->ix = a->n_hits;
	h = grow(a->hits, a->n_hits, sizeof(*h));
	if (!h)
		return -ENOMEM;
	a->hits = h;
	h = &a->hits[a->n_hits++];
	h->audited = audited;
	h->truncated = r->truncated;
	h->pid = r->has_pid ? r->pid : -1;
	h->n = 1;
	h->step = strdup(r->step);
	h->op = strdup(r->op);
	h->path = strdup(r->path);
	h->path2 = r->path2 ? strdup(r->path2) : NULL;
	h->comm = r->comm ? strdup(r->comm) : NULL;
	if (!h->step || !h->op || !h->path || (r->path2 && !h->path2) || (r->comm && !h->comm))
		return -ENOMEM;
	return hit_proc(a, e->ix, r);
}

static int add_denial(struct sg_audit *a, struct sg_audit_step *s, const struct rec *r)
{
	bool audited = strcmp(r->decision, "audited") == 0; // NOLINT(clang-analyzer-core.NonNullParamChecker): rec_read requires "decision" of a denial; the analyzer thinks strcmp on r->event may differ between it and take()
	char *p1 = malloc(strlen(r->path) + 2);
	char *p2 = r->path2 ? malloc(strlen(r->path2) + 2) : NULL;
	int e = -ENOMEM;

	if (audited)
		s->c.audited++;
	else
		s->c.denied++;
	if (!p1 || (r->path2 && !p2))
		goto out;
	if ((e = add_proc(a, r, audited)) < 0 || (e = count(&a->ops, r->op, audited)) < 0)
		goto out;
	/* A rename or link counts under each of its prefixes, once if they
	 * are the same: both ends may be what the filter refused. */
	if (r->no_path)
		snprintf(p1, strlen(r->path) + 2, "%s", SG_AUDIT_NO_PATH); /* r->path is that string */
	else
		sg_audit_prefix(r->path, SG_AUDIT_PREFIX_DEPTH, p1, strlen(r->path) + 2);
	if ((e = count(&a->prefixes, p1, audited)) < 0)
		goto out;
	if (p2) {
		sg_audit_prefix(r->path2, SG_AUDIT_PREFIX_DEPTH, p2, strlen(r->path2) + 2);
		if (strcmp(p1, p2) != 0 && (e = count(&a->prefixes, p2, audited)) < 0)
			goto out;
	}
	e = add_hit(a, r, audited);
out:
	free(p1);
	free(p2);
	return e;
}

/* Count a well-formed record. */
static int take(struct sg_audit *a, const struct rec *r)
{
	struct sg_audit_step *s;
	struct sg_audit_runid *g;
	bool start = strcmp(r->event, "start") == 0, end = strcmp(r->event, "end") == 0;
	uint64_t missing;
	int e;

	if (!start && !end && strcmp(r->event, "denial") != 0) {
		/* A newer stepguard may write more kinds: count them, do not fail. */
		a->unknown++;
		return 0;
	}
	if (a->only_step && strcmp(r->step, a->only_step) != 0) {
		a->other_steps++;
		return 0;
	}
	a->records++;
	s = step_get(a, r->step);
	if (!s || !(g = runid_get(a, (size_t)(s - a->steps), r)))
		return -ENOMEM;
	/* The step's missing count follows its run ids': out before, in after
	 * (unsigned: the step's sum holds this run id's, so it cannot wrap). */
	missing = sg_audit_missing(g);
	if (!start && !end) {
		g->held++;
		s->missing = s->missing - missing + sg_audit_missing(g);
		return add_denial(a, s, r);
	}
	if ((e = run_seen(a, s, g, r, start ? SG_RUN_STARTED : SG_RUN_ENDED)) < 0 ||
	    (e = add_backend(s, r->backend)) < 0)
		return e;
	if (start)
		return 0;
	run_ended(s, g, r);
	s->missing = s->missing - missing + sg_audit_missing(g);
	return add_outcome(s, r);
}

/* ---- lines ------------------------------------------------------------------ */

int sg_audit_line(struct sg_audit *a, const char *file, uint64_t lineno, char *buf, size_t len,
		  bool no_newline)
{
	json_tokener *tok = a->tok;
	enum json_tokener_error err;
	json_object *o;
	struct rec r;
	int e;

	a->lines++;
	if (no_newline)
		a->torn++;
	if (memchr(buf, '\0', len)) {
		a->unparsable++;
		return problem(a, file, lineno, "a NUL byte in the line");
	}
	/* The terminator is passed to json-c too: it tells it the text ends. */
	buf[len] = '\0';
	if (strspn(buf, " \t\r") == len) {
		a->unparsable++;
		return problem(a, file, lineno, "an empty line");
	}
	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, buf, (int)len + 1);
	err = json_tokener_get_error(tok);
	if (!o || err != json_tokener_success) {
		json_object_put(o);
		a->unparsable++;
		if (no_newline)
			return problem(a, file, lineno,
				       "the last line has no newline and is not whole JSON "
				       "(a torn write)");
		return problem(a, file, lineno, "not JSON: %s at byte %zu",
			       json_tokener_error_desc(err), json_tokener_get_parse_end(tok) + 1);
	}
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		a->unparsable++;
		return problem(a, file, lineno, "not a JSON object");
	}
	memset(&r, 0, sizeof(r));
	e = rec_read(o, &r);
	json_object_put(o);
	if (e == -EINVAL) {
		a->unparsable++;
		e = problem(a, file, lineno, "not a stepguard record: %s", r.why);
	} else if (e == 0) {
		e = take(a, &r);
		if (e == 0 && no_newline)
			e = problem(a, file, lineno,
				    "the last line has no newline (a torn write?); its record is "
				    "counted");
	}
	rec_free(&r);
	return e;
}

int sg_audit_read(struct sg_audit *a, FILE *f, const char *name)
{
	char **files = grow(a->files, a->n_files, sizeof(*files));
	char *buf = NULL;
	size_t len = 0, cap = 0;
	uint64_t lineno = 0;
	bool too_long = false;
	int c, e = 0;

	if (!files)
		return -ENOMEM;
	a->files = files;
	if (!(files[a->n_files] = strdup(name)))
		return -ENOMEM;
	a->n_files++;
	for (;;) {
		bool eof;

		c = getc_unlocked(f);
		eof = c == EOF;
		if (eof && (ferror(f) || (len == 0 && !too_long)))
			break;
		if (!eof && c != '\n') {
			if (too_long)
				continue;
			if (len == SG_AUDIT_LINE_MAX) {
				too_long = true;
				continue;
			}
			/* One spare byte: sg_audit_line terminates the line. */
			if (len + 1 >= cap) {
				size_t ncap = cap ? cap * 2 : 4096;
				char *nb = realloc(buf, ncap);

				if (!nb) {
					e = -ENOMEM;
					break;
				}
				buf = nb;
				cap = ncap;
			}
			buf[len++] = (char)c;
			continue;
		}
		/* A line ends: at its newline, or at the end of the file. */
		lineno++;
		if (too_long) {
			a->lines++;
			a->unparsable++;
			a->torn += eof;
			e = problem(a, name, lineno, "a line longer than %d bytes", SG_AUDIT_LINE_MAX);
		} else {
			if (!buf && !(buf = malloc(cap = 4096))) {
				e = -ENOMEM;
				break;
			}
			e = sg_audit_line(a, name, lineno, buf, len, eof);
		}
		len = 0;
		too_long = false;
		if (e < 0 || eof)
			break;
	}
	if (e == 0 && ferror(f))
		e = errno ? -errno : -EIO;
	free(buf);
	return e;
}

/* ---- life -------------------------------------------------------------------- */

int sg_audit_init(struct sg_audit *a, const char *only_step)
{
	json_tokener *tok;

	memset(a, 0, sizeof(*a));
	a->only_step = only_step;
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	/* Strict: no trailing commas or text after the object; UTF-8 checked. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	a->tok = tok;
	return 0;
}

void sg_audit_free(struct sg_audit *a)
{
	for (size_t i = 0; i < a->n_problems; i++) {
		free(a->problems[i].file);
		free(a->problems[i].reason);
	}
	for (size_t i = 0; i < a->n_files; i++)
		free(a->files[i]);
	free(a->files);
	for (size_t i = 0; i < a->n_steps; i++) {
		struct sg_audit_step *s = &a->steps[i];

		free(s->name);
		free(s->outcomes);
		for (size_t j = 0; j < s->n_backends; j++)
			free(s->backends[j]);
		free(s->backends);
	}
	free(a->steps);
	for (size_t i = 0; i < a->n_hits; i++) {
		free(a->hits[i].step);
		free(a->hits[i].op);
		free(a->hits[i].path);
		free(a->hits[i].path2);
		free(a->hits[i].comm);
	}
	free(a->hits);
	for (size_t i = 0; i < a->n_procs; i++) {
		free(a->procs[i].comm);
		free(a->procs[i].pids);
	}
	free(a->procs);
	for (size_t i = 0; i < a->n_runids; i++) {
		free(a->runids[i].step);
		free(a->runids[i].run);
	}
	free(a->runids);
	sg_table_free(&a->runid_ix);
	sg_table_free(&a->step_ix);
	sg_table_free(&a->runs);
	sg_table_free(&a->ops);
	sg_table_free(&a->proc_ix);
	sg_table_free(&a->proc_pids);
	sg_table_free(&a->hit_pids);
	sg_table_free(&a->prefixes);
	sg_table_free(&a->hit_ix);
	if (a->tok)
		json_tokener_free(a->tok);
	memset(a, 0, sizeof(*a));
}

