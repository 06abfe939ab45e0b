// SPDX-License-Identifier: MIT
/*
 * events.c — what a backend tells the launcher: its refusals, as one
 * backend-neutral record (lib/denial.h), its counts at the end, and its
 * description for the start line, the start record and --check.
 */
#include "confine/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Realtime of an event stamped with CLOCK_BOOTTIME in the kernel. */
static struct timespec boot_to_real(uint64_t boot_ns)
{
	struct timespec rt, bt, at;
	int64_t ns;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec -
	     ((int64_t)bt.tv_sec * 1000000000 + bt.tv_nsec - (int64_t)boot_ns);
	at.tv_sec = (time_t)(ns / 1000000000);
	at.tv_nsec = (long)(ns % 1000000000);
	return at;
}

struct drain_ctx {
	struct sg_confine *c;
	sg_denial_fn fn;
	void *ctx;
};

/* One event of the eBPF filter as the record every backend fills. */
static int bpf_event(const struct sg_event *ev, void *ctx)
{
	struct drain_ctx *d = ctx;
	struct sg_denial den = { 0 };
	char comm[SG_COMM_LEN + 1];

	memcpy(comm, ev->comm, SG_COMM_LEN);
	comm[SG_COMM_LEN] = '\0';
	den.op = ev->op;
	den.decision = ev->decision;
	den.reason = ev->reason;
	den.error = -ev->error;
	den.pid = ev->pid;
	den.uid = ev->uid;
	den.comm = comm;
	den.path = sg_bpf_event_path(ev, 0, &den.path_len);
	den.path2 = sg_bpf_event_path(ev, 1, &den.path2_len);
	/* The kernel could not give a path whole: the record says so. */
	den.truncated = ev->flags & (SG_EV_PATH_TRUNC | SG_EV_PATH2_TRUNC);
	den.has_time = true;
	den.when = boot_to_real(ev->time_ns);
	den.backend = sg_confine_backend_name(d->c);
	den.target = sg_denial_target(den.op, ev->arg);
	d->fn(&den, d->ctx);
	return 0;
}

static unsigned sup_reason(int why)
{
	switch (why) {
	case SG_SUP_OUTSIDE:
		return SG_WHY_OUTSIDE;
	case SG_SUP_UNRESOLVED:
		return SG_WHY_UNRESOLVED;
	case SG_SUP_FOREIGN:
		return SG_WHY_FOREIGN;
	case SG_SUP_FAILED:
		return SG_WHY_FAILED;
	case SG_SUP_NOT_ALLOWED:
		return SG_WHY_NOT_ALLOWED;
	case SG_SUP_ABI:
		return SG_WHY_LANDLOCK_ABI;
	case SG_SUP_GUARD:
		return SG_WHY_GUARD;
	default:
		return SG_WHY_NONE;
	}
}

static unsigned op_of(const char *name)
{
	for (unsigned op = SG_OP_NONE + 1; op < SG_OP__MAX; op++)
		if (strcmp(name, sg_op_name(op)) == 0)
			return op;
	return SG_OP_NONE;
}

/*
 * The process's name, best effort: the supervisor answered for it a
 * moment ago, but it may have exited since.  "" then, never a guess.
 */
static void read_comm(pid_t pid, char comm[SG_COMM_LEN + 1])
{
	char p[64];
	ssize_t n = -1;
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, comm, SG_COMM_LEN);
		close(fd);
	}
	if (n < 0)
		n = 0;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
}

/* One refusal of the supervisor as the record every backend fills. */
static void sup_event(const struct sg_sup_event *ev, struct drain_ctx *d)
{
	struct sg_denial den = { 0 };
	char comm[SG_COMM_LEN + 1];

	read_comm(ev->pid, comm);
	den.op = op_of(ev->op);
	/* Audit mode: let through (the kernel ran it), and said so. */
	den.decision = ev->audited ? SG_DECISION_AUDITED : SG_DECISION_DENIED;
	den.reason = sup_reason(ev->why);
	den.error = ev->audited ? 0 : -ev->result;
	den.pid = ev->pid;
	/* The supervisor runs as the step's user (sg_confine_become_user()). */
	den.uid = getuid();
	den.comm = comm;
	den.path = ev->path;
	den.path_len = strlen(ev->path);
	if (ev->path2[0]) {
		den.path2 = ev->path2;
		den.path2_len = strlen(ev->path2);
	}
	den.truncated = ev->path_truncated || ev->path2_truncated;
	den.has_time = clock_gettime(CLOCK_REALTIME, &den.when) == 0;
	den.backend = "supervisor";
	den.target = sg_denial_target(den.op, ev->arg);
	d->fn(&den, d->ctx);
}

int sg_confine_event_fd(const struct sg_confine *c)
{
	if (c->bpf)
		return sg_bpf_epoll_fd(c->bpf);
	return c->sup ? sg_supervisor_fd(c->sup) : -1;
}

int sg_confine_drain(struct sg_confine *c, sg_denial_fn fn, void *ctx)
{
	struct drain_ctx d = { c, fn, ctx };
	struct sg_sup_event ev;
	int r;

	if (c->bpf) {
		r = sg_bpf_poll(c->bpf, 0, bpf_event, &d);
		return r < 0 && r != -EINTR ? r : 0;
	}
	if (!c->sup)
		return 0;
	r = sg_supervisor_handle(c->sup, &ev);
	if (r == 1)
		sup_event(&ev, &d);
	return r < 0 ? r : 0;
}

/*
 * A fmod_ret program the kernel skips because it is already running on
 * that CPU (possible under full preemption) decides nothing, and the call
 * goes through.  The kernel counts such misses per program: their sum
 * before and after the step tells whether any check may have been skipped
 * while it ran (by this step or another process: the programs are shared).
 */
uint64_t sg_confine_recursion_misses(struct sg_confine *c)
{
	struct sg_bpf_prog progs[64];
	uint64_t sum = 0;
	size_t n = 0;

	if (!c->bpf || sg_bpf_progs(c->bpf, progs, sizeof(progs) / sizeof(progs[0]), &n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		sum += progs[i].recursion_misses;
	return sum;
}

void sg_confine_finish(struct sg_confine *c, sg_denial_fn fn, void *ctx, struct sg_confine_end *end)
{
	struct drain_ctx d = { c, fn, ctx };
	struct sg_bpf_counts counts;

	memset(end, 0, sizeof(*end));
	end->vouched = true;
	if (!c->bpf)
		return;
	/* What the step did last is still in the ring: read it all. */
	while (sg_bpf_poll(c->bpf, 0, bpf_event, &d) > 0)
		;
	if (sg_bpf_scope_counts(c->bpf, c->scope, &counts) == 0)
		end->lost = counts.lost;
	end->has_misses = true;
	end->recursion_misses = sg_confine_recursion_misses(c) - c->misses_before;
	/* Some write may have gone unchecked: never vouch for it in silence. */
	end->vouched = end->recursion_misses == 0;
}

const char *sg_confine_summary(const struct sg_confine *c, char *buf, size_t len)
{
	if (sg_confine_is_bpf(c))
		snprintf(buf, len, "%s (%s, %u programs)", sg_confine_backend_name(c),
			 c->binfo.reused ? "pinned programs reused" : "programs loaded and pinned",
			 c->binfo.n_progs);
	else if (c->audit)
		snprintf(buf, len, "%s (Landlock ABI %d; audit: nothing refused, the supervisor "
			 "records what would be, not a boundary)", sg_confine_backend_name(c), c->ll.abi);
	else
		snprintf(buf, len, "%s (Landlock ABI %d)", sg_confine_backend_name(c), c->ll.abi);
	return buf;
}

unsigned sg_confine_gaps(const struct sg_confine *c)
{
	return c->gaps;
}

unsigned sg_confine_accepted(const struct sg_confine *c)
{
	return c->accepted;
}

const char *sg_confine_fallback_why(const struct sg_confine *c)
{
	return c->why;
}

const char *sg_confine_seccomp_why(const struct sg_confine *c)
{
	return c->seccomp_why ? c->seccomp_why : "";
}

void sg_confine_print_notes(const struct sg_confine *c, FILE *f)
{
	if (sg_confine_is_bpf(c) && c->binfo.stale[0])
		/*
		 * Another build's programs may still be attached: they do not
		 * confine this step, but every hook now runs in both sets, and
		 * only the build that made them (or root) removes them.
		 */
		fprintf(f, "stepguard: note: eBPF pins of other builds, left alone: %s\n",
			c->binfo.stale);
	if (c->exec_by_landlock)
		fprintf(f, "stepguard: note: this kernel's eBPF filter has no exec hook: Landlock "
			   "refuses the ruling step's other execs, and those refusals are not logged\n");
	else if (c->execs && !c->supervise && !c->bpf && !(c->gaps & SG_GAP_EXEC))
		fprintf(f, "stepguard: note: no supervisor on this kernel: Landlock refuses the ruling "
			   "step's other execs, and those refusals are not logged\n");
	if (c->audit)
		/*
		 * The supervisor judges and then the kernel runs the step's own
		 * call: a step that swaps its paths in between can make a record
		 * name another path than the one it wrote (docs/supervisor.md).
		 */
		fprintf(f, "stepguard: note: audit mode on Landlock is a roll-out aid, not a boundary: "
			   "writes outside the roots land and are recorded as audited, and a step racing "
			   "its own paths can make a record name another path than the one written\n");
	if (c->root_step && c->drop_caps) {
		char caps[512];

		/* Said on every root start: a tool that fails for want of one is explained. */
		fprintf(f, "stepguard: note: the step runs as root without %s "
			   "([stepguard] keep-capabilities keeps named ones)\n",
			sg_caps_str(c->drop_caps, caps, sizeof(caps)));
	}
	if (c->ll.denied_fs)
		/* Over-blocking, not a hole: say it, so a failing rename is explained. */
		fprintf(f, "stepguard: note: Landlock ABI 1 refuses renames and links across "
			   "directories, even inside the writable roots\n");
}

static json_object *gaps_json(unsigned gaps)
{
	json_object *a = json_object_new_array();
	const char *name;

	for (unsigned i = 0; (name = sg_gap_name(i)) != NULL; i++)
		if (gaps & sg_gap_bit(i))
			json_object_array_add(a, json_object_new_string(name));
	return a;
}

void sg_confine_start_record(const struct sg_confine *c, json_object *rec)
{
	json_object_object_add(rec, "backend", json_object_new_string(sg_confine_backend_name(c)));
	if (sg_confine_is_bpf(c)) {
		json_object_object_add(rec, "bpf_reused", json_object_new_boolean(c->binfo.reused));
		json_object_object_add(rec, "bpf_programs", json_object_new_int((int)c->binfo.n_progs));
		json_object_object_add(rec, "bpf_open_ms", json_object_new_double(c->binfo.open_ms));
	} else {
		json_object_object_add(rec, "landlock_abi", json_object_new_int(c->ll.abi));
	}
	json_object_object_add(rec, "not_covered", gaps_json(c->gaps));
	json_object_object_add(rec, "accepted_gaps", gaps_json(c->accepted & c->gaps));
	/* A root step's missing capabilities, by name: what it could not do is explained. */
	if (c->root_step) {
		json_object *caps = json_object_new_array();

		for (unsigned cap = 0; cap <= sg_cap_last(); cap++)
			if (c->drop_caps & (UINT64_C(1) << cap))
				json_object_array_add(caps, json_object_new_string(sg_cap_name(cap)));
		json_object_object_add(rec, "dropped_capabilities", caps);
	}
	json_object_object_add(rec, "core_dumps", json_object_new_boolean(c->core_dumps));
}
