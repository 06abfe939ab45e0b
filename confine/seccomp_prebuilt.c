// SPDX-License-Identifier: MIT
/*
 * seccomp_prebuilt.c — the filters of the default policy, generated when
 * stepguard was built ($(BUILD)/gen/seccomp_prebuilt_progs.c, written by
 * confine/seccomp_gen.c with the libseccomp this binary links), and when
 * each may stand in for the one libseccomp would generate at run time.
 *
 * Generating the filter at every start (libseccomp's rule database, then
 * its BPF code generator) was about a fifth of stepguard's start-up
 * (docs/performance.md).  A prebuilt program is only a copy of what the
 * same library generates from the same rules: used when nothing that goes
 * into the filter differs from the build, never otherwise.  Whatever
 * differs (the policy's [seccomp] keys or user-namespaces, another
 * libseccomp or architecture) sends the launcher back to generating at
 * run time, which -v says.  test_seccomp regenerates every variant and
 * compares it with the table byte for byte.
 *
 * This file prints nothing and returns -errno.
 */
#include "confine/seccomp.h"
#include "confine/seccomp_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * The rules of sg_seccomp_build() depend on these options only: with
 * none set, they are the default policy's, whatever the policy files say
 * elsewhere.  A name listed in [seccomp] deny that the default list
 * already refuses changes nothing either, but is not worth a second
 * comparison here: such a policy generates at run time, as before.
 */
static bool sg_opts_default(const struct sg_seccomp_opts *o)
{
	return !o || (o->n_deny == 0 && o->n_allow == 0 && !o->allow_userns);
}

int sg_seccomp_prebuilt(const struct sg_seccomp_opts *o, enum sg_seccomp_variant v,
			struct sg_seccomp_prog *out, const char **why)
{
	const struct sg_seccomp_prebuilt *pb;
	const struct scmp_version *ver;
	const char *ignored;

	if (!why)
		why = &ignored;
	*why = NULL;
	if (!out || (unsigned)v >= SG_SECCOMP_N_VARIANTS)
		return -EINVAL;
	memset(out, 0, sizeof(*out));

	if (!sg_opts_default(o)) {
		*why = "the policy's [seccomp] deny or allow, or user-namespaces, changes the filter";
		return -ENOENT;
	}
	pb = &sg_seccomp_prebuilt_progs[v];
	if (!pb->insns || pb->len == 0) {
		*why = "this build has no prebuilt filter for it (its generator could not make one)";
		return -ENOENT;
	}
	/*
	 * Another libseccomp (a shared one, upgraded after the build) knows
	 * other syscalls and may lay the program out differently: its own
	 * output is then the filter, not ours.
	 */
	ver = seccomp_version();
	if (!ver || ver->major != sg_seccomp_prebuilt_lib[0] || ver->minor != sg_seccomp_prebuilt_lib[1] ||
	    ver->micro != sg_seccomp_prebuilt_lib[2]) {
		*why = "the libseccomp linked here is not the one the filter was prebuilt with";
		return -ENOENT;
	}
	if (seccomp_arch_native() != sg_seccomp_prebuilt_arch) {
		*why = "the filter was prebuilt for another architecture";
		return -ENOENT;
	}
	/*
	 * libseccomp refuses to build the filter where the kernel lacks an
	 * action it uses: SECCOMP_RET_KILL_PROCESS (API level 3) for a
	 * foreign architecture, user notification (5) for the supervised
	 * variants.  Let it refuse, with its own error, rather than load a
	 * program this kernel may not run as written.
	 */
	if (seccomp_api_get() < (v == SG_SECCOMP_PLAIN ? 3u : 5u)) {
		*why = "this kernel lacks a seccomp action the filter uses";
		return -ENOENT;
	}

	out->insns = malloc(pb->len * sizeof(*pb->insns));
	if (!out->insns)
		return -ENOMEM;
	memcpy(out->insns, pb->insns, pb->len * sizeof(*pb->insns));
	out->len = pb->len;
	return 0;
}
