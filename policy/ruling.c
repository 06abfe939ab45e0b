// SPDX-License-Identifier: MIT
/*
 * ruling.c — rulings 1 and 2 and the analysis of the model CLI's argv.
 *
 * The argv walk models how the CLI's option parser (commander-style)
 * reads its arguments, from the option lists in [model-cli]: which
 * options take no value, one value, an optional value, or every
 * following argument up to the next option.  That matters because a
 * value can look like an option: in "--system-prompt --tools ''" the
 * "--tools" is the prompt's text, and the CLI keeps its default tools.
 * An option the policy does not list is refused, because stepguard
 * cannot know whether it swallows the next argument or grants tools.
 */
#include "policy/ruling.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>


static bool starts_option(const char *a)
{
	return a[0] == '-' && a[1] != '\0';
}

/* Any occurrence counts: a duplicate variable in envp must not hide one. */
static const char *find_var(const struct sg_words *vars, char *const envp[],
			    bool (*applies)(const char *value))
{
	for (size_t i = 0; i < vars->n; i++) {
		size_t n = strlen(vars->v[i]);

		for (char *const *e = envp; e && *e; e++)
			if (strncmp(*e, vars->v[i], n) == 0 && (*e)[n] == '=' &&
			    applies(*e + n + 1))
				return vars->v[i];
	}
	return NULL;
}

static bool scrub_on(const char *v)
{
	return *v && strcmp(v, "0") != 0;
}

static bool nonempty(const char *v)
{
	return *v != '\0';
}

const char *sg_scrub_set(const struct sg_policy *p, char *const envp[])
{
	return find_var(&p->scrub, envp, scrub_on);
}

const char *sg_credential_held(const struct sg_policy *p, char *const envp[])
{
	return find_var(&p->credentials, envp, nonempty);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void refuse(struct sg_ruling *r, enum sg_reason why, int arg)
{
	r->reason = why;
	r->arg = arg;
}

/* Walk the model CLI's arguments; sets r->reason (SG_OK if tool-free). */
static void analyse_cli(const struct sg_model_cli *cli, char *const argv[], int argc,
			struct sg_ruling *r)
{
	bool tools_seen = false, operand_seen = false;
	int i = 1;

	while (i < argc) {
		const char *a = argv[i];
		const char *eq;
		char name[256];
		size_t n;

		if (strcmp(a, "--") == 0) {
			/*
			 * Everything after "--" is a prompt.  The first operand
			 * may still select a subcommand, so check that one.
			 */
			if (!operand_seen && i + 1 < argc &&
			    sg_words_contains(&cli->subcommands, argv[i + 1]))
				return refuse(r, SG_SUBCOMMAND, i + 1);
			break;
		}
		if (!starts_option(a)) {
			if (!operand_seen && sg_words_contains(&cli->subcommands, a))
				return refuse(r, SG_SUBCOMMAND, i);
			operand_seen = true;
			i++;
			continue;
		}

		/* "--name=value" carries its value; "-x" and "--name" do not. */
		eq = (a[1] == '-') ? strchr(a, '=') : NULL;
		n = eq ? (size_t)(eq - a) : strlen(a);
		if (n >= sizeof(name))
			return refuse(r, SG_UNKNOWN_OPTION, i);
		memcpy(name, a, n);
		name[n] = '\0';

		if (sg_words_contains(&cli->tool_flags, name))
			return refuse(r, SG_TOOL_FLAG, i);

		if (sg_words_contains(&cli->tools_option, name)) {
			/*
			 * The tools option is variadic: it takes every following
			 * argument up to the next option.  Whether repeated uses
			 * accumulate or the last one wins, any non-empty value
			 * anywhere grants a tool, so every value must be empty.
			 */
			tools_seen = true;
			if (eq) {
				if (eq[1] != '\0')
					return refuse(r, SG_TOOLS_NOT_EMPTY, i);
				i++;
				continue;
			}
			if (i + 1 >= argc || starts_option(argv[i + 1]))
				return refuse(r, SG_MISSING_VALUE, i);
			for (i++; i < argc && !starts_option(argv[i]); i++)
				if (argv[i][0] != '\0')
					return refuse(r, SG_TOOLS_NOT_EMPTY, i);
			continue;
		}

		if (sg_words_contains(&cli->flag_options, name)) {
			if (eq)
				return refuse(r, SG_FLAG_WITH_VALUE, i);
			i++;
			continue;
		}
		if (sg_words_contains(&cli->value_options, name)) {
			if (eq) {
				i++;
				continue;
			}
			/* A required value is taken even if it starts with '-'. */
			if (i + 1 >= argc)
				return refuse(r, SG_MISSING_VALUE, i);
			i += 2;
			continue;
		}
		if (sg_words_contains(&cli->optional_value_options, name)) {
			i++;
			if (!eq && i < argc && !starts_option(argv[i]) && strcmp(argv[i], "--") != 0)
				i++;
			continue;
		}
		if (sg_words_contains(&cli->variadic_options, name)) {
			i++;
			if (!eq && (i >= argc || starts_option(argv[i])))
				return refuse(r, SG_MISSING_VALUE, i - 1);
			while (i < argc && !starts_option(argv[i]))
				i++;
			continue;
		}
		return refuse(r, SG_UNKNOWN_OPTION, i);
	}
	if (!tools_seen)
		return refuse(r, SG_NO_TOOLS_OPTION, -1);
	r->reason = SG_OK;
	r->arg = -1;
}

void sg_ruling_decide(const struct sg_policy *p, char *const argv[],
		      char *const envp[], struct sg_ruling *out)
{
	const char *scrub = sg_scrub_set(p, envp);
	const char *cred = sg_credential_held(p, envp);
	int argc = 0;

	memset(out, 0, sizeof(*out));
	out->arg = -1;
	while (argv && argv[argc])
		argc++;
	if (argc == 0 || argv[0][0] == '\0') {
		out->reason = SG_NO_COMMAND;
		out->rule = scrub ? 1 : cred ? 2 : 0;
		out->variable = scrub ? scrub : cred;
		return;
	}
	if (!scrub && !cred)
		return; /* neither ruling applies: the write filter still does */

	out->rule = scrub ? 1 : 2;
	out->variable = scrub ? scrub : cred;
	out->other = scrub ? cred : NULL;

	/*
	 * Only the CLI itself can be verified.  A shell, env, npx, a script
	 * or any other wrapper decides at run time what it executes.
	 */
	if (!sg_words_contains(&p->cli.names, base_name(argv[0]))) {
		out->reason = SG_NOT_MODEL_CLI;
		out->arg = 0;
		return;
	}
	analyse_cli(&p->cli, argv, argc, out);
}

/* ---- explanations ---------------------------------------------------- */

const char *sg_quote_arg(const char *arg, size_t max, char *buf, size_t len)
{
	size_t n = strlen(arg), o = 0, shown = n < max ? n : max;
	bool quote = n == 0;

	for (size_t i = 0; i < shown && !quote; i++) {
		unsigned char c = (unsigned char)arg[i];
		if (!(c == '-' || c == '_' || c == '.' || c == '/' || c == '=' || c == ',' ||
		      c == ':' || c == '+' || c == '@' || (c >= '0' && c <= '9') ||
		      (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			quote = true;
	}
#define PUT(...)                                                                   \
	do {                                                                       \
		int k_ = snprintf(buf + o, o < len ? len - o : 0, __VA_ARGS__);    \
		if (k_ > 0)                                                        \
			o += (size_t)k_;                                           \
	} while (0)
	if (len)
		buf[0] = '\0';
	if (quote)
		PUT("'");
	for (size_t i = 0; i < shown; i++) {
		unsigned char c = (unsigned char)arg[i];
		if (c == '\'')
			PUT("'\\''");
		else if (c < 0x20 || c >= 0x7f)
			PUT("\\x%02x", c);
		else
			PUT("%c", c);
	}
	if (quote)
		PUT("'");
	if (shown < n)
		PUT("... (%zu more bytes)", n - shown);
#undef PUT
	return buf;
}

/*
 * A run of SG_CREDENTIAL_RUN bytes, not only the whole value: an argument
 * may hold a key cut short, or one of the pieces it was split into, and
 * every such piece printed is part of the secret in a CI log.  Shorter
 * runs are left alone: three bytes tell no more than a guess, and they
 * match ordinary words.  Matching too much only hides an argument.
 */
static bool holds_part_of(const char *arg, const char *value)
{
	size_t n = strlen(value), run = n < SG_CREDENTIAL_RUN ? n : SG_CREDENTIAL_RUN;
	size_t alen = strlen(arg);

	for (size_t j = 0; j + run <= n; j++)
		if (memmem(arg, alen, value + j, run))
			return true;
	return false;
}

const char *sg_credential_in(const struct sg_policy *p, char *const envp[], const char *arg)
{
	for (size_t i = 0; i < p->credentials.n; i++) {
		size_t n = strlen(p->credentials.v[i]);

		/* Every occurrence: a duplicate in envp must not hide a value. */
		for (char *const *e = envp; e && *e; e++)
			if (strncmp(*e, p->credentials.v[i], n) == 0 && (*e)[n] == '=' &&
			    (*e)[n + 1] != '\0' && holds_part_of(arg, *e + n + 1))
				return p->credentials.v[i];
	}
	return NULL;
}

static const char *show_arg(const struct sg_policy *p, char *const envp[],
			    const char *arg, char *buf, size_t len)
{
	const char *var = sg_credential_in(p, envp, arg);

	if (var) {
		snprintf(buf, len, "(an argument holding the value of %s or part of it, not shown)",
			 var);
		return buf;
	}
	return sg_quote_arg(arg, 80, buf, len);
}

int sg_ruling_explain(const struct sg_policy *p, const struct sg_ruling *r,
		      char *const argv[], char *const envp[], char *buf, size_t len)
{
	const char *cli = p->cli.names.n ? p->cli.names.v[0] : "the model CLI";
	const char *tools = p->cli.tools_option.n ? p->cli.tools_option.v[0] : "--tools";
	char why[160], arg[320], unset[160];

	if (r->reason == SG_NO_COMMAND)
		return snprintf(buf, len, "no command to run (usage: stepguard [OPTIONS] -- COMMAND [ARG]...)");
	if (r->reason == SG_OK) {
		if (r->rule == 0)
			return snprintf(buf, len, "allowed: neither the scrub nor a credential is set");
		return snprintf(buf, len, "allowed: %s runs with %s \"\" (ruling %d, %s is set)",
				cli, tools, r->rule, r->variable);
	}

	if (r->rule == 1)
		snprintf(why, sizeof(why),
			 "ruling 1 (no scrub without %s \"\"): %s is set", tools, r->variable);
	else
		snprintf(why, sizeof(why),
			 "ruling 2 (no tools while holding the model credential): %s is set",
			 r->variable);
	if (r->other)
		snprintf(unset, sizeof(unset), "unset %s and %s", r->variable, r->other);
	else
		snprintf(unset, sizeof(unset), "unset %s", r->variable);
	if (r->arg >= 0 && argv && argv[r->arg])
		show_arg(p, envp, argv[r->arg], arg, sizeof(arg));
	else
		snprintf(arg, sizeof(arg), "?");

	switch (r->reason) {
	case SG_NOT_MODEL_CLI:
		return snprintf(buf, len,
				"refused by %s, and the command %s is not the model CLI (%s); a wrapper cannot be verified.\n"
				"fix: run %s itself with %s \"\", or %s for this step",
				why, arg, cli, cli, tools, unset);
	case SG_NO_TOOLS_OPTION:
		return snprintf(buf, len,
				"refused by %s, and %s has no %s \"\"; without it the CLI has its default tools.\n"
				"fix: add %s \"\" to the command, or %s for this step",
				why, cli, tools, tools, unset);
	case SG_TOOLS_NOT_EMPTY:
		return snprintf(buf, len,
				"refused by %s, and %s grants the tool %s (every %s value must be empty).\n"
				"fix: use %s \"\" (put prompts after \"--\" or before %s), or %s",
				why, tools, arg, tools, tools, tools, unset);
	case SG_TOOL_FLAG:
		return snprintf(buf, len,
				"refused by %s, and the option %s grants tools.\n"
				"fix: remove %s and keep %s \"\", or %s",
				why, arg, arg, tools, unset);
	case SG_UNKNOWN_OPTION:
		return snprintf(buf, len,
				"refused by %s, and the option %s is not in the policy's [model-cli] option lists, so stepguard cannot tell whether it takes a value or grants tools.\n"
				"fix: remove it, or list it in [model-cli] flag-options or value-options",
				why, arg);
	case SG_MISSING_VALUE:
		return snprintf(buf, len,
				"refused by %s, and the option %s has no value.\n"
				"fix: give it a value (%s \"\" for the tools)",
				why, arg, tools);
	case SG_FLAG_WITH_VALUE:
		return snprintf(buf, len,
				"refused by %s, and the option %s takes no value.\n"
				"fix: drop the \"=...\" part",
				why, arg);
	case SG_SUBCOMMAND:
		return snprintf(buf, len,
				"refused by %s, and %s is a subcommand of %s, not a prompt run with %s \"\".\n"
				"fix: run the subcommand in a step without the scrub and the credential",
				why, arg, cli, tools);
	case SG_OK:
	case SG_NO_COMMAND:
	default:
		return snprintf(buf, len, "refused by %s", why);
	}
}
