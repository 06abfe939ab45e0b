// SPDX-License-Identifier: MIT
/*
 * policy.c — the merged policy: its life (init, free), the checks that
 * need all of it, and what one step gets from it (its section, its
 * effective settings, its writable roots).  Parsing is parse.c's.
 */
#include "policy/policy.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "policy/internal.h"

/* ---- small containers ------------------------------------------------ */

void sg__words_clear(struct sg_words *w)
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
	free(s->tmpdir_base.s);
	memset(s, 0, sizeof(*s));
}

void sg_policy_init(struct sg_policy *p)
{
	memset(p, 0, sizeof(*p));
	/* Before any source is read a root step still runs without them. */
	p->dropped_caps = sg_caps_default_dropped();
}

void sg_policy_free(struct sg_policy *p)
{
	for (size_t i = 0; i < sg__n_words_keys; i++)
		sg__words_clear((struct sg_words *)(void *)((char *)p + sg__words_keys[i].off));
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

/* Does W hold the N bytes at S as a whole word? */
static bool words_contain_n(const struct sg_words *w, const char *s, size_t n)
{
	for (size_t i = 0; i < w->n; i++)
		if (strncmp(w->v[i], s, n) == 0 && w->v[i][n] == '\0')
			return true;
	return false;
}

/*
 * Each [model-cli] ruling-options word names an option the lists parse the
 * way the word is written: "--x" a flag option, "--x=v" a value or
 * optional-value option.  Otherwise the argv walk could not tell whether a
 * command already gives it (sg_ruling_argv() would add it beside another
 * value).  One name, one word: two values for one option always conflict.
 */
static int validate_ruling_options(const struct sg_model_cli *cli, struct sg_error *err)
{
	const struct sg_words *ro = &cli->ruling_options;

	for (size_t i = 0; i < ro->n; i++) {
		const char *w = ro->v[i], *eq = strchr(w, '=');
		size_t n = eq ? (size_t)(eq - w) : strlen(w);
		bool ok = eq ? words_contain_n(&cli->value_options, w, n) ||
				       words_contain_n(&cli->optional_value_options, w, n)
			     : words_contain_n(&cli->flag_options, w, n);

		for (size_t k = 0; ok && k < i; k++)
			ok = !(strncmp(ro->v[k], w, n) == 0 &&
			       (ro->v[k][n] == '\0' || ro->v[k][n] == '='));
		if (!ok) {
			sg_errorf(err, 0, ro->origin.file, ro->origin.line,
				  "[model-cli] ruling-options: \"%s\" must name %s, once", w,
				  eq ? "a value-options or optional-value-options entry (\"--x=value\")"
				     : "a flag-options entry (\"--x\")");
			return -EINVAL;
		}
	}
	return 0;
}

int sg_policy_validate(const struct sg_policy *p, struct sg_error *err)
{
	int r;

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
	r = validate_ruling_options(&p->cli, err);
	if (r < 0)
		return r;
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
	if (step->set.tmpdir != SG_UNSET) {
		out->tmpdir = step->set.tmpdir;
		out->tmpdir_origin = step->set.tmpdir_origin;
	}
	if (step->set.keep_tmpdir != SG_UNSET) {
		out->keep_tmpdir = step->set.keep_tmpdir;
		out->keep_tmpdir_origin = step->set.keep_tmpdir_origin;
	}
	if (step->set.tmpdir_base.set)
		out->tmpdir_base = step->set.tmpdir_base;
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
