// SPDX-License-Identifier: MIT
/* unload.c — stepguard --unload: remove this build's pinned eBPF filter. */
#include "launcher/unload.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bpf/loader.h"
#include "lib/exitcodes.h"

int sg_unload_run(const struct sg_options *o)
{
	char msg[2048] = "";
	int r;

	/*
	 * The pinned filter outlives every stepguard; this is how it goes
	 * away.  Running steps keep their confinement unless --force: then
	 * they lose it, which is why it must be asked for.
	 */
	r = sg_bpf_unload(NULL, o->force, msg, sizeof(msg));
	if (r == -ENOENT) {
		printf("stepguard: nothing to unload (no pins of this build)\n");
		return SG_EXIT_OK;
	}
	if (r < 0) {
		fprintf(stderr, "stepguard: cannot unload the eBPF filter: %s%s\n",
			msg[0] ? msg : strerror(-r),
			r == -EBUSY ? "\nHint: steps are still confined; --force removes their filter too" : "");
		return SG_EXIT_CONFINE;
	}
	printf("stepguard: eBPF filter unloaded\n");
	return SG_EXIT_OK;
}
