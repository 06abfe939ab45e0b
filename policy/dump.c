// SPDX-License-Identifier: MIT
/* dump.c — the merged policy as INI text that parses back to the same policy. */
#include <string.h>

#include "policy/internal.h"


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
		fprintf(f, "log = %s\n", s->log.s);
	}
}

static void dump_words_section(FILE *f, bool origins, const struct sg_policy *p,
			       enum section_kind sec)
{
	for (size_t i = 0; i < sg__n_words_keys; i++) {
		const struct sg_words *w;

		if (sg__words_keys[i].sec != sec)
			continue;
		w = (const struct sg_words *)((const char *)p + sg__words_keys[i].off);
		if (!w->set)
			continue;
		dump_origin(f, origins, &w->origin);
		/* Wrap with "+=" so every line stays within SG_POLICY_MAX_LINE. */
		{
			size_t col = (size_t)fprintf(f, "%s =", sg__words_keys[i].key);

			for (size_t j = 0; j < w->n; j++) {
				if (col > strlen(sg__words_keys[i].key) + 3 &&
				    col + 1 + strlen(w->v[j]) > 80)
					col = (size_t)fprintf(f, "\n%s +=", sg__words_keys[i].key) - 1;
				col += (size_t)fprintf(f, " %s", w->v[j]);
			}
		}
		fputc('\n', f);
	}
}

static void dump_writes(FILE *f, bool origins, const struct sg_writes *ws, const char *prefix)
{
	for (size_t i = 0; i < ws->n; i++) {
		dump_origin(f, origins, &ws->v[i].origin);
		fprintf(f, "%s%s = %s\n", prefix, ws->v[i].label, ws->v[i].path);
	}
}

void sg_policy_dump(const struct sg_policy *p, FILE *f, bool origins)
{
	fprintf(f, "[stepguard]\n");
	dump_settings(f, origins, &p->base);
	fprintf(f, "\n[model-cli]\n");
	dump_words_section(f, origins, p, SEC_MODEL_CLI);
	fprintf(f, "\n[credentials]\n");
	dump_words_section(f, origins, p, SEC_CREDENTIALS);
	fprintf(f, "\n[scrub]\n");
	dump_words_section(f, origins, p, SEC_SCRUB);
	fprintf(f, "\n[writes]\n");
	dump_writes(f, origins, &p->writes, "");
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
