// SPDX-License-Identifier: MIT
/*
 * stepguard — the seccomp filter a confined step runs under.
 *
 * The write filter (Landlock or eBPF) decides which writes land.  This
 * filter does not judge writes; it removes the system calls with which a
 * step could get around the write filter (reach into another process,
 * change what paths mean, write below the file system's hooks) or blind it
 * (run code in the kernel, submit work that never passes through a syscall
 * entry).  Everything else is allowed, so ordinary builds run unchanged.
 *
 * What the filter answers (after the arch check, the syscall number is
 * looked up in a binary tree, so the order below is not the kernel's):
 *   1. arch is not the native one            -> kill the process
 *      (x86_64 only: nr has the x32 bit set  -> kill the process)
 *   2. ioctl(TIOCSTI, TIOCLINUX, the chattr and inode-version requests,
 *      the file-system-wide ones), low 32 bits of the request -> EPERM
 *   3. clone/unshare with a namespace flag   -> EPERM (unless allow_userns)
 *   4. mknod/mknodat of a device node        -> EPERM;
 *      mq_open with O_CREAT, mq_unlink       -> EPERM
 *   5. the named deny list (seccomp_deny.c)  -> EPERM, clone3 -> ENOSYS
 *   6. numbers newer than libseccomp's table -> ENOSYS
 *   7. anything else                         -> allow
 *
 * Only ioctl, clone, unshare, mknod and mq_open look at arguments (and, on
 * landlock+supervisor, openat and seccomp: confine/supervisor/).  The kernel's seccomp
 * action cache (Linux 5.11+) skips the filter entirely for a syscall whose
 * result is "allow" whatever its arguments, so open, read, write, stat,
 * mmap and friends cost one bitmap test, not a filter run.  Never add an
 * argument rule to a hot syscall.
 *
 * The list and the reason for each entry are in seccomp_deny.c and
 * docs/seccomp.md.  This file prints nothing and returns -errno.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "confine/seccomp.h"
#include "confine/seccomp_internal.h"
#include "lib/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/seccomp.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Namespace flags for clone and unshare.  A new user namespace hands the
 * step every capability inside it, and with them mount, chroot and the
 * rest of the default deny list, against its own copies of the namespaces.
 *
 * CLONE_NEWTIME shares its bit (0x80) with the exit-signal byte of clone's
 * flags, so it is checked for unshare only; the kernel takes clone's new
 * time namespace from clone3 alone, which we refuse anyway.
 */
static const uint64_t sg_ns_flags[] = {
	CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWPID, CLONE_NEWNET,
	CLONE_NEWIPC,  CLONE_NEWUTS, CLONE_NEWCGROUP,
};

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/*
 * clone's flags are the first argument everywhere we run except s390,
 * where the stack comes first.
 */
#if defined(__s390__)
#define SG_CLONE_FLAGS_ARG 1
#else
#define SG_CLONE_FLAGS_ARG 0
#endif

/*
 * The highest number the "newer than libseccomp" guard covers.  x86_64's
 * table ends well below it (512 and up are x32's private numbers), as do
 * the generic ones.
 */
#define SG_NR_GUARD_MAX 511

/*
 * One rule per flag: libseccomp ORs the rules of a syscall, and a masked
 * compare per bit is how "any of these bits set" is said in its language.
 * The kernel reads only the low 32 bits of clone's flags, and each mask
 * here lies within them, so high-bit garbage cannot hide a flag.
 */
static int sg_add_ns_rules(scmp_filter_ctx ctx, const struct sg_seccomp_opts *o)
{
	int r;

	if (!o->allow_userns) {
		for (size_t i = 0; i < ARRAY_SIZE(sg_ns_flags); i++) {
			uint64_t f = sg_ns_flags[i];

			r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
					     SCMP_CMP(SG_CLONE_FLAGS_ARG, SCMP_CMP_MASKED_EQ, f, f));
			if (r < 0)
				return r;
			r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
					     SCMP_A0(SCMP_CMP_MASKED_EQ, f, f));
			if (r < 0)
				return r;
		}
	}

	/*
	 * A time namespace is something no CLI sandbox needs (it lets the
	 * step set the clocks its children see), so it stays refused even
	 * with allow_userns.
	 */
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
			     SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWTIME, CLONE_NEWTIME));
	return r;
}

/*
 * TIOCSTI pushes bytes into a terminal's input queue and TIOCLINUX's
 * selection paste does the same on a virtual console: a step would type
 * commands into the user's shell, which runs them outside stepguard.
 *
 * The kernel takes the request as an unsigned int, so only the low 32 bits
 * decide which ioctl runs; compare exactly those, or a request with junk in
 * the high half would pass the filter and still be TIOCSTI to the kernel.
 */
/*
 * FS_IOC_SETFLAGS, FS_IOC_SETVERSION and FS_IOC_FSSETXATTR change a file's
 * attributes (chattr +A, +d, the inode generation, project ids) through a
 * descriptor opened read-only, which neither Landlock nor the supervisor
 * sees: refused everywhere, inside the roots too, since the request cannot
 * be tied to a path here.  The 32-bit FS_IOC32_* forms are the same
 * requests on other ABIs.  The same list as the eBPF program's
 * sg_ioctl_writes() (bpf/stepguard.bpf.c).
 */
#ifndef FS_IOC32_SETFLAGS
#define FS_IOC32_SETFLAGS _IOW('f', 2, int) /* the kernel's compat name, not in uapi */
#endif
#ifndef FS_IOC32_SETVERSION
#define FS_IOC32_SETVERSION _IOW('v', 2, int)
#endif

/*
 * Requests that act on a whole file system through any descriptor on it,
 * a read-only one in the work directory included: its label (what
 * /etc/fstab's LABEL= mounts), its UUID, freezing it (every writer on the
 * machine stalls), shutting it down (ext4, XFS, f2fs: every process loses
 * it), trimming, resizing, swapping ext4's boot loader inode.  Each needs
 * CAP_SYS_ADMIN or CAP_SYS_RESOURCE, which a root step runs without
 * (policy/caps.c); refused here too, so keeping those capabilities
 * (keep-capabilities) never brings them back.  The ext4 numbers are not
 * in the uapi headers of every distribution: written out, as the kernel's
 * fs/ext4/ext4.h defines them.  Other file systems' own requests (btrfs
 * devices and subvolumes, XFS growfs) are not surveyed yet
 * (docs/threat-model.md, "Open gaps").
 */
struct sg_ext4_fsuuid {
	uint32_t fsu_len;
	uint32_t fsu_flags;
};
#define SG_EXT4_IOC_GROUP_EXTEND _IOW('f', 7, unsigned long)
#define SG_EXT4_IOC_RESIZE_FS _IOW('f', 16, uint64_t)
#define SG_EXT4_IOC_SWAP_BOOT _IO('f', 17)
#define SG_EXT4_IOC_SETFSUUID _IOW('f', 44, struct sg_ext4_fsuuid)
#define SG_FS_IOC_SHUTDOWN _IOR('X', 125, uint32_t) /* ext4, XFS (GOINGDOWN), f2fs */
#ifndef FS_IOC_SETFSLABEL
#define FS_IOC_SETFSLABEL _IOW(0x94, 50, char[256])
#endif

static int sg_add_ioctl_rules(scmp_filter_ctx ctx)
{
	static const uint64_t reqs[] = { TIOCSTI, TIOCLINUX, FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS,
					 FS_IOC_SETVERSION, FS_IOC32_SETVERSION, FS_IOC_FSSETXATTR,
					 FS_IOC_SETFSLABEL, SG_EXT4_IOC_SETFSUUID, FIFREEZE, FITHAW,
					 FITRIM, SG_FS_IOC_SHUTDOWN, SG_EXT4_IOC_RESIZE_FS,
					 SG_EXT4_IOC_GROUP_EXTEND, SG_EXT4_IOC_SWAP_BOOT };
	int r;

	/*
	 * ioctl has argument rules, so the kernel cannot cache its result
	 * and every ioctl runs the filter; the binary tree (sg_set_attrs())
	 * finds it in a few compares.
	 */
	for (size_t i = 0; i < ARRAY_SIZE(reqs); i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, reqs[i]));
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * A default-allow filter only refuses what it names, and it can name only
 * what libseccomp knows.  The kernel keeps adding calls (Linux 6.15 added
 * open_tree_attr to the mount family, 6.13 setxattrat and removexattrat,
 * which Landlock does not mediate) and a libseccomp older than the kernel
 * would let them all through unreviewed.  So every number above the highest
 * one libseccomp knows on this architecture is answered ENOSYS, which libc
 * and runtimes treat as "old kernel" and fall back from, to calls this
 * filter and the write filter do see.  Upgrading libseccomp shrinks the
 * range by itself.
 *
 * An architecture whose numbers do not start near 0 (x32, MIPS) resolves
 * nothing in the scanned range and gets no guard.
 */
static int sg_add_unknown_guard(scmp_filter_ctx ctx)
{
	int top = -1;

	for (int nr = SG_NR_GUARD_MAX; nr >= 0 && top < 0; nr--) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

		if (name) {
			top = nr;
			free(name);
		}
	}
	if (top < 0)
		return 0;

	for (int nr = top + 1; nr <= SG_NR_GUARD_MAX; nr++) {
		int r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);

		if (r < 0)
			return r;
	}
	return 0;
}

static int sg_set_attrs(scmp_filter_ctx ctx)
{
	int r;

	/*
	 * A syscall from another ABI (i386 via int 0x80, or x32 on x86_64)
	 * has other numbers, for which none of our rules were written: kill
	 * the whole process, not just the thread, so nothing half-dead
	 * lingers.  libseccomp treats x32 as its own architecture; with only
	 * the native x86_64 one in the filter it sends numbers with the x32
	 * bit to this same action (the unit test checks that it does).
	 */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (r < 0)
		return r;

	/*
	 * The launcher sets no_new_privs itself, at a fixed point in its
	 * order; loading must not do it behind its back (and sg_seccomp_load
	 * checks it is already set).
	 */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (r < 0)
		return r;

	/*
	 * No TSYNC: the filter is loaded in the forked child, which has one
	 * thread, and is inherited over execve by all it starts.
	 */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 0);
	if (r < 0)
		return r;

	/*
	 * A binary tree of syscall numbers, not libseccomp's default chain
	 * in priority order.  The kernel's action cache (5.11+) runs the
	 * filter once per syscall number when it is loaded, to find those
	 * it may always allow without running it again; through the chain,
	 * every number this filter does not name walks all ~100 compares to
	 * reach "allow", and loading the supervised filter took 160 us of
	 * every start (60 us with the tree, docs/performance.md).  At run
	 * time only the calls with argument rules still run the filter, and
	 * for them the two shapes measure the same (openat, ioctl: within
	 * 5 ns).  The tree ignores seccomp_syscall_priority().
	 */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (r < 0)
		return r;

	/* Hand back the kernel's own errno from seccomp(2), not -ECANCELED. */
	return seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
}

/*
 * A device node is a door to whatever it names: a step running as root
 * (CAP_MKNOD) could make one for a disk outside the roots and write it
 * raw.  Landlock never grants device nodes either; this also covers the
 * eBPF backends and keeps the refusal in one obvious place.  Only the
 * file-type bits of the mode decide, so compare exactly those.
 */
static int sg_add_mknod_rules(scmp_filter_ctx ctx)
{
	static const uint64_t types[] = { S_IFBLK, S_IFCHR };
	int r;

	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mknod), 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, S_IFMT, types[i]));
		if (r < 0)
			return r;
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mknodat), 1,
				     SCMP_A2(SCMP_CMP_MASKED_EQ, S_IFMT, types[i]));
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * POSIX message queues live in the IPC namespace's own file system, which
 * no writable root covers: opening one for writing is refused by every
 * backend, so a step never has a queue of its own to use.  Creating and
 * removing one happen where the write filter does not look (mq_open
 * creates the queue before the open is judged; mq_unlink removes it
 * without a path hook), so a step could remove another process's queue
 * or leave one behind: refused here, by the O_CREAT bit of the flags.
 */
static int sg_add_mq_rules(scmp_filter_ctx ctx)
{
	int r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mq_open), 1,
				 SCMP_A1(SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT));

	if (r < 0)
		return r;
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mq_unlink), 0);
}

int sg_seccomp_build(const struct sg_seccomp_opts *o, scmp_filter_ctx *out,
		     const char **bad_name)
{
	static const struct sg_seccomp_opts defaults;
	const char *ignored = NULL;
	scmp_filter_ctx ctx;
	int r;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!bad_name)
		bad_name = &ignored;
	*bad_name = NULL;
	if (!o)
		o = &defaults;

	r = sg_seccomp_check_opts(o, bad_name);
	if (r < 0)
		return r;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -ENOMEM;

	r = sg_set_attrs(ctx);
	if (r >= 0)
		r = sg_add_ioctl_rules(ctx);
	if (r >= 0)
		r = sg_add_mknod_rules(ctx);
	if (r >= 0)
		r = sg_add_mq_rules(ctx);
	if (r >= 0)
		r = sg_add_ns_rules(ctx, o);
	if (r >= 0)
		r = sg_seccomp_add_default_deny(ctx, o);
	if (r >= 0)
		r = sg_seccomp_add_policy_deny(ctx, o);
	if (r >= 0)
		r = sg_add_unknown_guard(ctx);
	if (r < 0) {
		seccomp_release(ctx);
		return r;
	}

	*out = ctx;
	return 0;
}

/*
 * libseccomp turns its rule database into BPF when asked to load or export
 * it.  stepguard exports it in the parent, before fork: the work (about a
 * third of a millisecond per start) is then not done on the child's
 * copy-on-write pages, and the child is left with a single system call.
 * seccomp_export_bpf() writes to a descriptor; a memfd keeps it in memory.
 */
int sg_seccomp_export(scmp_filter_ctx ctx, struct sg_seccomp_prog *out)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	ssize_t n;
	int r;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!ctx || !out)
		return -EINVAL;
	fd = memfd_create("stepguard-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	/*
	 * libseccomp 2.5.4 does not survive a failed malloc while it
	 * generates: its error path frees blocks it has already linked
	 * elsewhere (_blk_free() from gen_bpf_generate()), and stepguard died
	 * of SIGSEGV, with no message, under an RLIMIT_AS just above its own
	 * size.  The library cannot be patched here (it is the distribution's,
	 * linked statically), so make sure it cannot run short: map
	 * SG_SECCOMP_EXPORT_RESERVE bytes and give them back at once.  The
	 * mapping is never touched and MAP_NORESERVE, so it costs no memory,
	 * but it is private and writable: the kernel counts it against
	 * RLIMIT_AS and RLIMIT_DATA exactly as it counts the heap that
	 * malloc grows with brk or mmap.  If it fits, what libseccomp needs
	 * fits: this process is single-threaded here (before fork, before the
	 * supervisor), so nothing takes the space back in between.  If it
	 * does not fit, refuse with a message instead of a crash.
	 */
	{
		void *reserve = mmap(NULL, SG_SECCOMP_EXPORT_RESERVE, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (reserve == MAP_FAILED)
			return -ENOMEM;
		munmap(reserve, SG_SECCOMP_EXPORT_RESERVE);
	}
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0)
		return r;
	if (fstat(fd, &st) < 0)
		return -errno;
	/* The kernel takes at most BPF_MAXINSNS instructions; an empty or
	 * ragged program is libseccomp's bug, never something to load. */
	if (st.st_size <= 0 || st.st_size % (off_t)sizeof(struct sock_filter) != 0 ||
	    st.st_size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS)
		return -EPROTO;
	out->insns = malloc((size_t)st.st_size);
	if (!out->insns)
		return -ENOMEM;
	n = pread(fd, out->insns, (size_t)st.st_size, 0);
	if (n != st.st_size) {
		r = n < 0 ? -errno : -EIO;
		sg_seccomp_prog_free(out);
		return r;
	}
	out->len = (unsigned short)(st.st_size / (off_t)sizeof(struct sock_filter));
	return 0;
}

void sg_seccomp_prog_free(struct sg_seccomp_prog *p)
{
	if (!p)
		return;
	free(p->insns);
	p->insns = NULL;
	p->len = 0;
}

int sg_seccomp_load(const struct sg_seccomp_prog *p, bool listener)
{
	struct sock_fprog fprog;
	long r;

	if (!p || !p->insns || p->len == 0)
		return -EINVAL;

	/*
	 * Refuse rather than let root load without no_new_privs: a filter
	 * is only a boundary if a setuid program started under it cannot
	 * gain privileges the filter was not written for, and the launcher's
	 * order promises no_new_privs comes first.
	 */
	r = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	if (r < 0)
		return -errno;
	if (r != 1)
		return -EPERM;

	/*
	 * The flags libseccomp itself would pass for this filter: no TSYNC
	 * (sg_seccomp_build() turns it off: the child has one thread), and
	 * NEW_LISTENER when the supervisor's notify rules are in it.
	 */
	fprog.len = p->len;
	fprog.filter = p->insns;
	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    listener ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &fprog);
	if (r < 0)
		return -errno;
	return listener ? (int)r : 0;
}
