/* SPDX-License-Identifier: MIT */
/*
 * seccomp_internal.h — what seccomp.c (the filter's shape, its export and
 * its load) asks of seccomp_deny.c (the named deny list).  Not for the
 * rest of confine/ or the launcher: they use confine/seccomp.h.
 */
#ifndef SG_SECCOMP_INTERNAL_H
#define SG_SECCOMP_INTERNAL_H

#include <seccomp.h>
#include <stdint.h>

#include "confine/seccomp.h"

/*
 * Check O's names against the list and libseccomp, before anything is
 * built: 0, or sg_seccomp_build()'s errors, with *BAD_NAME as it says.
 */
int sg_seccomp_check_opts(const struct sg_seccomp_opts *o, const char **bad_name);

/* The default deny list's rules, but for the names O allows. */
int sg_seccomp_add_default_deny(scmp_filter_ctx ctx, const struct sg_seccomp_opts *o);

/* O's extra names, refused with EPERM (those already on the list keep theirs). */
int sg_seccomp_add_policy_deny(scmp_filter_ctx ctx, const struct sg_seccomp_opts *o);

/*
 * The generated tables ($(BUILD)/gen/seccomp_prebuilt_progs.c, from
 * confine/seccomp_gen.c), read by seccomp_prebuilt.c only.  A variant the
 * generator could not make (its build host lacked user notification) has
 * no instructions.
 */
struct sg_seccomp_prebuilt {
	const struct sock_filter *insns;
	unsigned short len;
};
extern const struct sg_seccomp_prebuilt sg_seccomp_prebuilt_progs[SG_SECCOMP_N_VARIANTS];
extern const unsigned sg_seccomp_prebuilt_lib[3]; /* libseccomp major, minor, micro */
extern const uint32_t sg_seccomp_prebuilt_arch;   /* its native architecture token */

#endif /* SG_SECCOMP_INTERNAL_H */
