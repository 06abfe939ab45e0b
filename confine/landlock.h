/* SPDX-License-Identifier: MIT */
/*
 * stepguard — Landlock write-filter backend.
 *
 * The backend handles write-type file system rights only, allows them
 * beneath each writable root, and (from ABI 6) scopes signals and abstract
 * UNIX sockets to the step's own domain.  Read and execute are left
 * unmediated on purpose: a read-only open then costs what it costs without
 * stepguard.
 *
 * Conventions: functions return -errno, never print, never exit.  Only
 * sg_landlock_abi(), sg_landlock_build() and sg_landlock_restrict() make
 * syscalls; sg_landlock_rights_for_abi() and the *_str() helpers are pure.
 *
 * See docs/landlock.md for what each ABI covers and what Landlock never
 * covers (chmod, chown, utimes, xattr).
 */
#ifndef STEPGUARD_LANDLOCK_H
#define STEPGUARD_LANDLOCK_H

#include <stddef.h>
#include <stdint.h>

#include <linux/landlock.h>

#include "lib/root.h" /* the roots, each opened O_PATH|O_CLOEXEC by the caller */

/*
 * Debian 12's <linux/landlock.h> stops at ABI 2.  The values below are the
 * kernel UAPI's (include/uapi/linux/landlock.h); they are ABI and never
 * change, so defining them here is safe when the installed header is older.
 */
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)           /* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)        /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)       /* ABI 5 */
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)               /* ABI 6 */
#endif

/* Write-type rights that ABI 1 already knows. */
#define SG_LANDLOCK_WRITE_ABI1                                                 \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |       \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |       \
	 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |           \
	 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |         \
	 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)

/* Every write-type right stepguard wants handled, on the newest ABI. */
#define SG_LANDLOCK_WRITE_RIGHTS                                               \
	(SG_LANDLOCK_WRITE_ABI1 | LANDLOCK_ACCESS_FS_REFER |                   \
	 LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

/*
 * The subset that the kernel accepts in a rule whose object is not a
 * directory (the others apply to a directory's content only; the kernel
 * refuses them on a file with EINVAL).
 */
#define SG_LANDLOCK_FILE_RIGHTS                                                \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |         \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* Every scope stepguard wants, on the newest ABI. */
#define SG_LANDLOCK_SCOPES                                                     \
	(LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL)

/*
 * Long enough for sg_landlock_rights_str() of any mask (all 16 known names,
 * separators, and a hex word for unknown bits).
 */
#define SG_LANDLOCK_STR_MAX 256


struct sg_landlock_info {
	int abi;                /* as given to sg_landlock_rights_for_abi() */
	uint64_t handled_fs;    /* write rights put in the ruleset */
	uint64_t scoped;        /* scopes put in the ruleset */
	uint64_t missing_fs;    /* write rights this kernel cannot handle:
	                         * holes, unless something else covers them */
	uint64_t missing_scope; /* scopes this kernel cannot enforce */
	uint64_t denied_fs;     /* rights the kernel refuses everywhere, even
	                         * beneath roots (REFER on ABI 1): no hole,
	                         * but over-blocking worth a line of output */
};

/*
 * Ask the kernel's ABI: >=1, or -errno (-EOPNOTSUPP if Landlock is disabled
 * at boot, -ENOSYS if not built).
 */
int sg_landlock_abi(void);

/*
 * Pure: the write-type rights and scopes to handle for a given ABI (no
 * syscalls), filled into info.  abi < 1 means "no Landlock": nothing
 * handled, everything missing.
 */
void sg_landlock_rights_for_abi(int abi, struct sg_landlock_info *info);

/*
 * Build a ruleset handling only info->handled_fs and info->scoped, allowing
 * every handled write right beneath each root (for a root that is not a
 * directory, only the rights that apply to a file: WRITE_FILE, TRUNCATE,
 * IOCTL_DEV).  Returns the ruleset fd (O_CLOEXEC) or -errno; on failure
 * *failed_root (if non-NULL) names the root whose rule was refused, or is
 * NULL when the failure is not tied to one root.
 *
 * -EOPNOTSUPP if info says Landlock is absent, -EINVAL if info asks for a
 * right that is not a write right, -ELOOP if a root is a symbolic link (the
 * rule would govern the link inode, not its target).
 */
int sg_landlock_build(const struct sg_root *roots, size_t n,
		      const struct sg_landlock_info *info,
		      const struct sg_root **failed_root);

/*
 * sg_landlock_build() for a ruling step: EXECUTE handled as well, and
 * granted on exactly the regular files EXECS (entries with fd -1 are
 * skipped), never beneath a root.  EXECS NULL: as sg_landlock_build().
 * *FAILED_ROOT may then name an exec file.
 */
int sg_landlock_build_exec(const struct sg_root *roots, size_t n, const struct sg_root *execs,
			   size_t n_execs, const struct sg_landlock_info *info,
			   const struct sg_root **failed_root);

/*
 * Enforce on the calling thread: requires no_new_privs already set (the
 * launcher sets it in a fixed order: no_new_privs, write filter, seccomp).
 * Always consumes ruleset_fd, and closes nothing else.  0 or -errno
 * (-EPERM when no_new_privs is not set, even for root).
 */
int sg_landlock_restrict(int ruleset_fd);

/*
 * Human text for a rights mask, e.g. "write_file,truncate", for --check and
 * the start line.  "none" for 0; unknown bits as one hex word.  Always
 * NUL-terminated; if len is too small the text ends in "..." rather than
 * being cut silently.  Returns buf.
 */
const char *sg_landlock_rights_str(uint64_t rights, char *buf, size_t len);

/* The same for a scope mask, e.g. "abstract_unix_socket,signal". */
const char *sg_landlock_scopes_str(uint64_t scopes, char *buf, size_t len);

#endif /* STEPGUARD_LANDLOCK_H */
