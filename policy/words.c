// SPDX-License-Identifier: MIT
/*
 * words.c — the policy's words: the names of sections, steps, modes and
 * filters, the table of list keys, what a word of each kind may be, and
 * the typed forms of accept-gaps, keep-fds and keep-capabilities.  Pure.
 */
#include "policy/policy.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/internal.h"

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
	if (strcmp(s, "sockets") == 0)
		return SEC_SOCKETS;
	if (strncmp(s, "step:", 5) == 0 && sg__valid_name(s + 5)) {
		*step = s + 5;
		return SEC_STEP;
	}
	return SEC_NONE;
}

/* ---- the words of list keys ------------------------------------------ */

#define P_OFF(field) offsetof(struct sg_policy, field)

const struct words_key sg__words_keys[] = {
	{ SEC_STEPGUARD, "accept-gaps", W_GAP, P_OFF(accept_gaps) },
	{ SEC_STEPGUARD, "keep-fds", W_FD, P_OFF(keep_fds) },
	{ SEC_STEPGUARD, "keep-capabilities", W_CAP, P_OFF(keep_caps) },
	{ SEC_MODEL_CLI, "names", W_BASENAME, P_OFF(cli.names) },
	{ SEC_MODEL_CLI, "tools-option", W_OPTION, P_OFF(cli.tools_option) },
	{ SEC_MODEL_CLI, "tool-flags", W_OPTION, P_OFF(cli.tool_flags) },
	{ SEC_MODEL_CLI, "flag-options", W_OPTION, P_OFF(cli.flag_options) },
	{ SEC_MODEL_CLI, "value-options", W_OPTION, P_OFF(cli.value_options) },
	{ SEC_MODEL_CLI, "optional-value-options", W_OPTION,
	  P_OFF(cli.optional_value_options) },
	{ SEC_MODEL_CLI, "variadic-options", W_OPTION, P_OFF(cli.variadic_options) },
	{ SEC_MODEL_CLI, "subcommands", W_WORD, P_OFF(cli.subcommands) },
	{ SEC_MODEL_CLI, "ruling-options", W_OPTION_ARG, P_OFF(cli.ruling_options) },
	{ SEC_MODEL_CLI, "tool-variables", W_VARIABLE, P_OFF(cli.tool_variables) },
	{ SEC_MODEL_CLI, "exec-allow", W_WORD, P_OFF(cli.exec_allow) },
	{ SEC_CREDENTIALS, "variables", W_VARIABLE, P_OFF(credentials) },
	{ SEC_SCRUB, "variables", W_VARIABLE, P_OFF(scrub) },
	{ SEC_SECCOMP, "deny", W_SYSCALL, P_OFF(seccomp_deny) },
	{ SEC_SECCOMP, "allow", W_SYSCALL, P_OFF(seccomp_allow) },
	{ SEC_SOCKETS, "allow", W_SOCKET, P_OFF(sockets) },
};
const size_t sg__n_words_keys = sizeof(sg__words_keys) / sizeof(sg__words_keys[0]);

/* "a gap name: attributes, truncate, ...", from the one table (gaps.c). */
static const char *gap_words(void)
{
	static char buf[512];
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
 * The typed forms of accept-gaps, keep-fds and keep-capabilities, from the
 * merged words: the
 * backends read these and never parse a word again.  Every word was
 * checked by sg__valid_word() when it was set.
 */
void sg__derive_typed(struct sg_policy *p)
{
	p->accepted_gaps = 0;
	for (size_t i = 0; i < p->accept_gaps.n; i++) {
		unsigned g;

		if (sg_gap_parse(p->accept_gaps.v[i], &g) == 0)
			p->accepted_gaps |= g;
	}
	/* Only names sg_cap_parse() accepts are in the list (sg__valid_word()). */
	p->dropped_caps = sg_caps_default_dropped();
	for (size_t i = 0; i < p->keep_caps.n; i++) {
		unsigned nr;

		if (sg_cap_parse(p->keep_caps.v[i], &nr) == 0)
			p->dropped_caps &= ~(UINT64_C(1) << nr);
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

/* Does the path have a ".." component? */
static bool has_dotdot(const char *p)
{
	for (const char *q = p; (q = strstr(q, "..")) != NULL; q += 2)
		if ((q == p || q[-1] == '/') && (q[2] == '/' || q[2] == '\0'))
			return true;
	return false;
}

bool sg__valid_word(enum word_kind kind, const char *w, sg_syscall_known_fn known,
		    const char **why)
{
	switch (kind) {
	case W_OPTION:
		*why = "an option starting with \"-\", without \"=\"";
		return w[0] == '-' && w[1] != '\0' && !strchr(w, '=') && strcmp(w, "--") != 0;
	case W_OPTION_ARG:
		*why = "an option starting with \"-\", with its value after \"=\" if it takes one";
		return w[0] == '-' && w[1] != '\0' && w[1] != '=' && strcmp(w, "--") != 0 &&
		       strncmp(w, "--=", 3) != 0;
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
	case W_CAP: {
		unsigned nr;
		int r = sg_cap_parse(w, &nr);

		*why = r == -ENOENT ? "a capability stepguard drops (this one is never dropped)"
				    : "a capability it drops, as capabilities(7) names it (CAP_SYS_NICE)";
		return r == 0;
	}
	case W_SOCKET: {
		const char *path = w[0] == '?' ? w + 1 : w;

		*why = "an absolute path without \"..\", \"?\" before it to skip a socket this machine lacks";
		return path[0] == '/' && !has_dotdot(path);
	}
	default:
		*why = "?";
		return false;
	}
}
