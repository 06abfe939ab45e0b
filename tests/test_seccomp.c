// SPDX-License-Identifier: MIT
/*
 * Unit tests for confine/seccomp.c, confine/seccomp_deny.c and the
 * prebuilt filters (confine/seccomp_variant.c, seccomp_prebuilt.c and the
 * table confine/seccomp_gen.c writes at build time).
 *
 * The filter is checked without root and without loading it: libseccomp
 * exports the classic-BPF program it would load, a small interpreter below
 * runs it on a struct seccomp_data, and tables say what each call must get.
 * The interpreter refuses any instruction it does not know, so a change in
 * what libseccomp emits fails the tests instead of passing them blindly.
 *
 * A second group really loads the filter in a forked child (no root needed:
 * no_new_privs is enough) and checks a few calls against the kernel.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <linux/fs.h>
#ifndef FS_IOC32_SETFLAGS
#define FS_IOC32_SETFLAGS _IOW('f', 2, int)
#endif

#include "confine/seccomp.h"
#include "confine/supervisor/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

#define RET_ALLOW   SECCOMP_RET_ALLOW
#define RET_EPERM   (SECCOMP_RET_ERRNO | EPERM)
#define RET_ENOSYS  (SECCOMP_RET_ERRNO | ENOSYS)
#define RET_KILL    SECCOMP_RET_KILL_PROCESS

#define X32_BIT     0x40000000u
#define HIGH_JUNK   0xdeadbeef00000000ull

/* Linux 6.15, same number on every architecture but alpha. */
#define NR_OPEN_TREE_ATTR 467

/* ---- the exported program and the interpreter ------------------------- */

struct prog {
	struct sock_filter *insns;
	size_t len;
};

static void prog_export(scmp_filter_ctx ctx, struct prog *p)
{
	off_t size;
	int fd;

	fd = memfd_create("sg-test-bpf", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(seccomp_export_bpf(ctx, fd), 0);
	size = lseek(fd, 0, SEEK_END);
	assert_true(size > 0);
	assert_int_equal(size % (off_t)sizeof(struct sock_filter), 0);
	p->len = (size_t)size / sizeof(struct sock_filter);
	/* The kernel refuses longer programs. */
	assert_true(p->len <= BPF_MAXINSNS);
	p->insns = malloc((size_t)size);
	assert_non_null(p->insns);
	assert_int_equal(pread(fd, p->insns, (size_t)size, 0), size);
	close(fd);
}

static void prog_build(const struct sg_seccomp_opts *o, struct prog *p)
{
	scmp_filter_ctx ctx = NULL;
	const char *bad = NULL;

	assert_int_equal(sg_seccomp_build(o, &ctx, &bad), 0);
	assert_non_null(ctx);
	assert_null(bad);
	prog_export(ctx, p);
	seccomp_release(ctx);
}

static void prog_free(struct prog *p)
{
	free(p->insns);
	p->insns = NULL;
	p->len = 0;
}

/*
 * A program the interpreter cannot run exactly as the kernel would is a
 * test failure, never a guess.  mock_assert() fails the running test, and
 * lets test_bpf_run_* check that it does with expect_assert_failure().
 */
#define BPF_REQUIRE(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			print_error(__VA_ARGS__);			\
			mock_assert(0, #cond, __FILE__, __LINE__);	\
			return SECCOMP_RET_KILL_PROCESS;		\
		}							\
	} while (0)

/*
 * Run P on D the way the kernel would, and say whether it looked at
 * anything but nr and arch (the kernel caches "allow" only for syscalls
 * whose verdict does not depend on the rest).
 */
static uint32_t bpf_run(const struct prog *p, const struct seccomp_data *d,
			bool *read_more)
{
	unsigned char in[sizeof(*d)];
	uint32_t a = 0;
	size_t pc = 0;

	memcpy(in, d, sizeof(in));
	*read_more = false;

	for (;;) {
		const struct sock_filter *f;

		/* Falling off the end, or jumping past it, is a broken program. */
		BPF_REQUIRE(pc < p->len, "BPF ran past its end (pc %zu, len %zu)\n",
			    pc, p->len);
		f = &p->insns[pc++];

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			BPF_REQUIRE(f->k % 4 == 0 && f->k + 4 <= sizeof(in),
				    "BPF load at bad offset %u (pc %zu)\n", f->k, pc - 1);
			if (f->k >= offsetof(struct seccomp_data, instruction_pointer))
				*read_more = true;
			memcpy(&a, in + f->k, 4);
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= f->k;
			break;
		case BPF_JMP | BPF_JA:
			pc += f->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			pc += a > f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (a & f->k) ? f->jt : f->jf;
			break;
		case BPF_RET | BPF_K:
			return f->k;
		default:
			BPF_REQUIRE(false, "BPF opcode %#06x at pc %zu is not handled by the test interpreter\n",
				    f->code, pc - 1);
		}
	}
}

struct call {
	const char *what;
	uint32_t arch;		/* 0: native */
	uint32_t nr;
	uint64_t args[6];
	uint32_t want;
};

static uint32_t native_arch(void)
{
	/* libseccomp's arch tokens are the AUDIT_ARCH_* values. */
	return seccomp_arch_native();
}

static uint32_t call_run(const struct prog *p, const struct call *c, bool *read_more)
{
	struct seccomp_data d;

	memset(&d, 0, sizeof(d));
	d.nr = (int)c->nr;
	d.arch = c->arch ? c->arch : native_arch();
	d.instruction_pointer = 0x7f0000001000ull;
	memcpy(d.args, c->args, sizeof(d.args));
	return bpf_run(p, &d, read_more);
}

static void check_calls(const struct prog *p, const struct call *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool read_more;
		uint32_t got = call_run(p, &c[i], &read_more);

		if (got != c[i].want)
			fail_msg("%s (nr %#x): got %#x, want %#x",
				 c[i].what, c[i].nr, got, c[i].want);
	}
}

static uint32_t verdict(const struct prog *p, long nr, uint64_t a0, uint64_t a1)
{
	struct call c = { .what = "", .nr = (uint32_t)nr, .args = { a0, a1 } };
	bool read_more;

	return call_run(p, &c, &read_more);
}

static int nr_of(const char *name)
{
	return seccomp_syscall_resolve_name(name);
}

/* ---- the interpreter itself ------------------------------------------- */

/* The tests below are only as good as the interpreter: check it on its own. */
static void test_bpf_run_handles_each_opcode(void **state)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 10, 0, 6),	/* nr < 10: RET 1 */
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 20, 0, 1),	/* nr <= 20: skip */
		BPF_STMT(BPF_RET | BPF_K, 3),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x3),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1, 0, 1), /* odd: RET 2 */
		BPF_STMT(BPF_RET | BPF_K, 2),
		BPF_STMT(BPF_JMP | BPF_JA, 1),
		BPF_STMT(BPF_RET | BPF_K, 1),
		BPF_STMT(BPF_RET | BPF_K, 4),
	};
	struct prog p = { insns, ARRAY_SIZE(insns) };
	struct seccomp_data d = { 0 };
	bool read_more;

	(void)state;
	d.nr = 5;
	assert_int_equal(bpf_run(&p, &d, &read_more), 1);
	assert_false(read_more);
	d.nr = 21;
	assert_int_equal(bpf_run(&p, &d, &read_more), 3);
	d.nr = 11;
	assert_int_equal(bpf_run(&p, &d, &read_more), 2);
	d.nr = 12;
	assert_int_equal(bpf_run(&p, &d, &read_more), 4);
}

static void test_bpf_run_refuses_unknown_opcode(void **state)
{
	/* BPF_LDX | BPF_MEM: scratch memory, which libseccomp does not use. */
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LDX | BPF_W | BPF_MEM, 0),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct prog p = { insns, ARRAY_SIZE(insns) };
	struct seccomp_data d = { 0 };
	bool read_more;

	(void)state;
	expect_assert_failure(bpf_run(&p, &d, &read_more));
}

static void test_bpf_run_refuses_running_off_the_end(void **state)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct prog p = { insns, ARRAY_SIZE(insns) };
	struct seccomp_data d = { 0 };
	bool read_more;

	(void)state;
	d.nr = 1;
	assert_int_equal(bpf_run(&p, &d, &read_more), 0);
	d.nr = 2;
	expect_assert_failure(bpf_run(&p, &d, &read_more));
}

/* ---- sg_seccomp_build: the default filter ------------------------------ */

/*
 * The issue's list, spelled with the kernel headers' numbers so a wrong
 * name in the module's table cannot hide behind libseccomp's lookup.
 */
static void test_sg_seccomp_build_denies_issue_list(void **state)
{
	static const long nrs[] = {
		SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev,
		SYS_pidfd_getfd, SYS_bpf, SYS_perf_event_open,
		SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
		SYS_userfaultfd, SYS_keyctl, SYS_add_key, SYS_request_key,
		SYS_mount, SYS_umount2, SYS_pivot_root, SYS_move_mount,
		SYS_open_tree, SYS_fsopen, SYS_fsmount, SYS_fsconfig, SYS_fspick,
		SYS_mount_setattr, SYS_open_by_handle_at, SYS_name_to_handle_at,
		SYS_kexec_load, SYS_kexec_file_load, SYS_init_module,
		SYS_finit_module, SYS_delete_module, SYS_setns, SYS_chroot,
		SYS_swapon, SYS_swapoff,
#ifdef SYS_iopl
		SYS_iopl, SYS_ioperm,
#endif
	};
	struct prog p;

	(void)state;
	prog_build(NULL, &p);
	for (size_t i = 0; i < ARRAY_SIZE(nrs); i++) {
		uint32_t got = verdict(&p, nrs[i], 0, 0);

		if (got != RET_EPERM)
			fail_msg("syscall %ld: got %#x, want EPERM", nrs[i], got);
		/* Arguments make no difference to an unconditional refusal. */
		assert_int_equal(verdict(&p, nrs[i], ~0ull, ~0ull), RET_EPERM);
	}
	/* The allowed side: the neighbours of a denied call still run. */
	assert_int_equal(verdict(&p, SYS_getppid, 0, 0), RET_ALLOW);
	assert_int_equal(verdict(&p, SYS_process_vm_readv - 1, 0, 0), RET_ALLOW);
	prog_free(&p);
}

/* Every name sg_seccomp_default_deny() lists is refused, with its errno. */
static void test_sg_seccomp_build_denies_every_default_name(void **state)
{
	const char *const *names = sg_seccomp_default_deny();
	size_t checked = 0;
	struct prog p;

	(void)state;
	prog_build(NULL, &p);
	for (size_t i = 0; names[i]; i++) {
		int nr = nr_of(names[i]);
		uint32_t want = strcmp(names[i], "clone3") ? RET_EPERM : RET_ENOSYS;
		uint32_t got;

		if (nr < 0)	/* not on this arch, or newer than libseccomp */
			continue;
		got = verdict(&p, nr, 0, 0);
		if (got != want)
			fail_msg("%s (%d): got %#x, want %#x", names[i], nr, got, want);
		checked++;
	}
	assert_true(checked >= 30);
	prog_free(&p);
}

static void test_sg_seccomp_build_clone3_enosys(void **state)
{
	struct sg_seccomp_opts userns = { .allow_userns = true };
	struct prog p;

	(void)state;
	prog_build(NULL, &p);
	assert_int_equal(verdict(&p, SYS_clone3, 0, 0), RET_ENOSYS);
	assert_int_equal(verdict(&p, SYS_clone, SIGCHLD, 0), RET_ALLOW);
	prog_free(&p);

	/* Not even allow_userns lets flags we cannot read through. */
	prog_build(&userns, &p);
	assert_int_equal(verdict(&p, SYS_clone3, 0, 0), RET_ENOSYS);
	prog_free(&p);
}

static void test_sg_seccomp_build_clone_namespace_flags(void **state)
{
	/* glibc's fork() and pthread_create() fallback flags. */
	const uint64_t fork_flags = CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD;
	const uint64_t thread_flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
				      CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |
				      CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
	const struct call calls[] = {
		{ "clone(NEWUSER)", 0, SYS_clone, { CLONE_NEWUSER | SIGCHLD }, RET_EPERM },
		{ "clone(NEWNS)", 0, SYS_clone, { CLONE_NEWNS }, RET_EPERM },
		{ "clone(NEWPID)", 0, SYS_clone, { CLONE_NEWPID }, RET_EPERM },
		{ "clone(NEWNET)", 0, SYS_clone, { CLONE_NEWNET }, RET_EPERM },
		{ "clone(NEWIPC)", 0, SYS_clone, { CLONE_NEWIPC }, RET_EPERM },
		{ "clone(NEWUTS)", 0, SYS_clone, { CLONE_NEWUTS }, RET_EPERM },
		{ "clone(NEWCGROUP)", 0, SYS_clone, { CLONE_NEWCGROUP }, RET_EPERM },
		{ "clone(fork|NEWUSER)", 0, SYS_clone, { fork_flags | CLONE_NEWUSER }, RET_EPERM },
		{ "clone(junk|NEWUSER)", 0, SYS_clone, { HIGH_JUNK | CLONE_NEWUSER }, RET_EPERM },
		{ "clone(fork)", 0, SYS_clone, { fork_flags }, RET_ALLOW },
		{ "clone(thread)", 0, SYS_clone, { thread_flags }, RET_ALLOW },
		{ "clone(vfork)", 0, SYS_clone, { CLONE_VM | CLONE_VFORK | SIGCHLD }, RET_ALLOW },
		/* The kernel ignores clone's high half: so must we, both ways. */
		{ "clone(junk|fork)", 0, SYS_clone, { HIGH_JUNK | fork_flags }, RET_ALLOW },
		/* 0x80 is part of the exit signal byte for clone, not NEWTIME. */
		{ "clone(0x80)", 0, SYS_clone, { 0x80 }, RET_ALLOW },
	};
	struct prog p;

	(void)state;
	prog_build(NULL, &p);
	check_calls(&p, calls, ARRAY_SIZE(calls));
	prog_free(&p);
}

static void test_sg_seccomp_build_unshare_namespace_flags(void **state)
{
	const struct call calls[] = {
		{ "unshare(NEWNS)", 0, SYS_unshare, { CLONE_NEWNS }, RET_EPERM },
		{ "unshare(NEWUSER)", 0, SYS_unshare, { CLONE_NEWUSER }, RET_EPERM },
		{ "unshare(NEWUSER|NEWNS)", 0, SYS_unshare, { CLONE_NEWUSER | CLONE_NEWNS }, RET_EPERM },
		{ "unshare(NEWNET)", 0, SYS_unshare, { CLONE_NEWNET }, RET_EPERM },
		{ "unshare(NEWPID)", 0, SYS_unshare, { CLONE_NEWPID }, RET_EPERM },
		{ "unshare(NEWIPC)", 0, SYS_unshare, { CLONE_NEWIPC }, RET_EPERM },
		{ "unshare(NEWUTS)", 0, SYS_unshare, { CLONE_NEWUTS }, RET_EPERM },
		{ "unshare(NEWCGROUP)", 0, SYS_unshare, { CLONE_NEWCGROUP }, RET_EPERM },
		{ "unshare(NEWTIME)", 0, SYS_unshare, { CLONE_NEWTIME }, RET_EPERM },
		{ "unshare(FILES)", 0, SYS_unshare, { CLONE_FILES }, RET_ALLOW },
		{ "unshare(FS)", 0, SYS_unshare, { CLONE_FS }, RET_ALLOW },
		{ "unshare(SYSVSEM)", 0, SYS_unshare, { CLONE_SYSVSEM }, RET_ALLOW },
		{ "setns(fd, 0)", 0, SYS_setns, { 3, 0 }, RET_EPERM },
		{ "setns(fd, NEWNS)", 0, SYS_setns, { 3, CLONE_NEWNS }, RET_EPERM },
	};
	struct prog p;

	(void)state;
	prog_build(NULL, &p);
	check_calls(&p, calls, ARRAY_SIZE(calls));
	prog_free(&p);
}

/*
 * allow_userns: a CLI may build its own namespaces, nothing more.  It may
 * not join existing ones, take a time namespace, mount, or use clone3.
 */
static void test_sg_seccomp_build_allow_userns_permits_only_new_namespaces(void **state)
{
	const uint64_t all_ns = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET |
				CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
	const struct call calls[] = {
		{ "clone(all ns)", 0, SYS_clone, { all_ns | SIGCHLD }, RET_ALLOW },
		{ "clone(NEWUSER)", 0, SYS_clone, { CLONE_NEWUSER }, RET_ALLOW },
		{ "unshare(NEWUSER|NEWNS)", 0, SYS_unshare, { CLONE_NEWUSER | CLONE_NEWNS }, RET_ALLOW },
		{ "unshare(NEWNS)", 0, SYS_unshare, { CLONE_NEWNS }, RET_ALLOW },
		{ "unshare(NEWTIME)", 0, SYS_unshare, { CLONE_NEWTIME }, RET_EPERM },
		{ "unshare(NEWUSER|NEWTIME)", 0, SYS_unshare, { CLONE_NEWUSER | CLONE_NEWTIME }, RET_EPERM },
		{ "setns", 0, SYS_setns, { 3, CLONE_NEWUSER }, RET_EPERM },
		{ "mount", 0, SYS_mount, { 0 }, RET_EPERM },
		{ "pivot_root", 0, SYS_pivot_root, { 0 }, RET_EPERM },
		{ "chroot", 0, SYS_chroot, { 0 }, RET_EPERM },
		{ "clone3", 0, SYS_clone3, { 0 }, RET_ENOSYS },
	};
	struct sg_seccomp_opts o = { .allow_userns = true };
	struct prog p;

	(void)state;
	prog_build(&o, &p);
	check_calls(&p, calls, ARRAY_SIZE(calls));
	prog_free(&p);
}

static void test_sg_seccomp_build_ioctl_tiocsti(void **state)
{
	const struct call calls[] = {
		{ "ioctl(TIOCSTI)", 0, SYS_ioctl, { 0, TIOCSTI }, RET_EPERM },
		{ "ioctl(TIOCLINUX)", 0, SYS_ioctl, { 0, TIOCLINUX }, RET_EPERM },
		/* The kernel truncates the request to 32 bits; so do we. */
		{ "ioctl(junk|TIOCSTI)", 0, SYS_ioctl, { 0, HIGH_JUNK | TIOCSTI }, RET_EPERM },
		{ "ioctl(junk|TIOCLINUX)", 0, SYS_ioctl, { 0, 0xffffffff00000000ull | TIOCLINUX }, RET_EPERM },
		{ "ioctl(fd junk, TIOCSTI)", 0, SYS_ioctl, { ~0ull, TIOCSTI }, RET_EPERM },
		{ "ioctl(FS_IOC_SETFLAGS)", 0, SYS_ioctl, { 3, FS_IOC_SETFLAGS }, RET_EPERM },
		{ "ioctl(junk|FS_IOC_SETFLAGS)", 0, SYS_ioctl, { 3, HIGH_JUNK | FS_IOC_SETFLAGS }, RET_EPERM },
		{ "ioctl(FS_IOC32_SETFLAGS)", 0, SYS_ioctl, { 3, FS_IOC32_SETFLAGS }, RET_EPERM },
		{ "ioctl(FS_IOC_FSSETXATTR)", 0, SYS_ioctl, { 3, FS_IOC_FSSETXATTR }, RET_EPERM },
		{ "ioctl(FS_IOC_SETVERSION)", 0, SYS_ioctl, { 3, FS_IOC_SETVERSION }, RET_EPERM },
		{ "ioctl(FS_IOC32_SETVERSION)", 0, SYS_ioctl, { 3, _IOW('v', 2, int) }, RET_EPERM },
		/* file-system-wide: a read-only descriptor on the file system is enough */
		{ "ioctl(FS_IOC_SETFSLABEL)", 0, SYS_ioctl, { 3, _IOW(0x94, 50, char[256]) }, RET_EPERM },
		{ "ioctl(junk|FS_IOC_SETFSLABEL)", 0, SYS_ioctl, { 3, HIGH_JUNK | _IOW(0x94, 50, char[256]) }, RET_EPERM },
		{ "ioctl(EXT4_IOC_SETFSUUID)", 0, SYS_ioctl, { 3, _IOW('f', 44, uint32_t[2]) }, RET_EPERM },
		{ "ioctl(FIFREEZE)", 0, SYS_ioctl, { 3, FIFREEZE }, RET_EPERM },
		{ "ioctl(FITHAW)", 0, SYS_ioctl, { 3, FITHAW }, RET_EPERM },
		{ "ioctl(FITRIM)", 0, SYS_ioctl, { 3, FITRIM }, RET_EPERM },
		{ "ioctl(FS_IOC_SHUTDOWN)", 0, SYS_ioctl, { 3, _IOR('X', 125, uint32_t) }, RET_EPERM },
		{ "ioctl(EXT4_IOC_RESIZE_FS)", 0, SYS_ioctl, { 3, _IOW('f', 16, uint64_t) }, RET_EPERM },
		{ "ioctl(EXT4_IOC_GROUP_EXTEND)", 0, SYS_ioctl, { 3, _IOW('f', 7, unsigned long) }, RET_EPERM },
		{ "ioctl(EXT4_IOC_SWAP_BOOT)", 0, SYS_ioctl, { 3, _IO('f', 17) }, RET_EPERM },
		{ "ioctl(FS_IOC_GETFSLABEL) reads", 0, SYS_ioctl, { 3, _IOR(0x94, 49, char[256]) }, RET_ALLOW },
		/* POSIX queues: creating and removing refused, opening an existing one left to the write filter */
		{ "mq_open(O_CREAT)", 0, SYS_mq_open, { 0, O_CREAT | O_RDWR, 0600, 0 }, RET_EPERM },
		{ "mq_open(O_CREAT|O_EXCL|O_RDONLY)", 0, SYS_mq_open, { 0, O_CREAT | O_EXCL, 0600, 0 }, RET_EPERM },
		{ "mq_open(junk|O_CREAT)", 0, SYS_mq_open, { 0, HIGH_JUNK | O_CREAT, 0600, 0 }, RET_EPERM },
		{ "mq_open(O_RDONLY)", 0, SYS_mq_open, { 0, O_RDONLY, 0, 0 }, RET_ALLOW },
		{ "mq_unlink", 0, SYS_mq_unlink, { 0 }, RET_EPERM },
		{ "ioctl(FS_IOC_GETVERSION) reads", 0, SYS_ioctl, { 3, FS_IOC_GETVERSION }, RET_ALLOW },
		{ "ioctl(FS_IOC_GETFLAGS)", 0, SYS_ioctl, { 3, FS_IOC_GETFLAGS }, RET_ALLOW },
		{ "ioctl(FIONREAD)", 0, SYS_ioctl, { 0, FIONREAD }, RET_ALLOW },
		/* device nodes refused, by the file-type bits only */
		{ "mknod(S_IFBLK)", 0, SYS_mknod, { 0, S_IFBLK | 0600, 0x0700 }, RET_EPERM },
		{ "mknod(S_IFCHR)", 0, SYS_mknod, { 0, S_IFCHR | 0666, 0x0103 }, RET_EPERM },
		{ "mknodat(S_IFBLK)", 0, SYS_mknodat, { AT_FDCWD, 0, S_IFBLK | 0600, 0x0700 }, RET_EPERM },
		{ "mknodat(S_IFCHR)", 0, SYS_mknodat, { 3, 0, S_IFCHR, 0 }, RET_EPERM },
		{ "mknod(S_IFIFO)", 0, SYS_mknod, { 0, S_IFIFO | 0600, 0 }, RET_ALLOW },
		{ "mknodat(S_IFREG)", 0, SYS_mknodat, { AT_FDCWD, 0, S_IFREG | 0644, 0 }, RET_ALLOW },
		{ "mknodat(S_IFSOCK)", 0, SYS_mknodat, { AT_FDCWD, 0, S_IFSOCK | 0644, 0 }, RET_ALLOW },
		{ "ioctl(TCGETS)", 0, SYS_ioctl, { 0, TCGETS }, RET_ALLOW },
		{ "ioctl(TIOCGWINSZ)", 0, SYS_ioctl, { 1, TIOCGWINSZ }, RET_ALLOW },
		{ "ioctl(junk|FIONREAD)", 0, SYS_ioctl, { 0, HIGH_JUNK | FIONREAD }, RET_ALLOW },
		/* TIOCSTI in the high half only is not TIOCSTI to the kernel. */
		{ "ioctl(TIOCSTI<<32)", 0, SYS_ioctl, { 0, (uint64_t)TIOCSTI << 32 }, RET_ALLOW },
	};
	struct prog p;

	(void)state;
	prog_build(NULL, &p);
	check_calls(&p, calls, ARRAY_SIZE(calls));
	prog_free(&p);
}

/*
 * Hot calls are allowed, and the program decides them from nr and arch
 * alone, so the kernel's action cache skips the filter for them.  Only
 * ioctl, clone and unshare may look further.
 */
static void test_sg_seccomp_build_hot_syscalls_constant_allow(void **state)
{
	static const long hot[] = {
		SYS_read, SYS_write, SYS_openat, SYS_close, SYS_fstat,
		SYS_newfstatat, SYS_statx, SYS_mmap, SYS_munmap, SYS_mprotect,
		SYS_brk, SYS_lseek, SYS_pread64, SYS_pwrite64, SYS_readv,
		SYS_writev, SYS_getdents64, SYS_futex, SYS_rt_sigaction,
		SYS_rt_sigprocmask, SYS_execve, SYS_exit_group, SYS_wait4,
		SYS_getppid, SYS_getpid, SYS_fcntl, SYS_dup3, SYS_pipe2,
		SYS_faccessat, SYS_readlinkat, SYS_getrandom, SYS_clock_gettime,
#ifdef SYS_open
		SYS_open, SYS_stat, SYS_lstat, SYS_access,
#endif
	};
	/* mknod and mknodat: rare, and their mode decides (device nodes are refused) */
	const int arg_nrs[] = { SYS_ioctl, SYS_clone, SYS_unshare, SYS_mknod, SYS_mknodat, SYS_mq_open };
	struct prog p;

	(void)state;
	prog_build(NULL, &p);

	for (size_t i = 0; i < ARRAY_SIZE(hot); i++) {
		struct call c = { .what = "", .nr = (uint32_t)hot[i],
				  .args = { ~0ull, 1, 2, 3, 4, 5 } };
		bool read_more;

		if (call_run(&p, &c, &read_more) != RET_ALLOW)
			fail_msg("hot syscall %ld is not allowed", hot[i]);
		if (read_more)
			fail_msg("hot syscall %ld has an argument rule", hot[i]);
	}

	/* Across the whole number space, only the three expected calls read args. */
	for (uint32_t nr = 0; nr < 1024; nr++) {
		struct call c = { .what = "", .nr = nr };
		bool read_more, expected = false;

		for (size_t j = 0; j < ARRAY_SIZE(arg_nrs); j++)
			expected |= (int)nr == arg_nrs[j];
		(void)call_run(&p, &c, &read_more);
		if (read_more != expected)
			fail_msg("syscall %u: reads arguments: %d, expected %d", nr,
				 read_more, expected);
	}
	prog_free(&p);
}

static void test_sg_seccomp_build_foreign_arch_killed(void **state)
{
	/* On x86_64 the foreign ABI is i386; elsewhere any other arch will do. */
	uint32_t foreign = native_arch() == AUDIT_ARCH_I386 ? AUDIT_ARCH_X86_64
							     : AUDIT_ARCH_I386;
	const struct call calls[] = {
		{ "foreign read", foreign, 3, { 0 }, RET_KILL },
		{ "foreign getppid", foreign, 64, { 0 }, RET_KILL },
		{ "foreign ptrace", foreign, 26, { 0 }, RET_KILL },
		{ "foreign nr 0", foreign, 0, { 0 }, RET_KILL },
		{ "arm64 read", AUDIT_ARCH_AARCH64 == native_arch() ? AUDIT_ARCH_ARM : AUDIT_ARCH_AARCH64,
		  63, { 0 }, RET_KILL },
		{ "native getppid", 0, SYS_getppid, { 0 }, RET_ALLOW },
		{ "native read", 0, SYS_read, { 0 }, RET_ALLOW },
	};
	struct prog p;

	(void)state;
	prog_build(NULL, &p);
	check_calls(&p, calls, ARRAY_SIZE(calls));
	prog_free(&p);
}

static void test_sg_seccomp_build_x32_killed(void **state)
{
#if defined(__x86_64__) && !defined(__ILP32__)
	/* x32 calls arrive with arch X86_64 and the x32 bit in nr. */
	const struct call calls[] = {
		{ "x32 read", 0, X32_BIT | 0, { 0 }, RET_KILL },
		{ "x32 getppid", 0, X32_BIT | SYS_getppid, { 0 }, RET_KILL },
		{ "x32 ptrace", 0, X32_BIT | SYS_ptrace, { 0 }, RET_KILL },
		{ "x32 ioctl", 0, X32_BIT | 514, { 0, TIOCSTI }, RET_KILL },	/* x32's own ioctl */
		{ "x32 execve", 0, X32_BIT | 520, { 0 }, RET_KILL },
		{ "x32 top", 0, X32_BIT | 0x3fffffffu, { 0 }, RET_KILL },
		{ "native read", 0, SYS_read, { 0 }, RET_ALLOW },
		{ "native getppid", 0, SYS_getppid, { 0 }, RET_ALLOW },
	};
	struct prog p;

	(void)state;
	prog_build(NULL, &p);
	check_calls(&p, calls, ARRAY_SIZE(calls));
	prog_free(&p);
#else
	(void)state;
	skip();	/* x32 exists on x86_64 only */
#endif
}

/*
 * Numbers above the last one libseccomp can name are answered ENOSYS;
 * open_tree_attr is refused whether libseccomp knows it (named, EPERM) or
 * not (guard, ENOSYS).
 */
static void test_sg_seccomp_build_unknown_numbers_enosys(void **state)
{
	int top = -1;
	struct prog p;
	uint32_t got;

	(void)state;
	for (int nr = 511; nr >= 0 && top < 0; nr--) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

		if (name)
			top = nr;
		free(name);
	}
	assert_true(top > 300);

	prog_build(NULL, &p);
	for (int nr = top + 1; nr <= 511; nr++) {
		got = verdict(&p, nr, 0, 0);
		if (got != RET_ENOSYS)
			fail_msg("syscall %d (above libseccomp's %d): got %#x, want ENOSYS",
				 nr, top, got);
	}
	/* The last known one is judged by name (allowed unless listed). */
	got = verdict(&p, top, 0, 0);
	assert_true(got == RET_ALLOW || got == RET_EPERM);
	assert_int_equal(verdict(&p, SYS_getppid, 0, 0), RET_ALLOW);
	/* Past the guard the kernel answers ENOSYS itself. */
	assert_int_equal(verdict(&p, 600, 0, 0), RET_ALLOW);

	got = verdict(&p, NR_OPEN_TREE_ATTR, 0, 0);
	assert_true(got == RET_EPERM || got == RET_ENOSYS);
	prog_free(&p);
}

/* ---- sg_seccomp_build: the policy's additions and removals ------------- */

static void test_sg_seccomp_build_policy_deny_adds(void **state)
{
	static const char *const deny[] = { "acct", "sethostname", "clone3", "chroot" };
	struct sg_seccomp_opts o = { .deny = deny, .n_deny = ARRAY_SIZE(deny) };
	struct prog p;

	(void)state;
	prog_build(NULL, &p);
	assert_int_equal(verdict(&p, SYS_acct, 0, 0), RET_ALLOW);
	assert_int_equal(verdict(&p, SYS_sethostname, 0, 0), RET_ALLOW);
	prog_free(&p);

	prog_build(&o, &p);
	assert_int_equal(verdict(&p, SYS_acct, 0, 0), RET_EPERM);
	assert_int_equal(verdict(&p, SYS_sethostname, 0, 0), RET_EPERM);
	/* Naming a default entry again keeps its own answer. */
	assert_int_equal(verdict(&p, SYS_clone3, 0, 0), RET_ENOSYS);
	assert_int_equal(verdict(&p, SYS_chroot, 0, 0), RET_EPERM);
	assert_int_equal(verdict(&p, SYS_ptrace, 0, 0), RET_EPERM);
	assert_int_equal(verdict(&p, SYS_getppid, 0, 0), RET_ALLOW);
	prog_free(&p);
}

/* A policy may refuse a call the default only refuses with some arguments. */
static void test_sg_seccomp_build_policy_deny_whole_conditional_call(void **state)
{
	static const char *const deny[] = { "unshare" };
	struct sg_seccomp_opts o = { .deny = deny, .n_deny = ARRAY_SIZE(deny) };
	struct prog p;

	(void)state;
	prog_build(&o, &p);
	assert_int_equal(verdict(&p, SYS_unshare, CLONE_FILES, 0), RET_EPERM);
	assert_int_equal(verdict(&p, SYS_unshare, CLONE_NEWNS, 0), RET_EPERM);
	assert_int_equal(verdict(&p, SYS_clone, SIGCHLD, 0), RET_ALLOW);
	prog_free(&p);
}

static void test_sg_seccomp_build_policy_allow_removes(void **state)
{
	static const char *const allow[] = { "ptrace", "chroot" };
	struct sg_seccomp_opts o = { .allow = allow, .n_allow = ARRAY_SIZE(allow) };
	struct prog p;

	(void)state;
	prog_build(&o, &p);
	assert_int_equal(verdict(&p, SYS_ptrace, 0, 0), RET_ALLOW);
	assert_int_equal(verdict(&p, SYS_chroot, 0, 0), RET_ALLOW);
	/* Only what was named comes off. */
	assert_int_equal(verdict(&p, SYS_process_vm_readv, 0, 0), RET_EPERM);
	assert_int_equal(verdict(&p, SYS_pidfd_getfd, 0, 0), RET_EPERM);
	assert_int_equal(verdict(&p, SYS_clone3, 0, 0), RET_ENOSYS);
	assert_int_equal(verdict(&p, SYS_ioctl, 0, TIOCSTI), RET_EPERM);
	prog_free(&p);
}

static void test_sg_seccomp_build_unknown_name_einval(void **state)
{
	static const char *const deny[] = { "acct", "ptrce" };
	static const char *const allow[] = { "mont" };
	struct sg_seccomp_opts o = { .deny = deny, .n_deny = ARRAY_SIZE(deny) };
	scmp_filter_ctx ctx = (scmp_filter_ctx)&o;	/* must be reset */
	const char *bad = NULL;

	(void)state;
	assert_int_equal(sg_seccomp_build(&o, &ctx, &bad), -EINVAL);
	assert_null(ctx);
	assert_ptr_equal(bad, deny[1]);

	o = (struct sg_seccomp_opts){ .allow = allow, .n_allow = ARRAY_SIZE(allow) };
	bad = NULL;
	assert_int_equal(sg_seccomp_build(&o, &ctx, &bad), -EINVAL);
	assert_null(ctx);
	assert_ptr_equal(bad, allow[0]);

	/* A name that exists only on other architectures is unknown here. */
#if defined(__x86_64__)
	{
		static const char *const foreign[] = { "socketcall" };

		o = (struct sg_seccomp_opts){ .deny = foreign, .n_deny = 1 };
		assert_int_equal(sg_seccomp_build(&o, &ctx, &bad), -EINVAL);
		assert_ptr_equal(bad, foreign[0]);
	}
#endif
	/* bad_name may be NULL. */
	o = (struct sg_seccomp_opts){ .deny = deny, .n_deny = ARRAY_SIZE(deny) };
	assert_int_equal(sg_seccomp_build(&o, &ctx, NULL), -EINVAL);
	assert_null(ctx);
}

static void test_sg_seccomp_build_allow_not_default_enoent(void **state)
{
	static const char *const allow[] = { "ptrace", "read" };
	struct sg_seccomp_opts o = { .allow = allow, .n_allow = ARRAY_SIZE(allow) };
	scmp_filter_ctx ctx = NULL;
	const char *bad = NULL;

	(void)state;
	assert_int_equal(sg_seccomp_build(&o, &ctx, &bad), -ENOENT);
	assert_null(ctx);
	assert_ptr_equal(bad, allow[1]);

	/* clone and ioctl are refused with some arguments only: not removable. */
	static const char *const cond[] = { "clone" };

	o = (struct sg_seccomp_opts){ .allow = cond, .n_allow = 1 };
	assert_int_equal(sg_seccomp_build(&o, &ctx, &bad), -ENOENT);
	assert_ptr_equal(bad, cond[0]);
}

static void test_sg_seccomp_build_allow_clone3_eperm(void **state)
{
	static const char *const allow[] = { "clone3" };
	struct sg_seccomp_opts o = { .allow = allow, .n_allow = 1 };
	scmp_filter_ctx ctx = NULL;
	const char *bad = NULL;

	(void)state;
	assert_int_equal(sg_seccomp_build(&o, &ctx, &bad), -EPERM);
	assert_null(ctx);
	assert_ptr_equal(bad, allow[0]);
}

static void test_sg_seccomp_build_deny_and_allow_same_name_eexist(void **state)
{
	static const char *const deny[] = { "acct", "ptrace" };
	static const char *const allow[] = { "ptrace" };
	struct sg_seccomp_opts o = { deny, ARRAY_SIZE(deny), allow, 1, false };
	scmp_filter_ctx ctx = NULL;
	const char *bad = NULL;

	(void)state;
	assert_int_equal(sg_seccomp_build(&o, &ctx, &bad), -EEXIST);
	assert_null(ctx);
	assert_ptr_equal(bad, allow[0]);
}

static void test_sg_seccomp_build_bad_arguments_einval(void **state)
{
	static const char *const with_null[] = { "acct", NULL };
	struct sg_seccomp_opts o = { .deny = with_null, .n_deny = 2 };
	scmp_filter_ctx ctx = NULL;
	const char *bad = "unset";

	(void)state;
	assert_int_equal(sg_seccomp_build(&o, &ctx, &bad), -EINVAL);
	assert_null(ctx);
	assert_null(bad);

	o = (struct sg_seccomp_opts){ .deny = NULL, .n_deny = 1 };
	assert_int_equal(sg_seccomp_build(&o, &ctx, &bad), -EINVAL);
	assert_int_equal(sg_seccomp_build(NULL, NULL, &bad), -EINVAL);
}

static void test_sg_seccomp_build_sets_attributes(void **state)
{
	scmp_filter_ctx ctx = NULL;
	uint32_t v;

	(void)state;
	assert_int_equal(sg_seccomp_build(NULL, &ctx, NULL), 0);
	assert_int_equal(seccomp_attr_get(ctx, SCMP_FLTATR_ACT_DEFAULT, &v), 0);
	assert_int_equal(v, SCMP_ACT_ALLOW);
	assert_int_equal(seccomp_attr_get(ctx, SCMP_FLTATR_ACT_BADARCH, &v), 0);
	assert_int_equal(v, SCMP_ACT_KILL_PROCESS);
	/* The launcher owns no_new_privs; loading must not set it. */
	assert_int_equal(seccomp_attr_get(ctx, SCMP_FLTATR_CTL_NNP, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(seccomp_attr_get(ctx, SCMP_FLTATR_CTL_TSYNC, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(seccomp_attr_get(ctx, SCMP_FLTATR_API_SYSRAWRC, &v), 0);
	assert_int_equal(v, 1);
	/* Only the native ABI is in the filter; the rest hit BADARCH. */
	assert_int_equal(seccomp_arch_exist(ctx, SCMP_ARCH_NATIVE), 0);
#if defined(__x86_64__)
	assert_int_equal(seccomp_arch_exist(ctx, SCMP_ARCH_X32), -EEXIST);
	assert_int_equal(seccomp_arch_exist(ctx, SCMP_ARCH_X86), -EEXIST);
#endif
	seccomp_release(ctx);
}

/* ---- the prebuilt filters (seccomp_prebuilt.c, seccomp_gen.c) ---------- */

/*
 * The kernel's API level as libseccomp found it, before any test forces
 * another with seccomp_api_set(): a failing assertion leaves a test half
 * way, so each such test restores it in its teardown, or every later test
 * would run at the forced level.
 */
static unsigned host_api;

static int restore_api(void **state)
{
	(void)state;
	return seccomp_api_set(host_api) == 0 ? 0 : -1;
}

/* The API level each variant needs, as sg_seccomp_prebuilt() asks it. */
static unsigned variant_api(enum sg_seccomp_variant v)
{
	return v == SG_SECCOMP_PLAIN ? 3 : 5;
}

/* The filter as the launcher generates it at run time when not prebuilt. */
static void prog_build_variant(enum sg_seccomp_variant v, struct prog *p)
{
	scmp_filter_ctx ctx = NULL;

	assert_int_equal(sg_seccomp_build(NULL, &ctx, NULL), 0);
	assert_int_equal(sg_seccomp_add_variant_rules(ctx, v), 0);
	prog_export(ctx, p);
	seccomp_release(ctx);
}

static void prog_prebuilt(enum sg_seccomp_variant v, struct prog *p)
{
	struct sg_seccomp_prog sp = { 0 };
	const char *why = NULL;
	int r = sg_seccomp_prebuilt(NULL, v, &sp, &why);

	if (r != 0)
		print_error("variant %s: %d (%s)\n", sg_seccomp_variant_name(v), r, why ? why : "");
	assert_int_equal(r, 0);
	assert_null(why);
	p->insns = sp.insns;
	p->len = sp.len;
}

/*
 * The drift test: every prebuilt program is, byte for byte, what
 * libseccomp generates here from the same rules, at every API level from
 * the one the variant needs up to this kernel's.  libseccomp's code
 * generator does not look at the kernel, so the program must not change
 * with the level; if a libseccomp release made it, this fails, and the
 * prebuilt path would need the level in its key.  A variant the build
 * host could not make must be absent only where this host could not make
 * it either.
 */
static void test_sg_seccomp_prebuilt_is_what_libseccomp_generates(void **state)
{
	const unsigned api = host_api;

	(void)state;
	for (int i = 0; i < SG_SECCOMP_N_VARIANTS; i++) {
		enum sg_seccomp_variant v = (enum sg_seccomp_variant)i;
		struct prog pre = { 0 };

		if (api < variant_api(v)) {
			print_message("skipped: variant %s needs API level %u, this host has %u\n",
				      sg_seccomp_variant_name(v), variant_api(v), api);
			continue;
		}
		prog_prebuilt(v, &pre);
		for (unsigned level = variant_api(v); level <= api; level++) {
			struct prog gen = { 0 };

			assert_int_equal(seccomp_api_set(level), 0);
			prog_build_variant(v, &gen);
			if (gen.len != pre.len || memcmp(gen.insns, pre.insns, gen.len * sizeof(*gen.insns)) != 0)
				print_error("variant %s at API level %u: generated %zu instructions, prebuilt %zu, "
					    "contents %s\n", sg_seccomp_variant_name(v), level, gen.len, pre.len,
					    gen.len == pre.len ? "differ" : "-");
			assert_int_equal(gen.len, pre.len);
			assert_memory_equal(gen.insns, pre.insns, gen.len * sizeof(*gen.insns));
			prog_free(&gen);
		}
		assert_int_equal(seccomp_api_set(api), 0);
		prog_free(&pre);
	}
}

/* The variants differ where they should, so the table's order matters. */
static void test_sg_seccomp_prebuilt_variants_differ(void **state)
{
	struct prog plain = { 0 }, sup = { 0 }, ex = { 0 };

	(void)state;
	if (sg_seccomp_notify_available() < 0)
		skip();
	prog_prebuilt(SG_SECCOMP_PLAIN, &plain);
	prog_prebuilt(SG_SECCOMP_SUPERVISED, &sup);
	prog_prebuilt(SG_SECCOMP_SUPERVISED_EXEC, &ex);
	assert_int_equal(verdict(&plain, nr_of("chmod"), 0, 0), RET_ALLOW);
	assert_int_equal(verdict(&sup, nr_of("chmod"), 0, 0), SECCOMP_RET_USER_NOTIF);
	assert_int_equal(verdict(&sup, nr_of("execve"), 0, 0), RET_ALLOW);
	assert_int_equal(verdict(&ex, nr_of("execve"), 0, 0), SECCOMP_RET_USER_NOTIF);
	assert_int_equal(verdict(&ex, nr_of("chmod"), 0, 0), SECCOMP_RET_USER_NOTIF);
	/* and all three refuse the default list */
	assert_int_equal(verdict(&plain, nr_of("ptrace"), 0, 0), RET_EPERM);
	assert_int_equal(verdict(&ex, nr_of("ptrace"), 0, 0), RET_EPERM);
	prog_free(&plain);
	prog_free(&sup);
	prog_free(&ex);
}

/*
 * A policy that changes the filter never gets the default's program: the
 * added refusal would be missing, the removed one still there.  The
 * allowed side: options that change nothing (zeroed, or NULL) do get it.
 */
static void test_sg_seccomp_prebuilt_refuses_policy_that_changes_filter(void **state)
{
	static const char *const deny[] = { "acct" };
	static const char *const allow[] = { "ptrace" };
	struct sg_seccomp_opts o;
	struct sg_seccomp_prog sp;
	struct prog gen = { 0 }, pre = { 0 };
	const char *why;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.deny = deny;
	o.n_deny = 1;
	why = NULL;
	assert_int_equal(sg_seccomp_prebuilt(&o, SG_SECCOMP_PLAIN, &sp, &why), -ENOENT);
	assert_non_null(why);
	assert_null(sp.insns);
	/* what it would have got instead: the filter that refuses acct */
	prog_build(&o, &gen);
	prog_prebuilt(SG_SECCOMP_PLAIN, &pre);
	assert_int_equal(verdict(&gen, nr_of("acct"), 0, 0), RET_EPERM);
	assert_int_equal(verdict(&pre, nr_of("acct"), 0, 0), RET_ALLOW);
	prog_free(&gen);
	prog_free(&pre);

	memset(&o, 0, sizeof(o));
	o.allow = allow;
	o.n_allow = 1;
	why = NULL;
	assert_int_equal(sg_seccomp_prebuilt(&o, SG_SECCOMP_PLAIN, &sp, &why), -ENOENT);
	assert_non_null(why);

	memset(&o, 0, sizeof(o));
	o.allow_userns = true;
	why = NULL;
	assert_int_equal(sg_seccomp_prebuilt(&o, SG_SECCOMP_PLAIN, &sp, &why), -ENOENT);
	assert_non_null(why);

	memset(&o, 0, sizeof(o));
	why = "unset";
	assert_int_equal(sg_seccomp_prebuilt(&o, SG_SECCOMP_PLAIN, &sp, &why), 0);
	assert_null(why);
	sg_seccomp_prog_free(&sp);
	assert_int_equal(sg_seccomp_prebuilt(NULL, SG_SECCOMP_PLAIN, &sp, NULL), 0);
	sg_seccomp_prog_free(&sp);
	assert_int_equal(sg_seccomp_prebuilt(NULL, SG_SECCOMP_N_VARIANTS, &sp, NULL), -EINVAL);
}

/*
 * Below the API level libseccomp needs to build a variant, the prebuilt
 * one is not handed out either: the launcher then asks libseccomp, which
 * refuses as it always did (the plain filter kills foreign architectures
 * with KILL_PROCESS, level 3; the supervised ones notify, level 5).
 */
static void test_sg_seccomp_prebuilt_needs_the_api_level(void **state)
{
	const unsigned api = host_api;
	struct sg_seccomp_prog sp;

	(void)state;
	if (api < 5)
		skip();
	assert_int_equal(seccomp_api_set(2), 0);
	assert_int_equal(sg_seccomp_prebuilt(NULL, SG_SECCOMP_PLAIN, &sp, NULL), -ENOENT);
	assert_int_equal(seccomp_api_set(4), 0);
	assert_int_equal(sg_seccomp_prebuilt(NULL, SG_SECCOMP_PLAIN, &sp, NULL), 0);
	sg_seccomp_prog_free(&sp);
	assert_int_equal(sg_seccomp_prebuilt(NULL, SG_SECCOMP_SUPERVISED, &sp, NULL), -ENOENT);
	assert_int_equal(sg_seccomp_prebuilt(NULL, SG_SECCOMP_SUPERVISED_EXEC, &sp, NULL), -ENOENT);
	assert_int_equal(seccomp_api_set(api), 0);
	assert_int_equal(sg_seccomp_prebuilt(NULL, SG_SECCOMP_SUPERVISED, &sp, NULL), 0);
	sg_seccomp_prog_free(&sp);
}

/*
 * sg_seccomp_notify_available() stands in for sg_supervisor_add_rules()'s
 * refusal when no rule database is built: the two must agree at every
 * level, or a prebuilt supervised filter could be chosen where the
 * generated one would have been refused (or the reverse).
 */
static void test_sg_seccomp_notify_available_agrees_with_supervisor(void **state)
{
	const unsigned api = host_api;

	(void)state;
	for (unsigned level = 1; level <= api; level++) {
		scmp_filter_ctx ctx;
		int sup;

		assert_int_equal(seccomp_api_set(level), 0);
		ctx = seccomp_init(SCMP_ACT_ALLOW);
		assert_non_null(ctx);
		sup = sg_supervisor_add_rules(ctx);
		seccomp_release(ctx);
		if ((sup == 0) != (sg_seccomp_notify_available() == 0))
			print_error("API level %u: sg_supervisor_add_rules %d, sg_seccomp_notify_available %d\n",
				    level, sup, sg_seccomp_notify_available());
		assert_int_equal(sup == 0, sg_seccomp_notify_available() == 0);
		assert_true(sup == 0 || sup == -EOPNOTSUPP);
	}
	assert_int_equal(seccomp_api_set(api), 0);
}

/* ---- sg_seccomp_default_deny, sg_seccomp_known_syscall ------------------ */

static void test_sg_seccomp_default_deny_lists_issue_names(void **state)
{
	static const char *const required[] = {
		"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd",
		"bpf", "perf_event_open", "io_uring_setup", "io_uring_enter",
		"io_uring_register", "userfaultfd", "keyctl", "add_key",
		"request_key", "mount", "umount2", "pivot_root", "move_mount",
		"open_tree", "fsopen", "fsmount", "fsconfig", "fspick",
		"mount_setattr", "open_by_handle_at", "name_to_handle_at",
		"kexec_load", "kexec_file_load", "init_module", "finit_module",
		"delete_module", "clone3", "setns",
	};
	const char *const *names = sg_seccomp_default_deny();
	size_t n = 0;

	(void)state;
	assert_non_null(names);
	while (names[n])
		n++;
	assert_true(n >= ARRAY_SIZE(required));

	for (size_t i = 0; i < ARRAY_SIZE(required); i++) {
		bool found = false;

		for (size_t j = 0; j < n; j++)
			found |= strcmp(names[j], required[i]) == 0;
		if (!found)
			fail_msg("default deny list lacks %s", required[i]);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (strcmp(names[i], names[j]) == 0)
				fail_msg("%s is listed twice", names[i]);
	/* Namespace creation and ioctl are argument rules, not list entries. */
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], "clone") || !strcmp(names[i], "unshare") ||
		    !strcmp(names[i], "ioctl"))
			fail_msg("%s must not be refused whole", names[i]);
}

static void test_sg_seccomp_known_syscall_names(void **state)
{
	(void)state;
	assert_true(sg_seccomp_known_syscall("ptrace"));
	assert_true(sg_seccomp_known_syscall("openat"));
	assert_true(sg_seccomp_known_syscall("acct"));
	assert_false(sg_seccomp_known_syscall("ptrce"));
	assert_false(sg_seccomp_known_syscall("PTRACE"));
	assert_false(sg_seccomp_known_syscall("101"));
	assert_false(sg_seccomp_known_syscall(""));
	assert_false(sg_seccomp_known_syscall(NULL));
#if defined(__x86_64__)
	/* i386-only multiplexers: libseccomp knows them, not for this arch. */
	assert_false(sg_seccomp_known_syscall("socketcall"));
	assert_false(sg_seccomp_known_syscall("ipc"));
#endif
}

/* ---- sg_seccomp_load: the real kernel ---------------------------------- */

/* What the launcher does: generate before fork (here: in the child), load. */
static int export_and_load(scmp_filter_ctx ctx)
{
	struct sg_seccomp_prog prog;
	int r = sg_seccomp_export(ctx, &prog);

	if (r < 0)
		return r;
	r = sg_seccomp_load(&prog, false);
	sg_seccomp_prog_free(&prog);
	return r;
}

static bool seccomp_usable(const char **why)
{
	uint32_t act = SECCOMP_RET_KILL_PROCESS;

	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
		*why = "kernel built without CONFIG_SECCOMP";
		return false;
	}
	if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &act) != 0) {
		*why = "seccomp(SECCOMP_GET_ACTION_AVAIL) refused: no filter mode or no KILL_PROCESS";
		return false;
	}
	return true;
}

#define SKIP_UNLESS_SECCOMP()						\
	do {								\
		const char *why_;					\
		if (!seccomp_usable(&why_)) {				\
			print_message("[  SKIP    ] %s\n", why_);	\
			skip();						\
		}							\
	} while (0)

/* What the confined child saw; the parent judges it. */
struct probe {
	int load;
	long ptrace_ret, ptrace_err;
	long clone3_ret, clone3_err;
	long tiocsti_ret, tiocsti_err;
	long tiocsti_hi_ret, tiocsti_hi_err;
	long fionread_ret;
	long unshare_ret, unshare_err;
	long ota_ret, ota_err;
	long ppid;
	long open_ret;
	long fork_ok;
	long thread_ok;
};

static void *thread_main(void *arg)
{
	return arg;
}

static void probe_confined(struct probe *r)
{
	scmp_filter_ctx ctx = NULL;
	int pfd[2], n = -1;
	char c = 'x';
	pthread_t t;
	void *tret = NULL;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		_exit(90);

	r->load = -1;
	/* No root needed: no_new_privs is what lets an unprivileged thread load. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return;
	r->load = sg_seccomp_build(NULL, &ctx, NULL);
	if (r->load < 0)
		return;
	r->load = export_and_load(ctx);
	seccomp_release(ctx);
	if (r->load < 0)
		return;

	/*
	 * Unconfined, each of these would succeed or fail differently.
	 * (PEEKDATA on a process we do not trace is ESRCH; TRACEME would
	 * stop this child at its next signal if the filter let it through.)
	 */
	errno = 0;
	r->ptrace_ret = syscall(SYS_ptrace, PTRACE_PEEKDATA, getppid(), 0, 0);	/* ESRCH */
	r->ptrace_err = errno;
	errno = 0;
	r->clone3_ret = syscall(SYS_clone3, NULL, 0);			/* EINVAL */
	r->clone3_err = errno;
	errno = 0;
	r->tiocsti_ret = syscall(SYS_ioctl, pfd[0], TIOCSTI, &c);	/* ENOTTY */
	r->tiocsti_err = errno;
	errno = 0;
	r->tiocsti_hi_ret = syscall(SYS_ioctl, pfd[0], HIGH_JUNK | TIOCSTI, &c);
	r->tiocsti_hi_err = errno;
	r->fionread_ret = syscall(SYS_ioctl, pfd[0], FIONREAD, &n);
	errno = 0;
	r->unshare_ret = syscall(SYS_unshare, CLONE_NEWUSER);
	r->unshare_err = errno;
	errno = 0;
	r->ota_ret = syscall(NR_OPEN_TREE_ATTR, -1, NULL, 0, NULL, 0);	/* EBADF/EFAULT */
	r->ota_err = errno;
	r->ppid = syscall(SYS_getppid);
	r->open_ret = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (r->open_ret >= 0)
		close((int)r->open_ret);

	/* fork() is clone without namespace flags. */
	pid = fork();
	if (pid == 0)
		_exit(7);
	if (pid > 0) {
		int st;

		r->fork_ok = waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
			     WEXITSTATUS(st) == 7;
	}
	/* glibc tries clone3 for threads, gets ENOSYS and falls back to clone. */
	r->thread_ok = pthread_create(&t, NULL, thread_main, &c) == 0 &&
		       pthread_join(t, &tret) == 0 && tret == &c;
}

/* A confined child that hangs is a failure, not a stuck test run. */
#define CHILD_TIMEOUT_MS 20000

static void wait_child(pid_t pid, int *status)
{
	for (int waited = 0;; waited += 10) {
		pid_t r = waitpid(pid, status, WNOHANG);

		assert_true(r >= 0);
		if (r == pid)
			return;
		if (waited >= CHILD_TIMEOUT_MS) {
			kill(pid, SIGKILL);
			waitpid(pid, status, 0);
			fail_msg("child %d did not finish in %d ms", (int)pid, CHILD_TIMEOUT_MS);
		}
		usleep(10 * 1000);
	}
}

/* Fork; in the child run FN with a struct probe and send it back. */
static void run_child(void (*fn)(struct probe *), struct probe *out)
{
	int fds[2], status;
	pid_t pid;

	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct probe r;

		close(fds[0]);
		memset(&r, 0, sizeof(r));
		fn(&r);
		if (write(fds[1], &r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(91);
		/* _exit: no atexit handlers, no LeakSanitizer (it needs ptrace). */
		_exit(0);
	}
	close(fds[1]);
	/* Reap first (with a deadline); the probe fits in the pipe buffer. */
	wait_child(pid, &status);
	memset(out, 0, sizeof(*out));
	assert_int_equal(read(fds[0], out, sizeof(*out)), (ssize_t)sizeof(*out));
	close(fds[0]);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_sg_seccomp_load_refuses_denied_calls(void **state)
{
	struct probe r;

	(void)state;
	SKIP_UNLESS_SECCOMP();
	run_child(probe_confined, &r);

	assert_int_equal(r.load, 0);
	assert_int_equal(r.ptrace_ret, -1);
	assert_int_equal(r.ptrace_err, EPERM);
	assert_int_equal(r.clone3_ret, -1);
	assert_int_equal(r.clone3_err, ENOSYS);
	assert_int_equal(r.tiocsti_ret, -1);
	assert_int_equal(r.tiocsti_err, EPERM);
	assert_int_equal(r.tiocsti_hi_ret, -1);
	assert_int_equal(r.tiocsti_hi_err, EPERM);
	assert_int_equal(r.unshare_ret, -1);
	assert_int_equal(r.unshare_err, EPERM);
	assert_int_equal(r.ota_ret, -1);
	assert_true(r.ota_err == ENOSYS || r.ota_err == EPERM);
	/* The allowed side. */
	assert_int_equal(r.fionread_ret, 0);
	assert_int_equal(r.ppid, getpid());
	assert_true(r.open_ret >= 0);
	assert_true(r.fork_ok);
	assert_true(r.thread_ok);
}

static void probe_without_nnp(struct probe *r)
{
	scmp_filter_ctx ctx = NULL;

	r->load = sg_seccomp_build(NULL, &ctx, NULL);
	if (r->load < 0)
		return;
	r->load = export_and_load(ctx);
	seccomp_release(ctx);
	/* Had it loaded anyway, ptrace would now be EPERM, not ESRCH. */
	errno = 0;
	r->ptrace_ret = syscall(SYS_ptrace, PTRACE_PEEKDATA, getppid(), 0, 0);
	r->ptrace_err = errno;
}

static void test_sg_seccomp_load_requires_no_new_privs(void **state)
{
	struct probe r;

	(void)state;
	SKIP_UNLESS_SECCOMP();
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1) {
		print_message("[  SKIP    ] test runner already has no_new_privs\n");
		skip();
	}
	run_child(probe_without_nnp, &r);
	assert_int_equal(r.load, -EPERM);
	assert_int_equal(r.ptrace_ret, -1);
	assert_int_equal(r.ptrace_err, ESRCH);
	assert_int_equal(sg_seccomp_load(NULL, false), -EINVAL);
	{
		struct sg_seccomp_prog empty = { 0 };

		assert_int_equal(sg_seccomp_load(&empty, false), -EINVAL);
		assert_int_equal(sg_seccomp_export(NULL, &empty), -EINVAL);
	}
}

/* ---- sg_seccomp_export short of memory -------------------------------- */

#if defined(__SANITIZE_ADDRESS__)
#define SG_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SG_ASAN 1
#endif
#endif

/* A field of /proc/self/status in bytes ("VmSize", "VmData"), or -1. */
static long long status_bytes(const char *key)
{
	char line[256];
	long long kib = -1;
	size_t n = strlen(key);
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, key, n) == 0 && line[n] == ':')
			kib = strtoll(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return kib < 0 ? -1 : kib << 10;
}

/*
 * In a child: limit RESOURCE to what is in use (KEY) plus EXTRA bytes,
 * then export.  Exit status: 0 exported, 1 -ENOMEM, 2 another error, 3
 * the set-up failed; a signal is libseccomp crashing.
 */
static int export_under_limit(int resource, const char *key, long long extra)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 }, rl;
		struct sg_seccomp_prog prog;
		scmp_filter_ctx ctx = NULL;
		long long used;
		int r;

		setrlimit(RLIMIT_CORE, &no_core);
		/* die of a crash here, not in cmocka's handler, which would go on testing */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		/* the Landlock backend's filter: libseccomp crashed on this one */
		if (sg_seccomp_build(NULL, &ctx, NULL) < 0 || sg_supervisor_add_rules(ctx) < 0)
			_exit(3);
		/* no free heap left over from earlier tests: libseccomp must grow it */
		malloc_trim(0);
		used = status_bytes(key);
		if (used < 0)
			_exit(3);
		rl.rlim_cur = rl.rlim_max = (rlim_t)(used + extra);
		if (setrlimit(resource, &rl) < 0)
			_exit(3);
		r = sg_seccomp_export(ctx, &prog);
		_exit(r == 0 ? 0 : r == -ENOMEM ? 1 : 2);
	}
	/* no timeout needed: the child blocks on nothing */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

#define SKIP_UNDER_ASAN()						\
	do {								\
		print_message("[  SKIP    ] built with ASan: its shadow memory "	\
			      "fits under no RLIMIT_AS\n");		\
		skip();							\
	} while (0)

/*
 * libseccomp 2.5.4 dies of SIGSEGV when a malloc fails while it
 * generates; sg_seccomp_export() refuses (-ENOMEM) unless
 * SG_SECCOMP_EXPORT_RESERVE is free.  1 MiB is more than libseccomp needs
 * for this filter (about 132 KiB), so only the reserve can refuse it.
 */
static void test_sg_seccomp_export_refuses_without_reserve(void **state)
{
	int st;

	(void)state;
#ifdef SG_ASAN
	SKIP_UNDER_ASAN();
#endif
	st = export_under_limit(RLIMIT_AS, "VmSize", 1LL << 20);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
	st = export_under_limit(RLIMIT_DATA, "VmData", 1LL << 20);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
	/* the allowed side: the reserve and 1 MiB more */
	st = export_under_limit(RLIMIT_AS, "VmSize", (long long)SG_SECCOMP_EXPORT_RESERVE + (1LL << 20));
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	st = export_under_limit(RLIMIT_DATA, "VmData", (long long)SG_SECCOMP_EXPORT_RESERVE + (1LL << 20));
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* Every limit from nothing to spare up to past the reserve: an answer, never a crash. */
static void test_sg_seccomp_export_never_crashes_short_of_memory(void **state)
{
	static const struct {
		int resource;
		const char *key;
	} lim[] = { { RLIMIT_AS, "VmSize" }, { RLIMIT_DATA, "VmData" } };
	long long top = (long long)SG_SECCOMP_EXPORT_RESERVE + (512LL << 10);

	(void)state;
#ifdef SG_ASAN
	SKIP_UNDER_ASAN();
#endif
	for (size_t i = 0; i < ARRAY_SIZE(lim); i++) {
		bool exported = false;

		for (long long extra = 0; extra <= top; extra += 16 << 10) {
			int st = export_under_limit(lim[i].resource, lim[i].key, extra);

			if (!WIFEXITED(st))
				fail_msg("%s + %lld KiB: killed by signal %d", lim[i].key, extra >> 10,
					 WIFSIGNALED(st) ? WTERMSIG(st) : 0);
			if (WEXITSTATUS(st) > 1)
				fail_msg("%s + %lld KiB: exit %d", lim[i].key, extra >> 10, WEXITSTATUS(st));
			exported |= WEXITSTATUS(st) == 0;
		}
		assert_true(exported);
	}
}

#if defined(__x86_64__) && !defined(__ILP32__)
static long x32_getpid(void)
{
	return syscall(X32_BIT | SYS_getpid);
}

static long i386_getpid(void)
{
	long ret = 20;	/* __NR_getpid on i386 */

	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory", "cc");
	return ret;
}

/* Run FN confined (or not) in a child; return its wait status. */
static int status_of(long (*fn)(void), bool confined)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };
		scmp_filter_ctx ctx = NULL;

		/* A killed child must not leave a core file behind. */
		setrlimit(RLIMIT_CORE, &no_core);
		if (confined) {
			if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
			    sg_seccomp_build(NULL, &ctx, NULL) < 0 ||
			    export_and_load(ctx) < 0)
				_exit(90);
		}
		(void)fn();
		_exit(0);
	}
	wait_child(pid, &status);
	return status;
}

static void test_sg_seccomp_load_kills_x32_syscall(void **state)
{
	int st;

	(void)state;
	SKIP_UNLESS_SECCOMP();
	/* Unconfined, it returns (a pid, or ENOSYS without CONFIG_X86_X32_ABI). */
	st = status_of(x32_getpid, false);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	st = status_of(x32_getpid, true);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
}

static void test_sg_seccomp_load_kills_i386_syscall(void **state)
{
	int st;

	(void)state;
	SKIP_UNLESS_SECCOMP();
	st = status_of(i386_getpid, false);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		print_message("[  SKIP    ] int 0x80 does not work here (no IA32 emulation)\n");
		skip();
	}
	st = status_of(i386_getpid, true);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
}
#endif

int main(void)
{
	host_api = seccomp_api_get();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bpf_run_handles_each_opcode),
		cmocka_unit_test(test_bpf_run_refuses_unknown_opcode),
		cmocka_unit_test(test_bpf_run_refuses_running_off_the_end),
		cmocka_unit_test(test_sg_seccomp_build_denies_issue_list),
		cmocka_unit_test(test_sg_seccomp_build_denies_every_default_name),
		cmocka_unit_test(test_sg_seccomp_build_clone3_enosys),
		cmocka_unit_test(test_sg_seccomp_build_clone_namespace_flags),
		cmocka_unit_test(test_sg_seccomp_build_unshare_namespace_flags),
		cmocka_unit_test(test_sg_seccomp_build_allow_userns_permits_only_new_namespaces),
		cmocka_unit_test(test_sg_seccomp_build_ioctl_tiocsti),
		cmocka_unit_test(test_sg_seccomp_build_hot_syscalls_constant_allow),
		cmocka_unit_test(test_sg_seccomp_build_foreign_arch_killed),
		cmocka_unit_test(test_sg_seccomp_build_x32_killed),
		cmocka_unit_test(test_sg_seccomp_build_unknown_numbers_enosys),
		cmocka_unit_test(test_sg_seccomp_build_policy_deny_adds),
		cmocka_unit_test(test_sg_seccomp_build_policy_deny_whole_conditional_call),
		cmocka_unit_test(test_sg_seccomp_build_policy_allow_removes),
		cmocka_unit_test(test_sg_seccomp_build_unknown_name_einval),
		cmocka_unit_test(test_sg_seccomp_build_allow_not_default_enoent),
		cmocka_unit_test(test_sg_seccomp_build_allow_clone3_eperm),
		cmocka_unit_test(test_sg_seccomp_build_deny_and_allow_same_name_eexist),
		cmocka_unit_test(test_sg_seccomp_build_bad_arguments_einval),
		cmocka_unit_test(test_sg_seccomp_build_sets_attributes),
		cmocka_unit_test_teardown(test_sg_seccomp_prebuilt_is_what_libseccomp_generates, restore_api),
		cmocka_unit_test(test_sg_seccomp_prebuilt_variants_differ),
		cmocka_unit_test(test_sg_seccomp_prebuilt_refuses_policy_that_changes_filter),
		cmocka_unit_test_teardown(test_sg_seccomp_prebuilt_needs_the_api_level, restore_api),
		cmocka_unit_test_teardown(test_sg_seccomp_notify_available_agrees_with_supervisor, restore_api),
		cmocka_unit_test(test_sg_seccomp_default_deny_lists_issue_names),
		cmocka_unit_test(test_sg_seccomp_known_syscall_names),
		cmocka_unit_test(test_sg_seccomp_load_refuses_denied_calls),
		cmocka_unit_test(test_sg_seccomp_load_requires_no_new_privs),
		cmocka_unit_test(test_sg_seccomp_export_refuses_without_reserve),
		cmocka_unit_test(test_sg_seccomp_export_never_crashes_short_of_memory),
#if defined(__x86_64__) && !defined(__ILP32__)
		cmocka_unit_test(test_sg_seccomp_load_kills_x32_syscall),
		cmocka_unit_test(test_sg_seccomp_load_kills_i386_syscall),
#endif
	};

	return cmocka_run_group_tests_name("seccomp", tests, NULL, NULL);
}
