// SPDX-License-Identifier: MIT
/*
 * landlock-abi — print the running kernel's Landlock ABI version, or why
 * there is none.  A VM test helper, independent of stepguard so that the
 * harness can tell "the kernel has no Landlock" from "stepguard is wrong".
 *
 * Exit status: 0 and the ABI number; 1 and "unavailable: <reason>".
 */
#include <errno.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);

	if (abi < 0) {
		/* EOPNOTSUPP: built in but not in lsm=; ENOSYS: not built. */
		printf("unavailable: %s (%s)\n", strerror(errno),
		       errno == EOPNOTSUPP ? "Landlock is not an active LSM" :
		       errno == ENOSYS ? "kernel built without Landlock" : "unexpected");
		return 1;
	}
	printf("%ld\n", abi);
	return 0;
}
