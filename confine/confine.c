// SPDX-License-Identifier: MIT
#include "confine/confine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/capability.h>
#include <unistd.h>

#include "confine/caps.h"
#include "confine/fdpass.h"
#include "confine/internal.h"

/* [sockets] allow, by descriptor, for the eBPF scope. */
static int bpf_sockets_allow(struct sg_confine *c)
{
	int *fds = calloc(c->sockets->n ? c->sockets->n : 1, sizeof(*fds));
	size_t n = 0;
	int r;

	if (!fds)
		return -ENOMEM;
	for (size_t i = 0; i < c->sockets->n; i++)
		if (c->sockets->v[i].fd >= 0) /* a "?" socket this machine lacks */
			fds[n++] = c->sockets->v[i].fd;
	r = n ? sg_bpf_scope_sockets_allow(c->bpf, c->scope, fds, n) : 0;
	free(fds);
	return r;
}

/* The ruling step's files, by descriptor, for the eBPF scope. */
static int bpf_exec_allow(struct sg_confine *c)
{
	int *fds = calloc(c->execs->n ? c->execs->n : 1, sizeof(*fds));
	size_t n = 0;
	int r;

	if (!fds)
		return -ENOMEM;
	for (size_t i = 0; i < c->execs->n; i++)
		if (c->execs->v[i].fd >= 0) /* an exec-allow name this machine lacks */
			fds[n++] = c->execs->v[i].fd;
	r = sg_bpf_scope_exec_allow(c->bpf, c->scope, fds, n);
	free(fds);
	return r;
}

/*
 * Try an eBPF backend: probe (a lsm/ program attaches and enforces nothing
 * where bpf is not an active LSM, so the probe reads the active list),
 * reuse or load the pinned filter, and register this step's roots as a
 * new scope.  Any failure leaves nothing behind and says why in WHY.
 */
static int try_bpf(struct sg_confine *c, enum sg_filter which, const struct sg_roots *roots,
		   enum sg_mode mode, char *why, size_t len)
{
	enum sg_bpf_mode m = which == SG_FILTER_BPF_LSM ? SG_BPF_LSM : SG_BPF_FMOD;
	int *fds, r;
	size_t n = 0, failed = 0;

	/*
	 * No sg_bpf_probe() first: sg_bpf_open() checks the same (root,
	 * BTF, bpffs, the active LSM list) and the hooks in BTF when it has
	 * to load.  Reusing the pins reads no BTF at all; parsing the
	 * kernel's few megabytes of it on every start made a warm eBPF start
	 * cost twice a Landlock one (docs/performance.md).
	 */
	r = sg_bpf_open(m, &c->bpf, &c->binfo);
	if (r < 0) {
		/* the loader's reason can be long (a verifier log's tail): keep its start */
		snprintf(why, len, "%s: %.700s", sg_filter_name(which),
			 c->binfo.why[0] ? c->binfo.why : strerror(-r));
		c->bpf = NULL;
		return r;
	}
	fds = calloc(roots->n ? roots->n : 1, sizeof(*fds));
	if (!fds) {
		sg_bpf_close(c->bpf);
		c->bpf = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < roots->n; i++)
		if (roots->v[i].fd >= 0) /* skipped "?" roots have no fd */
			fds[n++] = roots->v[i].fd;
	r = sg_bpf_add_scope(c->bpf, fds, n, mode == SG_MODE_AUDIT ? SG_BPF_AUDIT : SG_BPF_ENFORCE,
			     &c->scope, &failed);
	free(fds);
	if (r < 0) {
		snprintf(why, len, "%s: cannot register the writable roots: %s", sg_filter_name(which),
			 strerror(-r));
		sg_bpf_close(c->bpf);
		c->bpf = NULL;
		return r;
	}
	c->have_scope = true;
	/*
	 * A ruling step: fix its exec allow-list now, before any task is
	 * marked with the scope.  A kernel without the exec hook cannot
	 * enforce it: under auto another backend (Landlock) can, so this one
	 * is passed over, and asked for by name it is refused unless the
	 * policy accepts the gap "exec" (sg_confine_prepare()).
	 */
	if (c->execs) {
		r = bpf_exec_allow(c);
		if (r == -EOPNOTSUPP && sg_landlock_abi() >= 1) {
			/*
			 * No exec hook: Landlock's EXECUTE right, layered as the
			 * scopes are (prepare_bpf_scoping()), enforces the list;
			 * its refusals are not logged, and the start line says so.
			 */
			c->exec_by_landlock = true;
		} else if (r == -EOPNOTSUPP && (c->accepted & SG_GAP_EXEC)) {
			c->gaps |= SG_GAP_EXEC;
		} else if (r < 0) {
			snprintf(why, len, "%s: %s", sg_filter_name(which),
				 r == -EOPNOTSUPP
					 ? "no exec hook (bprm_check_security) on this kernel, for the ruling step's exec allow-list"
					 : strerror(-r));
			sg_bpf_remove_scope(c->bpf, c->scope);
			c->have_scope = false;
			sg_bpf_close(c->bpf);
			c->bpf = NULL;
			return r;
		}
	}
	/*
	 * The sockets outside the roots the step may reach, before any task
	 * is marked: without them every pathname socket outside is refused
	 * (the system log included), never the other way round.
	 */
	if (c->sockets) {
		r = bpf_sockets_allow(c);
		if (r < 0) {
			snprintf(why, len, "%s: cannot register [sockets] allow: %s", sg_filter_name(which),
				 strerror(-r));
			sg_bpf_remove_scope(c->bpf, c->scope);
			c->have_scope = false;
			sg_bpf_close(c->bpf);
			c->bpf = NULL;
			return r;
		}
	}
	c->backend = which;
	/* The child waits on this pipe until the parent has marked it. */
	if (pipe2(c->go, O_CLOEXEC) < 0)
		return -errno;
	return 0;
}

static void note_why(struct sg_confine *c, const char *why)
{
	size_t o = strlen(c->why);

	snprintf(c->why + o, sizeof(c->why) - o, "%s%s", o ? "; " : "", why);
}

bool sg_confine_is_bpf(const struct sg_confine *c)
{
	return c->backend == SG_FILTER_BPF_LSM || c->backend == SG_FILTER_BPF_FMOD;
}

const char *sg_confine_backend_name(const struct sg_confine *c)
{
	if (sg_confine_is_bpf(c))
		return sg_filter_name(c->backend);
	return c->supervise ? "landlock+supervisor" : "landlock";
}

static int prepare_landlock(struct sg_confine *c, const struct sg_roots *roots, struct sg_error *err)
{
	const struct sg_root *bad = NULL;
	int abi = sg_landlock_abi();

	if (abi == -EOPNOTSUPP)
		return sg_errorf(err, -EOPNOTSUPP, NULL, 0,
			    "Landlock is built into this kernel but not enabled.\n"
			    "Hint: add \"landlock\" to the kernel's lsm= boot parameter");
	if (abi < 0)
		return sg_errorf(err, -EOPNOTSUPP, NULL, 0,
			    "this kernel has no Landlock (%s).\nHint: Landlock needs Linux 5.13 or later",
			    strerror(-abi));
	sg_landlock_rights_for_abi(abi, &c->ll);
	/* Audit mode: no write right handled, so Landlock refuses none (above). */
	if (c->audit)
		c->ll.handled_fs = 0;

	c->roots = calloc(roots->n ? roots->n : 1, sizeof(*c->roots));
	if (!c->roots)
		return -ENOMEM;
	for (size_t i = 0; i < roots->n; i++)
		if (roots->v[i].fd >= 0) /* skipped "?" roots have no fd */
			c->roots[c->n_roots++] = roots->v[i]; /* shallow: the launcher owns them */
	/*
	 * A ruling step: EXECUTE handled, granted on the exec allow-list only.
	 * Audit mode below ABI 6 without one handles nothing: no ruleset
	 * (the kernel refuses an empty one), and seccomp still applies.
	 */
	if (c->audit && !c->ll.handled_fs && !c->ll.scoped && !c->execs) {
		c->ruleset_fd = -1;
		goto gaps;
	}
	/* In audit mode the roots are the supervisor's only: no right to grant. */
	c->ruleset_fd = sg_landlock_build_exec(c->audit ? NULL : c->roots, c->audit ? 0 : c->n_roots,
					       c->execs ? c->execs->v : NULL,
					       c->execs ? c->execs->n : 0, &c->ll, &bad);
	if (c->ruleset_fd < 0)
		return sg_errorf(err, c->ruleset_fd, NULL, 0, "Landlock refused the %s %s: %s",
				 bad && bad->what[0] ? bad->what : "root", bad ? bad->path : "(none)",
				 strerror(-c->ruleset_fd));

	/*
	 * Landlock leaves these to others.  Attributes and truncation by a
	 * call that does not open for writing (TRUNCATE is left unhandled:
	 * sg_landlock_rights_for_abi()) are writes, covered by the supervisor; ioctl on devices
	 * (below ABI 5) and scoping (below 6) have no cover and are reported.
	 */
gaps:
	if (c->ll.missing_fs & LANDLOCK_ACCESS_FS_IOCTL_DEV)
		c->gaps |= SG_GAP_IOCTL_DEV;
	if (c->ll.missing_scope)
		c->gaps |= SG_GAP_SCOPING;
	return 0;
}

/*
 * The eBPF filter judges writes by object, and signals and ptrace by
 * scope, but an abstract UNIX socket has no object to judge and its
 * listener no mark the program could read on every kernel (socket local
 * storage is not available to fmod_ret programs).  Landlock's scoping (ABI
 * 6) is the kernel's own answer: a scope-only ruleset, no file system
 * rights handled, layered under the eBPF filter.  Without it the step can
 * reach an abstract socket outside, which is reported, as Landlock's own
 * missing scopes are.  The signal scope comes too: the eBPF program
 * already refuses the same signals, and two refusals of one thing are
 * harmless.
 */
static int prepare_bpf_scoping(struct sg_confine *c, struct sg_error *err)
{
	struct sg_landlock_info scope = { 0 };
	int abi = sg_landlock_abi();

	c->ll.abi = abi > 0 ? abi : 0;
	if (abi < 6)
		c->gaps |= SG_GAP_ABSTRACT;
	if (abi < 6 && !c->exec_by_landlock)
		return 0;
	scope.abi = abi;
	scope.scoped = abi >= 6 ? SG_LANDLOCK_SCOPES : 0;
	/* exec_by_landlock: EXECUTE handled too, on the exec allow-list only. */
	c->ruleset_fd = sg_landlock_build_exec(NULL, 0, c->exec_by_landlock ? c->execs->v : NULL,
					       c->exec_by_landlock ? c->execs->n : 0, &scope, NULL);
	if (c->ruleset_fd < 0)
		return sg_errorf(err, c->ruleset_fd, NULL, 0, "Landlock refused a scope-only ruleset: %s",
				 strerror(-c->ruleset_fd));
	return 0;
}

static bool kernel_at_least(unsigned major, unsigned minor)
{
	struct utsname u;
	unsigned long a, b;
	const char *p;
	char *end;

	if (uname(&u) < 0)
		return false;
	/* strtoul, not sscanf: a number out of range is an error, not undefined */
	errno = 0;
	p = u.release;
	a = strtoul(p, &end, 10);
	if (end == p || *end != '.')
		return false;
	p = end + 1;
	b = strtoul(p, &end, 10);
	if (end == p || errno)
		return false;
	return a > major || (a == major && b >= minor);
}

static void seccomp_opts(const struct sg_policy *p, struct sg_seccomp_opts *so)
{
	memset(so, 0, sizeof(*so));
	so->deny = (const char *const *)p->seccomp_deny.v;
	so->n_deny = p->seccomp_deny.n;
	so->allow = (const char *const *)p->seccomp_allow.v;
	so->n_allow = p->seccomp_allow.n;
	so->allow_userns = p->user_namespaces == SG_YES;
}

static int build_seccomp(struct sg_confine *c, const struct sg_policy *p, struct sg_error *err)
{
	struct sg_seccomp_opts so;
	const char *bad_name = NULL;
	int r;

	seccomp_opts(p, &so);
	r = sg_seccomp_build(&so, &c->seccomp, &bad_name);
	if (r < 0)
		return sg_errorf(err, r, NULL, 0, "cannot build the seccomp filter%s%s: %s",
			    bad_name ? " at " : "", bad_name ? bad_name : "", strerror(-r));
	return 0;
}

/* "unlimited" or the limit in KiB, for the message below */
static const char *limit_str(int resource, char *buf, size_t len)
{
	struct rlimit rl;

	if (getrlimit(resource, &rl) < 0)
		snprintf(buf, len, "unknown");
	else if (rl.rlim_cur == RLIM_INFINITY)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu KiB", (unsigned long long)rl.rlim_cur >> 10);
	return buf;
}

/* The filter's BPF, generated now, before fork (sg_seccomp_export()). */
static int export_seccomp(struct sg_confine *c, struct sg_error *err)
{
	int r = sg_seccomp_export(c->seccomp, &c->prog);
	char as[32], data[32];

	/*
	 * Short of memory, say which limits are in force: a CI job's
	 * ulimit -v or -d is the usual cause, and the fix is the caller's.
	 */
	if (r == -ENOMEM)
		return sg_errorf(err, r, NULL, 0,
			    "not enough memory to generate the seccomp filter, which needs %lu MiB "
			    "of address space to spare (RLIMIT_AS: %s, RLIMIT_DATA: %s).\n"
			    "Hint: raise RLIMIT_AS or RLIMIT_DATA (ulimit -v, ulimit -d, prlimit --as, --data)",
			    SG_SECCOMP_EXPORT_RESERVE >> 20, limit_str(RLIMIT_AS, as, sizeof(as)),
			    limit_str(RLIMIT_DATA, data, sizeof(data)));
	if (r < 0)
		return sg_errorf(err, r, NULL, 0, "cannot generate the seccomp filter: %s", strerror(-r));
	return 0;
}

/*
 * The filter of variant V, in c->prog, ready for the child to load.  The
 * default policy's filters were generated when stepguard was built
 * (sg_seccomp_prebuilt()): nothing is asked of libseccomp but its version
 * and the kernel's API level.  Any other filter is built and generated
 * here, before fork, as it always was; that is slower, not an error, and
 * -v says why (c->seccomp_why).  *SUP gets what adding V's supervisor
 * rules returned (0 when they are in the filter).
 */
static int make_seccomp(struct sg_confine *c, const struct sg_policy *p, enum sg_seccomp_variant v,
			int *sup, struct sg_error *err)
{
	struct sg_seccomp_opts so;
	int r;

	*sup = 0;
	seccomp_opts(p, &so);
	r = sg_seccomp_prebuilt(&so, v, &c->prog, &c->seccomp_why);
	if (r != -ENOENT)
		return r == -ENOMEM ? sg_errorf(err, r, NULL, 0, "out of memory") : r;
	r = build_seccomp(c, p, err);
	if (r < 0)
		return r;
	*sup = sg_seccomp_add_variant_rules(c->seccomp, v);
	return export_seccomp(c, err);
}

static struct sg_confine *confine_new(const struct sg_user *user)
{
	struct sg_confine *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->ruleset_fd = -1;
	c->sock[0] = c->sock[1] = -1;
	c->go[0] = c->go[1] = -1;
	c->user = user;
	return c;
}

#ifndef DEVPTS_SUPER_MAGIC
#define DEVPTS_SUPER_MAGIC 0x1cd1
#endif

/* Is a writable root a devpts directory, where every pty of the user lives? */
static bool roots_hold_ptys(const struct sg_roots *roots)
{
	for (size_t i = 0; i < roots->n; i++) {
		struct statfs fs;
		struct stat st;

		if (roots->v[i].fd < 0)
			continue;
		if (fstat(roots->v[i].fd, &st) == 0 && S_ISDIR(st.st_mode) &&
		    fstatfs(roots->v[i].fd, &fs) == 0 && fs.f_type == DEVPTS_SUPER_MAGIC)
			return true;
	}
	return false;
}

/*
 * What reaching other processes leaves open, whatever the backend; each
 * backend adds its own below.  Reported, never refusing the step: none
 * writes a file outside the roots by itself (docs/threat-model.md).
 */
static void process_gaps(struct sg_confine *c, const struct sg_policy *p,
			 const struct sg_roots *roots)
{
	c->drop_caps = p->dropped_caps;
	c->root_step = !c->user->drop && geteuid() == 0;
	c->core_dumps = p->core_dumps == SG_YES;
	/*
	 * A private IPC namespace takes CAP_SYS_ADMIN: root (the eBPF
	 * backends always are) makes one for the step, whoever it runs as;
	 * an unprivileged stepguard cannot, and says so.
	 */
	c->ipc_ns = sg_caps_have(CAP_SYS_ADMIN);
	if (!c->ipc_ns)
		c->gaps |= SG_GAP_IPC;
	/*
	 * /dev/pts as a root (the shipped [writes] dev-pts) makes every pty
	 * of the user writable; only the eBPF filter can tell the step's own
	 * from the others (sg_pty_open(): its terminal, the ptys it made), so
	 * the Landlock backend says so (docs/threat-model.md, "Other
	 * terminals").  Set in prepare(), once the backend is known.
	 */
	c->ptys_root = roots_hold_ptys(roots);
}

static int prepare(struct sg_confine *c, const struct sg_policy *p, enum sg_filter want,
		   enum sg_mode mode, const struct sg_roots *roots, struct sg_error *err)
{
	enum sg_seccomp_variant v;
	char why[1024];
	int r, rr, sup;

	/* Typed by the policy (policy/policy.h): a mask, and a sorted, unique list. */
	c->accepted = p->accepted_gaps;
	memcpy(c->keep_fds, p->keep_fd_list, p->n_keep_fd_list * sizeof(int));
	c->n_keep_fds = p->n_keep_fd_list;
	process_gaps(c, p, roots);

	switch (want) {
	case SG_FILTER_BPF_LSM:
	case SG_FILTER_BPF_FMOD:
		/* Asked for by name: never fall back to something weaker. */
		r = try_bpf(c, want, roots, mode, why, sizeof(why));
		if (r < 0)
			return sg_errorf(err, -EOPNOTSUPP, NULL, 0, "filter %s is unavailable (%s)",
				    sg_filter_name(want), why);
		break;
	case SG_FILTER_AUTO:
		/* bpf-lsm, then bpf-fmod; each reason kept for --check and -v. */
		if (try_bpf(c, SG_FILTER_BPF_LSM, roots, mode, why, sizeof(why)) == 0)
			break;
		note_why(c, why);
		if (try_bpf(c, SG_FILTER_BPF_FMOD, roots, mode, why, sizeof(why)) == 0)
			break;
		note_why(c, why);
		break;
	case SG_FILTER_LANDLOCK:
		break;
	case SG_FILTER_UNSET:
	default:
		return sg_errorf(err, -EINVAL, NULL, 0, "no filter chosen");
	}

	if (sg_confine_is_bpf(c)) {
		/*
		 * The eBPF filter covers every write, attributes included, and
		 * can audit: no Landlock file system rules, no supervisor, no
		 * write gaps.  Landlock scopes abstract sockets where it can;
		 * seccomp still removes the escape routes.
		 */
		r = prepare_bpf_scoping(c, err);
		if (r < 0)
			return r;
		/*
		 * Other processes' /proc files, pathname sockets, received
		 * descriptors and other processes' scheduling and limits are
		 * the programs' own rules (bpf/README.md): their hooks are
		 * required, so a loaded filter has them all.
		 */
		return make_seccomp(c, p, SG_SECCOMP_PLAIN, &sup, err);
	}

	/*
	 * Audit mode on Landlock: Landlock can only refuse, so it handles no
	 * write right at all, and the supervisor records what it would have
	 * refused and lets every call through (sg_supervisor_set_audit()).
	 * Not a boundary: a roll-out aid, and the start line says so.
	 */
	c->audit = mode == SG_MODE_AUDIT;
	r = prepare_landlock(c, roots, err);
	if (r < 0)
		return r;
	c->backend = SG_FILTER_LANDLOCK;
	/*
	 * Landlock's ptrace scoping keeps other processes' memory, environ
	 * and maps out of reach (once a root step has lost CAP_SYS_ADMIN
	 * and CAP_PERFMON, which let Linux 6.15 and later read them past the
	 * hook), but /proc/PID/cmdline asks no permission at all.
	 */
	c->gaps |= SG_GAP_PROC;
	/*
	 * A Landlock domain is fixed before the step runs: it cannot learn
	 * which ptys the step will make, and a rule for /dev/pts grants them
	 * all (a private devpts needs a mount namespace, which the
	 * supervisor's view check refuses; docs/threat-model.md).
	 */
	if (c->ptys_root)
		c->gaps |= SG_GAP_PTYS;

	/*
	 * The supervisor covers what Landlock does not mediate.  Its kernel
	 * features are probed for real once it has a listener, after fork;
	 * a kernel older than 5.14 (SECCOMP_ADDFD_FLAG_SEND) is known to lack
	 * them, so find that out here, before the step starts.  Then ask
	 * what sg_supervisor_add_rules() would refuse on (user notification)
	 * before choosing the variant: a prebuilt supervised filter must
	 * never be loaded where the generated one could not have been made.
	 */
	r = kernel_at_least(5, 14) ? sg_seccomp_notify_available() : -EOPNOTSUPP;
	v = r < 0 ? SG_SECCOMP_PLAIN : c->execs ? SG_SECCOMP_SUPERVISED_EXEC : SG_SECCOMP_SUPERVISED;
	rr = make_seccomp(c, p, v, &sup, err);
	if (rr < 0)
		return rr;
	if (r == 0)
		r = sup;
	if (r == 0) {
		/*
		 * The supervisor performs connect and sendto, and judges a
		 * pathname socket; sendmsg carries its address where no filter
		 * can read it (docs/supervisor.md).  Scheduling and limits of
		 * other processes it keeps within the step.
		 */
		c->gaps |= SG_GAP_UNIX_SENDMSG;
		c->supervise = true;
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, c->sock) < 0)
			return sg_errorf(err, -errno, NULL, 0, "socketpair: %s", strerror(errno));
	} else if (c->audit) {
		/* Without a supervisor nothing could record: audit would see nothing. */
		return sg_errorf(err, -EOPNOTSUPP, NULL, 0,
				 "mode audit on Landlock needs the supervisor, which this kernel cannot "
				 "run (%s).\nHint: use --mode enforce, or a kernel of 5.14 or later",
				 strerror(-r));
	} else {
		/* Landlock alone, up to ABI 7: no socket or scheduling cover at all. */
		c->gaps |= SG_GAP_UNIX | SG_GAP_SCHED;
		c->gaps |= SG_GAP_ATTRIBUTES;
		if (c->ll.missing_fs & LANDLOCK_ACCESS_FS_TRUNCATE)
			c->gaps |= SG_GAP_TRUNCATE;
	}

	/* A write-type gap nobody covers runs only if the policy says so by name. */
	{
		unsigned must = c->gaps & (SG_GAP_ATTRIBUTES | SG_GAP_TRUNCATE) & ~c->accepted;
		char g[256];

		if (must)
			return sg_errorf(err, -EOPNOTSUPP, NULL, 0,
				    "the write filter cannot refuse %s on this kernel (supervisor: %s).\n"
				    "Hint: to run anyway with this hole, name it in [stepguard] accept-gaps",
				    sg_gaps_str(must, g, sizeof(g)), strerror(-r));
	}
	return 0;
}

int sg_confine_prepare(struct sg_confine **out, const struct sg_confine_req *req,
		       struct sg_error *err)
{
	struct sg_confine *c = confine_new(req->user);

	if (c)
		c->execs = req->execs;
	int r;

	*out = NULL;
	if (!c)
		return sg_errorf(err, -ENOMEM, NULL, 0, "out of memory");
	c->sockets = req->sockets;
	r = prepare(c, req->policy, req->want, req->mode, req->roots, err);
	if (r < 0) {
		if (r == -ENOMEM && !err->msg[0])
			sg_errorf(err, r, NULL, 0, "out of memory");
		sg_confine_free(c);
		return r;
	}
	*out = c;
	return 0;
}

int sg_confine_become_user(struct sg_confine *c, const char **stage)
{
	int r;

	/*
	 * The IPC namespace first, while CAP_SYS_ADMIN is still there, and
	 * here in the parent, so the child of either backend is born in it
	 * (stepguard itself uses no System V IPC).  A kernel that refuses
	 * (a container's seccomp profile) leaves the gap, said on the start
	 * line that follows, rather than refusing a step that needs no IPC.
	 */
	if (c->ipc_ns && sg_caps_private_ipc() < 0) {
		c->ipc_ns = false;
		c->gaps |= SG_GAP_IPC;
	}
	/*
	 * No core dumps: where core_pattern is a pipe the kernel would run
	 * its helper as root, outside every confinement, on the step's
	 * memory.  Here in the parent, before any capability is dropped: a
	 * root stepguard under sudo (whose hard limit for what it runs is 0)
	 * may still raise it to 1, and the child of either backend inherits
	 * the limit.  stepguard itself then dumps no core either.
	 */
	if (!c->core_dumps) {
		bool helper_left;

		*stage = "set RLIMIT_CORE";
		r = sg_caps_no_core(&helper_left);
		if (r < 0)
			return r;
		if (helper_left)
			c->gaps |= SG_GAP_CORE_HELPER;
	}
	if (sg_confine_is_bpf(c))
		/*
		 * eBPF: stay root, every capability kept, to read the
		 * filter's events and remove the scope at the end; the child
		 * drops both once marked (sg_confine_child()).
		 */
		return 0;
	/*
	 * Landlock: for good, before the fork: the supervisor in this
	 * process acts for the step and must hold no more rights than it,
	 * capabilities included (sg_creds_no_more_than() compares them), so
	 * it gives up the same ones.  Before the user drop: reducing the
	 * bounding set needs CAP_SETPCAP, which becoming another user takes
	 * away.
	 */
	*stage = "drop the capabilities a root step runs without";
	r = sg_caps_drop(c->drop_caps);
	if (r < 0)
		return r;
	*stage = "become the step's user";
	return sg_user_drop(c->user);
}

int sg_confine_child(void *ctx, const char **stage)
{
	struct sg_confine *c = ctx;
	int r;

	if (c->sock[0] >= 0)
		close(c->sock[0]);

	/*
	 * Descriptors stepguard or its caller opened must not reach the step
	 * (a directory fd outside the roots is a way around a path-based
	 * filter): mark every one above 2 close-on-exec, except those the
	 * policy keeps.  Ours (roots, ruleset, socket) are O_CLOEXEC already.
	 */
	*stage = "closing inherited descriptors";
	{
		unsigned lo = 3;

		/* keep_fds is sorted and unique (the policy's keep_fd_list). */
		for (size_t i = 0; i < c->n_keep_fds; i++) {
			unsigned k = (unsigned)c->keep_fds[i];

			if (k > lo && close_range(lo, k - 1, CLOSE_RANGE_CLOEXEC) < 0)
				return -errno;
			lo = k + 1;
		}
		if (close_range(lo, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
			return -errno;
	}

	if (sg_confine_is_bpf(c)) {
		char go;
		ssize_t n;

		/*
		 * The eBPF filter is applied from outside: wait until the
		 * parent has marked this process (and so everything it will
		 * fork).  EOF means the parent could not: never go on unmarked.
		 */
		*stage = "waiting for the eBPF mark";
		close(c->go[1]);
		do
			n = read(c->go[0], &go, 1);
		while (n < 0 && errno == EINTR);
		close(c->go[0]);
		if (n != 1)
			return n < 0 ? -errno : -ECANCELED;
		/*
		 * Only now give up capabilities and become the step's user:
		 * the parent stays root to read the filter's events and
		 * remove the scope at the end.  Capabilities first: dropping
		 * the bounding set needs CAP_SETPCAP, which the user drop
		 * takes away from a step that becomes someone else.
		 */
		*stage = "dropping capabilities";
		r = sg_caps_drop(c->drop_caps);
		if (r < 0)
			return r;
		*stage = "becoming the step's user";
		r = sg_user_drop(c->user);
		if (r < 0)
			return r;
	}

	/*
	 * no_new_privs first: Landlock and seccomp refuse an unprivileged
	 * caller without it, and it stops a setuid binary from shedding the
	 * filters.  Set even as root, so the order never depends on who runs.
	 */
	*stage = "no_new_privs";
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;

	/*
	 * The write filter next, while every syscall is still allowed (on the
	 * eBPF backends, Landlock's scopes only, where the kernel has them).
	 */
	if (c->ruleset_fd >= 0) {
		*stage = "Landlock";
		r = sg_landlock_restrict(c->ruleset_fd);
		c->ruleset_fd = -1;
		if (r < 0)
			return r;
	}

	/*
	 * seccomp last before execve: it removes the calls that could undo
	 * or blind what came before, and nothing after it needs them.
	 */
	*stage = "seccomp";
	r = sg_seccomp_load(&c->prog, c->supervise);
	if (r < 0)
		return r;

	if (c->supervise) {
		int listener = r;

		char go;
		ssize_t n;

		*stage = "handing the supervisor its listener";
		r = sg_send_fd(c->sock[1], listener);
		close(listener);
		if (r < 0) {
			close(c->sock[1]);
			return r;
		}
		/*
		 * Then wait until the supervisor serves: a step whose
		 * supervision cannot start (no /proc, say) must never run,
		 * not run until the parent notices and kills it.  A step
		 * that is not a ruling step makes no notified call before
		 * its first chmod, so without this wait its exec, and what
		 * it runs, would race the parent's setup.  EOF: the parent
		 * gave up.
		 */
		*stage = "waiting for the supervisor";
		do
			n = read(c->sock[1], &go, 1);
		while (n < 0 && errno == EINTR);
		close(c->sock[1]);
		if (n != 1)
			return n < 0 ? -errno : -ECANCELED;
	}
	return 0;
}

int sg_confine_started(struct sg_confine *c)
{
	int fd, r;

	if (!c->supervise)
		return 0;
	close(c->sock[1]);
	c->sock[1] = -1;
	fd = sg_recv_fd(c->sock[0]);
	if (fd < 0) {
		close(c->sock[0]);
		c->sock[0] = -1;
		return fd;
	}
	/* Takes the listener, also on failure. */
	r = sg_supervisor_new(&c->sup, fd, c->roots, c->n_roots);
	if (r == 0 && c->audit)
		sg_supervisor_set_audit(c->sup);
	/*
	 * ABI 1 refuses every cross-directory rename and link: record them
	 * (not in audit mode, where Landlock handles no right at all).
	 */
	if (r == 0 && !c->audit && (c->ll.denied_fs & LANDLOCK_ACCESS_FS_REFER))
		sg_supervisor_set_no_refer(c->sup);
	if (r == 0 && c->execs)
		r = sg_supervisor_set_execs(c->sup, c->execs->v, c->execs->n);
	/* Before the step is released: it must not connect before the list is in. */
	if (r == 0 && c->sockets)
		r = sg_supervisor_set_sockets(c->sup, c->sockets->v, c->sockets->n);
	/*
	 * Only a supervisor that serves releases the child to its exec
	 * (sg_confine_child()); on failure the socket closes unwritten and
	 * the child gives up without running the step.
	 */
	if (r == 0 && send(c->sock[0], "g", 1, MSG_NOSIGNAL) != 1)
		r = -errno;
	close(c->sock[0]);
	c->sock[0] = -1;
	return r;
}

int sg_confine_forked(struct sg_confine *c, pid_t pid)
{
	int pidfd, r;

	if (!sg_confine_is_bpf(c))
		return 0;
	close(c->go[0]);
	c->go[0] = -1;
	/* From here on a skipped check may concern the step (sg_confine_finish()). */
	c->misses_before = sg_confine_recursion_misses(c);
	/* A pidfd names this very process: no pid reuse can redirect the mark. */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return -errno;
	r = sg_bpf_confine_pid(c->bpf, pidfd, c->scope);
	close(pidfd);
	if (r < 0)
		return r; /* the go pipe closes unwritten: the child gives up */
	if (write(c->go[1], "g", 1) != 1)
		return -errno;
	close(c->go[1]);
	c->go[1] = -1;
	return 0;
}

void sg_confine_free(struct sg_confine *c)
{
	if (!c)
		return;
	if (c->sup)
		sg_supervisor_free(c->sup);
	if (c->ruleset_fd >= 0)
		close(c->ruleset_fd);
	if (c->seccomp)
		seccomp_release(c->seccomp);
	sg_seccomp_prog_free(&c->prog);
	for (int i = 0; i < 2; i++) {
		if (c->sock[i] >= 0)
			close(c->sock[i]);
		if (c->go[i] >= 0)
			close(c->go[i]);
	}
	if (c->bpf) {
		/* Tasks still marked with the scope are refused every write from now on. */
		if (c->have_scope)
			sg_bpf_remove_scope(c->bpf, c->scope);
		sg_bpf_close(c->bpf);
	}
	free(c->roots);
	free(c);
}
