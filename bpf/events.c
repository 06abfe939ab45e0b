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

/* The log's names are lib/vocab.h's, shared with the supervisor's records. */
const char *sg_bpf_op_name(unsigned op)
{
	return sg_op_name(op);
}

const char *sg_bpf_reason_name(unsigned reason)
{
	return sg_reason_name(reason);
}

const char *sg_bpf_decision_name(unsigned decision)
{
	return sg_decision_name(decision);
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
