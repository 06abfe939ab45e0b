/* SPDX-License-Identifier: MIT */
/*
 * policy.h — the stepguard policy: INI text in, struct sg_policy out.
 *
 * This module is pure: it parses text handed to it (the launcher reads the
 * files and checks their ownership) and makes no system calls, so every
 * case can be tested from strings without root.  Functions return 0 or
 * -errno; on a policy error they fill a struct sg_error naming the file
 * and line, and only the launcher prints it.
 */
#ifndef STEPGUARD_POLICY_H
#define STEPGUARD_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/error.h"

/*
 * inih (as packaged by Debian) reads lines of at most 199 bytes and
 * silently splits longer ones; we refuse them before inih sees them.
 */
#define SG_POLICY_MAX_LINE 198

/* Descriptors a step may inherit beyond 0-2 ([stepguard] keep-fds). */
#define SG_POLICY_MAX_KEEP_FDS 16

enum sg_mode { SG_MODE_UNSET = 0, SG_MODE_ENFORCE, SG_MODE_AUDIT };

enum sg_filter {
	SG_FILTER_UNSET = 0,
	SG_FILTER_AUTO,
	SG_FILTER_BPF_LSM,
	SG_FILTER_BPF_FMOD,
	SG_FILTER_LANDLOCK,
};

enum sg_tristate { SG_UNSET = 0, SG_NO, SG_YES };

/* Where a value came from: "rules.d/10-defaults.ini", line 7. */
/* A whitespace-separated list value, e.g. "names = claude claude-code". */
struct sg_words {
	char **v;
	size_t n;
	bool set;
	struct sg_origin origin;
};

struct sg_string {
	char *s;
	bool set;
	struct sg_origin origin;
};

/* One labelled writable root: "[writes] cache = ${HOME}/.cache/x". */
struct sg_write {
	char *label;
	char *path; /* unexpanded; a leading '?' means "skip if missing" */
	struct sg_origin origin;
	const char *step; /* the [step:NAME] it was given in (the step's name), or NULL: [writes] */
};

struct sg_writes {
	struct sg_write *v;
	size_t n;
};

/* The settings a [step:NAME] section may override. */
struct sg_settings {
	enum sg_mode mode;
	struct sg_origin mode_origin;
	enum sg_filter filter;
	struct sg_origin filter_origin;
	struct sg_string log; /* empty string: no log */
	/*
	 * The step's private temporary directory (launcher/tmpdir.c): made
	 * before the step, a writable root, TMPDIR and its kin point at it,
	 * removed at the end unless kept.  tmpdir_base: where it is made
	 * (empty: $RUNNER_TEMP when set, else /tmp), unexpanded.
	 */
	enum sg_tristate tmpdir;
	struct sg_origin tmpdir_origin;
	enum sg_tristate keep_tmpdir;
	struct sg_origin keep_tmpdir_origin;
	struct sg_string tmpdir_base;
};

struct sg_step {
	char *name;
	struct sg_origin origin; /* the first [step:NAME] header seen */
	struct sg_settings set;
	struct sg_writes writes; /* write.LABEL keys; an empty path removes */
};

struct sg_model_cli {
	struct sg_words names;        /* argv[0] basenames */
	struct sg_words tools_option; /* "--tools": must be given, empty */
	struct sg_words tool_flags;   /* refused in any form */
	struct sg_words flag_options; /* take no value */
	struct sg_words value_options;          /* take the next argument */
	struct sg_words optional_value_options; /* next argument unless it starts with '-' */
	struct sg_words variadic_options;       /* following arguments up to the next '-' */
	struct sg_words subcommands;  /* first operand that is not a prompt */
	struct sg_words ruling_options; /* added to the CLI's command line in a ruling step */
	struct sg_words tool_variables; /* environment variables that add tools: refused in a ruling step */
	struct sg_words exec_allow;   /* what a ruling step may execute besides the CLI */
};

struct sg_policy {
	char **files; /* names of the sources, in the order read */
	size_t n_files;

	struct sg_settings base;
	struct sg_model_cli cli;
	struct sg_words credentials;
	struct sg_words scrub;
	struct sg_writes writes;
	struct sg_words accept_gaps; /* [stepguard] accept-gaps, as written */
	unsigned accepted_gaps;      /* the same, typed (enum sg_gap) */
	struct sg_words keep_fds;    /* [stepguard] keep-fds, as written */
	int keep_fd_list[SG_POLICY_MAX_KEEP_FDS]; /* the same, typed: sorted, unique */
	size_t n_keep_fd_list;
	/*
	 * [stepguard] keep-capabilities, as written, and the set a root step
	 * runs without: sg_caps_default_dropped() less what it keeps.
	 */
	struct sg_words keep_caps;
	uint64_t dropped_caps;
	/* [stepguard] core-dumps: yes lets the step dump core (RLIMIT_CORE kept) */
	enum sg_tristate core_dumps;
	struct sg_origin core_dumps_origin;
	/*
	 * [sockets] allow: pathname UNIX sockets a step may connect or send
	 * to outside its roots, unexpanded; a leading '?' skips a missing one.
	 */
	struct sg_words sockets;
	struct sg_words seccomp_deny;
	struct sg_words seccomp_allow;
	enum sg_tristate user_namespaces;
	struct sg_origin user_namespaces_origin;

	struct sg_step *steps;
	size_t n_steps;
};

/*
 * Gaps a backend may leave, the words of [stepguard] accept-gaps: the
 * policy owns their names (policy/gaps.c), the backends report them.
 */
enum sg_gap {
	SG_GAP_ATTRIBUTES = 1 << 0, /* chmod, chown, utimes, xattr */
	SG_GAP_TRUNCATE = 1 << 1,   /* truncate(2), O_TRUNC on read-only opens */
	SG_GAP_IOCTL_DEV = 1 << 2,  /* ioctl on device files */
	SG_GAP_SCOPING = 1 << 3,    /* signals and abstract sockets out of the step */
	SG_GAP_ABSTRACT = 1 << 4,   /* eBPF: abstract sockets out of the step */
	SG_GAP_EXEC = 1 << 5,       /* eBPF without the exec hook: a ruling step's exec allow-list */
	/* Reaching other processes (issue 16): reported, never refusing the step. */
	SG_GAP_PROC = 1 << 6,       /* other processes' /proc files (cmdline) */
	SG_GAP_UNIX = 1 << 7,       /* pathname UNIX sockets outside the roots */
	SG_GAP_SCHED = 1 << 8,      /* scheduling and limits of the user's other processes */
	SG_GAP_IPC = 1 << 9,        /* System V IPC of the user's other processes */
	SG_GAP_PTYS = 1 << 10,      /* the user's other terminals (/dev/pts a root) */
	SG_GAP_UNIX_SENDMSG = 1 << 11, /* the supervisor: datagrams by sendmsg to pathname sockets */
	SG_GAP_CORE_HELPER = 1 << 12,  /* a hard core limit of 0, not raisable, and a pipe core_pattern */
};

/*
 * Capabilities (caps.c, pure): the set a root step runs without, a name's
 * number (0; -ENOENT for a capability stepguard does not drop, -EINVAL
 * for no capability), names and reasons by number, the highest number
 * known, and a set as "SYS_ADMIN PERFMON ..." ("none" when empty).
 */
uint64_t sg_caps_default_dropped(void);
int sg_cap_parse(const char *name, unsigned *nr);
const char *sg_cap_name(unsigned nr);
const char *sg_cap_why(unsigned nr);
unsigned sg_cap_last(void);
const char *sg_caps_str(uint64_t set, char *buf, size_t len);

/* "attributes (chmod, chown, ...), truncate (truncation)" for a gap mask; "none" for 0. */
const char *sg_gaps_str(unsigned gaps, char *buf, size_t len);
int sg_gap_parse(const char *word, unsigned *out);
/* The I-th gap's name and bit, in the order of the log (NULL and 0 past the last). */
const char *sg_gap_name(unsigned i);
unsigned sg_gap_bit(unsigned i);

/* A syscall-name validator, so policy/ need not link libseccomp itself. */
typedef bool (*sg_syscall_known_fn)(const char *name);

void sg_policy_init(struct sg_policy *p);
void sg_policy_free(struct sg_policy *p);

/*
 * Parse one source and merge it over what P already holds: a key given
 * again in a later source replaces the earlier value; within one source a
 * repeated key is an error.  NAME is used in errors and origins.  TEXT
 * need not be NUL-terminated; LEN is its size.  KNOWN (may be NULL)
 * validates [seccomp] names.  Returns 0, -EINVAL with ERR filled, or
 * -ENOMEM.
 */
int sg_policy_parse(struct sg_policy *p, const char *name, const char *text,
		    size_t len, sg_syscall_known_fn known, struct sg_error *err);

/*
 * Checks that need the whole merged policy (a model CLI is named, each
 * ruling option is one the option lists parse, ...).
 * Returns 0 or -EINVAL with ERR filled.
 */
int sg_policy_validate(const struct sg_policy *p, struct sg_error *err);

/* The step section for NAME, or NULL when the policy has none. */
const struct sg_step *sg_policy_step(const struct sg_policy *p, const char *name);

/* Base settings with the step's overrides applied (STEP may be NULL). */
void sg_policy_effective(const struct sg_policy *p, const struct sg_step *step,
			 struct sg_settings *out);

/*
 * The writable roots of a step: [writes] with the step's write.LABEL
 * entries merged over it by label (an empty path removes a label).
 * Fills an array of pointers into P; returns the count or -ENOMEM.
 */
int sg_policy_step_writes(const struct sg_policy *p, const struct sg_step *step,
			  const struct sg_write ***out);

/*
 * Write the merged policy as INI that parses back to the same policy.
 * With ORIGINS, each key is preceded by a "# file:line" comment.
 */
void sg_policy_dump(const struct sg_policy *p, FILE *f, bool origins);

const char *sg_mode_name(enum sg_mode m);
const char *sg_filter_name(enum sg_filter f);
int sg_mode_parse(const char *s, enum sg_mode *out);
int sg_filter_parse(const char *s, enum sg_filter *out);

bool sg_words_contains(const struct sg_words *w, const char *s);

#endif
