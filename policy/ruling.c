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
 *
 * The same walk finds the [model-cli] ruling-options a command already
 * gives (sg_ruling_argv() adds the others) and refuses one given with
 * another value; the environment is judged by [model-cli] tool-variables.
 */
#include "policy/ruling.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * The options that put the CLI in print mode, where it registers no
 * subcommand: with 2.1.332, "claude -p --tools '' -- doctor" sends
 * "doctor" as the prompt, while "claude --tools '' -- doctor" runs the
 * doctor and "claude --tools '' -- mcp list" lists MCP servers (commander
 * dispatches on the first operand, "--" or not).  They count only where
 * the walk reads them as flag options, before "--".
 */
static const char *const print_options[] = { "-p", "--print" };

static bool is_print_option(const char *name)
{
	for (size_t k = 0; k < sizeof(print_options) / sizeof(print_options[0]); k++)
		if (strcmp(name, print_options[k]) == 0)
			return true;
	return false;
}

/* The index of the ruling option named NAME ("--x" of "--x=v" or of "--x"), or -1. */
static int ruling_option(const struct sg_model_cli *cli, const char *name)
{
	size_t len = strlen(name);

	for (size_t k = 0; k < cli->ruling_options.n; k++) {
		const char *ro = cli->ruling_options.v[k];

		if (strncmp(ro, name, len) == 0 && (ro[len] == '\0' || ro[len] == '='))
			return (int)k;
	}
	return -1;
}

/*
 * Does an occurrence of a ruling option say what the ruling option says?
 * Its value is EQV (from "--x=v") or the N words the option lists made it
 * take from ARGV[FIRST]; a ruling option without "=" has no value.
 * Anything else, an empty value or two values included, is another value.
 */
static bool same_value(const char *ro, const char *eqv, char *const argv[], int first, int n)
{
	const char *want = strchr(ro, '=');

	if (!want)
		return !eqv && n == 0;
	want++;
	if (eqv)
		return strcmp(eqv, want) == 0;
	return n == 1 && strcmp(argv[first], want) == 0;
}

/*
 * Walk the model CLI's arguments; sets r->reason (SG_OK if tool-free).
 * SEEN (may be NULL) has one entry per [model-cli] ruling-options word:
 * set when the command line already gives it with its value.
 */
static void analyse_cli(const struct sg_model_cli *cli, char *const argv[], int argc,
			struct sg_ruling *r, bool *seen)
{
	bool tools_seen = false, operand_seen = false, print_mode = false;
	int i = 1;

	while (i < argc) {
		const char *a = argv[i];
		const char *eq, *eqv;
		char name[256];
		size_t n;
		int first = i + 1, nvals = 0, ro;

		if (strcmp(a, "--") == 0) {
			/*
			 * Everything after "--" is a prompt, in print mode.
			 * Without it the first operand may still select a
			 * subcommand, so check that one.
			 */
			if (!print_mode && !operand_seen && i + 1 < argc &&
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
		eqv = eq ? eq + 1 : NULL;
		n = eq ? (size_t)(eq - a) : strlen(a);
		if (n >= sizeof(name))
			return refuse(r, SG_UNKNOWN_OPTION, i);
		memcpy(name, a, n);
		name[n] = '\0';

		if (sg_words_contains(&cli->tool_flags, name))
			return refuse(r, SG_TOOL_FLAG, i);
		/*
		 * Commander reads "-rID" as "-r ID" and "-cp" as "-c -p": a
		 * short tool flag with anything attached is that tool flag.
		 * Other such words stay unknown (stepguard does not unbundle).
		 */
		if (a[1] != '-' && a[2] != '\0') {
			const char short_name[3] = { a[0], a[1], '\0' };

			if (sg_words_contains(&cli->tool_flags, short_name))
				return refuse(r, SG_TOOL_FLAG, i);
		}

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

		/* How many of the following words the option takes. */
		if (sg_words_contains(&cli->flag_options, name)) {
			if (eq)
				return refuse(r, SG_FLAG_WITH_VALUE, i);
			print_mode = print_mode || is_print_option(name);
		} else if (sg_words_contains(&cli->value_options, name)) {
			/* A required value is taken even if it starts with '-'. */
			if (!eq && i + 1 >= argc)
				return refuse(r, SG_MISSING_VALUE, i);
			nvals = eq ? 0 : 1;
		} else if (sg_words_contains(&cli->optional_value_options, name)) {
			nvals = !eq && i + 1 < argc && !starts_option(argv[i + 1]) &&
				strcmp(argv[i + 1], "--") != 0;
		} else if (sg_words_contains(&cli->variadic_options, name)) {
			/*
			 * "--add-dir=x" takes only its own value: the CLI reads
			 * the words after it as operands ("--add-dir=x mcp list"
			 * lists MCP servers), so they are checked as operands.
			 */
			if (!eq && (i + 1 >= argc || starts_option(argv[i + 1])))
				return refuse(r, SG_MISSING_VALUE, i);
			while (!eq && first + nvals < argc && !starts_option(argv[first + nvals]))
				nvals++;
		} else {
			return refuse(r, SG_UNKNOWN_OPTION, i);
		}

		/*
		 * A ruling option given with another value would undo the
		 * one stepguard adds (commander keeps the last), so it is
		 * refused like a tool flag.
		 */
		ro = ruling_option(cli, name);
		if (ro >= 0) {
			if (!same_value(cli->ruling_options.v[ro], eqv, argv, first, nvals)) {
				r->detail = cli->ruling_options.v[ro];
				return refuse(r, SG_RULING_OPTION, i);
			}
			if (seen)
				seen[ro] = true;
		}
		i += 1 + nvals;
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
	/*
	 * A variable that loads plugins, settings, MCP servers or code into
	 * the CLI adds what --tools "" took away, and no argument shows it.
	 * Present and non-empty counts, any occurrence, as for credentials.
	 */
	out->detail = find_var(&p->cli.tool_variables, envp, nonempty);
	if (out->detail) {
		out->reason = SG_TOOL_VARIABLE;
		return;
	}
	analyse_cli(&p->cli, argv, argc, out, NULL);
}

int sg_ruling_argv(const struct sg_policy *p, const struct sg_ruling *r, char *const argv[],
		   char ***out)
{
	const struct sg_words *ro = &p->cli.ruling_options;
	bool *seen = NULL;
	size_t argc = 0, o = 0;
	char **v;

	*out = NULL;
	while (argv && argv[argc])
		argc++;
	/* A ruling step that runs: its command line is the CLI's, analysed. */
	if (argc > 0 && r->rule != 0 && r->reason == SG_OK && ro->n > 0) {
		struct sg_ruling again;

		seen = calloc(ro->n, sizeof(*seen));
		if (!seen)
			return -ENOMEM;
		memset(&again, 0, sizeof(again));
		analyse_cli(&p->cli, argv, (int)argc, &again, seen);
	}
	v = calloc(argc + (seen ? ro->n : 0) + 1, sizeof(*v));
	if (v) {
		if (argc > 0)
			v[o++] = argv[0];
		/*
		 * Right after argv[0]: before any word the CLI could read as
		 * a prompt, a subcommand or "--".
		 */
		for (size_t k = 0; seen && k < ro->n; k++)
			if (!seen[k])
				v[o++] = ro->v[k];
		for (size_t i = 1; i < argc; i++)
			v[o++] = argv[i];
		v[o] = NULL;
	}
	free(seen);
	*out = v;
	return v ? 0 : -ENOMEM;
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
	size_t n = strlen(value), run = SG_CREDENTIAL_RUN;
	size_t alen = strlen(arg);

	/*
	 * A value shorter than a run is no secret (a descriptor number such
	 * as "3" in CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR): only an argument
	 * that is the value itself is hidden, not every one holding a "3".
	 */
	if (n < run)
		return strcmp(arg, value) == 0;
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

const char *sg_credential_shown(const struct sg_policy *p, char *const envp[],
				const char *arg, const char *shown)
{
	const char *var = sg_credential_in(p, envp, arg);

	return var ? var : sg_credential_in(p, envp, shown);
}

static const char *show_arg(const struct sg_policy *p, char *const envp[],
			    const char *arg, char *buf, size_t len)
{
	const char *var;

	/*
	 * Quoted first, then judged on both forms: an escape's last hex
	 * digit next to the argument's own bytes (\x0e then "t~v") can make
	 * a run of the value that the argument alone does not hold.
	 */
	sg_quote_arg(arg, 80, buf, len);
	var = sg_credential_shown(p, envp, arg, buf);
	if (var)
		snprintf(buf, len, "(an argument holding the value of %s or part of it, not shown)",
			 var);
	return buf;
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
				"refused by %s, and the option %s is unknown to this stepguard's model of %s ([model-cli] option lists): an option nobody has classified may take a value or grant tools.\n"
				"fix: remove it; to find out what it does, read %s --help of your pinned version and the version stepguard's model was made for (stepguard.ini(5), [model-cli])",
				why, arg, cli, cli);
	case SG_TOOL_VARIABLE:
		return snprintf(buf, len,
				"refused by %s, and %s is set: it adds plugins, settings, MCP servers or code to %s that no argument shows ([model-cli] tool-variables).\n"
				"fix: unset %s for this step, or %s",
				why, r->detail ? r->detail : "?", cli, r->detail ? r->detail : "it", unset);
	case SG_RULING_OPTION:
		return snprintf(buf, len,
				"refused by %s, and %s gives another value than the ruling option %s, which stepguard adds to %s in a ruling step ([model-cli] ruling-options).\n"
				"fix: drop %s (stepguard adds %s), or %s",
				why, arg, r->detail ? r->detail : "?", cli, arg, r->detail ? r->detail : "it",
				unset);
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
