// SPDX-License-Identifier: MIT
/*
 * caps.c — the capabilities a root step runs without, one table with the
 * reason for each: the names [stepguard] keep-capabilities takes, the set
 * the launcher drops (confine/caps.c), --check and the docs
 * (docs/capabilities.md).  Pure.
 *
 * A root step keeps what ordinary root work needs: owning and reading
 * files (CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FOWNER, CAP_FSETID), becoming
 * another user (CAP_SETUID, CAP_SETGID: package managers and test suites
 * drop to "nobody"), binding low ports, raw sockets (ping), locking
 * memory, signalling (CAP_KILL: Landlock's and the eBPF filter's signal
 * scopes already keep signals inside the step).  It loses what reaches
 * past its own files and processes: other processes' memory, the kernel,
 * the file systems as a whole, the machine's network and clock, the
 * limits that protect everyone else.
 */
#include "policy/policy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * The numbers are the kernel's (linux/capability.h), written out so this
 * file stays pure and builds against headers older than the kernel it
 * runs on (CAP_PERFMON, CAP_BPF and CAP_CHECKPOINT_RESTORE are 5.8/5.9).
 */
static const struct {
	unsigned nr;
	const char *name;
	bool dropped;
	const char *why; /* for --check and the docs; NULL when kept */
} caps[] = {
	{ 0, "CAP_CHOWN", false, NULL },
	{ 1, "CAP_DAC_OVERRIDE", false, NULL },
	/* handles: open_by_handle_at() opens any inode without a path, past every path rule */
	{ 2, "CAP_DAC_READ_SEARCH", true, "open_by_handle_at: files by handle, with no path to judge" },
	{ 3, "CAP_FOWNER", false, NULL },
	{ 4, "CAP_FSETID", false, NULL },
	{ 5, "CAP_KILL", false, NULL },
	{ 6, "CAP_SETGID", false, NULL },
	{ 7, "CAP_SETUID", false, NULL },
	{ 8, "CAP_SETPCAP", false, NULL },
	/* chattr +i/+a outside the filter's view (seccomp refuses the ioctls too) */
	{ 9, "CAP_LINUX_IMMUTABLE", true, "immutable and append-only flags" },
	{ 10, "CAP_NET_BIND_SERVICE", false, NULL },
	{ 11, "CAP_NET_BROADCAST", false, NULL },
	/* the machine's interfaces, routes and firewall are everyone's */
	{ 12, "CAP_NET_ADMIN", true, "the machine's network: interfaces, routes, firewall" },
	{ 13, "CAP_NET_RAW", false, NULL },
	{ 14, "CAP_IPC_LOCK", false, NULL },
	/* other processes' System V objects, whatever their modes say */
	{ 15, "CAP_IPC_OWNER", true, "other processes' IPC objects, whatever their modes" },
	{ 16, "CAP_SYS_MODULE", true, "loading kernel modules" },
	/* /dev/mem, I/O ports, raw SCSI commands (SG_IO), FIBMAP */
	{ 17, "CAP_SYS_RAWIO", true, "raw I/O: /dev/mem, I/O ports, SCSI commands" },
	{ 18, "CAP_SYS_CHROOT", false, NULL },
	/* ptrace and /proc/PID/mem of any process, past the uid check */
	{ 19, "CAP_SYS_PTRACE", true, "any process's memory (ptrace, /proc/PID/mem)" },
	{ 20, "CAP_SYS_PACCT", true, "process accounting for the whole machine" },
	/*
	 * Mounts, namespaces, file-system-wide ioctls (FS_IOC_SETFSLABEL,
	 * FIFREEZE), and from Linux 6.15 read access to any process's
	 * environ, maps and auxv past the ptrace LSM hook (may_access_mm()).
	 */
	{ 21, "CAP_SYS_ADMIN", true, "mounts, file-system-wide ioctls, other processes' environ and maps (6.15+)" },
	{ 22, "CAP_SYS_BOOT", true, "reboot, kexec" },
	/* real-time priority starves the runner and stepguard's own supervisor */
	{ 23, "CAP_SYS_NICE", true, "other processes' priorities, real-time scheduling" },
	/* raises the hard limits back: core dumps (a pipe helper run as root) */
	{ 24, "CAP_SYS_RESOURCE", true, "raising hard limits (RLIMIT_CORE back up), quotas" },
	{ 25, "CAP_SYS_TIME", true, "the machine's clock" },
	{ 26, "CAP_SYS_TTY_CONFIG", true, "vhangup of terminals" },
	/* device nodes: seccomp refuses mknod of devices too */
	{ 27, "CAP_MKNOD", true, "device nodes" },
	{ 28, "CAP_LEASE", false, NULL },
	{ 29, "CAP_AUDIT_WRITE", false, NULL },
	{ 30, "CAP_AUDIT_CONTROL", true, "the kernel's audit rules" },
	{ 31, "CAP_SETFCAP", false, NULL },
	{ 32, "CAP_MAC_OVERRIDE", true, "overriding the machine's MAC policy" },
	{ 33, "CAP_MAC_ADMIN", true, "changing the machine's MAC policy (AppArmor profiles)" },
	{ 34, "CAP_SYSLOG", true, "the kernel log and its addresses" },
	{ 35, "CAP_WAKE_ALARM", false, NULL },
	{ 36, "CAP_BLOCK_SUSPEND", false, NULL },
	{ 37, "CAP_AUDIT_READ", true, "reading the audit log" },
	/* from 5.8, environ and maps of any process through may_access_mm() */
	{ 38, "CAP_PERFMON", true, "perf events, other processes' environ and maps (6.15+)" },
	{ 39, "CAP_BPF", true, "eBPF programs and maps (the write filter's own)" },
	{ 40, "CAP_CHECKPOINT_RESTORE", true, "other processes' map_files, chosen pids" },
};

#define N_CAPS (sizeof(caps) / sizeof(caps[0]))

uint64_t sg_caps_default_dropped(void)
{
	uint64_t m = 0;

	for (size_t i = 0; i < N_CAPS; i++)
		if (caps[i].dropped)
			m |= UINT64_C(1) << caps[i].nr;
	return m;
}

int sg_cap_parse(const char *name, unsigned *nr)
{
	for (size_t i = 0; i < N_CAPS; i++)
		if (strcmp(name, caps[i].name) == 0) {
			*nr = caps[i].nr;
			return caps[i].dropped ? 0 : -ENOENT;
		}
	return -EINVAL;
}

const char *sg_cap_name(unsigned nr)
{
	for (size_t i = 0; i < N_CAPS; i++)
		if (caps[i].nr == nr)
			return caps[i].name;
	return NULL;
}

const char *sg_cap_why(unsigned nr)
{
	for (size_t i = 0; i < N_CAPS; i++)
		if (caps[i].nr == nr)
			return caps[i].why;
	return NULL;
}

unsigned sg_cap_last(void)
{
	return caps[N_CAPS - 1].nr;
}

const char *sg_caps_str(uint64_t set, char *buf, size_t len)
{
	size_t o = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < N_CAPS && o < len; i++)
		if (set & (UINT64_C(1) << caps[i].nr))
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "",
					      caps[i].name + 4);
	if (o == 0 && len)
		snprintf(buf, len, "none");
	return buf;
}
