// SPDX-License-Identifier: MIT
/*
 * audit/table.c — the tables `stepguard audit` counts in (string →
 * entry, open addressing) and the sorted views its reports print.
 */
#include "audit/audit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static int table_rehash(struct sg_table *t, size_t nslots)
{
	uint32_t *slot = calloc(nslots, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = hash(t->v[i].name) & (nslots - 1);

		while (slot[j])
			j = (j + 1) & (nslots - 1);
		slot[j] = (uint32_t)(i + 1);
	}
	free(t->slot);
	t->slot = slot;
	t->nslots = nslots;
	return 0;
}

struct sg_entry *sg_table_get(struct sg_table *t, const char *name, bool *added)
{
	size_t j;

	*added = false;
	/* Keep the load under one half so probe chains stay short. */
	if ((t->n + 1) * 2 > t->nslots) {
		if (t->n >= UINT32_MAX / 4 || table_rehash(t, t->nslots ? t->nslots * 2 : 64) < 0)
			return NULL;
	}
	for (j = hash(name) & (t->nslots - 1); t->slot[j]; j = (j + 1) & (t->nslots - 1))
		if (strcmp(t->v[t->slot[j] - 1].name, name) == 0)
			return &t->v[t->slot[j] - 1];
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 32;
		struct sg_entry *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	memset(&t->v[t->n], 0, sizeof(t->v[t->n]));
	t->v[t->n].name = strdup(name);
	if (!t->v[t->n].name)
		return NULL;
	t->slot[j] = (uint32_t)(t->n + 1);
	*added = true;
	return &t->v[t->n++];
}

void sg_table_free(struct sg_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* ---- sorted views -------------------------------------------------------------- */

static int by_count(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

static int entry_cmp(const void *x, const void *y)
{
	const struct sg_entry *a = *(const struct sg_entry *const *)x;
	const struct sg_entry *b = *(const struct sg_entry *const *)y;
	int c = by_count(a->c.denied + a->c.audited, b->c.denied + b->c.audited);

	return c ? c : strcmp(a->name, b->name);
}

static int step_cmp(const void *x, const void *y)
{
	const struct sg_audit_step *a = *(const struct sg_audit_step *const *)x;
	const struct sg_audit_step *b = *(const struct sg_audit_step *const *)y;
	int c = by_count(a->c.denied + a->c.audited, b->c.denied + b->c.audited);

	return c ? c : strcmp(a->name, b->name);
}

static int hit_cmp(const void *x, const void *y)
{
	const struct sg_hit *a = *(const struct sg_hit *const *)x;
	const struct sg_hit *b = *(const struct sg_hit *const *)y;
	int c = by_count(a->n, b->n);

	if (!c)
		c = strcmp(a->path, b->path);
	if (!c)
		c = strcmp(a->step, b->step);
	if (!c)
		c = strcmp(a->op, b->op);
	return c ? c : (int)a->audited - (int)b->audited;
}

static int proc_cmp(const void *x, const void *y)
{
	const struct sg_audit_proc *a = *(const struct sg_audit_proc *const *)x;
	const struct sg_audit_proc *b = *(const struct sg_audit_proc *const *)y;
	int c = by_count(a->c.denied + a->c.audited, b->c.denied + b->c.audited);

	if (c)
		return c;
	if (!a->comm != !b->comm)
		return a->comm ? -1 : 1; /* named first */
	if (a->comm)
		return strcmp(a->comm, b->comm);
	if (!a->n_pids != !b->n_pids)
		return a->n_pids ? -1 : 1; /* "(unknown)" last */
	return a->n_pids ? (a->pids[0] > b->pids[0]) - (a->pids[0] < b->pids[0]) : 0;
}

/* An array of pointers to the N elements of V (of SIZE), sorted by CMP. */
static void *sorted(const void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	const void **p = malloc((n ? n : 1) * sizeof(*p));

	if (!p)
		return NULL;
	for (size_t i = 0; i < n; i++)
		p[i] = (const char *)v + i * size;
	qsort(p, n, sizeof(*p), cmp);
	return p;
}

const struct sg_entry **sg_audit_sorted(const struct sg_table *t)
{
	return sorted(t->v, t->n, sizeof(*t->v), entry_cmp);
}

const struct sg_audit_step **sg_audit_sorted_steps(const struct sg_audit *a)
{
	return sorted(a->steps, a->n_steps, sizeof(*a->steps), step_cmp);
}

const struct sg_hit **sg_audit_sorted_hits(const struct sg_audit *a)
{
	return sorted(a->hits, a->n_hits, sizeof(*a->hits), hit_cmp);
}

const struct sg_audit_proc **sg_audit_sorted_procs(const struct sg_audit *a)
{
	return sorted(a->procs, a->n_procs, sizeof(*a->procs), proc_cmp);
}

struct ranked {
	size_t rank, ix; /* of the run id's step among the sorted steps; of the run id */
};

static int ranked_cmp(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return (a->ix > b->ix) - (a->ix < b->ix);
}

const struct sg_audit_runid **sg_audit_sorted_incomplete(const struct sg_audit *a, size_t *n)
{
	const struct sg_audit_step **steps = sg_audit_sorted_steps(a);
	size_t *rank = malloc((a->n_steps ? a->n_steps : 1) * sizeof(*rank));
	struct ranked *v = malloc((a->n_runids ? a->n_runids : 1) * sizeof(*v));
	/* As sorted(): an array of pointers, handed back as the caller's type. */
	const void **out = malloc((a->n_runids ? a->n_runids : 1) * sizeof(*out));
	void *ret;
	size_t k = 0;

	if (!steps || !rank || !v || !out) {
		free(out);
		out = NULL;
		goto done;
	}
	/* The same order as the steps' own list, so a reader finds them there. */
	for (size_t i = 0; i < a->n_steps; i++)
		rank[steps[i] - a->steps] = i;
	for (size_t i = 0; i < a->n_runids; i++)
		if (sg_audit_incomplete(&a->runids[i]))
			v[k++] = (struct ranked){ rank[a->runids[i].step_ix], i };
	qsort(v, k, sizeof(*v), ranked_cmp);
	for (size_t i = 0; i < k; i++)
		out[i] = &a->runids[v[i].ix];
	*n = k;
done:
	free(steps);
	free(rank);
	free(v);
	ret = out;
	return ret;
}
