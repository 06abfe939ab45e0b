// SPDX-License-Identifier: MIT
/*
 * loader.c — probe the kernel, then reuse this build's pinned filter or
 * load, attach and pin it.  Scopes are in scope.c; the pin directory's
 * housekeeping (listing, maps, programs, removing) is in pins.c, which
 * this file calls with this build's directory name (sg_bpf_version()).
 *
 * Pins, under SG_BPF_PIN_ROOT (mode 0700, root's):
 *
 *     v<VERSION>-<digest>/            this build (sg_bpf_version())
 *         sg_task sg_registrar ...    the maps, pinned by libbpf by name
 *         lsm/<program>               the links of the bpf-lsm set
 *         fmod/<program>              the links of the bpf-fmod set
 *
 * (bpffs refuses dots in names: VERSION 0.1.0 is written 0_1_0.)
 * A mode directory is built as "<mode>-tmp-<pid>" and renamed into place
 * once every link is pinned: its presence means "complete", which is all
 * the reuse path checks.  Loads and unloads hold an exclusive flock on
 * SG_BPF_PIN_ROOT; scope operations are plain map updates and need none.
 *
 * Every function returns -errno and prints nothing (style.md, habit 2).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bpf/loader_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bpf/pins.h"
#include "lib/cleanup.h"
#include "stepguard.skel.h"

#ifndef STEPGUARD_VERSION
#define STEPGUARD_VERSION "0"
#endif
#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

/* Hooks a kernel may lack; their programs are left out there.  Any other
 * missing hook is a hole, and the load fails. */
static const char *const optional_hooks[] = {
	"file_truncate",    /* 6.2: before, ftruncate and O_TRUNC use path_truncate */
	"inode_set_acl",    /* 6.2: before, ACLs pass through inode_setxattr */
	"inode_remove_acl", /* 6.2: likewise */
	"file_ioctl_compat", /* 6.8 (and some stable kernels): before, file_ioctl saw those too */
	/*
	 * Exec restriction (ruling steps): without these programs
	 * sg_bpf_scope_exec_allow() says -EOPNOTSUPP and the caller refuses
	 * the step (or the policy accepts the gap), so a kernel without
	 * them can still confine writes.  The exec hook is bprm_check_security
	 * in the LSM list and security_bprm_check() for fmod_ret.
	 */
	"bprm_check_security",
	"bprm_check",
	"file_fcntl",
};

SGB_DEFINE_TRIVIAL_CLEANUP_FUNC(struct btf *, btf__free)
SGB_DEFINE_TRIVIAL_CLEANUP_FUNC(struct stepguard_bpf *, stepguard_bpf__destroy)
SGB_DEFINE_TRIVIAL_CLEANUP_FUNC(struct sg_bpf *, sg_bpf_close)

static sg_bpf_log_fn log_fn;

void sg_bpf_set_log(sg_bpf_log_fn fn)
{
	log_fn = fn;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * The digest of the BPF object this binary embeds: part of the pin
 * directory's name, so that pins are only ever reused by the build whose
 * programs they are.  FNV-1a, folded to 32 bits: this tells builds apart,
 * it does not authenticate anything (only root can write to bpffs).
 */
const char *sg_bpf_version(void)
{
	static char name[64];
	const unsigned char *p;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t sz;

	if (name[0])
		return name;
	p = stepguard_bpf__elf_bytes(&sz);
	for (size_t i = 0; i < sz; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	snprintf(name, sizeof(name), "v%s-%08" PRIx32, STEPGUARD_VERSION, (uint32_t)(h ^ (h >> 32)));
	/* bpffs refuses names with a dot (EPERM): 0.1.0 is written 0_1_0. */
	for (char *c = name; *c; c++)
		if (*c == '.')
			*c = '_';
	return name;
}

/*
 * libbpf's messages: to the caller's function, and the last lines of a
 * failed load kept for sg_bpf_info.why (the verifier's reason is at the
 * end of its log).
 */
static char log_tail[4096];
static size_t log_tail_len;

/* libbpf's print callback: FMT is libbpf's own format, with AP its arguments. */
static int capture_log(enum libbpf_print_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static int capture_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *text = NULL;
	size_t n, keep = sizeof(log_tail) - 1;
	va_list copy;
	int len;

	if (log_fn) {
		va_copy(copy, ap);
		log_fn((int)level, fmt, copy);
		va_end(copy);
	}
	if (level == LIBBPF_DEBUG)
		return 0;
	/* The verifier log comes as one message, its reason at the very end. */
	len = vasprintf(&text, fmt, ap);
	if (len <= 0) {
		free(text);
		return 0;
	}
	n = (size_t)len;
	if (n >= keep) {
		memcpy(log_tail, text + n - keep, keep);
		log_tail_len = keep;
	} else {
		if (log_tail_len + n > keep) {
			size_t drop = log_tail_len + n - keep;

			memmove(log_tail, log_tail + drop, log_tail_len - drop);
			log_tail_len -= drop;
		}
		memcpy(log_tail + log_tail_len, text, n);
		log_tail_len += n;
	}
	log_tail[log_tail_len] = '\0';
	free(text);
	return 0;
}

/* The last LEN bytes of the captured log, from a line start. */
static const char *log_tail_last(size_t len)
{
	const char *p = log_tail;

	if (log_tail_len > len) {
		p = log_tail + log_tail_len - len;
		while (*p && *p != '\n')
			p++;
		if (*p)
			p++;
	}
	return p;
}

static bool lsm_active(const char *name, char *list, size_t len)
{
	FILE *f = fopen("/sys/kernel/security/lsm", "re");
	char *save = NULL, *tok, copy[512];

	list[0] = '\0';
	if (!f)
		return false;
	if (!fgets(list, (int)len, f))
		list[0] = '\0';
	(void)fclose(f); /* read only: nothing to lose */
	list[strcspn(list, "\n")] = '\0';
	snprintf(copy, sizeof(copy), "%s", list);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (strcmp(tok, name) == 0)
			return true;
	return false;
}

/* The kernel function a program attaches to: "bpf_lsm_<hook>" or "security_<hook>". */
static const char *attach_func(const struct bpf_program *prog, char *buf, size_t len)
{
	const char *sec = bpf_program__section_name(prog);

	if (strncmp(sec, "lsm/", 4) == 0)
		snprintf(buf, len, "bpf_lsm_%s", sec + 4);
	else if (strncmp(sec, "fmod_ret/", 9) == 0)
		snprintf(buf, len, "%s", sec + 9);
	else
		return NULL;
	return buf;
}

/* The hook name of a kernel function: strip bpf_lsm_ or security_. */
static const char *hook_of(const char *func)
{
	if (strncmp(func, "bpf_lsm_", 8) == 0)
		return func + 8;
	if (strncmp(func, "security_", 9) == 0)
		return func + 9;
	return func;
}

static bool is_optional(const char *hook)
{
	for (size_t i = 0; i < sizeof(optional_hooks) / sizeof(optional_hooks[0]); i++)
		if (strcmp(hook, optional_hooks[i]) == 0)
			return true;
	return false;
}

/* Number of parameters of kernel function FUNC, or -ENOENT. */
static int func_nparams(const struct btf *btf, const char *func)
{
	const struct btf_type *t;
	int id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);

	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, (__u32)id);
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	if (!t || !btf_is_func_proto(t))
		return -ENOENT;
	return btf_vlen(t);
}

/*
 * What can be read without loading anything, and cheaply: the reuse path
 * runs this and nothing more.
 */
static int probe_env(enum sg_bpf_mode mode, bool check_lsm, char *why, size_t len)
{
	struct statfs sfs;
	char lsms[512];

	if (mode != SG_BPF_LSM && mode != SG_BPF_FMOD)
		return sgb_fail(why, len, -EINVAL, "unknown eBPF mode %d", (int)mode);
	if (geteuid() != 0)
		return sgb_fail(why, len, -EPERM,
				"loading the eBPF filter needs root (CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN)");
	if (access("/sys/kernel/btf/vmlinux", R_OK) < 0)
		return sgb_fail(why, len, -ENOENT,
				"the kernel has no BTF (/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF)");
	if (statfs("/sys/fs/bpf", &sfs) < 0 || (unsigned long)sfs.f_type != BPF_FS_MAGIC)
		return sgb_fail(why, len, -ENOENT, "no bpf file system on /sys/fs/bpf to pin the filter in");
	if (check_lsm && mode == SG_BPF_LSM && !lsm_active("bpf", lsms, sizeof(lsms))) {
		/*
		 * The fact that makes this check necessary: lsm/ programs
		 * load and attach here without an error, and are never
		 * called.  Only the LSM list tells.
		 */
		if (!lsms[0])
			return sgb_fail(why, len, -EOPNOTSUPP,
					"cannot read the active LSM list (/sys/kernel/security/lsm)");
		return sgb_fail(why, len, -EOPNOTSUPP,
				"bpf is not an active LSM (active: %s); lsm/ programs would attach and "
				"enforce nothing. Hint: add bpf to the lsm= boot parameter, or use bpf-fmod",
				lsms);
	}
	return 0;
}

/* The hooks every decision depends on, in the kernel's BTF. */
static int probe_hooks(enum sg_bpf_mode mode, const struct btf *btf, char *why, size_t len)
{
	static const char *const core[] = { "file_open", "path_mknod", "path_rename", "task_alloc" };

	for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++) {
		char func[64];

		snprintf(func, sizeof(func), "%s%s", mode == SG_BPF_LSM ? "bpf_lsm_" : "security_",
			 core[i]);
		if (btf__find_by_name_kind(btf, func, BTF_KIND_FUNC) < 0)
			return sgb_fail(why, len, -EOPNOTSUPP, "the kernel has no %s to attach to", func);
	}
	return 0;
}

int sg_bpf_probe(enum sg_bpf_mode mode, char *why, size_t len)
{
	SGB_CLEANUP(btf__freep) struct btf *btf = NULL;
	int r = probe_env(mode, true, why, len);

	if (r < 0)
		return r;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return sgb_fail(why, len, -errno ? -errno : -ENOENT, "cannot read the kernel's BTF");
	return probe_hooks(mode, btf, why, len);
}

/*
 * Turn autoload on for MODE's programs only, and off for the hooks this
 * kernel lacks: an optional one is named in info->skipped, any other
 * fails the load.  Of the lsm/ inode_setattr programs, the one whose
 * argument count is this kernel's.
 */
static int select_programs(const struct stepguard_bpf *skel, enum sg_bpf_mode mode,
			   const struct btf *btf, struct sg_bpf_info *info)
{
	const char *prefix = mode == SG_BPF_LSM ? "lsm_" : "fmod_";
	int setattr_params = func_nparams(btf, mode == SG_BPF_LSM ? "bpf_lsm_inode_setattr"
								 : "security_inode_setattr");
	struct bpf_program *prog;
	char func[96];

	bpf_object__for_each_program(prog, skel->obj)
	{
		const char *name = bpf_program__name(prog);
		bool want = strncmp(name, prefix, strlen(prefix)) == 0;

		if (want && attach_func(prog, func, sizeof(func))) {
			if (strcmp(hook_of(func), "inode_setattr") == 0) {
				/* lsm_inode_setattr2: the hook before 6.8, without idmap */
				bool two = strcmp(name, "lsm_inode_setattr2") == 0;

				if (mode == SG_BPF_LSM && setattr_params != (two ? 2 : 3))
					want = false;
				else if (setattr_params < 0)
					return sgb_fail(info->why, sizeof(info->why), -EOPNOTSUPP,
							"the kernel has no %s", func);
			} else if (btf__find_by_name_kind(btf, func, BTF_KIND_FUNC) < 0) {
				if (!is_optional(hook_of(func)))
					return sgb_fail(info->why, sizeof(info->why), -EOPNOTSUPP,
							"the kernel has no %s: the filter would have a hole there",
							func);
				size_t o = strlen(info->skipped);

				snprintf(info->skipped + o, sizeof(info->skipped) - o, "%s%s",
					 o ? " " : "", hook_of(func));
				want = false;
			}
		}
		bpf_program__set_autoload(prog, want);
	}
	return 0;
}

/*
 * A mode directory being built.  Until it is renamed into place, every
 * failure removes it again: unpinning the links made so far detaches
 * their programs.  Once published, steal_pointer(&name) keeps it.
 */
struct pin_tmp {
	int verfd;
	const char *name; /* NULL: nothing to remove */
};

static void pin_tmp_remove(const struct pin_tmp *t)
{
	if (t->name)
		(void)sgb_remove_tree(t->verfd, t->name);
}

/*
 * Attach every program set to load and pin its link in a temporary
 * directory, then rename that into place.
 */
static int pin_links(const struct sg_bpf *b, const struct stepguard_bpf *skel, int verfd,
		     struct sg_bpf_info *info)
{
	SGB_CLEANUP(pin_tmp_remove) struct pin_tmp undo = { .verfd = verfd };
	struct bpf_program *prog;
	char tmp[64], tmppath[256];
	int r;

	snprintf(tmp, sizeof(tmp), "%s-tmp-%d", sgb_mode_dir(b->mode), (int)getpid());
	/* What a loader that had this pid left when it died. */
	(void)sgb_remove_tree(verfd, tmp);
	if (mkdirat(verfd, tmp, 0700) < 0) {
		r = -errno;
		return sgb_fail(info->why, sizeof(info->why), r, "mkdir %s/%s: %s", b->dir, tmp,
				strerror(-r));
	}
	undo.name = tmp;
	bpf_object__for_each_program(prog, skel->obj)
	{
		struct bpf_link *link;

		if (!bpf_program__autoload(prog))
			continue;
		link = bpf_program__attach(prog);
		if (!link) {
			r = -errno;
			return sgb_fail(info->why, sizeof(info->why), r, "cannot attach %s: %s",
					bpf_program__name(prog), strerror(-r));
		}
		snprintf(tmppath, sizeof(tmppath), "%s/%s/%s", b->dir, tmp, bpf_program__name(prog));
		r = bpf_link__pin(link, tmppath);
		/* Once pinned, the link lives on without this descriptor. */
		bpf_link__destroy(link);
		if (r)
			return sgb_fail(info->why, sizeof(info->why), r, "cannot pin %s: %s", tmppath,
					strerror(-r));
		info->n_progs++;
	}
	/* Published complete, in one step: a reuser never sees half a set. */
	if (renameat(verfd, tmp, verfd, sgb_mode_dir(b->mode)) < 0) {
		r = -errno;
		return sgb_fail(info->why, sizeof(info->why), r, "rename %s: %s", tmp, strerror(-r));
	}
	(void)steal_pointer(&undo.name);
	return 0;
}

/*
 * Load the MODE set of programs with libbpf (maps reused from the pins
 * when they exist, pinned when created), then attach and pin them.
 */
static int load_and_pin(const struct sg_bpf *b, int verfd, struct sg_bpf_info *info)
{
	/* (what LIBBPF_OPTS() expands to, spelt out for cppcheck) */
	struct bpf_object_open_opts oo = { .sz = sizeof(oo), .pin_root_path = b->dir };
	SGB_CLEANUP(btf__freep) struct btf *btf = NULL;
	SGB_CLEANUP(stepguard_bpf__destroyp) struct stepguard_bpf *skel = NULL;
	double t;
	int r;

	btf = btf__load_vmlinux_btf();
	if (!btf)
		return sgb_fail(info->why, sizeof(info->why), -ENOENT, "cannot read the kernel's BTF");
	r = probe_hooks(b->mode, btf, info->why, sizeof(info->why));
	if (r < 0)
		return r;

	t = now_ms();
	skel = stepguard_bpf__open_opts(&oo);
	if (!skel) {
		r = -errno;
		return sgb_fail(info->why, sizeof(info->why), r, "cannot open the BPF object: %s",
				strerror(-r));
	}
	/*
	 * 6.1's task-storage lookup fails when the per-CPU lock is busy;
	 * 6.2 added bpf_task_storage_get_recur and lookups stopped failing.
	 */
	skel->rodata->sg_lookup_can_fail =
		btf__find_by_name_kind(btf, "bpf_task_storage_get_recur", BTF_KIND_FUNC) < 0;
	r = select_programs(skel, b->mode, btf, info);
	if (r < 0)
		return r;
	r = stepguard_bpf__load(skel);
	info->load_ms = now_ms() - t;
	if (r)
		return sgb_fail(info->why, sizeof(info->why), r,
				"the kernel refused the filter (%s):\n%s", strerror(-r),
				log_tail_last(900));

	t = now_ms();
	r = pin_links(b, skel, verfd, info);
	if (r < 0)
		return r;
	info->attach_ms = now_ms() - t;
	return 0;
}

/* load_and_pin(), with libbpf's messages captured (capture_log()). */
static int load_captured(const struct sg_bpf *b, int verfd, struct sg_bpf_info *info)
{
	libbpf_print_fn_t old_print;
	int r;

	log_tail_len = 0;
	log_tail[0] = '\0';
	old_print = libbpf_set_print(capture_log);
	r = load_and_pin(b, verfd, info);
	libbpf_set_print(old_print);
	return r;
}

/*
 * Is the program for HOOK attached in MODE?  Read from the published
 * pins, the same way after a load and on reuse: the links there are the
 * programs that run.
 */
static bool prog_attached(int verfd, enum sg_bpf_mode mode, const char *hook)
{
	const char *prefix = mode == SG_BPF_LSM ? "lsm_" : "fmod_";
	char path[128];

	snprintf(path, sizeof(path), "%s/%s%s", sgb_mode_dir(mode), prefix, hook);
	return faccessat(verfd, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

int sg_bpf_open(enum sg_bpf_mode mode, struct sg_bpf **out, struct sg_bpf_info *info)
{
	return sg_bpf_open_flags(mode, 0, out, info);
}

int sg_bpf_open_flags(enum sg_bpf_mode mode, unsigned flags, struct sg_bpf **out,
		      struct sg_bpf_info *info)
{
	SGB_CLEANUP(sg_bpf_closep) struct sg_bpf *b = NULL;
	_cleanup_close_ int rootfd = -1; /* its close releases the loaders' lock */
	_cleanup_close_ int verfd = -1;
	double t0 = now_ms();
	struct stat st;
	int r;

	memset(info, 0, sizeof(*info));
	*out = NULL;
	/* The hooks in BTF are checked only when loading (load_and_pin). */
	r = probe_env(mode, !(flags & SG_BPF_OPEN_FORCE_ATTACH), info->why, sizeof(info->why));
	if (r < 0)
		return r;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->mode = mode;
	for (int i = 0; i < M__N; i++)
		b->maps[i] = -1;
	snprintf(b->dir, sizeof(b->dir), "%s/%s", SG_BPF_PIN_ROOT, sg_bpf_version());
	snprintf(info->dir, sizeof(info->dir), "%s", b->dir);

	if (mkdir(SG_BPF_PIN_ROOT, 0700) < 0 && errno != EEXIST)
		return sgb_fail(info->why, sizeof(info->why), -errno, "mkdir %s: %s", SG_BPF_PIN_ROOT,
				strerror(errno));
	rootfd = open(SG_BPF_PIN_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (rootfd < 0 || fstat(rootfd, &st) < 0)
		return sgb_fail(info->why, sizeof(info->why), -errno, "open %s: %s", SG_BPF_PIN_ROOT,
				strerror(errno));
	/* Someone else's directory there would be someone else's filter. */
	if (st.st_uid != 0 || (st.st_mode & 0022))
		return sgb_fail(info->why, sizeof(info->why), -EPERM,
				"%s is not root's or is group/world-writable", SG_BPF_PIN_ROOT);
	/*
	 * One loader at a time: without the lock, two first steps of a boot
	 * would both load and attach (every hook then runs twice) and race
	 * on the pins.
	 */
	if (flock(rootfd, LOCK_EX) < 0)
		return sgb_fail(info->why, sizeof(info->why), -errno, "flock %s: %s", SG_BPF_PIN_ROOT,
				strerror(errno));
	sgb_list_stale(rootfd, sg_bpf_version(), info->stale, sizeof(info->stale));
	if (mkdirat(rootfd, sg_bpf_version(), 0700) < 0 && errno != EEXIST)
		return sgb_fail(info->why, sizeof(info->why), -errno, "mkdir %s: %s", b->dir,
				strerror(errno));
	verfd = openat(rootfd, sg_bpf_version(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (verfd < 0)
		return sgb_fail(info->why, sizeof(info->why), -errno, "open %s: %s", b->dir,
				strerror(errno));

	if (faccessat(verfd, sgb_mode_dir(mode), F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		/* Paid once per boot: this build's set is attached already. */
		info->reused = true;
		r = sgb_count_entries(verfd, sgb_mode_dir(mode));
		if (r <= 0)
			return sgb_fail(info->why, sizeof(info->why), r < 0 ? r : -ENOENT,
					"%s/%s holds no programs", b->dir, sgb_mode_dir(mode));
		info->n_progs = (unsigned)r;
	} else {
		r = load_captured(b, verfd, info);
		if (r < 0)
			return r;
	}
	r = sgb_open_maps(b, info->why, sizeof(info->why));
	if (r < 0)
		return r;
	/* The exec restriction needs its hook and the registration hook. */
	b->has_reg = prog_attached(verfd, mode, SG_PROG_EXEC_REG);
	b->has_exec = b->has_reg && prog_attached(verfd, mode, SG_PROG_EXEC);
	info->open_ms = now_ms() - t0;
	*out = steal_pointer(&b);
	return 0;
}

/* pins.c removes a directory it is given: this build's is named here. */
int sg_bpf_unload(const char *version_dir, bool force, char *why, size_t len)
{
	return sgb_unload(version_dir ? version_dir : sg_bpf_version(), force, why, len);
}

void sg_bpf_close(struct sg_bpf *b)
{
	if (!b)
		return;
	ring_buffer__free(b->rb);
	for (size_t i = 0; i < b->n_scopes; i++)
		if (b->scopes[i].ring_fd >= 0)
			close(b->scopes[i].ring_fd);
	for (int i = 0; i < M__N; i++)
		if (b->maps[i] >= 0)
			close(b->maps[i]);
	free(b);
}
