/* SPDX-License-Identifier: (MIT OR GPL-2.0-only) */
/*
 * report.bpf.h — the refusal and its event: rebuild the path(s) for
 * people, fill the event, send it on the scope's ring, count what is lost.
 * Nothing here changes a decision.
 *
 * Included once, by stepguard.bpf.c, after decide.bpf.h.
 */
#ifndef SG_REPORT_BPF_H
#define SG_REPORT_BPF_H

/*
 * Building a path for an event: the walk's climb (sg_step_up()),
 * prepending names.  The callback's context only carries the scratch
 * buffer; the state is in it.
 */
struct sg_pathb {
	struct sg_scratch *s;
};

static long sg_path_step(__u32 i, void *data)
{
	struct sg_scratch *s = ((struct sg_pathb *)data)->s;
	const unsigned char *name;
	__u64 len, pos;
	struct dentry *d;
	enum sg_up up;

	if (!s)
		return 1;
	d = (void *)s->pb_dentry;
	up = sg_step_up(s->pb_mnt, d, &s->pb_mnt, &s->pb_dentry);
	if (up == SG_UP_MOUNT)
		return 0;
	if (up != SG_UP_PARENT) {
		/* Not the top mount: the top of a file system whose mount is not known. */
		if (up != SG_UP_TOP)
			s->pb_flags |= SG_EV_PATH_FSREL;
		s->pb_done = 1;
		return 1;
	}
	/* D's name: the state has moved on to its parent already. */
	len = BPF_CORE_READ(d, d_name.len);
	name = BPF_CORE_READ(d, d_name.name);
	pos = s->pb_pos;
	if (len > SG_NAME_MAX || len + 1 > pos || pos > SG_PATH_MAX) {
		/* No room for this component: say the start is missing. */
		s->pb_flags |= SG_EV_PATH_TRUNC;
		s->pb_done = 1;
		return 1;
	}
	pos -= len + 1;
	/*
	 * Keep clang from rebuilding pos + 1 out of the unbounded values
	 * above: the verifier must see the bounded pos used for the copy.
	 */
	barrier_var(pos);
	if (pos >= SG_PATH_MAX)
		return 1;
	s->work[pos] = '/';
	bpf_probe_read_kernel(&s->work[pos + 1], len & SG_NAME_MAX, name);
	s->pb_pos = pos;
	return 0;
}

/*
 * Write the path of DENTRY (through MNT, or 0) into the event's data at
 * OFF; returns its length and ORs truncation flags into *flags (shifted
 * for path2 when SECOND).
 */
static __always_inline __u32 sg_path(struct sg_scratch *s, __u64 mnt, __u64 dentry, __u32 off,
				     bool second, __u32 *flags)
{
	struct sg_pathb p = { .s = s };
	__u64 len, pos;
	__u32 f;

	if (!dentry)
		return 0;
	s->pb_mnt = mnt;
	s->pb_dentry = dentry;
	s->pb_pos = SG_PATH_MAX;
	s->pb_flags = 0;
	s->pb_done = 0;
	bpf_loop(SG_WALK_MAX, sg_path_step, &p, 0);
	f = s->pb_flags;
	if (!s->pb_done)
		f |= SG_EV_PATH_TRUNC; /* ran out of steps: the start is missing */
	pos = s->pb_pos;
	if (pos > SG_PATH_MAX)
		return 0;
	if (pos == SG_PATH_MAX) {
		/* No component: the object is the top itself. */
		pos = SG_PATH_MAX - 1;
		s->work[pos] = '/';
	}
	len = SG_PATH_MAX - pos;
	if (off > SG_PATH_MAX || len > SG_PATH_MAX)
		return 0;
	bpf_probe_read_kernel(&s->ev.data[off], len, &s->work[pos]);
	*flags |= second ? f << 1 : f;
	return len;
}

/*
 * bpf_d_path() for the first path, where the kernel allows it (fmod_ret on
 * security_file_open and security_path_truncate).  0 when it failed: then
 * the caller builds the path from the walk.
 */
static __always_inline __u32 sg_dpath(struct sg_scratch *s, const struct path *path, __u32 *flags)
{
	long n = bpf_d_path((struct path *)path, s->work, SG_PATH_MAX);

	/* n counts the NUL; -ENAMETOOLONG falls back to the walk */
	if (n <= 1 || n > SG_PATH_MAX)
		return 0;
	n -= 1;
	bpf_probe_read_kernel(s->ev.data, n & (SG_PATH_MAX - 1), s->work);
	*flags |= SG_EV_PATH_DPATH;
	return n & (SG_PATH_MAX - 1);
}

/* The objects of one decision: one, or two (rename, link). */
struct sg_objs {
	__u64 mnt1, dentry1;   /* what decides */
	__u64 pmnt1, pdent1;   /* what the event names (the child for a create) */
	__u64 mnt2, dentry2;
	__u64 pmnt2, pdent2;
	const struct path *dpath; /* for bpf_d_path, or NULL */
};

/*
 * Refuse (or, in audit mode, let through) and report.  Returns what the
 * hook returns.  The event is best effort: no ring, no buffer or a full
 * ring loses it (counted), never the decision.
 */
static __always_inline int sg_refuse(struct sg_cur *c, __u16 op, __u32 reason, __u32 flags,
				     __u64 arg, const struct sg_objs *o, int error)
{
	struct task_struct *task = bpf_get_current_task_btf();
	bool audit = c->pol && c->pol->mode == SG_BPF_AUDIT;
	struct sg_scratch *s;
	struct sg_event *ev;
	void *ring;
	__u64 id;
	__u32 len1 = 0, len2 = 0, size;

	if (c->pol) {
		if (audit)
			__sync_fetch_and_add(&c->pol->audited, 1);
		else
			__sync_fetch_and_add(&c->pol->denied, 1);
	} else {
		struct sg_stats *st = sg_stats_get();

		if (st)
			__sync_fetch_and_add(&st->orphan_denied, 1);
	}

	ring = c->pol ? bpf_map_lookup_elem(&sg_rings, &c->scope) : NULL;
	if (!ring)
		goto out; /* nobody to tell: counted above */
	s = bpf_task_storage_get(&sg_scratch, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s) {
		struct sg_stats *st = sg_stats_get();

		if (st)
			__sync_fetch_and_add(&st->scratch_fail, 1);
		if (c->pol)
			__sync_fetch_and_add(&c->pol->lost, 1);
		goto out;
	}
	ev = &s->ev;
	id = bpf_get_current_pid_tgid();
	ev->time_ns = bpf_ktime_get_boot_ns();
	ev->arg = arg;
	ev->scope = c->scope;
	ev->pid = id >> 32;
	ev->tid = (__u32)id;
	id = bpf_get_current_uid_gid();
	ev->uid = (__u32)id;
	ev->gid = id >> 32;
	ev->error = audit ? 0 : error;
	ev->op = op;
	ev->decision = audit ? SG_DECISION_AUDITED : SG_DECISION_DENIED;
	ev->reason = reason;
	ev->pad = 0;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	if (o) {
		if (o->dpath)
			len1 = sg_dpath(s, o->dpath, &flags);
		if (!len1)
			len1 = sg_path(s, o->pmnt1, o->pdent1, 0, false, &flags);
		if (len1 > SG_PATH_MAX)
			len1 = SG_PATH_MAX;
		len2 = sg_path(s, o->pmnt2, o->pdent2, len1, true, &flags);
		if (len2 > SG_PATH_MAX)
			len2 = SG_PATH_MAX;
	} else {
		flags |= SG_EV_NO_PATH;
	}
	ev->flags = flags;
	ev->path_len = len1;
	ev->path2_len = len2;
	size = SG_EVENT_HDR_SIZE + len1 + len2;
	if (size > sizeof(*ev))
		size = sizeof(*ev);
	if (bpf_ringbuf_output(ring, ev, size, 0))
		__sync_fetch_and_add(&c->pol->lost, 1);
out:
	return audit ? 0 : error;
}

#endif /* SG_REPORT_BPF_H */
