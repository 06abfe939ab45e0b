// SPDX-License-Identifier: MIT
/*
 * events.c — reading the filter's events: names for the numbers, and the
 * checks a record passes before anyone reads it.  Pure: no syscalls, so
 * its tests need no root and no kernel.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "bpf/loader.h"

/* The operation names of the log (docs/log-format.md). */
static const char *const op_names[SG_OP__MAX] = {
	[SG_OP_NONE] = "none",
	[SG_OP_OPEN] = "open",
	[SG_OP_CREATE] = "create",
	[SG_OP_MKNOD] = "mknod",
	[SG_OP_MKDIR] = "mkdir",
	[SG_OP_RMDIR] = "rmdir",
	[SG_OP_UNLINK] = "unlink",
	[SG_OP_RENAME] = "rename",
	[SG_OP_LINK] = "link",
	[SG_OP_SYMLINK] = "symlink",
	[SG_OP_TRUNCATE] = "truncate",
	[SG_OP_CHMOD] = "chmod",
	[SG_OP_CHOWN] = "chown",
	[SG_OP_UTIMES] = "utimes",
	[SG_OP_SETXATTR] = "setxattr",
	[SG_OP_REMOVEXATTR] = "removexattr",
	[SG_OP_BPF] = "bpf",
	[SG_OP_KILL] = "kill",
	[SG_OP_PTRACE] = "ptrace",
	[SG_OP_MOUNT] = "mount",
	[SG_OP_FORK] = "fork",
	[SG_OP_CHATTR] = "chattr",
};

const char *sg_bpf_op_name(unsigned op)
{
	return op < SG_OP__MAX && op_names[op] ? op_names[op] : "unknown";
}

const char *sg_bpf_reason_name(unsigned reason)
{
	switch (reason) {
	case SG_WHY_NONE:
		return "none";
	case SG_WHY_OUTSIDE:
		return "outside";
	case SG_WHY_DEPTH:
		return "depth";
	case SG_WHY_MOUNT:
		return "mount-unknown";
	case SG_WHY_NO_SCOPE:
		return "no-scope";
	case SG_WHY_UNKNOWN:
		return "unknown-task";
	case SG_WHY_GUARD:
		return "guard";
	case SG_WHY_NOMEM:
		return "no-memory";
	default:
		return "unknown";
	}
}

const char *sg_bpf_decision_name(unsigned decision)
{
	switch (decision) {
	case SG_DECISION_DENIED:
		return "denied";
	case SG_DECISION_AUDITED:
		return "audited";
	default:
		return "unknown";
	}
}

const char *sg_bpf_mode_name(enum sg_bpf_mode mode)
{
	switch (mode) {
	case SG_BPF_LSM:
		return "bpf-lsm";
	case SG_BPF_FMOD:
		return "bpf-fmod";
	default:
		return "bpf-unknown";
	}
}

/*
 * The program sends exactly header + path + path2 bytes.  Anything else
 * is a record this reader does not understand (another build writing to
 * the same ring cannot happen: rings are per scope and per build), so it
 * is refused rather than read past its end.
 */
int sg_bpf_event_check(const void *data, size_t size)
{
	struct sg_event hdr;

	if (!data || size < SG_EVENT_HDR_SIZE)
		return -EBADMSG;
	memcpy(&hdr, data, SG_EVENT_HDR_SIZE);
	if (hdr.path_len > SG_PATH_MAX || hdr.path2_len > SG_PATH_MAX)
		return -EBADMSG;
	if (size != SG_EVENT_HDR_SIZE + (size_t)hdr.path_len + hdr.path2_len)
		return -EBADMSG;
	if (hdr.op == SG_OP_NONE || hdr.op >= SG_OP__MAX)
		return -EBADMSG;
	if (hdr.decision != SG_DECISION_DENIED && hdr.decision != SG_DECISION_AUDITED)
		return -EBADMSG;
	return 0;
}

const char *sg_bpf_event_path(const struct sg_event *ev, int which, size_t *len)
{
	if (which == 0) {
		*len = ev->path_len;
		return ev->data;
	}
	*len = ev->path2_len;
	return ev->data + ev->path_len;
}
