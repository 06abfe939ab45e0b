/* SPDX-License-Identifier: MIT */
/* internal.h — shared between the files of policy/; not an interface. */
#ifndef STEPGUARD_POLICY_INTERNAL_H
#define STEPGUARD_POLICY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"

#define SECTION_MAX 128
/*
 * inih's MAX_SECTION (ini.c, not in ini.h): it cuts a longer section
 * name to 49 bytes and hands keys to the handler under the cut name, so
 * the scan refuses such a header instead.
 */
#define SG_INIH_MAX_SECTION 50

enum section_kind {
	SEC_NONE = 0,
	SEC_STEPGUARD,
	SEC_MODEL_CLI,
	SEC_CREDENTIALS,
	SEC_SCRUB,
	SEC_WRITES,
	SEC_SECCOMP,
	SEC_SOCKETS,
	SEC_STEP,
};

enum word_kind { W_OPTION, W_OPTION_ARG, W_VARIABLE, W_BASENAME, W_SYSCALL, W_WORD, W_GAP, W_FD, W_CAP, W_SOCKET };

/* A list-valued key and where it lives in struct sg_policy. */
struct words_key {
	enum section_kind sec;
	const char *key;
	enum word_kind kind;
	size_t off;
};

/* The list keys, in the order the dump writes them (words.c). */
extern const struct words_key sg__words_keys[];
extern const size_t sg__n_words_keys;

/* Is W a word of KIND?  If not, *WHY says what one is (words.c). */
bool sg__valid_word(enum word_kind kind, const char *w, sg_syscall_known_fn known,
		    const char **why);
/* accepted_gaps and keep_fd_list from the merged words (words.c). */
void sg__derive_typed(struct sg_policy *p);
/* Free a list's words and mark it unset (policy.c). */
void sg__words_clear(struct sg_words *w);

struct scan {
	unsigned *key_lines; /* line of the k-th key line */
	size_t n_keys;
	struct {
		char name[SECTION_MAX];
		unsigned line;
	} *steps; /* [step:NAME] headers, so empty sections exist too */
	size_t n_steps;
};

bool sg__is_blank(char c); /* scan.c */
/* words.c */
bool sg__is_word_char(char c);
bool sg__valid_name(const char *s);
enum section_kind sg__section_kind(const char *s, const char **step);

/* The line scan: see scan.c.  Returns 0, -EINVAL (ERR filled) or -ENOMEM. */
int sg__scan_text(const char *file, const char *text, size_t len, struct scan *sc,
		  struct sg_error *err);

#endif
