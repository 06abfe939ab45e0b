// SPDX-License-Identifier: MIT
/*
 * audit/report.c — what `stepguard audit` prints: text for a person,
 * one JSON document, GitHub workflow commands, and the Markdown of the
 * job summary.  Every string from the log was made display-safe when it
 * was read (sg_audit_display); what is added here is the escaping each
 * output format needs on top of that.
 */
#include "audit/audit.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define SG_STR_(x) #x
#define SG_STR(x) SG_STR_(x)
#define SG_AUDIT_DEPTH_TEXT SG_STR(SG_AUDIT_PREFIX_DEPTH)

/* The log writes "" for a step without a name; step names cannot hold
 * parentheses, so this cannot be mistaken for one. */
static const char *step_name(const char *s)
{
	return *s ? s : "(unnamed)";
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static uint64_t total(struct sg_count c)
{
	return c.denied + c.audited;
}

static int out_status(FILE *out)
{
	return ferror(out) ? -EIO : 0;
}

void sg_audit_print_problems(const struct sg_audit *a, FILE *err)
{
	for (size_t i = 0; i < a->n_problems; i++)
		fprintf(err, "stepguard: %s:%" PRIu64 ": %s\n", a->problems[i].file,
			a->problems[i].line, a->problems[i].reason);
	if (a->problem_lines > a->n_problems)
		fprintf(err, "stepguard: audit: %" PRIu64 " problem lines in all, the first %zu above\n",
			a->problem_lines, a->n_problems);
}

/* ---- what the backends could not see ----------------------------------------- */

/* The totals over the steps: what the header and the JSON document say. */
struct gaps {
	uint64_t missing, lost, skipped, unfinished;
};

static struct gaps gaps_total(const struct sg_audit *a)
{
	struct gaps g = { 0, 0, 0, 0 };

	for (size_t i = 0; i < a->n_steps; i++) {
		g.missing += a->steps[i].missing;
		g.lost += a->steps[i].lost;
		g.skipped += a->steps[i].recursion_misses;
		g.unfinished += a->steps[i].unfinished;
	}
	return g;
}

/* The title of each gap's GitHub warning: what a reader filters on. */
static const char *const gap_title[SG_AUDIT_GAPS] = {
	[SG_GAP_MISSING] = "stepguard missing records",
	[SG_GAP_LOST] = "stepguard lost events",
	[SG_GAP_SKIPPED] = "stepguard skipped checks",
	[SG_GAP_UNFINISHED] = "stepguard unfinished run",
};

/*
 * R's gap of kind K in words, into BUF: what follows "step S (run R): ",
 * which each format writes its own way (S and R come from the log; only
 * numbers are added here).  One wording for the three outputs, so they
 * cannot disagree.  false: R has no gap of that kind.
 */
static bool gap_text(const struct sg_audit_runid *r, enum sg_audit_gap k, char *buf, size_t len)
{
	uint64_t n;

	switch (k) {
	case SG_GAP_MISSING:
		if (!(n = sg_audit_missing(r)))
			return false;
		snprintf(buf, len,
			 "%" PRIu64 " %s not in this log (the end records count %" PRIu64
			 ", the log holds %" PRIu64 ")",
			 n, plural(n, "refusal", "refusals"), r->end_denials, r->held);
		return true;
	case SG_GAP_LOST:
		if (!r->lost)
			return false;
		snprintf(buf, len, "%" PRIu64 " %s could not be logged (ring buffer full)", r->lost,
			 plural(r->lost, "refusal", "refusals"));
		return true;
	case SG_GAP_SKIPPED:
		if (!r->recursion_misses)
			return false;
		/* The call then went through undecided: not refused, not logged. */
		snprintf(buf, len,
			 "the kernel skipped the eBPF filter %" PRIu64 " %s (fmod_ret recursion): "
			 "those calls were neither checked nor logged",
			 r->recursion_misses, plural(r->recursion_misses, "time", "times"));
		return true;
	case SG_GAP_UNFINISHED:
		if (!r->unfinished)
			return false;
		if (r->runs == 1)
			snprintf(buf, len,
				 "no end record (stepguard was killed, or the log is cut): its denials "
				 "may be incomplete (the log holds %" PRIu64 ")",
				 r->held);
		else
			snprintf(buf, len,
				 "%" PRIu64 " of its %" PRIu64 " runs %s no end record (stepguard was "
				 "killed, or the log is cut): their denials may be incomplete (the log "
				 "holds %" PRIu64 ")",
				 r->unfinished, r->runs, plural(r->unfinished, "has", "have"), r->held);
		return true;
	default:
		return false;
	}
}

/* ---- text ------------------------------------------------------------------ */

/* "step S (run R): ", or "step S: " for records without a run id. */
static void text_gap_prefix(FILE *out, const struct sg_audit_runid *r)
{
	fprintf(out, "step %s", step_name(r->step));
	if (*r->run)
		fprintf(out, " (run %s)", r->run);
	fputs(": ", out);
}

/* One line under the header: the totals of what this log does not hold. */
static void text_gaps_header(FILE *out, struct gaps g)
{
	const char *sep = "incomplete: ";

	if (g.missing + g.lost) {
		fprintf(out, "%s%" PRIu64 " %s not in this log (", sep, g.missing + g.lost,
			plural(g.missing + g.lost, "refusal", "refusals"));
		if (g.missing)
			fprintf(out, "%" PRIu64 " missing from the file", g.missing);
		if (g.lost)
			fprintf(out, "%s%" PRIu64 " lost in a full ring buffer", g.missing ? ", " : "",
				g.lost);
		fputc(')', out);
		sep = "; ";
	}
	if (g.skipped) {
		fprintf(out, "%sthe kernel skipped the eBPF filter %" PRIu64 " %s", sep, g.skipped,
			plural(g.skipped, "time", "times"));
		sep = "; ";
	}
	if (g.unfinished)
		fprintf(out, "%s%" PRIu64 " %s without an end record", sep, g.unfinished,
			plural(g.unfinished, "run", "runs"));
	fputc('\n', out);
}

static void text_gaps(FILE *out, const struct sg_audit_runid **v, size_t n)
{
	char msg[512];

	fputs("\nIncomplete\n", out);
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < SG_AUDIT_GAPS; k++)
			if (gap_text(v[i], (enum sg_audit_gap)k, msg, sizeof(msg))) {
				fputs("  ", out);
				text_gap_prefix(out, v[i]);
				fprintf(out, "%s\n", msg);
			}
}

static void text_outcomes(FILE *out, const struct sg_audit_step *s)
{
	for (size_t i = 0; i < s->n_outcomes; i++) {
		const struct sg_outcome *oc = &s->outcomes[i];

		fputs(i ? ", " : "; ended: ", out);
		if (oc->kind == SG_OUTCOME_STATUS)
			fprintf(out, "status %lld", oc->value);
		else if (oc->kind == SG_OUTCOME_SIGNAL)
			fprintf(out, "signal %lld", oc->value);
		else
			fputs("without status", out);
		fprintf(out, " (%" PRIu64 ")", oc->n);
	}
}

static void text_steps(const struct sg_audit *a, FILE *out, const struct sg_audit_step **v)
{
	fputs("\nSteps\n", out);
	for (size_t i = 0; i < a->n_steps; i++) {
		const struct sg_audit_step *s = v[i];

		fprintf(out, "  %s: %" PRIu64 " %s", step_name(s->name), s->runs,
			plural(s->runs, "run", "runs"));
		if (s->unfinished)
			fprintf(out, ", %" PRIu64 " without an end record", s->unfinished);
		text_outcomes(out, s);
		fprintf(out, "\n    denials: %" PRIu64 " denied, %" PRIu64 " audited; lost: %" PRIu64,
			s->c.denied, s->c.audited, s->lost);
		if (s->lost)
			fputs(" (the log misses them)", out);
		if (s->recursion_misses)
			fprintf(out, "; eBPF filter skipped: %" PRIu64, s->recursion_misses);
		fputs("; backends: ", out);
		for (size_t j = 0; j < s->n_backends; j++)
			fprintf(out, "%s%s", j ? ", " : "", s->backends[j]);
		if (!s->n_backends)
			fputs("(none recorded)", out);
		fputc('\n', out);
		/* Only when end records were read: they carry the step's own count. */
		if (s->n_outcomes && s->end_denials != total(s->c))
			fprintf(out, "    end records count %" PRIu64 " %s, the log holds %" PRIu64 "\n",
				s->end_denials, plural(s->end_denials, "denial", "denials"),
				total(s->c));
	}
}

static void text_table(FILE *out, const char *title, const struct sg_table *t,
		       const struct sg_entry **v)
{
	fprintf(out, "\n%s\n", title);
	for (size_t i = 0; i < t->n; i++) {
		fprintf(out, "  %8" PRIu64 "  %s", total(v[i]->c), v[i]->name);
		if (v[i]->c.audited)
			fprintf(out, "  (%" PRIu64 " audited)", v[i]->c.audited);
		fputc('\n', out);
	}
}

/* Who tried, as a person reads it: "npm (pid 4242, 4250, +3 more)", or
 * "pid 77" for records without a comm. */
static void text_proc(FILE *out, const struct sg_audit_proc *p)
{
	size_t shown = p->n_pids < SG_AUDIT_PIDS_SHOWN ? p->n_pids : SG_AUDIT_PIDS_SHOWN;

	if (!p->comm) {
		if (p->n_pids)
			fprintf(out, "pid %lld", p->pids[0]);
		else
			fputs("(unknown)", out);
		return;
	}
	fputs(p->comm, out);
	for (size_t i = 0; i < shown; i++)
		fprintf(out, "%s%lld", i ? ", " : " (pid ", p->pids[i]);
	if (p->n_pids > shown)
		fprintf(out, ", +%zu more", p->n_pids - shown);
	if (shown)
		fputc(')', out);
}

static void text_procs(const struct sg_audit *a, FILE *out, const struct sg_audit_proc **v)
{
	fputs("\nBy process\n", out);
	for (size_t i = 0; i < a->n_procs; i++) {
		fprintf(out, "  %8" PRIu64 "  ", total(v[i]->c));
		text_proc(out, v[i]);
		if (v[i]->c.audited)
			fprintf(out, "  (%" PRIu64 " audited)", v[i]->c.audited);
		fputc('\n', out);
	}
}

static void text_paths(const struct sg_audit *a, FILE *out, const struct sg_hit **v)
{
	size_t shown = a->n_hits < SG_AUDIT_TOP_PATHS ? a->n_hits : SG_AUDIT_TOP_PATHS;

	fputs("\nTop paths\n", out);
	for (size_t i = 0; i < shown; i++) {
		const struct sg_hit *h = v[i];

		fprintf(out, "  %8" PRIu64 "  %s", h->n, h->path);
		if (h->path2)
			fprintf(out, " -> %s", h->path2);
		fprintf(out, "%s  (%s %s, step %s)\n", h->truncated ? " [truncated]" : "",
			h->audited ? "audited" : "denied", h->op, step_name(h->step));
	}
	if (a->n_hits > shown)
		fprintf(out, "  ... and %zu more (--json lists them all)\n", a->n_hits - shown);
}

int sg_audit_print_text(const struct sg_audit *a, FILE *out)
{
	const struct sg_audit_step **steps = sg_audit_sorted_steps(a);
	const struct sg_entry **ops = sg_audit_sorted(&a->ops);
	const struct sg_audit_proc **procs = sg_audit_sorted_procs(a);
	const struct sg_entry **pfx = sg_audit_sorted(&a->prefixes);
	const struct sg_hit **hits = sg_audit_sorted_hits(a);
	size_t n_gaps = 0;
	const struct sg_audit_runid **gaps = sg_audit_sorted_incomplete(a, &n_gaps);
	struct gaps g = gaps_total(a);
	struct sg_count all = { 0, 0 };
	int r = -ENOMEM;

	if (!steps || !ops || !procs || !pfx || !hits || !gaps)
		goto out;
	for (size_t i = 0; i < a->n_steps; i++) {
		all.denied += a->steps[i].c.denied;
		all.audited += a->steps[i].c.audited;
	}
	fprintf(out, "stepguard audit: %" PRIu64 " %s in %zu %s; %" PRIu64 " %s (%" PRIu64
		" audited) in %zu %s\n",
		a->records, plural(a->records, "record", "records"), a->n_files,
		plural(a->n_files, "file", "files"), total(all),
		plural(total(all), "denial", "denials"), all.audited, a->n_steps,
		plural(a->n_steps, "step", "steps"));
	if (n_gaps)
		text_gaps_header(out, g);
	if (a->only_step)
		fprintf(out, "only step %s: %" PRIu64 " records of other steps left out\n",
			step_name(a->only_step), a->other_steps);
	if (a->unknown)
		fprintf(out, "records of an unknown event: %" PRIu64 " (not summarised)\n", a->unknown);
	if (a->unparsable || a->torn)
		fprintf(out, "unparsable lines: %" PRIu64 "; last lines without a newline: %" PRIu64
			" (see the messages on stderr)\n", a->unparsable, a->torn);
	/* Before the steps: what the summary cannot show must not be missed. */
	if (n_gaps)
		text_gaps(out, gaps, n_gaps);
	if (a->n_steps)
		text_steps(a, out, steps);
	if (total(all)) {
		text_table(out, "By operation", &a->ops, ops);
		text_procs(a, out, procs);
		text_table(out, "By path prefix (the directory, cut to " SG_AUDIT_DEPTH_TEXT
			   " components)", &a->prefixes, pfx);
		text_paths(a, out, hits);
	} else if (g.missing + g.lost) {
		/* Never "No denials." over refusals the log does not hold. */
		fprintf(out, "\nNo denials recorded, but %" PRIu64 " %s lost (see Incomplete above).\n",
			g.missing + g.lost, plural(g.missing + g.lost, "was", "were"));
	} else if (n_gaps) {
		fputs("\nNo denials recorded, but the log may be incomplete (see Incomplete above).\n",
		      out);
	} else {
		fputs("\nNo denials.\n", out);
	}
	r = out_status(out);
out:
	free(steps);
	free(ops);
	free(procs);
	free(pfx);
	free(hits);
	free(gaps);
	return r;
}

/* ---- JSON ------------------------------------------------------------------ */

static json_object *jstr(const char *s)
{
	return json_object_new_string(s);
}

static json_object *jnum(uint64_t n)
{
	return json_object_new_int64(n > INT64_MAX ? INT64_MAX : (int64_t)n);
}

static void jadd_counts(json_object *o, struct sg_count c)
{
	json_object_object_add(o, "count", jnum(total(c)));
	json_object_object_add(o, "denied", jnum(c.denied));
	json_object_object_add(o, "audited", jnum(c.audited));
}

static json_object *json_step(const struct sg_audit_step *s)
{
	json_object *o = json_object_new_object();
	json_object *oc = json_object_new_array();
	json_object *be = json_object_new_array();

	json_object_object_add(o, "step", jstr(s->name));
	json_object_object_add(o, "runs", jnum(s->runs));
	json_object_object_add(o, "unfinished", jnum(s->unfinished));
	jadd_counts(o, s->c);
	json_object_object_add(o, "lost", jnum(s->lost));
	json_object_object_add(o, "end_denials", jnum(s->end_denials));
	json_object_object_add(o, "missing", jnum(s->missing));
	json_object_object_add(o, "recursion_misses", jnum(s->recursion_misses));
	for (size_t i = 0; i < s->n_outcomes; i++) {
		json_object *e = json_object_new_object();

		if (s->outcomes[i].kind == SG_OUTCOME_STATUS)
			json_object_object_add(e, "status", json_object_new_int64(s->outcomes[i].value));
		else if (s->outcomes[i].kind == SG_OUTCOME_SIGNAL)
			json_object_object_add(e, "signal", json_object_new_int64(s->outcomes[i].value));
		json_object_object_add(e, "runs", jnum(s->outcomes[i].n));
		json_object_array_add(oc, e);
	}
	json_object_object_add(o, "outcomes", oc);
	for (size_t i = 0; i < s->n_backends; i++)
		json_object_array_add(be, jstr(s->backends[i]));
	json_object_object_add(o, "backends", be);
	return o;
}

static json_object *json_runid(const struct sg_audit_runid *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "step", jstr(r->step));
	json_object_object_add(o, "run", jstr(r->run));
	json_object_object_add(o, "runs", jnum(r->runs));
	json_object_object_add(o, "unfinished", jnum(r->unfinished));
	json_object_object_add(o, "count", jnum(r->held));
	json_object_object_add(o, "end_denials", r->counted ? jnum(r->end_denials) : NULL);
	json_object_object_add(o, "missing", jnum(sg_audit_missing(r)));
	json_object_object_add(o, "lost", jnum(r->lost));
	json_object_object_add(o, "recursion_misses", jnum(r->recursion_misses));
	return o;
}

static json_object *json_table(const struct sg_table *t, const struct sg_entry **v,
			       const char *key)
{
	json_object *arr = json_object_new_array();

	for (size_t i = 0; i < t->n; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, key, jstr(v[i]->name));
		jadd_counts(e, v[i]->c);
		json_object_array_add(arr, e);
	}
	return arr;
}

static json_object *json_procs(const struct sg_audit *a, const struct sg_audit_proc **v)
{
	json_object *arr = json_object_new_array();

	for (size_t i = 0; i < a->n_procs; i++) {
		json_object *e = json_object_new_object(), *pids = json_object_new_array();
		char pid[48] = "(unknown)";

		/* "process": the name the text shows, without its pids. */
		if (!v[i]->comm && v[i]->n_pids)
			snprintf(pid, sizeof(pid), "pid %lld", v[i]->pids[0]);
		json_object_object_add(e, "process", jstr(v[i]->comm ? v[i]->comm : pid));
		json_object_object_add(e, "comm", v[i]->comm ? jstr(v[i]->comm) : NULL);
		for (size_t j = 0; j < v[i]->n_pids; j++)
			json_object_array_add(pids, json_object_new_int64(v[i]->pids[j]));
		json_object_object_add(e, "pids", pids);
		jadd_counts(e, v[i]->c);
		json_object_array_add(arr, e);
	}
	return arr;
}

static json_object *json_hit(const struct sg_hit *h)
{
	json_object *e = json_object_new_object();

	json_object_object_add(e, "path", jstr(h->path));
	if (h->path2)
		json_object_object_add(e, "path2", jstr(h->path2));
	if (h->truncated)
		json_object_object_add(e, "path_truncated", json_object_new_boolean(1));
	json_object_object_add(e, "op", jstr(h->op));
	json_object_object_add(e, "step", jstr(h->step));
	json_object_object_add(e, "decision", jstr(h->audited ? "audited" : "denied"));
	json_object_object_add(e, "count", jnum(h->n));
	if (h->pid >= 0)
		json_object_object_add(e, "pid", json_object_new_int64(h->pid));
	if (h->comm)
		json_object_object_add(e, "comm", jstr(h->comm));
	json_object_object_add(e, "processes", jnum(h->procs));
	return e;
}

json_object *sg_audit_json(const struct sg_audit *a)
{
	const struct sg_audit_step **steps = sg_audit_sorted_steps(a);
	const struct sg_entry **ops = sg_audit_sorted(&a->ops);
	const struct sg_audit_proc **procs = sg_audit_sorted_procs(a);
	const struct sg_entry **pfx = sg_audit_sorted(&a->prefixes);
	const struct sg_hit **hits = sg_audit_sorted_hits(a);
	size_t n_gaps = 0;
	const struct sg_audit_runid **gaps = sg_audit_sorted_incomplete(a, &n_gaps);
	struct gaps g = gaps_total(a);
	json_object *o = NULL, *arr;
	struct sg_count all = { 0, 0 };

	if (!steps || !ops || !procs || !pfx || !hits || !gaps)
		goto out;
	o = json_object_new_object();
	arr = json_object_new_array();
	for (size_t i = 0; i < a->n_files; i++)
		json_object_array_add(arr, jstr(a->files[i]));
	json_object_object_add(o, "files", arr);
	json_object_object_add(o, "only_step", a->only_step ? jstr(a->only_step) : NULL);
	json_object_object_add(o, "lines", jnum(a->lines));
	json_object_object_add(o, "records", jnum(a->records));
	json_object_object_add(o, "unknown_records", jnum(a->unknown));
	json_object_object_add(o, "other_steps", jnum(a->other_steps));
	json_object_object_add(o, "unparsable", jnum(a->unparsable));
	json_object_object_add(o, "torn", jnum(a->torn));
	arr = json_object_new_array();
	for (size_t i = 0; i < a->n_problems; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "file", jstr(a->problems[i].file));
		json_object_object_add(e, "line", jnum(a->problems[i].line));
		json_object_object_add(e, "reason", jstr(a->problems[i].reason));
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "problems", arr);
	json_object_object_add(o, "problem_lines", jnum(a->problem_lines));
	for (size_t i = 0; i < a->n_steps; i++) {
		all.denied += a->steps[i].c.denied;
		all.audited += a->steps[i].c.audited;
	}
	jadd_counts(o, all);
	json_object_object_add(o, "lost", jnum(g.lost));
	json_object_object_add(o, "missing", jnum(g.missing));
	json_object_object_add(o, "recursion_misses", jnum(g.skipped));
	json_object_object_add(o, "unfinished", jnum(g.unfinished));
	json_object_object_add(o, "prefix_depth", json_object_new_int(SG_AUDIT_PREFIX_DEPTH));
	arr = json_object_new_array();
	for (size_t i = 0; i < a->n_steps; i++)
		json_object_array_add(arr, json_step(steps[i]));
	json_object_object_add(o, "steps", arr);
	arr = json_object_new_array();
	for (size_t i = 0; i < n_gaps; i++)
		json_object_array_add(arr, json_runid(gaps[i]));
	json_object_object_add(o, "incomplete", arr);
	json_object_object_add(o, "operations", json_table(&a->ops, ops, "op"));
	json_object_object_add(o, "processes", json_procs(a, procs));
	json_object_object_add(o, "prefixes", json_table(&a->prefixes, pfx, "prefix"));
	arr = json_object_new_array();
	for (size_t i = 0; i < a->n_hits; i++)
		json_object_array_add(arr, json_hit(hits[i]));
	json_object_object_add(o, "paths", arr);
out:
	free(steps);
	free(ops);
	free(procs);
	free(pfx);
	free(hits);
	free(gaps);
	return o;
}

/* ---- GitHub workflow commands -------------------------------------------------- */

/* One workflow command: ::KIND title=TITLE::MESSAGE, both escaped. */
static int gh_command(FILE *out, const char *kind, const char *title, const char *msg)
{
	char *t = sg_audit_gh_escape(title, true);
	char *m = sg_audit_gh_escape(msg, false);

	if (t && m)
		fprintf(out, "::%s title=%s::%s\n", kind, t, m);
	free(t);
	free(m);
	return t && m ? 0 : -ENOMEM;
}

__attribute__((format(printf, 4, 5))) static int gh_commandf(FILE *out, const char *kind,
							     const char *title, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	r = gh_command(out, kind, title, msg);
	free(msg);
	return r;
}

/*
 * PATH (step S, npm pid 4242 and 2 other processes, 5 times): who tried is
 * the first record's comm and pid; the others are counted, not named.
 */
static int gh_hit(FILE *out, const struct sg_hit *h)
{
	char title[256], pid[48] = "", others[64] = "", times[48] = "";
	uint64_t more = h->procs - (h->procs && h->pid >= 0);

	snprintf(title, sizeof(title), "stepguard %s %s", h->audited ? "audited" : "denied", h->op);
	if (h->pid >= 0)
		snprintf(pid, sizeof(pid), "%spid %lld", h->comm ? " " : ", ", h->pid);
	if (more)
		snprintf(others, sizeof(others), " and %" PRIu64 " other %s", more,
			 plural(more, "process", "processes"));
	if (h->n > 1)
		snprintf(times, sizeof(times), ", %" PRIu64 " times", h->n);
	return gh_commandf(out, h->audited ? "warning" : "error", title,
			   "%s%s%s%s (step %s%s%s%s%s%s)", h->path, h->path2 ? " -> " : "",
			   h->path2 ? h->path2 : "", h->truncated ? " [truncated]" : "",
			   step_name(h->step), h->comm ? ", " : "", h->comm ? h->comm : "", pid,
			   others, times);
}

/* One warning per gap of each incomplete run id, at most SG_AUDIT_GITHUB_MAX. */
static int gh_gaps(FILE *out, const struct sg_audit_runid **v, size_t n)
{
	uint64_t shown = 0, more = 0;
	char msg[512];
	int r = 0;

	for (size_t i = 0; i < n && r == 0; i++)
		for (int k = 0; k < SG_AUDIT_GAPS && r == 0; k++) {
			if (!gap_text(v[i], (enum sg_audit_gap)k, msg, sizeof(msg)))
				continue;
			if (shown == SG_AUDIT_GITHUB_MAX) {
				more++;
				continue;
			}
			r = gh_commandf(out, "warning", gap_title[k], "step %s%s%s%s: %s",
					step_name(v[i]->step), *v[i]->run ? " (run " : "", v[i]->run,
					*v[i]->run ? ")" : "", msg);
			shown++;
		}
	if (r == 0 && more)
		r = gh_commandf(out, "warning", "stepguard audit",
				"%" PRIu64 " more gaps in the log not annotated; run stepguard audit on "
				"the log for all of them",
				more);
	return r;
}

int sg_audit_print_github(const struct sg_audit *a, FILE *out)
{
	const struct sg_hit **hits = sg_audit_sorted_hits(a);
	size_t shown = 0, n_gaps = 0;
	const struct sg_audit_runid **gaps = sg_audit_sorted_incomplete(a, &n_gaps);
	int r = 0;

	if (!hits || !gaps) {
		free(hits);
		free(gaps);
		return -ENOMEM;
	}
	/*
	 * What makes the summary incomplete comes first: GitHub shows only
	 * the first few annotations of each kind, and these must not be the
	 * ones hidden behind a long list of denials.
	 */
	for (size_t i = 0; i < a->n_problems && r == 0; i++)
		r = gh_commandf(out, "warning", "stepguard audit", "%s:%" PRIu64 ": %s",
				a->problems[i].file, a->problems[i].line, a->problems[i].reason);
	if (r == 0 && a->problem_lines > a->n_problems)
		r = gh_commandf(out, "warning", "stepguard audit",
				"%" PRIu64 " problem lines in all, the first %zu annotated",
				a->problem_lines, a->n_problems);
	if (r == 0)
		r = gh_gaps(out, gaps, n_gaps);
	/* Refusals before audited decisions: the cap must not hide an error. */
	for (int pass = 0; pass < 2 && r == 0; pass++)
		for (size_t i = 0; i < a->n_hits && r == 0; i++) {
			if (hits[i]->audited != (pass == 1))
				continue;
			if (shown == SG_AUDIT_GITHUB_MAX)
				break;
			r = gh_hit(out, hits[i]);
			shown++;
		}
	if (r == 0 && a->n_hits > shown)
		r = gh_commandf(out, "notice", "stepguard audit",
				"%zu more distinct denials not annotated; run stepguard audit on "
				"the log for all of them",
				a->n_hits - shown);
	free(hits);
	free(gaps);
	return r < 0 ? r : out_status(out);
}

/* ---- Markdown for $GITHUB_STEP_SUMMARY ------------------------------------------- */

/*
 * S as a code span in a GFM table cell: the fence is one backtick longer
 * than the longest run inside (CommonMark), and '|' is escaped, which GFM
 * honours even in code.  Nothing from the log is read as Markdown or HTML.
 */
static void md_code(FILE *out, const char *s)
{
	size_t run = 0, longest = 0;
	bool pad = !*s || *s == '`' || s[strlen(s) - 1] == '`';

	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	for (size_t i = 0; i <= longest; i++)
		fputc('`', out);
	if (pad)
		fputc(' ', out);
	for (const char *p = s; *p; p++) {
		if (*p == '|')
			fputc('\\', out);
		fputc(*p, out);
	}
	if (pad)
		fputc(' ', out);
	for (size_t i = 0; i <= longest; i++)
		fputc('`', out);
}

static void md_step_name(FILE *out, const char *s)
{
	if (*s)
		md_code(out, s);
	else
		fputs("(unnamed)", out);
}

static void md_steps(const struct sg_audit *a, FILE *out, const struct sg_audit_step **v)
{
	fputs("| step | runs | denied | audited | lost | backend |\n"
	      "|---|--:|--:|--:|--:|---|\n",
	      out);
	for (size_t i = 0; i < a->n_steps; i++) {
		const struct sg_audit_step *s = v[i];

		fputs("| ", out);
		md_step_name(out, s->name);
		fprintf(out, " | %" PRIu64, s->runs);
		if (s->unfinished)
			fprintf(out, " (%" PRIu64 " unfinished)", s->unfinished);
		fprintf(out, " | %" PRIu64 " | %" PRIu64 " | %" PRIu64 " | ", s->c.denied,
			s->c.audited, s->lost);
		for (size_t j = 0; j < s->n_backends; j++) {
			fputs(j ? ", " : "", out);
			md_code(out, s->backends[j]);
		}
		fputs(" |\n", out);
	}
}

/* The gaps as the text says them, the log's strings as code spans. */
static void md_gaps(FILE *out, const struct sg_audit_runid **v, size_t n)
{
	uint64_t shown = 0, more = 0;
	char msg[512];

	fputs("\n**Incomplete**\n\n", out);
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < SG_AUDIT_GAPS; k++) {
			if (!gap_text(v[i], (enum sg_audit_gap)k, msg, sizeof(msg)))
				continue;
			if (shown == SG_AUDIT_GITHUB_MAX) {
				more++;
				continue;
			}
			fputs("- step ", out);
			md_step_name(out, v[i]->step);
			if (*v[i]->run) {
				fputs(" (run ", out);
				md_code(out, v[i]->run);
				fputc(')', out);
			}
			fprintf(out, ": %s\n", msg);
			shown++;
		}
	if (more)
		fprintf(out, "- …and %" PRIu64 " more (`stepguard audit` lists them all)\n", more);
}

static void md_paths(const struct sg_audit *a, FILE *out, const struct sg_hit **v)
{
	size_t shown = a->n_hits < SG_AUDIT_TOP_PATHS ? a->n_hits : SG_AUDIT_TOP_PATHS;

	fputs("\n**Top paths**\n\n| count | decision | operation | path | step |\n"
	      "|--:|---|---|---|---|\n",
	      out);
	for (size_t i = 0; i < shown; i++) {
		fprintf(out, "| %" PRIu64 " | %s | ", v[i]->n, v[i]->audited ? "audited" : "denied");
		md_code(out, v[i]->op);
		fputs(" | ", out);
		md_code(out, v[i]->path);
		if (v[i]->path2) {
			fputs(" → ", out);
			md_code(out, v[i]->path2);
		}
		if (v[i]->truncated)
			fputs(" (truncated)", out);
		fputs(" | ", out);
		md_step_name(out, v[i]->step);
		fputs(" |\n", out);
	}
	if (a->n_hits > shown)
		fprintf(out, "\n…and %zu more distinct paths (`stepguard audit --json` lists them "
			"all).\n", a->n_hits - shown);
}

int sg_audit_print_markdown(const struct sg_audit *a, FILE *out)
{
	const struct sg_audit_step **steps = sg_audit_sorted_steps(a);
	const struct sg_hit **hits = sg_audit_sorted_hits(a);
	size_t n_gaps = 0;
	const struct sg_audit_runid **gaps = sg_audit_sorted_incomplete(a, &n_gaps);
	int r = -ENOMEM;

	if (!steps || !hits || !gaps)
		goto out;
	fputs("\n### stepguard audit", out);
	if (a->only_step) {
		fputs(": step ", out);
		md_step_name(out, a->only_step);
	}
	fputs("\n\n", out);
	if (a->n_steps)
		md_steps(a, out, steps);
	else
		fputs("No stepguard records.\n", out);
	if (n_gaps)
		md_gaps(out, gaps, n_gaps);
	if (a->n_hits)
		md_paths(a, out, hits);
	if (a->problem_lines) {
		fprintf(out, "\n**%" PRIu64 " %s**", a->problem_lines,
			plural(a->problem_lines, "line could not be read as a record",
			       "lines could not be read as records"));
		if (a->n_problems) {
			fputs("; the first: ", out);
			md_code(out, a->problems[0].file);
			fprintf(out, " line %" PRIu64 ": %s", a->problems[0].line,
				a->problems[0].reason);
		}
		fputs("\n", out);
	}
	r = out_status(out);
out:
	free(steps);
	free(hits);
	free(gaps);
	return r;
}
