/* SPDX-License-Identifier: MIT */
/*
 * loader.h — load, pin, reuse and drive the eBPF write filter
 * (bpf/stepguard.bpf.c).
 *
 * Life of a step on an eBPF backend:
 *
 *     sg_bpf_probe(mode)         can this kernel enforce in this mode?
 *     sg_bpf_open(mode)          reuse this build's pins, or load, attach, pin
 *     sg_bpf_add_scope(roots)    a scope: its policy, ring buffer and roots
 *     sg_bpf_scope_exec_allow()  a ruling step: what its tasks may execute
 *     sg_bpf_scope_sockets_allow()  the sockets outside its roots it may reach
 *     fork; the child waits on a pipe
 *     sg_bpf_confine_pid(pidfd)  mark the child: it and all it forks are confined
 *     release the child; it execs the step
 *     sg_bpf_poll(...)           events, until the step ends
 *     sg_bpf_remove_scope()      what is left of the step is refused every write
 *     sg_bpf_close()
 *
 * The programs and maps outlive the process: they are pinned under
 * SG_BPF_PIN_ROOT/v<VERSION>-<digest>/ and later steps reuse them without
 * loading or verifying anything (sg_bpf_info.reused).  The digest is of the
 * BPF object this binary embeds, so a different build never reuses pins
 * whose programs it did not write; other versions' pins are left alone and
 * named in sg_bpf_info.stale.  sg_bpf_unload() removes the pins (detaching
 * the programs).
 *
 * Conventions: every function returns 0 (or a count) or -errno and prints
 * nothing.  Where a reason helps, it is written to a caller's buffer or to
 * sg_bpf_info.why; libbpf's own messages (the verifier log) go to the
 * function given to sg_bpf_set_log(), if any, and the tail of the
 * verifier log of a failed load is kept in sg_bpf_info.why.
 *
 * Needs root (CAP_SYS_ADMIN, CAP_BPF, CAP_PERFMON, CAP_MAC_ADMIN for lsm/),
 * kernel BTF, bpffs on /sys/fs/bpf, and for SG_BPF_LSM "bpf" in
 * /sys/kernel/security/lsm.
 */
#ifndef SG_BPF_LOADER_H
#define SG_BPF_LOADER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/events.h"

#define SG_BPF_PIN_ROOT "/sys/fs/bpf/stepguard"

enum sg_bpf_mode {
	SG_BPF_LSM = 1,  /* bpf-lsm: lsm/ programs */
	SG_BPF_FMOD = 2, /* bpf-fmod: fmod_ret/ on security_* functions */
};

struct sg_bpf;

struct sg_bpf_info {
	bool reused;        /* this build's pins were there: nothing was loaded or verified */
	unsigned n_progs;   /* programs attached for this mode */
	double open_ms;     /* all of sg_bpf_open() */
	double load_ms;     /* open, relocate, load and verify (0 when reused) */
	double attach_ms;   /* attach and pin (0 when reused) */
	char dir[128];      /* the version directory */
	char skipped[256];  /* hooks this kernel lacks, left out: "file_truncate inode_set_acl" */
	char stale[256];    /* other versions' pin directories, left alone */
	char why[1024];     /* on failure: what failed (and the verifier log's tail) */
};

/* Per-scope counters, as the programs keep them. */
struct sg_bpf_counts {
	uint64_t denied;  /* refusals */
	uint64_t audited; /* would-be refusals let through */
	uint64_t lost;    /* events that never reached the ring buffer */
	uint32_t nroots;  /* roots registered */
	uint32_t mode;    /* SG_BPF_ENFORCE or SG_BPF_AUDIT */
	uint32_t nexecs;  /* distinct exec files registered (sg_bpf_scope_exec_allow) */
	uint32_t nsocks;  /* distinct sockets registered (sg_bpf_scope_sockets_allow) */
	bool exec_restricted; /* its tasks execute only those */
};

/* "bpf-lsm", "bpf-fmod" (the backend names of the log). */
const char *sg_bpf_mode_name(enum sg_bpf_mode mode);

/* "v0.1.0-1a2b3c4d": the pin directory name of this build. */
const char *sg_bpf_version(void);

/*
 * Route libbpf's messages (level, format, args) somewhere; NULL (the
 * default) drops them.  The loader never prints on its own.
 */
typedef int (*sg_bpf_log_fn)(int level, const char *fmt, va_list ap);
void sg_bpf_set_log(sg_bpf_log_fn fn);

/*
 * Can this kernel enforce in MODE?  Reads what it can without loading:
 * privileges, kernel BTF, bpffs, the hooks in BTF, and for SG_BPF_LSM the
 * active LSM list: a lsm/ program attaches without error where "bpf" is
 * not an active LSM, and then enforces nothing, so that case is refused
 * here (-EOPNOTSUPP), never reported as enforcing.  0 or -errno with WHY.
 * sg_bpf_add_scope() proves it again by seeing the hooks run.
 */
int sg_bpf_probe(enum sg_bpf_mode mode, char *why, size_t len);

/*
 * Reuse or load the filter for MODE.  *out is the handle for the calls
 * below; INFO (required) says what happened.  Serialised against other
 * stepguards by a lock on SG_BPF_PIN_ROOT, so two first steps of a boot
 * do not both load.  Checks what sg_bpf_probe() checks (the hooks in BTF
 * only when it has to load: reusing pins reads no BTF).
 */
int sg_bpf_open(enum sg_bpf_mode mode, struct sg_bpf **out, struct sg_bpf_info *info);

/*
 * sg_bpf_open() with FLAGS.  SG_BPF_OPEN_FORCE_ATTACH skips the check of
 * the active LSM list, for tests only: it lets a test attach lsm/
 * programs where they enforce nothing and see sg_bpf_add_scope() refuse
 * (-EOPNOTSUPP).  Never for a step.
 */
#define SG_BPF_OPEN_FORCE_ATTACH (1U << 0)
int sg_bpf_open_flags(enum sg_bpf_mode mode, unsigned flags, struct sg_bpf **out,
		      struct sg_bpf_info *info);

/* Closes the handle; the pinned filter stays. */
void sg_bpf_close(struct sg_bpf *b);

/*
 * A new scope with the writable roots ROOT_FDS (O_PATH descriptors, as
 * stepguard opens them) and MODE (SG_BPF_ENFORCE or SG_BPF_AUDIT).  The
 * roots are registered by kernel identity, through the filter's own hook
 * (see sg_register() in stepguard.bpf.c); a root on a read-only mount is
 * skipped (the VFS refuses writes there before any hook).  Must be called
 * from the process's main thread (the registration mark is set through a
 * pidfd, which names the thread-group leader).
 *
 * *scope: the new scope's id.  On failure, *failed (if not NULL) is the
 * index of the root that could not be registered, or n.
 * -EOPNOTSUPP: the hooks did not run (the filter is not enforcing here).
 * -ENOSPC: the scopes or roots map is full.
 * Scopes whose stepguard died are removed first (see sg_bpf_gc()).
 */
int sg_bpf_add_scope(struct sg_bpf *b, const int *root_fds, size_t n, uint32_t mode,
		     uint32_t *scope, size_t *failed);

/*
 * Restrict what the tasks of SCOPE may execute to the files EXEC_FDS
 * (O_PATH descriptors, N of them): every exec (bprm_check) by a task of
 * the scope of a file that is not one of them is refused -EACCES and
 * reported as an event with op SG_OP_EXEC, reason SG_WHY_NOT_ALLOWED and
 * the file's path (in audit mode: let through and reported as audited).
 * Call after sg_bpf_add_scope() and before any task is marked with the
 * scope.  -EOPNOTSUPP when the loaded programs have no exec hook (then
 * the caller refuses the step unless the policy accepts the gap "exec").
 *
 * The files are registered by the identity of their inode (device, inode
 * number, generation), through the filter's own hook, as roots are: a
 * hard link or another path to one of them is the same file, a new file
 * at the same path is not, and the descriptors may be closed afterwards.
 * A script runs only if its interpreter is one of them too; an ELF
 * program's own interpreter (ld.so) and libraries are not checked (the
 * kernel asks no exec hook for them).  N may be 0: nothing may execute.
 *
 * Also: -EINVAL when a descriptor is not a regular file (a symlink opened
 * with O_NOFOLLOW, a directory), -ENOENT when SCOPE is not this handle's,
 * -EBUSY when a task was already marked with it, -EEXIST when it is
 * restricted already (the list is fixed before the step starts),
 * -ENOSPC when the exec map is full.  On any failure the scope may be
 * left restricted to part of the list (it refuses more, never less):
 * remove it.
 */
int sg_bpf_scope_exec_allow(struct sg_bpf *b, uint32_t scope, const int *exec_fds, size_t n);

/*
 * Let the tasks of SCOPE connect and send to the pathname UNIX sockets
 * FDS (O_PATH descriptors of socket files, N of them) although they lie
 * outside its writable roots.  Without this, a scope reaches only the
 * pathname sockets beneath its roots: a connect(2) to a stream or
 * seqpacket socket, or a connect or send to a datagram socket, whose
 * file lies elsewhere is refused -EACCES and reported as an event with
 * op SG_OP_CONNECT and the socket's path (audit mode: let through and
 * reported as audited).  Abstract and unnamed sockets are not judged.
 * Call once, after sg_bpf_add_scope() and before any task is marked
 * with the scope, as sg_bpf_scope_exec_allow().
 *
 * The sockets are registered by the identity of their inode, as exec
 * files are (the descriptors may be closed afterwards): a socket file
 * removed and bound again at the same path is a new socket and is
 * refused until the next step.
 *
 * -EOPNOTSUPP when the registration hook (file_fcntl) is not attached,
 * -EINVAL when a descriptor is not a socket file, -ENOENT when SCOPE is
 * not this handle's, -EBUSY when a task was already marked with it,
 * -EEXIST when it was called already for SCOPE.  -ENOSPC when the
 * sockets map (4096 entries, all scopes) is full: the step must not
 * start; a full map never lets a connect through, since the hooks only
 * look up.  On any failure the scope may be left with part of the list
 * (it refuses more, never less).
 */
int sg_bpf_scope_sockets_allow(struct sg_bpf *b, uint32_t scope, const int *fds, size_t n);

/*
 * Mark the process PIDFD (not yet exec'ed, waiting for the go) as confined
 * to SCOPE.  -EEXIST if it already carries a mark: a task is never moved
 * from one scope to another.  -ENOENT if SCOPE has no policy.  The mark
 * takes the scope's exec restriction with it, and so does every task it
 * forks.
 */
int sg_bpf_confine_pid(struct sg_bpf *b, int pidfd, uint32_t scope);

/*
 * Remove SCOPE's policy, ring, roots and exec files.  From then on, the
 * tasks still marked with it (daemons that outlived the step) are refused
 * every write, and, if the scope was exec-restricted, every exec.
 */
int sg_bpf_remove_scope(struct sg_bpf *b, uint32_t scope);

/*
 * Remove the scopes whose registering stepguard is gone (killed before it
 * could remove them), so that their rings do not pile up.  Only from the
 * initial pid and time namespaces, where a process's start time can be
 * compared with what the kernel recorded; elsewhere it does nothing.
 * Returns how many were removed, or -errno.
 */
int sg_bpf_gc(struct sg_bpf *b);

int sg_bpf_scope_counts(struct sg_bpf *b, uint32_t scope, struct sg_bpf_counts *out);

/*
 * Events of the scopes this handle added.  FN is called for each, with a
 * record already checked for size; a non-zero return stops the poll.
 * Returns the number of events, or -errno.
 */
typedef int (*sg_bpf_event_fn)(const struct sg_event *ev, void *ctx);
int sg_bpf_poll(struct sg_bpf *b, int timeout_ms, sg_bpf_event_fn fn, void *ctx);

/* An epoll descriptor that becomes readable when events wait (-ENOENT before any scope). */
int sg_bpf_epoll_fd(const struct sg_bpf *b);

/*
 * The programs attached for this handle's mode: their ids (for "was
 * anything loaded?"), what verifying them cost, and their recursion misses.  A fmod_ret
 * program that the kernel skips because it is already running on this
 * CPU (possible only under full preemption) decides nothing: the call goes
 * through.  A non-zero, growing count is worth a loud warning.
 */
struct sg_bpf_prog {
	uint32_t id;
	uint32_t verified_insns;    /* what the verifier walked (cost of a cold load) */
	uint64_t recursion_misses;
	char name[64];              /* the pin's name: lsm_file_open, ... */
};
int sg_bpf_progs(struct sg_bpf *b, struct sg_bpf_prog *progs, size_t max, size_t *n);

/*
 * Remove the pins of VERSION_DIR (a name from sg_bpf_info.stale), or of
 * this build when NULL: the programs detach.  -EBUSY while scopes exist,
 * unless FORCE (running steps would lose their filter).  -ENOENT when
 * there is nothing to remove.
 */
int sg_bpf_unload(const char *version_dir, bool force, char *why, size_t len);

/* Pure helpers for reading events (bpf/events.c). */
const char *sg_bpf_op_name(unsigned op);         /* "open", "create", ... */
const char *sg_bpf_reason_name(unsigned reason); /* "outside", "depth", ... */
const char *sg_bpf_decision_name(unsigned decision);
/* 0 when a record of SIZE bytes is a whole, consistent event. */
int sg_bpf_event_check(const void *data, size_t size);
/* The first (which 0) or second path of EV, with its length. */
const char *sg_bpf_event_path(const struct sg_event *ev, int which, size_t *len);

#endif /* SG_BPF_LOADER_H */
