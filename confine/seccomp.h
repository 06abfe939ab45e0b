/* SPDX-License-Identifier: MIT */
/*
 * The seccomp filter a confined step runs under: default allow, with the
 * syscalls that would let a step escape or blind the write filter refused.
 * See docs/seccomp.md for the list and the reason for every entry.
 *
 * This module builds and loads; it never prints.  Every function that can
 * fail returns 0 or -errno, and the launcher turns that into a message.
 */
#ifndef SG_SECCOMP_H
#define SG_SECCOMP_H

#include <linux/filter.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>

struct sg_seccomp_opts {
	const char *const *deny;  size_t n_deny;   /* extra syscall names to refuse (policy [seccomp] deny) */
	const char *const *allow; size_t n_allow;  /* default-denied names to remove (policy [seccomp] allow) */
	bool allow_userns;                         /* permit unshare/clone with namespace flags (CLONE_NEWUSER etc.) */
};

/*
 * Names of the default deny list, NULL-terminated, for docs/--check and
 * validation.  Every name here is refused with EPERM and may be removed by
 * [seccomp] allow, except "clone3", which is always answered ENOSYS.
 * A listed name libseccomp cannot resolve here adds no rule of its own:
 * iopl and ioperm outside x86 do not exist, and a call newer than
 * libseccomp's table (open_tree_attr with 2.5.x) falls in the range of
 * numbers the filter answers ENOSYS (docs/seccomp.md, "Newer syscalls").
 */
const char *const *sg_seccomp_default_deny(void);

/* Is NAME a syscall name libseccomp knows for the native arch? (for policy validation) */
bool sg_seccomp_known_syscall(const char *name);

/*
 * Build (do not load) the filter.  O may be NULL for the defaults.
 * Returns 0 with *OUT owned by the caller (seccomp_release), or -errno with
 * *OUT set to NULL.  When a name is at fault and BAD_NAME is not NULL,
 * *BAD_NAME points at that name (inside O's arrays):
 *   -EINVAL  a name libseccomp does not know on this architecture (or a
 *            NULL entry, then *BAD_NAME is NULL);
 *   -ENOENT  [seccomp] allow names a syscall that is not default-denied, so
 *            a typo in the policy cannot pass as a removal;
 *   -EPERM   [seccomp] allow names "clone3", which cannot be removed;
 *   -EEXIST  the same name is in both deny and allow.
 * Other values (-ENOMEM, -EOPNOTSUPP from libseccomp) have no name.
 */
int sg_seccomp_build(const struct sg_seccomp_opts *o, scmp_filter_ctx *out,
		     const char **bad_name);

/* A generated filter: classic BPF instructions, as seccomp(2) takes them. */
struct sg_seccomp_prog {
	struct sock_filter *insns;
	unsigned short len;
};

/*
 * Address space that must be free (under RLIMIT_AS and RLIMIT_DATA) before
 * libseccomp generates the filter, which it does not survive running short
 * of (sg_seccomp_export()).  Measured: generating the default filter grows
 * the process by 132 KiB and holds at most 60 KiB of it at once; 2 MiB is
 * over ten times that and covers glibc's 1 MiB mmap fallback when brk
 * cannot grow (docs/design.md, "A launcher short of memory").
 */
#define SG_SECCOMP_EXPORT_RESERVE (2UL << 20)

/*
 * Generate CTX's BPF program into *OUT (free with sg_seccomp_prog_free()),
 * in the parent, before fork: the child then only loads it.  0 or -errno:
 * -ENOMEM if SG_SECCOMP_EXPORT_RESERVE bytes of address space are not
 * left (libseccomp is then not asked at all), -EPROTO if libseccomp
 * produced an empty, ragged or too long program.
 */
int sg_seccomp_export(scmp_filter_ctx ctx, struct sg_seccomp_prog *out);
void sg_seccomp_prog_free(struct sg_seccomp_prog *p);

/*
 * Load an exported filter into the calling thread, which must have set
 * no_new_privs already (-EPERM otherwise, even for root: the launcher's
 * order is fixed).  Loads into this thread only, so call it in the
 * single-threaded child, last before execve.  LISTENER: the filter has
 * notify rules (sg_supervisor_add_rules()); ask the kernel for the
 * listener and return its descriptor.  0 (or the listener) or -errno.
 */
int sg_seccomp_load(const struct sg_seccomp_prog *p, bool listener);

/*
 * The filters the default policy produces, one per way the launcher puts
 * them together (confine.c): the same rules from sg_seccomp_build(), plus
 * the supervisor's.  Each is generated at build time (confine/seccomp_gen.c)
 * and compiled in, so a start with the default policy never asks
 * libseccomp to build or generate anything (docs/seccomp.md, "Prebuilt
 * filters").
 */
enum sg_seccomp_variant {
	SG_SECCOMP_PLAIN,           /* eBPF backends; Landlock without a supervisor */
	SG_SECCOMP_SUPERVISED,      /* + sg_supervisor_add_rules(): landlock+supervisor */
	SG_SECCOMP_SUPERVISED_EXEC, /* + sg_supervisor_add_exec_rules(): a ruling step on it */
	SG_SECCOMP_N_VARIANTS
};

/* "plain", "supervised", "supervised-exec": for messages and the generator. */
const char *sg_seccomp_variant_name(enum sg_seccomp_variant v);

/*
 * Add to CTX (built by sg_seccomp_build()) what variant V adds to it: the
 * one place that says what a variant is, used at run time when the filter
 * is generated, by the generator and by the test that compares the two.
 * 0 or what the supervisor's functions return (-EOPNOTSUPP: this kernel
 * or libseccomp cannot notify).
 */
int sg_seccomp_add_variant_rules(scmp_filter_ctx ctx, enum sg_seccomp_variant v);

/*
 * Can the supervised variants be used here?  0, or -EOPNOTSUPP exactly
 * when sg_supervisor_add_rules() would refuse to add its rules (a 32-bit
 * build; libseccomp or the kernel below API level 5, user notification),
 * without building anything.  The unit test holds the two together.
 */
int sg_seccomp_notify_available(void);

/*
 * The prebuilt program of variant V, copied into *OUT (free with
 * sg_seccomp_prog_free()), when O (NULL: the defaults) leaves the filter
 * as the default policy has it and the library linked here is the one it
 * was generated with.  0, -ENOMEM, or -ENOENT with *WHY saying why not
 * (for -v): the caller then generates the filter at run time, which is
 * slower, never weaker.
 */
int sg_seccomp_prebuilt(const struct sg_seccomp_opts *o, enum sg_seccomp_variant v,
			struct sg_seccomp_prog *out, const char **why);

#endif /* SG_SECCOMP_H */
