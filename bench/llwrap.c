// SPDX-License-Identifier: MIT
/*
 * llwrap.c — a minimal Landlock (+ seccomp) exec wrapper with knobs, for
 * attributing a confined step's syscall overhead (bench/profile.sh).  It is
 * not a sandbox: no supervisor, no deny list, one writable root.
 *
 *   llwrap [-L] [-r] [-t] [-i] [-s] -w DIR -- CMD [ARG]...
 *
 *   -L   no Landlock at all
 *   -r   also handle REFER (ABI 2)
 *   -t   also handle TRUNCATE (ABI 3): every open then computes the
 *        truncate right, which walks the path up to the root
 *   -i   also handle IOCTL_DEV (ABI 5): the same, for device files
 *   -s   add a one-instruction allow-all seccomp filter: the cost of
 *        having a filter at all (the syscall-entry slow path)
 *
 * Without -r/-t/-i it handles what stepguard handles on ABI 1: writing a
 * file and making or removing every kind of node.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Older uapi headers lack the later rights; the values are ABI. */
#define LL_REFER (1ULL << 13)
#define LL_TRUNCATE (1ULL << 14)
#define LL_IOCTL_DEV (1ULL << 15)

int main(int argc, char **argv)
{
	uint64_t fs = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
		      LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
		      LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
		      LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
		      LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
	int opt, landlock = 1, filter = 0;
	const char *dir = NULL;

	while ((opt = getopt(argc, argv, "+Lrtisw:")) != -1) {
		switch (opt) {
		case 'L': landlock = 0; break;
		case 'r': fs |= LL_REFER; break;
		case 't': fs |= LL_TRUNCATE; break;
		case 'i': fs |= LL_IOCTL_DEV; break;
		case 's': filter = 1; break;
		case 'w': dir = optarg; break;
		default: return 64;
		}
	}
	if (optind >= argc || (landlock && !dir)) {
		fputs("usage: llwrap [-L] [-r] [-t] [-i] [-s] -w DIR -- CMD [ARG]...\n", stderr);
		return 64;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		perror("llwrap: no_new_privs");
		return 71;
	}
	if (landlock) {
		struct landlock_ruleset_attr attr = { .handled_access_fs = fs };
		struct landlock_path_beneath_attr pb = {
			/* a root grants everything handled; IOCTL_DEV only on devices */
			.allowed_access = fs & ~LL_IOCTL_DEV,
			.parent_fd = open(dir, O_PATH | O_CLOEXEC),
		};
		int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);

		if (rs < 0 || pb.parent_fd < 0 ||
		    syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0 ||
		    syscall(SYS_landlock_restrict_self, rs, 0) < 0) {
			perror("llwrap: Landlock");
			return 71;
		}
		close(rs);
		close(pb.parent_fd);
	}
	if (filter) {
		struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
		struct sock_fprog prog = { 1, allow };

		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
			perror("llwrap: seccomp");
			return 71;
		}
	}
	execvp(argv[optind], argv + optind);
	perror(argv[optind]);
	return 127;
}
