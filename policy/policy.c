// SPDX-License-Identifier: MIT
/*
 * policy.c — policy text to struct sg_policy: inih's handler, validation
 * of each key, and the merging of sources (a later source replaces a key,
 * "+=" appends to a list).  Each source first passes the line scan in
 * scan.c, which also tells the handler the line of each key.
 */
#include "policy/policy.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy/expand.h"
#include "policy/internal.h"

#define P_OFF(field) offsetof(struct sg_policy, field)

const struct words_key sg__words_keys[] = {
	{ SEC_STEPGUARD, "accept-gaps", W_GAP, P_OFF(accept_gaps) },
	{ SEC_STEPGUARD, "keep-fds", W_FD, P_OFF(keep_fds) },
	{ SEC_MODEL_CLI, "names", W_BASENAME, P_OFF(cli.names) },
	{ SEC_MODEL_CLI, "tools-option", W_OPTION, P_OFF(cli.tools_option) },
	{ SEC_MODEL_CLI, "tool-flags", W_OPTION, P_OFF(cli.tool_flags) },
	{ SEC_MODEL_CLI, "flag-options", W_OPTION, P_OFF(cli.flag_options) },
	{ SEC_MODEL_CLI, "value-options", W_OPTION, P_OFF(cli.value_options) },
	{ SEC_MODEL_CLI, "optional-value-options", W_OPTION,
	  P_OFF(cli.optional_value_options) },
	{ SEC_MODEL_CLI, "variadic-options", W_OPTION, P_OFF(cli.variadic_options) },
	{ SEC_MODEL_CLI, "subcommands", W_WORD, P_OFF(cli.subcommands) },
	{ SEC_CREDENTIALS, "variables", W_VARIABLE, P_OFF(credentials) },
	{ SEC_SCRUB, "variables", W_VARIABLE, P_OFF(scrub) },
	{ SEC_SECCOMP, "deny", W_SYSCALL, P_OFF(seccomp_deny) },
	{ SEC_SECCOMP, "allow", W_SYSCALL, P_OFF(seccomp_allow) },
};
const size_t sg__n_words_keys = sizeof(sg__words_keys) / sizeof(sg__words_keys[0]);

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

/* ---- small containers ------------------------------------------------ */

static void words_clear(struct sg_words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	w->v = NULL;
	w->n = 0;
	w->set = false;
}

static void writes_clear(struct sg_writes *w)
{
	for (size_t i = 0; i < w->n; i++) {
		free(w->v[i].label);
		free(w->v[i].path);
	}
	free(w->v);
	w->v = NULL;
	w->n = 0;
}

static void settings_clear(struct sg_settings *s)
{
	free(s->log.s);
	memset(s, 0, sizeof(*s));
}

void sg_policy_init(struct sg_policy *p)
{
	memset(p, 0, sizeof(*p));
}

void sg_policy_free(struct sg_policy *p)
{
	for (size_t i = 0; i < sg__n_words_keys; i++)
		words_clear((struct sg_words *)(void *)((char *)p + sg__words_keys[i].off));
	settings_clear(&p->base);
	writes_clear(&p->writes);
	for (size_t i = 0; i < p->n_steps; i++) {
		free(p->steps[i].name);
		settings_clear(&p->steps[i].set);
		writes_clear(&p->steps[i].writes);
	}
	free(p->steps);
	for (size_t i = 0; i < p->n_files; i++)
		free(p->files[i]);
	free(p->files);
	memset(p, 0, sizeof(*p));
}

bool sg_words_contains(const struct sg_words *w, const char *s)
{
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->v[i], s) == 0)
			return true;
	return false;
}

/* ---- names and values ------------------------------------------------ */

static const char *const mode_names[] = {
	[SG_MODE_UNSET] = "unset",
	[SG_MODE_ENFORCE] = "enforce",
	[SG_MODE_AUDIT] = "audit",
};

static const char *const filter_names[] = {
	[SG_FILTER_UNSET] = "unset",
	[SG_FILTER_AUTO] = "auto",
	[SG_FILTER_BPF_LSM] = "bpf-lsm",
	[SG_FILTER_BPF_FMOD] = "bpf-fmod",
	[SG_FILTER_LANDLOCK] = "landlock",
};

const char *sg_mode_name(enum sg_mode m)
{
	return (unsigned)m < sizeof(mode_names) / sizeof(mode_names[0]) ? mode_names[m] : "?";
}

const char *sg_filter_name(enum sg_filter f)
{
	return (unsigned)f < sizeof(filter_names) / sizeof(filter_names[0]) ? filter_names[f] : "?";
}

int sg_mode_parse(const char *s, enum sg_mode *out)
{
	for (unsigned i = SG_MODE_ENFORCE; i <= SG_MODE_AUDIT; i++)
		if (strcmp(s, mode_names[i]) == 0) {
			*out = (enum sg_mode)i;
			return 0;
		}
	return -EINVAL;
}

int sg_filter_parse(const char *s, enum sg_filter *out)
{
	for (unsigned i = SG_FILTER_AUTO; i <= SG_FILTER_LANDLOCK; i++)
		if (strcmp(s, filter_names[i]) == 0) {
			*out = (enum sg_filter)i;
			return 0;
		}
	return -EINVAL;
}

bool sg__is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

/* Step names and labels: [A-Za-z0-9_.-]+, so they print and log safely. */
bool sg__valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!sg__is_word_char(*s))
			return false;
	return true;
}

enum section_kind sg__section_kind(const char *s, const char **step)
{
	*step = NULL;
	if (strcmp(s, "stepguard") == 0)
		return SEC_STEPGUARD;
	if (strcmp(s, "model-cli") == 0)
		return SEC_MODEL_CLI;
	if (strcmp(s, "credentials") == 0)
		return SEC_CREDENTIALS;
	if (strcmp(s, "scrub") == 0)
		return SEC_SCRUB;
	if (strcmp(s, "writes") == 0)
		return SEC_WRITES;
	if (strcmp(s, "seccomp") == 0)
		return SEC_SECCOMP;
	if (strncmp(s, "step:", 5) == 0 && sg__valid_name(s + 5)) {
		*step = s + 5;
		return SEC_STEP;
	}
	return SEC_NONE;
}
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

/* "a gap name: attributes, truncate, ...", from the one table (gaps.c). */
static const char *gap_words(void)
{
	static char buf[192];
	size_t o;
	const char *name;

	if (buf[0])
		return buf;
	o = (size_t)snprintf(buf, sizeof(buf), "a gap name:");
	for (unsigned i = 0; (name = sg_gap_name(i)) != NULL && o < sizeof(buf); i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s %s",
				      i == 0 ? "" : sg_gap_name(i + 1) ? "," : " or", name);
	return buf;
}

/* A [stepguard] keep-fds word: a descriptor from 3 to 1023, or -1. */
static int parse_fd(const char *w)
{
	char *end;
	long v;

	if (w[0] < '0' || w[0] > '9')
		return -1;
	v = strtol(w, &end, 10);
	return !*end && v >= 3 && v <= 1023 ? (int)v : -1;
}

/*
 * The typed forms of accept-gaps and keep-fds, from the merged words: the
 * backends read these and never parse a word again.  Every word was
 * checked by valid_word() when it was set.
 */
static void derive_typed(struct sg_policy *p)
{
	p->accepted_gaps = 0;
	for (size_t i = 0; i < p->accept_gaps.n; i++) {
		unsigned g;

		if (sg_gap_parse(p->accept_gaps.v[i], &g) == 0)
			p->accepted_gaps |= g;
	}
	p->n_keep_fd_list = 0;
	for (size_t i = 0; i < p->keep_fds.n; i++) {
		int fd = parse_fd(p->keep_fds.v[i]);
		size_t j = p->n_keep_fd_list;

		/* More than the list holds is refused by sg_policy_validate(). */
		if (fd < 0 || j == SG_POLICY_MAX_KEEP_FDS)
			continue;
		/* insertion sort, duplicates dropped: the child walks them in order */
		while (j > 0 && p->keep_fd_list[j - 1] > fd)
			j--;
		if (j > 0 && p->keep_fd_list[j - 1] == fd)
			continue;
		memmove(&p->keep_fd_list[j + 1], &p->keep_fd_list[j],
			(p->n_keep_fd_list - j) * sizeof(int));
		p->keep_fd_list[j] = fd;
		p->n_keep_fd_list++;
	}
}

static bool valid_word(enum word_kind kind, const char *w, sg_syscall_known_fn known,
		       const char **why)
{
	switch (kind) {
	case W_OPTION:
		*why = "an option starting with \"-\", without \"=\"";
		return w[0] == '-' && w[1] != '\0' && !strchr(w, '=') && strcmp(w, "--") != 0;
	case W_VARIABLE: {
		*why = "a variable name ([A-Za-z_][A-Za-z0-9_]*)";
		if (!((w[0] >= 'A' && w[0] <= 'Z') || (w[0] >= 'a' && w[0] <= 'z') || w[0] == '_'))
			return false;
		for (const char *q = w; *q; q++)
			if (!(sg__is_word_char(*q) && *q != '-' && *q != '.'))
				return false;
		return true;
	}
	/*
	 * Names and words: only the first word of a line can start with ';'
	 * ("names =;x"); anywhere else " ;" starts a comment, so such a word
	 * could not be written back (sg_policy_dump) or moved to a "+=" line.
	 */
	case W_BASENAME:
		*why = "a command name without \"/\", not starting with \";\"";
		return w[0] != ';' && !strchr(w, '/') && strcmp(w, ".") != 0 && strcmp(w, "..") != 0;
	case W_SYSCALL:
		*why = "a system call name known to libseccomp on this architecture";
		return known ? known(w) : sg__valid_name(w);
	case W_WORD:
		*why = "a word not starting with \"-\" or \";\"";
		return w[0] != '-' && w[0] != ';';
	case W_GAP: {
		unsigned g;

		*why = gap_words();
		return sg_gap_parse(w, &g) == 0;
	}
	case W_FD:
		*why = "a descriptor number from 3 to 1023";
		return parse_fd(w) >= 0;
	default:
		*why = "?";
		return false;
	}
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
			words_clear(&nw);
			return nomem(c);
		}
		if (!valid_word(k->kind, word, c->known, &why)) {
			fail(c, line, "[%s] %s: \"%s\" is not %s", section, k->key, word, why);
			free(word);
			words_clear(&nw);
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
			words_clear(&nw);
			return nomem(c);
		}
		nw.v = v;
		nw.v[nw.n++] = word;
	}
	if (append) {
		char **v = realloc(w->v, (w->n + nw.n + 1) * sizeof(*v));

		if (!v) {
			words_clear(&nw);
			return nomem(c);
		}
		w->v = v;
		for (size_t i = 0; i < nw.n; i++)
			if (!sg_words_contains(w, nw.v[i]))
				w->v[w->n++] = steal_word(&nw.v[i]);
		words_clear(&nw);
		w->set = true;
		w->origin.file = c->file;
		w->origin.line = line;
		return 1;
	}
	/* "=" in a later source replaces the whole list. */
	words_clear(w);
	*w = nw;
	w->set = true;
	w->origin.file = c->file;
	w->origin.line = line;
	return 1;
}

static int set_setting(struct parse_ctx *c, unsigned line, struct sg_settings *s,
		       const char *section, const char *key, const char *value, bool *done)
{
	char msg[256];

	*done = true;
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
	if (strcmp(key, "log") == 0) {
		char *v;

		if (sg_expand(value, NULL, NULL, msg, sizeof(msg)) < 0)
			return fail(c, line, "[%s] log: %s", section, msg);
		if (*value && value[0] != '/' && strncmp(value, "${", 2) != 0)
			return fail(c, line, "[%s] log: \"%s\" is not an absolute path", section, value);
		v = strdup(value);
		if (!v)
			return nomem(c);
		free(s->log.s);
		s->log.s = v;
		s->log.set = true;
		s->log.origin = (struct sg_origin){ c->file, line };
		return 1;
	}
	*done = false;
	return 1;
}

/* Add or replace (by label) a writable root; an empty path removes it. */
static int set_write(struct parse_ctx *c, unsigned line, struct sg_writes *ws,
		     const char *section, const char *label, const char *value)
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
		break; /* the list keys below */
	}
	case SEC_WRITES:
		return set_write(c, line, &c->p->writes, section, key, value);
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
			return set_write(c, line, &st->writes, section, key + 6, value);
		return fail(c, line,
			    "unknown key \"%s\" in [%s] (known: mode, filter, log, write.LABEL)",
			    key, section);
	}
	case SEC_SECCOMP:
		if (strcmp(key, "user-namespaces") == 0) {
			if (strcmp(value, "yes") == 0 || strcmp(value, "true") == 0)
				c->p->user_namespaces = SG_YES;
			else if (strcmp(value, "no") == 0 || strcmp(value, "false") == 0)
				c->p->user_namespaces = SG_NO;
			else
				return fail(c, line, "[seccomp] user-namespaces: \"%s\" is not yes or no",
					    value);
			c->p->user_namespaces_origin = (struct sg_origin){ c->file, line };
			return 1;
		}
		break;
	case SEC_MODEL_CLI:
	case SEC_CREDENTIALS:
	case SEC_SCRUB:
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
			n = (size_t)snprintf(known, sizeof(known), "mode, filter, log");

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
	derive_typed(p);
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

int sg_policy_validate(const struct sg_policy *p, struct sg_error *err)
{
	if (p->cli.names.n == 0) {
		sg_errorf(err, 0, p->cli.names.set ? p->cli.names.origin.file : "policy",
			  p->cli.names.set ? p->cli.names.origin.line : 0,
			  "[model-cli] names is empty: name the model CLI (for example \"names = claude\")");
		return -EINVAL;
	}
	if (p->cli.tools_option.n == 0) {
		sg_errorf(err, 0, p->cli.tools_option.set ? p->cli.tools_option.origin.file : "policy",
			  p->cli.tools_option.set ? p->cli.tools_option.origin.line : 0,
			  "[model-cli] tools-option is empty: name the option that sets the CLI's tools (\"--tools\")");
		return -EINVAL;
	}
	if (p->keep_fds.n > SG_POLICY_MAX_KEEP_FDS) {
		sg_errorf(err, 0, p->keep_fds.origin.file, p->keep_fds.origin.line,
			      "[stepguard] keep-fds: %zu descriptors, at most %d", p->keep_fds.n,
			      SG_POLICY_MAX_KEEP_FDS);
		return -EINVAL;
	}
	for (size_t i = 0; i < p->seccomp_allow.n; i++)
		if (sg_words_contains(&p->seccomp_deny, p->seccomp_allow.v[i])) {
			sg_errorf(err, 0, p->seccomp_allow.origin.file, p->seccomp_allow.origin.line,
				  "[seccomp] \"%s\" is in both allow and deny", p->seccomp_allow.v[i]);
			return -EINVAL;
		}
	return 0;
}

const struct sg_step *sg_policy_step(const struct sg_policy *p, const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < p->n_steps; i++)
		if (strcmp(p->steps[i].name, name) == 0)
			return &p->steps[i];
	return NULL;
}

void sg_policy_effective(const struct sg_policy *p, const struct sg_step *step,
			 struct sg_settings *out)
{
	*out = p->base;
	if (!step)
		return;
	if (step->set.mode != SG_MODE_UNSET) {
		out->mode = step->set.mode;
		out->mode_origin = step->set.mode_origin;
	}
	if (step->set.filter != SG_FILTER_UNSET) {
		out->filter = step->set.filter;
		out->filter_origin = step->set.filter_origin;
	}
	if (step->set.log.set)
		out->log = step->set.log;
}

int sg_policy_step_writes(const struct sg_policy *p, const struct sg_step *step,
			  const struct sg_write ***out)
{
	size_t max = p->writes.n + (step ? step->writes.n : 0), n = 0;
	const struct sg_write **v = calloc(max ? max : 1, sizeof(*v)); // NOLINT(bugprone-sizeof-expression): an array of pointers, so the pointer's size is meant

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->writes.n; i++) {
		const struct sg_write *w = &p->writes.v[i];

		for (size_t j = 0; step && j < step->writes.n; j++)
			if (strcmp(step->writes.v[j].label, w->label) == 0) {
				w = &step->writes.v[j];
				break;
			}
		if (*w->path)
			v[n++] = w;
	}
	for (size_t j = 0; step && j < step->writes.n; j++) {
		const struct sg_write *w = &step->writes.v[j];
		bool overrides = false;

		for (size_t i = 0; i < p->writes.n; i++)
			if (strcmp(p->writes.v[i].label, w->label) == 0)
				overrides = true;
		if (!overrides && *w->path)
			v[n++] = w;
	}
	*out = v;
	return (int)n;
}
