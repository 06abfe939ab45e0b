/* SPDX-License-Identifier: MIT */
/*
 * ruling.h — the two rulings, decided from the command line and the
 * environment before anything runs:
 *
 *   1. a step that sets the scrub runs only the model CLI with --tools "";
 *   2. a step that holds the model credential runs only the model CLI
 *      with --tools "".
 *
 * Pure: argv and envp in, a verdict out.  The explanation never contains
 * a credential's value.
 *
 * What the command line cannot show is not judged here: the files the CLI
 * reads ([model-cli] ruling-options keeps those to the runner's own, see
 * sg_ruling_argv()) and what it executes (the kernel's exec allow-list,
 * from [model-cli] exec-allow).  The environment is judged: a
 * [model-cli] tool-variables entry that is set refuses the step.
 */
#ifndef STEPGUARD_RULING_H
#define STEPGUARD_RULING_H

#include <stddef.h>

#include "policy/policy.h"

enum sg_reason {
	SG_OK = 0,              /* runs: no ruling applies, or the CLI is tool-free */
	SG_NO_COMMAND,          /* nothing to run */
	SG_NOT_MODEL_CLI,       /* a wrapper or another program */
	SG_NO_TOOLS_OPTION,     /* the CLI without --tools "" */
	SG_TOOLS_NOT_EMPTY,     /* --tools with a tool */
	SG_TOOL_FLAG,           /* an option that grants tools */
	SG_UNKNOWN_OPTION,      /* an option stepguard cannot classify */
	SG_MISSING_VALUE,       /* an option without its value */
	SG_FLAG_WITH_VALUE,     /* --flag=value for an option without value */
	SG_SUBCOMMAND,          /* "claude mcp ...": not a prompt */
	SG_TOOL_VARIABLE,       /* a [model-cli] tool-variables entry is set */
	SG_RULING_OPTION,       /* a ruling option given with another value */
};

struct sg_ruling {
	int rule;              /* 0: neither applies; 1 or 2 */
	enum sg_reason reason; /* SG_OK: the step may run */
	const char *variable;  /* the variable that triggered RULE (in the policy) */
	const char *other;     /* the other ruling's variable, if it applies too */
	int arg;               /* index in argv of the offending argument, or -1 */
	const char *detail;    /* SG_TOOL_VARIABLE: the variable; SG_RULING_OPTION:
				* the ruling option (both in the policy); else NULL */
};

/* Decide.  Never fails: an unclassifiable command line is a refusal. */
void sg_ruling_decide(const struct sg_policy *p, char *const argv[],
		      char *const envp[], struct sg_ruling *out);

/*
 * The command line to execute for a decided step: ARGV with each
 * [model-cli] ruling-options entry added right after argv[0], unless the
 * command already gives that option with that value (--opt=value or
 * --opt value, as the option lists parse it).  Only when a ruling applies
 * and the step may run (R->rule != 0, R->reason == SG_OK); otherwise, and
 * for an empty ARGV, *OUT is a copy of ARGV.  *OUT is a new
 * NULL-terminated array (free() it; the strings are shared with ARGV and
 * the policy, not copied).  Returns 0 or -ENOMEM (*OUT is then NULL).
 *
 * Why add rather than require: the options keep the CLI to the runner's
 * own settings and to the MCP servers the command line names, which is
 * what a ruling step needs whatever the workflow wrote; a command that
 * already gives them is left as it is.
 */
int sg_ruling_argv(const struct sg_policy *p, const struct sg_ruling *r, char *const argv[],
		   char ***out);

/*
 * One or two lines for a person: the ruling, the variable, the offending
 * argument and the fix.  An argument that holds any part of a held
 * credential's value (sg_credential_in()) is not shown; the variable is
 * named instead.  Returns the needed length (as snprintf).
 */
int sg_ruling_explain(const struct sg_policy *p, const struct sg_ruling *r,
		      char *const argv[], char *const envp[], char *buf, size_t len);

/*
 * Quote ARG for a message: shell-style single quotes when needed, bytes
 * outside printable ASCII as \xNN, at most MAX input bytes (the rest is
 * counted, never dropped silently).  Returns BUF.
 */
const char *sg_quote_arg(const char *arg, size_t max, char *buf, size_t len);

/*
 * The held credential variable (in P's [credentials], any occurrence in
 * ENVP) whose value ARG holds all or part of, or NULL.  Part: a run of
 * SG_CREDENTIAL_RUN bytes or more of the value, anywhere in ARG.  A value
 * shorter than that (a descriptor number such as "3" in
 * CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR) counts only when ARG is exactly
 * the value: it is no secret, and as a run it would hide every argument
 * that contains the digit.  Whatever shows an argument (an
 * explanation, the log's command) asks this first and names the variable
 * instead: a key pasted into argv, cut short or split, must not reach a
 * CI log.
 */
#define SG_CREDENTIAL_RUN 4
const char *sg_credential_in(const struct sg_policy *p, char *const envp[], const char *arg);
/*
 * As sg_credential_in(), on ARG and on SHOWN, the form of ARG that is
 * printed or logged (quoted, escaped): an escape next to ARG's own bytes
 * can spell a run of the value that ARG does not hold, and the guarantee
 * is about the text a CI log keeps.
 */
const char *sg_credential_shown(const struct sg_policy *p, char *const envp[],
				const char *arg, const char *shown);

/* Is the scrub "set" (present, not empty, not "0"), held (present, not empty)? */
const char *sg_scrub_set(const struct sg_policy *p, char *const envp[]);
const char *sg_credential_held(const struct sg_policy *p, char *const envp[]);

#endif
