// SPDX-License-Identifier: MIT
/*
 * seccomp_deny.c — the seccomp filter's named deny list: every entry and
 * the reason for it, the errno each is answered, the check of the
 * policy's [seccomp] names against it, and the rules that refuse them.
 * seccomp.c puts those rules in the filter, in its order.
 *
 * The list and the reason for each entry are in docs/seccomp.md; keep the
 * two in step.  This file prints nothing and returns -errno.
 */
#include "confine/seccomp.h"
#include "confine/seccomp_internal.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/*
 * The default deny list.  All entries are answered EPERM ("you may not"),
 * which programs already expect from these privileged calls and handle,
 * except clone3 (see sg_deny_errno).  The reasons, one group at a time:
 */
static const char *const sg_default_deny[] = {
	/*
	 * Reaching into another process.  A step that can read or write the
	 * memory of stepguard, of the user's shell or of an unconfined
	 * sibling, or steal one of its descriptors, acts with that process's
	 * rights, outside every filter.
	 */
	"ptrace",
	"process_vm_readv",
	"process_vm_writev",
	"pidfd_getfd",

	/*
	 * Running code in the kernel or reading it: eBPF programs and perf
	 * events.  With them a privileged step could detach or overwrite the
	 * eBPF write filter's maps, or watch the filter and its log.
	 */
	"bpf",
	"perf_event_open",

	/*
	 * io_uring performs opens, renames, xattr changes and more from
	 * kernel workers, without a syscall entry per operation, so no
	 * seccomp rule (ours, or the supervisor's user-notification filter)
	 * ever sees those operations.
	 */
	"io_uring_setup",
	"io_uring_enter",
	"io_uring_register",

	/*
	 * userfaultfd lets a step stall the kernel in the middle of copying
	 * a syscall's arguments from its memory, which turns every
	 * check-then-use window (a supervisor reading a path, a path-based
	 * eBPF check) into one as wide as the attacker likes.
	 */
	"userfaultfd",

	/*
	 * The kernel keyrings outlive the step and are shared per user: a
	 * step could read or plant keys used by the user's other sessions.
	 */
	"keyctl",
	"add_key",
	"request_key",

	/*
	 * The mount family changes what a path names.  A bind mount or a
	 * moved tree makes a path outside the work directory look like one
	 * inside it, to a path-based filter and to the humans reading its
	 * log.  Landlock refuses topology changes on its own, the eBPF
	 * backends do not.
	 */
	"mount",
	"umount2",
	"pivot_root",
	"move_mount",
	"open_tree",
	"fsopen",
	"fsmount",
	"fsconfig",
	"fspick",
	"mount_setattr",
	/*
	 * Linux 6.15.  A libseccomp that cannot name it adds no rule for it
	 * here, and the number is refused by sg_add_unknown_guard() instead.
	 */
	"open_tree_attr",

	/*
	 * chroot changes the root that paths are resolved and reported
	 * against, with the same effect as a mount for a path-based filter.
	 * It needs CAP_SYS_CHROOT, which a step has as root or inside its own
	 * user namespace (allow_userns); remove it for a CLI whose sandbox
	 * chroots (docs/seccomp.md).
	 */
	"chroot",

	/*
	 * Opening a file by handle skips path resolution and so every path
	 * rule; handles are stable and can be guessed or carried over from
	 * another process.  name_to_handle_at is the half that mints them.
	 */
	"open_by_handle_at",
	"name_to_handle_at",

	/*
	 * Replacing the running kernel, or adding code to it, removes every
	 * filter at once.
	 */
	"kexec_load",
	"kexec_file_load",
	"init_module",
	"finit_module",
	"delete_module",

	/*
	 * Writing below the file system: the kernel writes swap pages
	 * straight to the swap file's blocks, and raw port I/O can drive a
	 * disk controller, so neither passes through a single write hook.
	 * (iopl and ioperm exist on x86 only; elsewhere they add no rule.)
	 */
	"swapon",
	"swapoff",
	"iopl",
	"ioperm",

	/*
	 * Joining a namespace someone else built (another process's mount
	 * namespace, say) puts the step where paths mean something else.
	 * allow_userns does not lift this: a sandbox creates its own
	 * namespaces, it does not need to enter existing ones.
	 */
	"setns",

	/* Always ENOSYS, and not removable: see sg_deny_errno(). */
	"clone3",

	NULL
};

/*
 * clone3 passes its flags in a structure in the caller's memory, which a
 * seccomp filter cannot read, so the namespace-flag rule (sg_add_ns_rules()
 * in seccomp.c) cannot be applied to it.  Refuse it whole, with ENOSYS
 * rather than EPERM: glibc (2.34+), Rust and Go take ENOSYS to mean "old
 * kernel" and fall back to clone, whose flags we can inspect; EPERM would
 * make them fail instead.
 */
static int sg_deny_errno(const char *name)
{
	return strcmp(name, "clone3") == 0 ? ENOSYS : EPERM;
}

static bool sg_deny_removable(const char *name)
{
	return strcmp(name, "clone3") != 0;
}

const char *const *sg_seccomp_default_deny(void)
{
	return sg_default_deny;
}

/* The native number for NAME, or a negative value when it has none. */
static int sg_resolve(const char *name)
{
	/*
	 * libseccomp answers __NR_SCMP_ERROR for names it does not know and
	 * a negative pseudo number for names it knows on other architectures
	 * only (iopl on arm64); neither is a syscall here.
	 */
	return seccomp_syscall_resolve_name(name);
}

bool sg_seccomp_known_syscall(const char *name)
{
	return name && *name && sg_resolve(name) >= 0;
}

static bool sg_in_list(const char *const *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], name) == 0)
			return true;
	return false;
}

static bool sg_in_default(const char *name)
{
	for (const char *const *p = sg_default_deny; *p; p++)
		if (strcmp(*p, name) == 0)
			return true;
	return false;
}

/*
 * Check every policy name before building anything, so the first bad name
 * is reported whatever else is wrong, and so a half-built filter never
 * exists.
 */
int sg_seccomp_check_opts(const struct sg_seccomp_opts *o, const char **bad_name)
{
	if ((o->n_deny && !o->deny) || (o->n_allow && !o->allow))
		return -EINVAL;

	for (size_t i = 0; i < o->n_deny; i++) {
		const char *name = o->deny[i];

		if (!name)
			return -EINVAL;
		if (!sg_seccomp_known_syscall(name)) {
			*bad_name = name;
			return -EINVAL;
		}
	}

	for (size_t i = 0; i < o->n_allow; i++) {
		const char *name = o->allow[i];

		if (!name)
			return -EINVAL;
		*bad_name = name;
		if (!sg_seccomp_known_syscall(name))
			return -EINVAL;
		/* A removal that removes nothing is a typo, not a no-op. */
		if (!sg_in_default(name))
			return -ENOENT;
		if (!sg_deny_removable(name))
			return -EPERM;
		if (sg_in_list(o->deny, o->n_deny, name))
			return -EEXIST;
		*bad_name = NULL;
	}

	return 0;
}

int sg_seccomp_add_default_deny(scmp_filter_ctx ctx, const struct sg_seccomp_opts *o)
{
	for (const char *const *p = sg_default_deny; *p; p++) {
		int nr, r;

		if (sg_in_list(o->allow, o->n_allow, *p))
			continue;
		nr = sg_resolve(*p);
		/*
		 * Not a syscall on this architecture, or newer than
		 * libseccomp's table (sg_add_unknown_guard() in seccomp.c
		 * refuses those).
		 */
		if (nr < 0)
			continue;
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(sg_deny_errno(*p)), nr, 0);
		if (r < 0)
			return r;
	}
	return 0;
}

int sg_seccomp_add_policy_deny(scmp_filter_ctx ctx, const struct sg_seccomp_opts *o)
{
	for (size_t i = 0; i < o->n_deny; i++) {
		const char *name = o->deny[i];
		int r;

		/* Already refused, with its own errno (clone3 keeps ENOSYS). */
		if (sg_in_default(name))
			continue;
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM),
				     sg_resolve(name), 0);
		if (r < 0)
			return r;
	}
	return 0;
}
