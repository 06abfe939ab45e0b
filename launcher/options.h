/* SPDX-License-Identifier: MIT */
/* options.h — stepguard's command line and environment, parsed. */
#ifndef STEPGUARD_OPTIONS_H
#define STEPGUARD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/opterr.h" /* sg_option_error(), shared with stepguard audit */
#include "policy/policy.h"

struct sg_options {
	const char *policy;    /* -p/--policy or STEPGUARD_POLICY; NULL: default */
	bool policy_explicit;  /* given by flag or environment */
	const char *rules_dir; /* --rules-dir; NULL: default (see policy_load.c) */
	const char *step;      /* -s/--step or STEPGUARD_STEP */
	const char *workdir;   /* -w/--workdir; NULL: the current directory */
	const char **allow_write; /* --allow-write, repeatable */
	size_t n_allow_write;
	enum sg_filter filter; /* SG_FILTER_UNSET: from the policy */
	enum sg_mode mode;     /* SG_MODE_UNSET: from the policy */
	const char *log;       /* --log or STEPGUARD_LOG; NULL: from the policy */
	const char *user;      /* --user NAME|UID; NULL: see user.h */
	bool check;
	bool unload;           /* --unload: remove this build's pinned eBPF filter */
	bool force;            /* --force: --unload even while steps run */
	bool self_test;
	const char *model_cli; /* --model-cli PATH: --self-test also runs this CLI */
	bool json;
	int verbose;           /* -v count */
	bool quiet;
	bool version;
	bool help;
	char **argv;           /* the command, NULL-terminated; argc may be 0 */
	int argc;
};

/*
 * Parse ARGV (argv[0] is stepguard) and the STEPGUARD_* variables of
 * ENVP.  Returns 0, or -EINVAL (-ENOMEM) with the message for the user in
 * ERR (about no file: the command line).
 * O->allow_write is allocated; free it with sg_options_free.
 */
int sg_options_parse(int argc, char **argv, char *const envp[], struct sg_options *o,
		     struct sg_error *err);
void sg_options_free(struct sg_options *o);

struct option;

/* The text of --help. */
extern const char sg_usage[];

#endif
