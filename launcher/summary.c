// SPDX-License-Identifier: MIT
/*
 * summary.c — a step's refusals, grouped by directory, with the fix
 * (summary.h says the rule; docs/design.md says why).
 *
 * Bounded whatever the step does: a fixed table of SG_SUMMARY_MAX_DIRS
 * groups found through a fixed hash table, so a hostile step making
 * millions of refusals in as many directories costs one copy of each of
 * the first 256 directories and counters, never more.
 */
#include "launcher/summary.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cleanup.h"
#include "lib/log.h"
#include "lib/root.h"
#include "policy/policy.h"

#define N_SLOTS ((size_t)2 * SG_SUMMARY_MAX_DIRS) /* open addressing, never more than half full */
#define N_OPS (SG_OP__MAX + 1)            /* the last: an op this build has no name for */

/* Why a refusal is in the "other" line: the log's reasons, and three of ours. */
enum {
	WHY_TRUNCATED = SG_WHY__MAX, /* the path could not be had whole */
	WHY_NO_PATH,                 /* a write without an absolute path */
	WHY_UNNAMED,                 /* a reason this build has no name for */
	WHY__N,
};

struct tally {
	unsigned long long n, audited;
	unsigned long long op_seq[N_OPS]; /* the record that first showed each op; 0: none */
};

struct group {
	char *dir;      /* a NUL-terminated copy */
	size_t len;
	uint32_t hash;
	bool allowable; /* could be a writable root: not "/", not the home directory or above */
	bool folded;    /* counted in an ancestor (sg_summary_print()) */
	struct tally t;
};

struct sg_summary {
	char *home;
	unsigned long long seq; /* records seen: the order of first sightings */
	unsigned long long n, audited;
	struct group g[SG_SUMMARY_MAX_DIRS];
	size_t n_groups;
	uint16_t slot[N_SLOTS]; /* a group's index + 1; 0: free */
	struct tally elsewhere; /* writes in directories beyond the kept ones */
	struct tally other;     /* refusals that no writable root would change */
	unsigned why_other;     /* 1 << reason, for OTHER */
};

struct sg_summary *sg_summary_new(const char *home)
{
	struct sg_summary *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (home && !(s->home = strdup(home))) {
		free(s);
		return NULL;
	}
	return s;
}

void sg_summary_free(struct sg_summary *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_groups; i++)
		free(s->g[i].dir);
	free(s->home);
	free(s);
}

unsigned long long sg_summary_count(const struct sg_summary *s)
{
	return s ? s->n : 0;
}

unsigned long long sg_summary_audited(const struct sg_summary *s)
{
	return s ? s->audited : 0;
}

bool sg_summary_wanted(const struct sg_summary *s, bool failed, bool verbose)
{
	if (!s || s->n == 0)
		return false;
	return failed || verbose || s->audited > 0;
}

/*
 * Writes a writable root would allow.  Not the guards, fork or exec
 * (another list decides those), and not chattr: its ioctls are refused
 * inside the roots too (docs/design.md, "chattr ioctls are refused
 * everywhere").
 */
static bool is_root_write(unsigned op)
{
	switch (op) {
	case SG_OP_OPEN:
	case SG_OP_CREATE:
	case SG_OP_MKNOD:
	case SG_OP_MKDIR:
	case SG_OP_RMDIR:
	case SG_OP_UNLINK:
	case SG_OP_RENAME:
	case SG_OP_LINK:
	case SG_OP_SYMLINK:
	case SG_OP_TRUNCATE:
	case SG_OP_CHMOD:
	case SG_OP_CHOWN:
	case SG_OP_UTIMES:
	case SG_OP_SETXATTR:
	case SG_OP_REMOVEXATTR:
		return true;
	default:
		return false;
	}
}

static void tally_add(struct tally *t, unsigned op, bool audited, unsigned long long seq)
{
	t->n++;
	if (audited)
		t->audited++;
	if (!t->op_seq[op])
		t->op_seq[op] = seq;
}

static void tally_merge(struct tally *into, const struct tally *t)
{
	into->n += t->n;
	into->audited += t->audited;
	for (unsigned op = 0; op < N_OPS; op++)
		if (t->op_seq[op] && (!into->op_seq[op] || t->op_seq[op] < into->op_seq[op]))
			into->op_seq[op] = t->op_seq[op];
}

/*
 * The directory the object at P (LEN bytes, absolute) is in, as the
 * length of P's prefix that names it: "/a/b" is in "/a", "/a" and "/" in "/".
 */
static size_t parent_len(const char *p, size_t len)
{
	while (len > 1 && p[len - 1] == '/') /* "/a/b/" is "/a/b" */
		len--;
	while (len > 1 && p[len - 1] != '/') /* its last component */
		len--;
	while (len > 1 && p[len - 1] == '/') /* and the slashes before it */
		len--;
	return len;
}

/* FNV-1a, continued from H over LEN bytes of P. */
static uint32_t hash_more(uint32_t h, const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= 16777619u;
	}
	return h;
}

#define HASH_START 2166136261u

/* The slot of DIR (LEN bytes, hash H): its group's, or the free one it would take. */
static size_t find_slot(const struct sg_summary *s, const char *dir, size_t len, uint32_t h)
{
	size_t i = h % N_SLOTS;

	for (;;) {
		const struct group *g;

		if (!s->slot[i])
			return i;
		g = &s->g[s->slot[i] - 1];
		if (g->hash == h && g->len == len && memcmp(g->dir, dir, len) == 0)
			return i;
		i = (i + 1) % N_SLOTS; /* never full: at most half the slots are taken */
	}
}

static struct group *lookup(struct sg_summary *s, const char *dir, size_t len, uint32_t h)
{
	size_t i = find_slot(s, dir, len, h);

	return s->slot[i] ? &s->g[s->slot[i] - 1] : NULL;
}

/* A new group for DIR, or NULL when the table is full or memory is short. */
static struct group *insert(struct sg_summary *s, const char *dir, size_t len, uint32_t h)
{
	struct group *g;
	char *copy;

	if (s->n_groups == SG_SUMMARY_MAX_DIRS)
		return NULL;
	copy = malloc(len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, dir, len);
	copy[len] = '\0';
	g = &s->g[s->n_groups];
	g->dir = copy;
	g->len = len;
	g->hash = h;
	/* stepguard refuses these as roots (launcher/roots.c): never fold into them. */
	g->allowable = len > 1 && !(s->home && sg_path_covers(copy, s->home));
	s->slot[find_slot(s, dir, len, h)] = (uint16_t)(s->n_groups + 1);
	s->n_groups++;
	return g;
}

/*
 * With the table full, the highest kept group that DIR lies beneath and
 * that could be a root: sg_summary_print() would fold DIR's group there
 * anyway.  The prefixes are hashed as the walk goes down, so a deep path
 * costs its length, not its length squared.
 */
static struct group *kept_ancestor(struct sg_summary *s, const char *dir, size_t len)
{
	uint32_t h = hash_more(HASH_START, dir, 1);

	for (size_t i = 1; i < len; i++) {
		if (dir[i] == '/') {
			struct group *g = lookup(s, dir, i, h);

			if (g && g->allowable)
				return g;
		}
		h = hash_more(h, dir + i, 1);
	}
	return NULL;
}

static void add_other(struct sg_summary *s, unsigned op, unsigned why, bool audited)
{
	tally_add(&s->other, op, audited, s->seq);
	s->why_other |= 1u << why;
}

void sg_summary_add(struct sg_summary *s, const struct sg_denial *d)
{
	bool audited = d->decision == SG_DECISION_AUDITED;
	unsigned op = d->op < SG_OP__MAX ? d->op : SG_OP__MAX;
	size_t len, dlen;
	struct group *g;
	uint32_t h;

	if (!s)
		return;
	s->seq++;
	s->n++;
	if (audited)
		s->audited++;
	/* Bytes, not a string: the record owns them, and they need no NUL. */
	len = d->path ? strnlen(d->path, d->path_len) : 0;
	if (!is_root_write(d->op) || d->reason != SG_WHY_OUTSIDE) {
		add_other(s, op, d->reason < SG_WHY__MAX ? d->reason : WHY_UNNAMED, audited);
		return;
	}
	/* A path without its leading components names no directory we can give. */
	if (d->truncated) {
		add_other(s, op, WHY_TRUNCATED, audited);
		return;
	}
	if (len == 0 || d->path[0] != '/') {
		add_other(s, op, WHY_NO_PATH, audited);
		return;
	}
	dlen = parent_len(d->path, len);
	h = hash_more(HASH_START, d->path, dlen);
	g = lookup(s, d->path, dlen, h);
	if (!g)
		g = insert(s, d->path, dlen, h);
	if (!g)
		g = kept_ancestor(s, d->path, dlen);
	tally_add(g ? &g->t : &s->elsewhere, op, audited, s->seq);
}

/* Does A lie above B (both groups, A allowable, so never "/")? */
static bool above(const struct group *a, const struct group *b)
{
	return a->len < b->len && memcmp(a->dir, b->dir, a->len) == 0 && b->dir[a->len] == '/';
}

/*
 * Each group into the highest group above it that could be a root.
 * That one has no such group above it itself (one would be above both),
 * so one pass is enough; a folded group keeps nothing, so a second
 * call changes nothing.
 */
static void fold(struct sg_summary *s)
{
	for (size_t i = 0; i < s->n_groups; i++) {
		struct group *best = NULL;

		if (s->g[i].folded)
			continue;
		for (size_t j = 0; j < s->n_groups; j++)
			if (j != i && s->g[j].allowable && !s->g[j].folded && above(&s->g[j], &s->g[i]) &&
			    (!best || s->g[j].len < best->len))
				best = &s->g[j];
		if (best) {
			tally_merge(&best->t, &s->g[i].t);
			memset(&s->g[i].t, 0, sizeof(s->g[i].t));
			s->g[i].folded = true;
		}
	}
}

/* Does X come before Y: by count, the largest first; ties by path, bytewise. */
static bool before(const struct group *x, const struct group *y)
{
	if (x->t.n != y->t.n)
		return x->t.n > y->t.n;
	return strcmp(x->dir, y->dir) < 0;
}

static const char *plural(unsigned long long n)
{
	return n == 1 ? "" : "s";
}

static const char *verb(const struct tally *t)
{
	if (t->audited == 0)
		return "refused";
	/* Audit mode let them through: the roll-out's question is what to allow. */
	if (t->audited == t->n)
		return "would have been refused";
	return "refused or audited";
}

/* The distinct ops of T in the order first seen, at most SG_SUMMARY_MAX_OPS, then "...". */
static void ops_text(const struct tally *t, char *buf, size_t len)
{
	unsigned order[N_OPS] = { 0 };
	size_t n = 0, o = 0;

	/* An insertion sort by first sighting: there are at most N_OPS. */
	for (unsigned op = 0; op < N_OPS; op++) {
		size_t k;

		if (!t->op_seq[op])
			continue;
		for (k = n++; k > 0 && t->op_seq[order[k - 1]] > t->op_seq[op]; k--)
			order[k] = order[k - 1];
		order[k] = op;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < n && i < SG_SUMMARY_MAX_OPS && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", sg_op_name(order[i]));
	if (n > SG_SUMMARY_MAX_OPS && o < len)
		snprintf(buf + o, len - o, ", ...");
}

static const char *why_name(unsigned why)
{
	switch (why) {
	case WHY_TRUNCATED:
		return "path truncated";
	case WHY_NO_PATH:
		return "no path";
	case WHY_UNNAMED:
		return "unknown";
	default:
		return sg_reason_name(why);
	}
}

/* S escaped as the log and the refusal lines escape it; NULL when out of memory. */
static char *escaped(const char *str)
{
	size_t need = sg_escape_bytes(str, NULL, 0);
	char *e = malloc(need);

	if (e)
		sg_escape_bytes(str, e, need);
	return e;
}

/* W as one shell word: as it is when nothing in it is special, else single-quoted. */
static void put_shell_word(FILE *f, const char *w)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._-+,:@%=";

	if (*w && w[strspn(w, plain)] == '\0') {
		fputs(w, f);
		return;
	}
	fputc('\'', f);
	for (; *w; w++)
		if (*w == '\'')
			fputs("'\\''", f);
		else
			fputc(*w, f);
	fputc('\'', f);
}

/*
 * DIR as a policy value that reads back as DIR, into BUF: '$' doubled
 * (policy/expand.c).  False when the policy cannot say it: bytes that
 * print escaped, an inline comment (" ;"), blanks inih would strip, or a
 * line too long for the policy's line limit.
 */
static bool ini_value(const char *dir, const char *esc, const char *label, char *buf, size_t len)
{
	size_t o = 0, n = strlen(dir);

	if (strcmp(dir, esc) != 0 || strstr(dir, " ;") || strstr(dir, "\t;") ||
	    dir[n - 1] == ' ' || dir[n - 1] == '\t')
		return false;
	for (const char *p = dir; *p; p++) {
		if (o + 3 > len)
			return false;
		if (*p == '$')
			buf[o++] = '$';
		buf[o++] = *p;
	}
	buf[o] = '\0';
	/* "write.LABEL = VALUE" */
	return strlen("write.") + strlen(label) + strlen(" = ") + o <= SG_POLICY_MAX_LINE;
}

static bool label_taken(const char *label, const struct sg_summary_fix *fix,
			char used[][SG_SUMMARY_MAX_LABEL + 1], size_t n_used)
{
	for (size_t i = 0; i < fix->n_labels; i++)
		if (strcmp(fix->labels[i], label) == 0)
			return true;
	for (size_t i = 0; i < n_used; i++)
		if (strcmp(used[i], label) == 0)
			return true;
	return false;
}

/*
 * A write.LABEL for DIR: its last component in letters, digits, '-' and
 * '_' (leading dots dropped, every other run of bytes one '-'), "dir" if
 * nothing is left, and "-2", "-3"... when the policy or an earlier line
 * has it already: a label that is taken would replace that root.
 */
static void make_label(const char *dir, const struct sg_summary_fix *fix,
		       char used[][SG_SUMMARY_MAX_LABEL + 1], size_t n_used,
		       char out[SG_SUMMARY_MAX_LABEL + 1])
{
	const char *p = strrchr(dir, '/') + 1;
	char base[SG_SUMMARY_MAX_LABEL + 1];
	size_t o = 0;
	bool sep = false;

	while (*p == '.')
		p++;
	for (; *p && o < sizeof(base) - 1; p++) {
		char c = *p;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '_') {
			if (sep && o > 0) {
				if (o + 2 >= sizeof(base))
					break; /* no room for "-c": end at a whole word */
				base[o++] = '-';
			}
			sep = false;
			base[o++] = c;
		} else {
			sep = true;
		}
	}
	base[o] = '\0';
	if (!o)
		snprintf(base, sizeof(base), "dir");
	snprintf(out, SG_SUMMARY_MAX_LABEL + 1, "%s", base);
	for (unsigned k = 2; label_taken(out, fix, used, n_used) && k < 1000; k++) {
		char suffix[8];
		int w = snprintf(suffix, sizeof(suffix), "-%u", k);

		snprintf(out, SG_SUMMARY_MAX_LABEL + 1, "%.*s%s", SG_SUMMARY_MAX_LABEL - w, base,
			 suffix);
	}
}

/* One group's line: how many, where, which ops, and the fix. */
static void print_group(FILE *f, const struct group *g, const struct sg_summary_fix *fix,
			const char *home, char used[][SG_SUMMARY_MAX_LABEL + 1], size_t *n_used)
{
	_cleanup_free_ char *esc = escaped(g->dir);
	char ops[96], value[SG_POLICY_MAX_LINE + 1];

	ops_text(&g->t, ops, sizeof(ops));
	fprintf(f, "stepguard: %llu write%s %s under %s (%s)", g->t.n, plural(g->t.n), verb(&g->t),
		esc ? esc : "(out of memory)", ops);
	if (!esc) {
		fputc('\n', f);
		return;
	}
	/* A fix stepguard itself would refuse is no fix (launcher/roots.c). */
	if (g->len == 1) {
		fprintf(f, "; / cannot be a writable root: it would allow every write\n");
		return;
	}
	if (!g->allowable) {
		fprintf(f, "; %s cannot be a writable root: it %s the home directory\n", esc,
			home && strcmp(g->dir, home) == 0 ? "is" : "contains");
		return;
	}
	if (fix->step) {
		char label[SG_SUMMARY_MAX_LABEL + 1];

		fprintf(f, "; if step %s should write there: ", fix->step);
		make_label(g->dir, fix, used, *n_used, label);
		if (ini_value(g->dir, esc, label, value, sizeof(value))) {
			fprintf(f, "[step:%s] write.%s = %s (or --allow-write ", fix->step, label, value);
			put_shell_word(f, esc);
			fputs(")\n", f);
			memcpy(used[(*n_used)++], label, sizeof(label));
			return;
		}
	} else {
		fprintf(f, "; if this step should write there: ");
	}
	fputs("--allow-write ", f);
	put_shell_word(f, esc);
	fputc('\n', f);
}

void sg_summary_print(struct sg_summary *s, FILE *f, const struct sg_summary_fix *fix)
{
	const struct group *order[SG_SUMMARY_MAX_DIRS];
	char used[SG_SUMMARY_TOP][SG_SUMMARY_MAX_LABEL + 1];
	size_t n = 0, n_used = 0;
	struct tally rest = { 0 };

	if (!s)
		return;
	fold(s);
	/* An insertion sort: at most SG_SUMMARY_MAX_DIRS groups, once per step. */
	for (size_t i = 0; i < s->n_groups; i++) {
		size_t k;

		if (s->g[i].folded)
			continue;
		for (k = n++; k > 0 && before(&s->g[i], order[k - 1]); k--)
			order[k] = order[k - 1];
		order[k] = &s->g[i];
	}

	for (size_t i = 0; i < n && i < SG_SUMMARY_TOP; i++)
		print_group(f, order[i], fix, s->home, used, &n_used);
	for (size_t i = SG_SUMMARY_TOP; i < n; i++)
		tally_merge(&rest, &order[i]->t);
	if (rest.n || s->elsewhere.n) {
		size_t others = n > SG_SUMMARY_TOP ? n - SG_SUMMARY_TOP : 0;

		fprintf(f, "stepguard: and ");
		if (rest.n)
			fprintf(f, "%llu more write%s %s under %zu other director%s", rest.n,
				plural(rest.n), verb(&rest), others, others == 1 ? "y" : "ies");
		if (rest.n && s->elsewhere.n)
			fprintf(f, ", ");
		/* Said, not dropped: the table's bound is the step's to hit, not to hide. */
		if (s->elsewhere.n)
			fprintf(f, "%llu more write%s %s under directories beyond the %d this summary keeps",
				s->elsewhere.n, plural(s->elsewhere.n), verb(&s->elsewhere),
				SG_SUMMARY_MAX_DIRS);
		fputc('\n', f);
	}
	if (s->other.n) {
		char ops[96];
		bool first = true;

		ops_text(&s->other, ops, sizeof(ops));
		fprintf(f, "stepguard: %llu operation%s %s that no writable root would allow (ops: %s; reasons:",
			s->other.n, plural(s->other.n), verb(&s->other), ops);
		for (unsigned why = 0; why < WHY__N; why++)
			if (s->why_other & (1u << why)) {
				fprintf(f, "%s %s", first ? "" : ",", why_name(why));
				first = false;
			}
		fputs(")\n", f);
	}
	if (fix->lost && s->n)
		fprintf(f, "stepguard: these counts may be low: %llu more refusal%s could not be reported\n",
			fix->lost, plural(fix->lost));
}
