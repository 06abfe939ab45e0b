// SPDX-License-Identifier: MIT
/*
 * parse.c — one source's text merged into struct sg_policy: inih's
 * handler, the setting of each key, and the merging of sources (a later
 * source replaces a key, "+=" appends to a list).  Each source first
 * passes the line scan in scan.c, which also tells the handler the line
 * of each key; the words of list keys are checked in words.c.
 */
#include "policy/policy.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/expand.h"
#include "policy/internal.h"

struct parse_ctx {
	struct sg_policy *p;
	const char *file; /* interned in p->files */
	sg_syscall_known_fn known;
	struct sg_error *err;
	struct scan scan;
	size_t call; /* handler calls so far */
	bool failed;
	int errnum;
	char **seen; /* "section\nkey" of this source, for duplicates */
	size_t n_seen;
};

/* ---- the handler ----------------------------------------------------- */

static int fail(struct parse_ctx *c, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parse_ctx *c, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (!c->failed) {
		va_start(ap, fmt);
		sg_verrorf(c->err, 0, c->file, line, fmt, ap);
		va_end(ap);
	}
	if (!c->failed)
		c->errnum = -EINVAL;
	c->failed = true;
	return 0;
}

static int nomem(struct parse_ctx *c)
{
	if (!c->failed)
		c->errnum = -ENOMEM;
	c->failed = true;
	return 0;
}

/* Is this (section, key) new in this source?  -1 on ENOMEM. */
static int first_time(struct parse_ctx *c, const char *section, const char *key)
{
	size_t ls = strlen(section), lk = strlen(key);
	char *id, **v;

	for (size_t i = 0; i < c->n_seen; i++)
		if (strncmp(c->seen[i], section, ls) == 0 && c->seen[i][ls] == '\n' &&
		    strcmp(c->seen[i] + ls + 1, key) == 0)
			return 0;
	id = malloc(ls + lk + 2);
	v = realloc(c->seen, (c->n_seen + 1) * sizeof(*v));
	if (!id || !v) {
		free(id);
		if (v)
			c->seen = v;
		return -1;
	}
	memcpy(id, section, ls);
	id[ls] = '\n';
	memcpy(id + ls + 1, key, lk + 1);
	c->seen = v;
	c->seen[c->n_seen++] = id;
	return 1;
}

static char *steal_word(char **p)
{
	char *s = *p;

	*p = NULL;
	return s;
}

/*
 * "key = a b" sets a list; "key += c" appends to it.  Appending lets a
 * list outgrow one line (inih's limit) and lets a drop-in add an entry
 * without restating the shipped list.
 */
static int set_words(struct parse_ctx *c, unsigned line, const struct words_key *k,
		     const char *section, const char *value, bool append)
{
	struct sg_words *w = (void *)((char *)c->p + k->off); /* offsetof a struct sg_words */
	struct sg_words nw = { 0 };
	const char *q = value;

	while (*q) {
		const char *start;
		char *word, **v;
		const char *why;

		while (*q && sg__is_blank(*q))
			q++;
		if (!*q)
			break;
		start = q;
		while (*q && !sg__is_blank(*q))
			q++;
		word = strndup(start, (size_t)(q - start));
		if (!word) {
			sg__words_clear(&nw);
			return nomem(c);
		}
		if (!sg__valid_word(k->kind, word, c->known, &why)) {
			fail(c, line, "[%s] %s: \"%s\" is not %s", section, k->key, word, why);
			free(word);
			sg__words_clear(&nw);
			return 0;
		}
		/* A list is a set, as "+=" keeps it: "a a" is "a" (and dumps as such). */
		if (sg_words_contains(&nw, word)) {
			free(word);
			continue;
		}
		v = realloc(nw.v, (nw.n + 1) * sizeof(*v));
		if (!v) {
			free(word);
			sg__words_clear(&nw);
			return nomem(c);
		}
		nw.v = v;
		nw.v[nw.n++] = word;
	}
	if (append) {
		char **v = realloc(w->v, (w->n + nw.n + 1) * sizeof(*v));

		if (!v) {
			sg__words_clear(&nw);
			return nomem(c);
		}
		w->v = v;
		for (size_t i = 0; i < nw.n; i++)
			if (!sg_words_contains(w, nw.v[i]))
				w->v[w->n++] = steal_word(&nw.v[i]);
		sg__words_clear(&nw);
		w->set = true;
		w->origin.file = c->file;
		w->origin.line = line;
		return 1;
	}
	/* "=" in a later source replaces the whole list. */
	sg__words_clear(w);
	*w = nw;
	w->set = true;
	w->origin.file = c->file;
	w->origin.line = line;
	return 1;
}

/* The keys of set_setting(), for the "unknown key" messages. */
#define SETTING_KEYS "mode, filter, log, tmpdir, keep-tmpdir, tmpdir-base"

static int parse_yes_no(const char *value, enum sg_tristate *out)
{
	if (strcmp(value, "yes") == 0 || strcmp(value, "true") == 0)
		*out = SG_YES;
	else if (strcmp(value, "no") == 0 || strcmp(value, "false") == 0)
		*out = SG_NO;
	else
		return -EINVAL;
	return 0;
}

/* KEY = yes|no, with its origin. */
static int set_yes_no(struct parse_ctx *c, unsigned line, const char *section, const char *key,
		      const char *value, enum sg_tristate *out, struct sg_origin *origin)
{
	if (parse_yes_no(value, out) < 0)
		return fail(c, line, "[%s] %s: \"%s\" is not yes or no", section, key, value);
	*origin = (struct sg_origin){ c->file, line };
	return 1;
}

/* KEY = an absolute path or one starting with an expansion, kept unexpanded; empty allowed. */
static int set_path(struct parse_ctx *c, unsigned line, const char *section, const char *key,
		    const char *value, struct sg_string *out)
{
	char msg[256], *v;

	if (sg_expand(value, NULL, NULL, msg, sizeof(msg)) < 0)
		return fail(c, line, "[%s] %s: %s", section, key, msg);
	if (*value && value[0] != '/' && strncmp(value, "${", 2) != 0)
		return fail(c, line, "[%s] %s: \"%s\" is not an absolute path", section, key, value);
	v = strdup(value);
	if (!v)
		return nomem(c);
	free(out->s);
	out->s = v;
	out->set = true;
	out->origin = (struct sg_origin){ c->file, line };
	return 1;
}

static int set_setting(struct parse_ctx *c, unsigned line, struct sg_settings *s,
		       const char *section, const char *key, const char *value, bool *done)
{
	*done = true;
	if (strcmp(key, "tmpdir") == 0)
		return set_yes_no(c, line, section, key, value, &s->tmpdir, &s->tmpdir_origin);
	if (strcmp(key, "keep-tmpdir") == 0)
		return set_yes_no(c, line, section, key, value, &s->keep_tmpdir,
				  &s->keep_tmpdir_origin);
	/* Empty: the default base ($RUNNER_TEMP, else /tmp); checked again when expanded. */
	if (strcmp(key, "tmpdir-base") == 0)
		return set_path(c, line, section, key, value, &s->tmpdir_base);
	if (strcmp(key, "mode") == 0) {
		if (sg_mode_parse(value, &s->mode) < 0)
			return fail(c, line, "[%s] mode: \"%s\" is not enforce or audit", section, value);
		s->mode_origin = (struct sg_origin){ c->file, line };
		return 1;
	}
	if (strcmp(key, "filter") == 0) {
		if (sg_filter_parse(value, &s->filter) < 0)
			return fail(c, line,
				    "[%s] filter: \"%s\" is not auto, bpf-lsm, bpf-fmod or landlock",
				    section, value);
		s->filter_origin = (struct sg_origin){ c->file, line };
		return 1;
	}
	if (strcmp(key, "log") == 0)
		return set_path(c, line, section, key, value, &s->log);
	*done = false;
	return 1;
}

/* Add or replace (by label) a writable root; an empty path removes it. */
static int set_write(struct parse_ctx *c, unsigned line, struct sg_writes *ws,
		     const char *section, const char *step, const char *label, const char *value)
{
	const char *path = value[0] == '?' ? value + 1 : value;
	char msg[256];
	size_t i;

	if (!sg__valid_name(label))
		return fail(c, line, "[%s] \"%s\": a label is [A-Za-z0-9_.-]+", section, label);
	if (*value) {
		if (sg_expand(path, NULL, NULL, msg, sizeof(msg)) < 0)
			return fail(c, line, "[%s] %s: %s", section, label, msg);
		if (path[0] != '/' && strncmp(path, "${", 2) != 0)
			return fail(c, line,
				    "[%s] %s: \"%s\" is not an absolute path (start it with \"/\" or ${WORKDIR}, ${HOME}, ${env:NAME})",
				    section, label, path);
	}
	for (i = 0; i < ws->n; i++)
		if (strcmp(ws->v[i].label, label) == 0)
			break;
	if (i == ws->n) {
		struct sg_write *v = realloc(ws->v, (ws->n + 1) * sizeof(*v));
		if (!v)
			return nomem(c);
		ws->v = v;
		memset(&ws->v[i], 0, sizeof(ws->v[i]));
		ws->v[i].label = strdup(label);
		if (!ws->v[i].label)
			return nomem(c);
		ws->n++;
	}
	free(ws->v[i].path);
	ws->v[i].path = strdup(value);
	if (!ws->v[i].path) {
		ws->v[i].path = NULL;
		return nomem(c);
	}
	ws->v[i].origin = (struct sg_origin){ c->file, line };
	ws->v[i].step = step;
	return 1;
}

static struct sg_step *get_step(struct sg_policy *p, const char *name,
				const char *file, unsigned line, int *errnum)
{
	struct sg_step *v;

	for (size_t i = 0; i < p->n_steps; i++)
		if (strcmp(p->steps[i].name, name) == 0)
			return &p->steps[i];
	v = realloc(p->steps, (p->n_steps + 1) * sizeof(*v));
	if (!v) {
		*errnum = -ENOMEM;
		return NULL;
	}
	p->steps = v;
	v = &p->steps[p->n_steps];
	memset(v, 0, sizeof(*v));
	v->name = strdup(name);
	if (!v->name) {
		*errnum = -ENOMEM;
		return NULL;
	}
	v->origin = (struct sg_origin){ file, line };
	p->n_steps++;
	return v;
}

/* The line of the first [step:NAME] header of this source (the scan saw it). */
static unsigned header_line(const struct parse_ctx *c, const char *name, unsigned fallback)
{
	for (size_t i = 0; i < c->scan.n_steps; i++)
		if (strcmp(c->scan.steps[i].name, name) == 0)
			return c->scan.steps[i].line;
	return fallback;
}

static int handler(void *user, const char *section, const char *key, const char *value)
{
	struct parse_ctx *c = user;
	unsigned line;
	const char *step;
	enum section_kind sec;
	char kbuf[SECTION_MAX];
	bool append = false;
	size_t klen;
	int r;

	if (c->failed)
		return 1; /* the first error is the one reported */
	if (c->call >= c->scan.n_keys)
		/* Cannot happen if the scan and inih agree; refuse if they do not. */
		return fail(c, c->scan.n_keys ? c->scan.key_lines[c->scan.n_keys - 1] : 0,
			    "internal error: policy scan and parser disagree");
	line = c->scan.key_lines[c->call++];

	sec = sg__section_kind(section, &step);
	if (sec == SEC_NONE)
		return fail(c, line, "unknown section [%s]", section);

	/* "key +=" reaches us as the name "key +". */
	klen = strlen(key);
	if (klen > 0 && key[klen - 1] == '+') {
		append = true;
		klen--;
		while (klen > 0 && sg__is_blank(key[klen - 1]))
			klen--;
	}
	if (klen == 0 || klen >= sizeof(kbuf))
		return fail(c, line, "invalid key \"%s\"", key);
	memcpy(kbuf, key, klen);
	kbuf[klen] = '\0';
	key = kbuf;
	for (const char *q = key; *q; q++)
		if (!sg__is_word_char(*q))
			return fail(c, line, "invalid key \"%s\" in [%s]", key, section);

	r = first_time(c, section, key);
	if (r < 0)
		return nomem(c);
	if (r == 0 && !append)
		return fail(c, line, "duplicate key \"%s\" in [%s]", key, section);
	if (append) {
		/* A list key returns from the loop; anything else is refused. */
		for (size_t i = 0; i < sg__n_words_keys; i++)
			if (sg__words_keys[i].sec == sec && strcmp(sg__words_keys[i].key, key) == 0)
				return set_words(c, line, &sg__words_keys[i], section, value, true);
		return fail(c, line, "\"+=\" is for list keys; \"%s\" in [%s] is not one",
			    key, section);
	}

	switch (sec) {
	case SEC_STEPGUARD: {
		bool done;

		r = set_setting(c, line, &c->p->base, section, key, value, &done);
		if (done)
			return r;
		/* Policy-wide, like keep-fds: a step that needs core dumps has a policy of its own. */
		if (strcmp(key, "core-dumps") == 0)
			return set_yes_no(c, line, section, key, value, &c->p->core_dumps,
					  &c->p->core_dumps_origin);
		break; /* the list keys below */
	}
	case SEC_WRITES:
		return set_write(c, line, &c->p->writes, section, NULL, key, value);
	case SEC_STEP: {
		struct sg_step *st = get_step(c->p, step, c->file, header_line(c, step, line),
					      &c->errnum);
		bool done;

		if (!st)
			return nomem(c);
		r = set_setting(c, line, &st->set, section, key, value, &done);
		if (done)
			return r;
		if (strncmp(key, "write.", 6) == 0)
			return set_write(c, line, &st->writes, section, st->name, key + 6, value);
		return fail(c, line,
			    "unknown key \"%s\" in [%s] (known: " SETTING_KEYS ", write.LABEL)",
			    key, section);
	}
	case SEC_SECCOMP:
		if (strcmp(key, "user-namespaces") == 0)
			return set_yes_no(c, line, section, key, value, &c->p->user_namespaces,
					  &c->p->user_namespaces_origin);
		break;
	case SEC_MODEL_CLI:
	case SEC_CREDENTIALS:
	case SEC_SCRUB:
	case SEC_SOCKETS:
		break;
	case SEC_NONE:
	default:
		return fail(c, line, "unknown section [%s]", section);
	}

	for (size_t i = 0; i < sg__n_words_keys; i++)
		if (sg__words_keys[i].sec == sec && strcmp(sg__words_keys[i].key, key) == 0)
			return set_words(c, line, &sg__words_keys[i], section, value, false);

	{
		char known[256] = "";
		size_t n = 0;

		if (sec == SEC_STEPGUARD)
			n = (size_t)snprintf(known, sizeof(known), SETTING_KEYS ", core-dumps");

		for (size_t i = 0; i < sg__n_words_keys; i++)
			if (sg__words_keys[i].sec == sec && n < sizeof(known))
				n += (size_t)snprintf(known + n, sizeof(known) - n, "%s%s",
						      n ? ", " : "", sg__words_keys[i].key);
		if (sec == SEC_SECCOMP && n < sizeof(known))
			snprintf(known + n, sizeof(known) - n, ", user-namespaces");
		return fail(c, line, "unknown key \"%s\" in [%s] (known: %s)", key, section, known);
	}
}

static const char *intern_file(struct sg_policy *p, const char *name)
{
	char **v;
	char *s;

	for (size_t i = 0; i < p->n_files; i++)
		if (strcmp(p->files[i], name) == 0)
			return p->files[i];
	s = strdup(name);
	v = realloc(p->files, (p->n_files + 1) * sizeof(*v));
	if (!s || !v) {
		free(s);
		if (v)
			p->files = v;
		return NULL;
	}
	p->files = v;
	p->files[p->n_files++] = s;
	return s;
}

int sg_policy_parse(struct sg_policy *p, const char *name, const char *text,
		    size_t len, sg_syscall_known_fn known, struct sg_error *err)
{
	struct parse_ctx c = { .p = p, .known = known, .err = err };
	char *copy = NULL;
	int r;

	c.file = intern_file(p, name);
	if (!c.file)
		return -ENOMEM;
	r = sg__scan_text(name, text, len, &c.scan, err);
	if (r < 0)
		goto out;

	/*
	 * Every [step:NAME] header names a step, with keys or without, in
	 * the order of the headers (which the dump keeps, so that it parses
	 * back to the same order).
	 */
	for (size_t i = 0; i < c.scan.n_steps; i++)
		if (!get_step(p, c.scan.steps[i].name, c.file, c.scan.steps[i].line, &r) && r < 0)
			goto out;

	copy = strndup(text, len); /* inih wants a C string; NULs were refused */
	if (!copy) {
		r = -ENOMEM;
		goto out;
	}
	r = ini_parse_string(copy, handler, &c);
	if (c.failed) {
		r = c.errnum;
		goto out;
	}
	if (r != 0) {
		/* A syntax error inih saw and the scan did not: still an error. */
		sg_errorf(err, 0, name, r > 0 ? (unsigned)r : 0, "syntax error");
		r = -EINVAL;
		goto out;
	}
	if (c.call != c.scan.n_keys) {
		sg_errorf(err, 0, name, 0, "internal error: policy scan and parser disagree");
		r = -EINVAL;
		goto out;
	}
	sg__derive_typed(p);
	r = 0;
out:
	free(copy);
	free(c.scan.key_lines);
	free(c.scan.steps);
	for (size_t i = 0; i < c.n_seen; i++)
		free(c.seen[i]);
	free(c.seen);
	return r;
}
