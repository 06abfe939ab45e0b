// SPDX-License-Identifier: MIT
#include "lib/denial.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A JSON string of LEN bytes from P, escaped as lib/log.h says. */
static json_object *bytes_json(const char *p, size_t len)
{
	char *z = strndup(p, len);
	json_object *o;

	if (!z)
		return NULL;
	o = sg_json_bytes(z);
	free(z);
	return o;
}

long long sg_denial_target(unsigned op, unsigned long long arg)
{
	/* These carry the target's tgid in the high half (lib/vocab.h). */
	switch (op) {
	case SG_OP_KILL:
	case SG_OP_PTRACE:
	case SG_OP_PROC:
	case SG_OP_SCHED:
		return (long long)(arg >> 32);
	default:
		return 0;
	}
}

int sg_denial_log(struct sg_log *l, const struct sg_denial *d)
{
	json_object *rec = json_object_new_object();
	char t[32];

	if (!rec)
		return -ENOMEM;
	if (d->has_time) {
		sg_log_format_time(&d->when, t);
		json_object_object_add(rec, "event_time", json_object_new_string(t));
	}
	json_object_object_add(rec, "pid", json_object_new_int64(d->pid));
	json_object_object_add(rec, "uid", json_object_new_int64(d->uid));
	if (d->comm)
		json_object_object_add(rec, "comm", sg_json_bytes(d->comm));
	json_object_object_add(rec, "op", json_object_new_string(sg_op_name(d->op)));
	if (d->path)
		json_object_object_add(rec, "path", bytes_json(d->path, d->path_len));
	if (d->path2)
		json_object_object_add(rec, "path2", bytes_json(d->path2, d->path2_len));
	/* A path that could not be had whole says so: never cut silently. */
	if (d->truncated)
		json_object_object_add(rec, "path_truncated", json_object_new_boolean(1));
	if (d->target)
		json_object_object_add(rec, "target", json_object_new_int64(d->target));
	json_object_object_add(rec, "decision", json_object_new_string(sg_decision_name(d->decision)));
	json_object_object_add(rec, "reason", json_object_new_string(sg_reason_name(d->reason)));
	json_object_object_add(rec, "errno", json_object_new_int(d->error));
	json_object_object_add(rec, "backend", json_object_new_string(d->backend));
	return sg_log_write(l, "denial", rec);
}

void sg_denial_print(FILE *f, const struct sg_denial *d)
{
	size_t n = d->path ? d->path_len : 0, n2 = d->path2 ? d->path2_len : 0;
	char raw[512], esc[1024], raw2[512], esc2[1024];

	/* A person's line: the path's start is enough, escaped as in the log. */
	if (n > sizeof(raw) - 1)
		n = sizeof(raw) - 1;
	memcpy(raw, d->path ? d->path : "", n);
	raw[n] = '\0';
	sg_escape_bytes(raw, esc, sizeof(esc));
	/* A rename's new name, a link's new link: "OLD -> NEW". */
	if (n2 > sizeof(raw2) - 1)
		n2 = sizeof(raw2) - 1;
	memcpy(raw2, d->path2 ? d->path2 : "", n2);
	raw2[n2] = '\0';
	sg_escape_bytes(raw2, esc2, sizeof(esc2));
	/* A refusal aimed at another process names it where a path would be. */
	if (!n && d->target)
		snprintf(esc, sizeof(esc), "process %lld", d->target);
	fprintf(f, "stepguard: %s %s %s%s%s%s (pid %lld, %s)\n",
		d->decision == SG_DECISION_AUDITED ? "audited" : "refused", sg_op_name(d->op), esc,
		n2 ? " -> " : "", esc2, d->truncated ? " (path truncated)" : "", d->pid,
		sg_reason_name(d->reason));
}
