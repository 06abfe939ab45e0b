/* SPDX-License-Identifier: MIT */
/*
 * policy_load.h — find, check and read the policy files.
 *
 * Layers, each merged over the one before: the compiled-in defaults (the
 * shipped rules.d), the main file, then the drop-ins in lexical order.
 * The compiled-in layer always comes first, so a policy file that only
 * adds a writable root cannot switch the rulings off by omission.
 */
#ifndef STEPGUARD_POLICY_LOAD_H
#define STEPGUARD_POLICY_LOAD_H

#include <stdbool.h>
#include <sys/types.h>

#include "launcher/options.h"
#include "policy/policy.h"

#define SG_DEFAULT_POLICY "/etc/stepguard/stepguard.ini"
#define SG_DEFAULT_RULES_DIR "/etc/stepguard/rules.d"
#define SG_POLICY_MAX_SIZE (1 << 20)

/* What was read, for --check. */
struct sg_source {
	char *name;
	const char *state; /* "read", "built-in", "absent (using the built-in defaults)" */
};

struct sg_sources {
	struct sg_source *v;
	size_t n;
};

/*
 * Load the policy the options select into P (initialised by the caller).
 * Returns 0 or -errno with ERR filled (file, line, message with the fix).
 */
int sg_policy_load(const struct sg_options *o, char *const envp[], struct sg_policy *p,
		   struct sg_sources *srcs, struct sg_error *err);
void sg_sources_free(struct sg_sources *s);

/* May a file or directory with this owner and mode configure stepguard? */
int sg_policy_owner_ok(uid_t owner, mode_t mode, uid_t uid, const char *sudo_uid,
		       const char **why);


#endif
