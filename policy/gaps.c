// SPDX-License-Identifier: MIT
/*
 * gaps.c — the names of the gaps a backend may leave: the one table for
 * [stepguard] accept-gaps, the start line, the log and the self-test.
 * Pure.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"

static const struct {
	unsigned gap;
	const char *name;
	const char *what;
} gap_names[] = {
	{ SG_GAP_ATTRIBUTES, "attributes", "chmod, chown, utimes and xattr changes" },
	{ SG_GAP_TRUNCATE, "truncate", "truncation" },
	{ SG_GAP_IOCTL_DEV, "ioctl-dev", "ioctl on device files" },
	{ SG_GAP_SCOPING, "scoping", "signals and abstract sockets out of the step" },
	{ SG_GAP_ABSTRACT, "abstract-sockets", "datagrams to abstract sockets out of the step" },
	{ SG_GAP_EXEC, "exec", "the exec allow-list of a ruling step" },
	{ SG_GAP_PROC, "proc", "other processes' /proc/PID/cmdline" },
	{ SG_GAP_UNIX, "unix-sockets", "pathname UNIX sockets outside the roots" },
	{ SG_GAP_SCHED, "sched", "other processes' priorities and limits" },
	{ SG_GAP_IPC, "ipc", "other processes' System V IPC" },
	{ SG_GAP_PTYS, "ptys", "the user's other terminals" },
	{ SG_GAP_UNIX_SENDMSG, "unix-sendmsg", "sendmsg datagrams to pathname UNIX sockets outside the roots" },
	{ SG_GAP_CORE_HELPER, "core-helper", "the core_pattern helper a crash would run (hard core limit 0, not raisable)" },
};

const char *sg_gap_name(unsigned i)
{
	return i < sizeof(gap_names) / sizeof(gap_names[0]) ? gap_names[i].name : NULL;
}

unsigned sg_gap_bit(unsigned i)
{
	return i < sizeof(gap_names) / sizeof(gap_names[0]) ? gap_names[i].gap : 0;
}

int sg_gap_parse(const char *word, unsigned *out)
{
	for (size_t i = 0; i < sizeof(gap_names) / sizeof(gap_names[0]); i++)
		if (strcmp(word, gap_names[i].name) == 0) {
			*out = gap_names[i].gap;
			return 0;
		}
	return -EINVAL;
}

const char *sg_gaps_str(unsigned gaps, char *buf, size_t len)
{
	size_t o = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(gap_names) / sizeof(gap_names[0]); i++)
		if ((gaps & gap_names[i].gap) && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s (%s)", o ? ", " : "",
					      gap_names[i].name, gap_names[i].what);
	if (o == 0 && len)
		snprintf(buf, len, "none");
	return buf;
}

