// SPDX-License-Identifier: MIT
/*
 * caps.c — what a step runs without, applied: capabilities
 * (policy/caps.c says which, and why each), core dumps, and the System V
 * IPC of other processes.  Touches the kernel; returns -errno.
 */
#include "confine/caps.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "policy/policy.h"

static int capget_self(struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3])
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };

	return syscall(SYS_capget, &h, d) < 0 ? -errno : 0;
}

bool sg_caps_have(unsigned cap)
{
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (capget_self(d) < 0)
		return false;
	return d[cap / 32].effective & (1U << (cap % 32));
}

int sg_caps_drop(uint64_t drop)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	bool held;
	int r;

	/*
	 * The bounding set first, while CAP_SETPCAP is still effective:
	 * it is what an execve by root grants (root's file capabilities are
	 * "all", masked by the bounding set), so without this the step's
	 * first exec would hand every capability back.  A process without
	 * CAP_SETPCAP has nothing to lose here: it cannot gain a capability
	 * by exec under no_new_privs (set before the step's exec).
	 */
	if (sg_caps_have(CAP_SETPCAP)) {
		for (unsigned cap = 0; cap < 64; cap++) {
			if (!(drop & (UINT64_C(1) << cap)))
				continue;
			/* A capability this kernel does not know: nothing to drop. */
			if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0)
				continue;
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
				return -errno;
		}
	}
	/*
	 * Then the sets this process holds.  Lowering the permitted and
	 * inheritable sets lowers the ambient one with them (capabilities(7)),
	 * so no ambient capability survives into the step either.
	 */
	r = capget_self(d);
	if (r < 0)
		return r;
	held = false;
	for (unsigned i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		uint32_t m = (uint32_t)(drop >> (32 * i));

		held |= (d[i].effective | d[i].permitted | d[i].inheritable) & m;
		d[i].effective &= ~m;
		d[i].permitted &= ~m;
		d[i].inheritable &= ~m;
	}
	/* An unprivileged stepguard holds none: nothing to ask of the kernel. */
	if (!held)
		return 0;
	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	return 0;
}

static int no_core(void);

/* Is the kernel's core_pattern a pipe, a helper it runs as root?  Unknown: yes. */
static bool core_pattern_is_pipe(void)
{
	char c = '|';
	int fd = open("/proc/sys/kernel/core_pattern", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = '|';
		close(fd);
	}
	return c == '|';
}

int sg_caps_no_core(bool *helper_left)
{
	struct rlimit cur;

	*helper_left = false;
	if (getrlimit(RLIMIT_CORE, &cur) < 0)
		return -errno;
	/*
	 * A hard limit of 0 (sudo's default for what it runs) cannot be
	 * raised to 1 without CAP_SYS_RESOURCE.  0 stops core files, but a
	 * pipe helper still runs: said as a gap where core_pattern is one,
	 * never a refusal of a step that has no core to dump.
	 */
	if (cur.rlim_max == 0 && !sg_caps_have(CAP_SYS_RESOURCE)) {
		*helper_left = core_pattern_is_pipe();
		return 0;
	}
	return no_core();
}

static int no_core(void)
{
	/*
	 * 1 byte, not 0: a limit of 0 stops only core files, and a pipe
	 * core_pattern helper (apport, systemd-coredump), which the kernel
	 * runs as root outside every confinement, runs regardless; the
	 * kernel skips the helper for a limit of exactly 1 (do_coredump()),
	 * and writes no core file below a page either.  The hard limit too, so a step
	 * cannot raise it back: raising a hard limit takes CAP_SYS_RESOURCE,
	 * which a root step runs without.
	 */
	struct rlimit one = { 1, 1 };

	return setrlimit(RLIMIT_CORE, &one) < 0 ? -errno : 0;
}

int sg_caps_private_ipc(void)
{
	/*
	 * System V queues, semaphores and shared memory, and POSIX message
	 * queues, belong to an IPC namespace: in a new one the step sees
	 * only its own.  Needs CAP_SYS_ADMIN, so root only; the caller says
	 * the gap otherwise.
	 */
	return unshare(CLONE_NEWIPC) < 0 ? -errno : 0;
}
