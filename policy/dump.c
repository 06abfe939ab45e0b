// SPDX-License-Identifier: MIT
/* dump.c — the merged policy as INI text that parses back to the same policy. */
#include <string.h>

#include "policy/internal.h"

/*
 * One "key = value" line.  Spaces around "=" read better, but the parser
 * refuses lines over SG_POLICY_MAX_LINE; a value that was accepted as
 * "key=value" is written back the same way, so the dump always parses.
 */
static void dump_kv(FILE *f, const char *prefix, const char *key, const char *op,
		    const char *value)
{
	size_t n = strlen(prefix) + strlen(key) + strlen(op) + 2 + strlen(value);

	if (n <= SG_POLICY_MAX_LINE)
		fprintf(f, "%s%s %s %s\n", prefix, key, op, value);
	else
		fprintf(f, "%s%s%s%s\n", prefix, key, op, value);
}

static void dump_origin(FILE *f, bool origins, const struct sg_origin *o)
{
	if (origins && o->file)
		fprintf(f, "# %s:%u\n", o->file, o->line);
}

static void dump_settings(FILE *f, bool origins, const struct sg_settings *s)
{
	if (s->mode != SG_MODE_UNSET) {
		dump_origin(f, origins, &s->mode_origin);
		fprintf(f, "mode = %s\n", sg_mode_name(s->mode));
	}
	if (s->filter != SG_FILTER_UNSET) {
		dump_origin(f, origins, &s->filter_origin);
		fprintf(f, "filter = %s\n", sg_filter_name(s->filter));
	}
	if (s->log.set) {
		dump_origin(f, origins, &s->log.origin);
		dump_kv(f, "", "log", "=", s->log.s);
	}
	if (s->tmpdir != SG_UNSET) {
		dump_origin(f, origins, &s->tmpdir_origin);
		fprintf(f, "tmpdir = %s\n", s->tmpdir == SG_YES ? "yes" : "no");
	}
	if (s->keep_tmpdir != SG_UNSET) {
		dump_origin(f, origins, &s->keep_tmpdir_origin);
		fprintf(f, "keep-tmpdir = %s\n", s->keep_tmpdir == SG_YES ? "yes" : "no");
	}
	if (s->tmpdir_base.set) {
		dump_origin(f, origins, &s->tmpdir_base.origin);
		dump_kv(f, "", "tmpdir-base", "=", s->tmpdir_base.s);
	}
}

static void dump_words_section(FILE *f, bool origins, const struct sg_policy *p,
			       enum section_kind sec)
{
	for (size_t i = 0; i < sg__n_words_keys; i++) {
		const struct sg_words *w;

		if (sg__words_keys[i].sec != sec)
			continue;
		w = (const void *)((const char *)p + sg__words_keys[i].off);
		if (!w->set)
			continue;
		dump_origin(f, origins, &w->origin);
		/* Wrap with "+=" at about 80 columns; a long word gets a line of its own. */
		{
			const char *key = sg__words_keys[i].key;
			char line[SG_POLICY_MAX_LINE + 1] = "";
			size_t len = 0;
			bool first = true;

			for (size_t j = 0; j <= w->n; j++) {
				size_t wl = j < w->n ? strlen(w->v[j]) : 0;

				if (j == w->n || (len > 0 && len + 1 + wl > 70)) {
					if (len > 0 || first)
						dump_kv(f, "", key, first ? "=" : "+=", line);
					first = false;
					len = 0;
					line[0] = '\0';
				}
				if (j == w->n)
					break;
				if (len > 0)
					line[len++] = ' ';
				/* A word is at most a line long, since it came from one. */
				memcpy(line + len, w->v[j], wl < sizeof(line) - len - 1 ? wl + 1
										   : sizeof(line) - len);
				len += wl;
			}
		}
	}
}

static void dump_writes(FILE *f, bool origins, const struct sg_writes *ws, const char *prefix)
{
	for (size_t i = 0; i < ws->n; i++) {
		dump_origin(f, origins, &ws->v[i].origin);
		dump_kv(f, prefix, ws->v[i].label, "=", ws->v[i].path);
	}
}

void sg_policy_dump(const struct sg_policy *p, FILE *f, bool origins)
{
	fprintf(f, "[stepguard]\n");
	dump_settings(f, origins, &p->base);
	dump_words_section(f, origins, p, SEC_STEPGUARD);
	if (p->core_dumps != SG_UNSET) {
		dump_origin(f, origins, &p->core_dumps_origin);
		fprintf(f, "core-dumps = %s\n", p->core_dumps == SG_YES ? "yes" : "no");
	}
	fprintf(f, "\n[model-cli]\n");
	dump_words_section(f, origins, p, SEC_MODEL_CLI);
	fprintf(f, "\n[credentials]\n");
	dump_words_section(f, origins, p, SEC_CREDENTIALS);
	fprintf(f, "\n[scrub]\n");
	dump_words_section(f, origins, p, SEC_SCRUB);
	fprintf(f, "\n[writes]\n");
	dump_writes(f, origins, &p->writes, "");
	fprintf(f, "\n[sockets]\n");
	dump_words_section(f, origins, p, SEC_SOCKETS);
	fprintf(f, "\n[seccomp]\n");
	dump_words_section(f, origins, p, SEC_SECCOMP);
	if (p->user_namespaces != SG_UNSET) {
		dump_origin(f, origins, &p->user_namespaces_origin);
		fprintf(f, "user-namespaces = %s\n", p->user_namespaces == SG_YES ? "yes" : "no");
	}
	for (size_t i = 0; i < p->n_steps; i++) {
		fprintf(f, "\n");
		dump_origin(f, origins, &p->steps[i].origin);
		fprintf(f, "[step:%s]\n", p->steps[i].name);
		dump_settings(f, origins, &p->steps[i].set);
		dump_writes(f, origins, &p->steps[i].writes, "write.");
	}
}
