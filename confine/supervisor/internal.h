/* SPDX-License-Identifier: MIT */
/*
 * stepguard — what the supervisor's files share; only confine/supervisor/ includes it.
 *
 * The supervisor is split along its data flow:
 *   supervisor.c          the listener: rules, probes, receive, answer
 *   target.c              reading the step's state (memory, fds, /proc)
 *   resolve.c             resolving a path or fd to an object, and the
 *                         decision "beneath a writable root?"
 *   ops.c                 decoding each call and acting on the object
 *   exec.c                a ruling step's execs: refused, or continued
 *   intent.c              write-intent calls (create, open for writing,
 *                         mkdir, unlink, rename, link...): refused and
 *                         recorded outside the roots, else continued
 *   sched.c               scheduling and limits of another process: performed
 *                         when it is in the step, else refused and recorded
 *   connect.c             connect and sendto: a pathname UNIX socket judged,
 *                         every connect performed on a copy by a worker thread
 *   calls.c               the notified calls' table, their log words and refusals
 *
 * Internal convention, on top of -errno: -ESRCH means "the step's call is
 * gone" (the task died, or a signal interrupted the call): there is nobody
 * left to answer.  A failure to read the step's state records its errno in
 * sg_target.failed, so a refusal can say the supervisor failed rather than
 * pass the error off as the kernel's answer.
 */
#ifndef STEPGUARD_SUPERVISOR_INTERNAL_H
#define STEPGUARD_SUPERVISOR_INTERNAL_H

#include <linux/limits.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "confine/supervisor/supervisor.h"

/* fchmodat2 (Linux 6.6): the same number on x86_64 and the generic table. */
#define SG_SYS_fchmodat2 452

/* The kernel's own limit on symbolic links followed in one lookup. */
#define SG_MAXSYMLINKS 40
/* Levels the upward walk may climb before it gives up and refuses. */
#define SG_WALK_MAX 1024
/* Supplementary groups compared between stepguard and the step. */
#define SG_GROUPS_MAX 1024

enum sg_kind {
	SG_K_CHMOD,
	SG_K_CHOWN,
	SG_K_UTIMES,
	SG_K_SETXATTR,
	SG_K_REMOVEXATTR,
	SG_K_TRUNCATE,
	SG_K_OPEN,
	SG_K_EXEC,          /* only in a ruling step (sg_supervisor_add_exec_rules()) */
	SG_K_SETGROUPS,     /* only noted, then continued (sg_supervisor_handle()) */
	SG_K_CHDIR,         /* likewise: the working directories kept are dropped */
	/*
	 * Write intents (intent.c): Landlock refuses them in the kernel; the
	 * supervisor only tells the refusals apart, to record them.  open and
	 * openat are SG_K_OPEN, and intents unless their flags are the
	 * O_TRUNC opens the supervisor performs (sg_call_is_intent()).
	 */
	SG_K_CREAT,
	SG_K_MKDIR,
	SG_K_MKNOD,
	SG_K_UNLINK,        /* unlinkat with AT_REMOVEDIR is an rmdir */
	SG_K_RMDIR,
	SG_K_RENAME,
	SG_K_LINK,
	SG_K_SYMLINK,
	/*
	 * Scheduling and limits of another process (sched.c): performed by
	 * the supervisor when the target is in the step, else refused.
	 */
	SG_K_SCHED,
	/*
	 * connect, and sendto with an address (connect.c): performed on a
	 * copy of the step's socket by a worker thread, or refused.
	 */
	SG_K_CONNECT,
	SG_K_SENDTO,
};

enum sg_times { SG_T_NONE, SG_T_TIMESPEC, SG_T_TIMEVAL, SG_T_UTIMBUF };

/*
 * One notified system call: where its arguments are (index, or -1).
 * a1..a4 depend on the kind: chmod (mode), chown (uid, gid), utimes
 * (times), setxattr (name, value, size, flags), removexattr (name),
 * truncate (length), open (flags, mode), creat (mode), mknod (mode),
 * symlink (target); rename and link: a1 the new name's dirfd (-1:
 * AT_FDCWD), a2 the new name, a3 renameat2's flags.
 */
struct sg_call {
	const char *name;
	enum sg_kind kind;
	signed char dirfd, path, fd, atflags;
	signed char a1, a2, a3, a4;
	bool nofollow;        /* lchown, lsetxattr, lremovexattr */
	enum sg_times times;
};

extern const struct sg_call sg_calls[];
extern const size_t sg_n_calls;

/* The parts of a task's credentials that file operations are checked with. */
struct sg_creds {
	pid_t tgid;
	mode_t umask;
	uid_t fsuid;
	gid_t fsgid;
	uint64_t cap_eff;
	size_t n_groups;
	gid_t groups[SG_GROUPS_MAX];  /* sorted */
};

/* Where a task's paths start: its mount namespace and root. */
struct sg_view {
	dev_t mnt_dev, user_dev, root_dev;
	ino_t mnt_ino, user_ino, root_ino;
	uint64_t root_mnt_id;
};

struct sg_sup_root {
	dev_t dev;
	ino_t ino;
	bool dir;
	bool device;
	int fd;       /* our duplicate: keeps the inode, and its number, alive */
	char *path;   /* a directory root's absolute path when we started, or NULL */
};

/*
 * A task served recently, with what we opened for it kept open (target.c,
 * "Tasks kept open"): its /proc/TID, its status file and its pidfd.
 */
#define SG_TASKS 16
struct sg_task {
	pid_t tid;             /* 0: a free slot */
	int proc, status, pidfd;
	bool thread_pidfd;     /* pidfd is the thread's own (PIDFD_THREAD) */
	/*
	 * Its working directory, for write intents only (target.c,
	 * sg_target_cwd()): -1, or opened when the supervisor's cwd_gen was
	 * this task's cwd_gen.
	 */
	int cwd;
	unsigned long cwd_gen;
	bool cwd_beneath;      /* cwd is a directory root or beneath one, when opened */
	unsigned long used;    /* the supervisor's count when last used */
	struct sg_creds creds; /* as last read; groups from its status */
};

/*
 * Where the last object judged by its name was found, beneath which root
 * (resolve.c, sg_judge_by_name()): a hint, verified on every use.
 */
struct sg_name_hint {
	dev_t dev;
	ino_t ino;
	const struct sg_sup_root *root;
	char dir[PATH_MAX];    /* relative to the root, "." for the root itself */
	char base[NAME_MAX + 1];
};

struct sg_supervisor {
	int listener;
	uint32_t arch;
	unsigned long count;
	long page_size;
	struct sg_sup_root *roots;
	size_t n_roots;
	struct seccomp_notif *req;
	size_t req_size;
	struct seccomp_notif_resp *resp;
	size_t resp_size;
	int *nr;               /* native number of sg_calls[i], or -1 */
	struct sg_sup_root *execs; /* a ruling step's exec allow-list (sg_supervisor_set_execs()) */
	size_t n_execs;
	struct sg_sup_root *sockets; /* [sockets] allow (sg_supervisor_set_sockets()) */
	size_t n_sockets;
	struct sg_conn_pool *conn; /* connect.c's workers, once the first is needed */
	struct sg_creds self;
	struct sg_view view;
	/*
	 * /proc is a procfs of our pid namespace, so "/proc/self" of the
	 * step can be spelled "/proc/<its tgid>" here (resolve.c).
	 */
	bool proc_ours;
	bool fchmodat2_empty;  /* fchmodat2(fd, "", AT_EMPTY_PATH) works (6.6) */
	bool pidfd_info;       /* PIDFD_GET_INFO gives a task's ids (6.13) */
	bool groups_changed;   /* a task of the step called setgroups(2) */
	unsigned long cwd_gen; /* chdir/fchdir calls of the step seen so far */
	/*
	 * --mode audit: Landlock handles no write right, and every call is
	 * continued; what would have been refused is recorded as audited.
	 */
	bool audit;
	bool no_refer;         /* Landlock ABI 1: renames and links across directories refused */
	struct sg_task tasks[SG_TASKS];
	char *status_buf;      /* SG_STATUS_MAX + 1 bytes: one task's status */
	struct sg_name_hint *hint;
};

/* /proc/PID/status is ~1.5 KiB; a huge Groups: line is the only way past this. */
#define SG_STATUS_MAX ((size_t)64 * 1024)

/* The task whose call is being handled. */
struct sg_target {
	const struct sg_supervisor *s;
	/*
	 * A write intent, which the supervisor only judges and never
	 * performs (intent.c): no validity check after each read, since a
	 * judgement is acted on only by an answer, and the kernel takes an
	 * answer only while the caller still waits in that very call.
	 */
	bool light;
	struct sg_task *task;  /* owns proc and pidfd when set */
	uint64_t id;
	pid_t tid;
	int proc;              /* /proc/TID, O_PATH: pins that task's pid */
	int pidfd;             /* the thread's, opened on first use */
	int pidfd_proc;        /* its process's (leader's table), on first use */
	int failed;            /* errno of our own failure to read its state */
	bool cwd_kept;         /* a kept working directory was used (sg_target_cwd()) */
	bool cwd_fresh;        /* the working directory was opened for this call */
	bool cwd_beneath;      /* write intents: it is beneath a directory root */
	struct sg_creds creds;
};

/* A resolved object. */
struct sg_obj {
	int fd;                /* O_PATH (path-based) or the step's file (fd) */
	int parent;            /* directory the last component was found in */
	bool exists;           /* false: only parent and name (O_CREAT) */
	/*
	 * fd is our own /proc/self/fd/M link itself, standing for the
	 * step's /proc/.../fd/N link that a no-follow call names: a procfs
	 * inode, in no directory tree (resolve.c, sg_proc_fd_link()).
	 */
	bool own_link;
	int hold;              /* keeps M open while fd refers to its link */
	/*
	 * The directory the last component was found in was reached from a
	 * directory root with RESOLVE_BENEATH: it is beneath that root,
	 * without a walk up (resolve.c, sg_resolve_path()).
	 */
	bool beneath;
	struct stat st;
	char name[NAME_MAX + 1];
};

/* What to answer. */
struct sg_reply {
	bool gone;             /* nobody to answer */
	int error;             /* positive errno, 0 for success */
	int64_t val;
	bool cont;             /* let the kernel run the call: an exec or a write
	                        * intent (Landlock decides), setgroups, audit mode */
	bool async;            /* a worker answers it (connect.c): send nothing now */
	int addfd;             /* >= 0: install this fd and return its number */
	unsigned int addfd_flags;
};

/* resolve flags */
#define SG_R_NOFOLLOW (1u << 0) /* do not follow a trailing symlink */
#define SG_R_EMPTY    (1u << 1) /* AT_EMPTY_PATH */
#define SG_R_CREATE   (1u << 2) /* a missing last component is fine */
#define SG_R_EXCL     (1u << 3) /* O_CREAT|O_EXCL: never follow a trailing symlink */
#define SG_R_MKDIR    (1u << 4) /* with SG_R_CREATE: a directory, so "new/" is fine */
#define SG_R_PARENT   (1u << 5) /* only the directory the last component is in */
#define SG_R_START_BENEATH (1u << 6) /* the start is beneath a directory root (write intents) */
#define SG_R_STAT     (1u << 7) /* an existing last component by fstatat: o->fd stays -1 */

/* "/proc/self/fd/N": how to act on an O_PATH descriptor by path. */
#define SG_FD_PATH_MAX 32
static inline const char *sg_fd_path(char buf[SG_FD_PATH_MAX], int fd)
{
	snprintf(buf, SG_FD_PATH_MAX, "/proc/self/fd/%d", fd);
	return buf;
}

/* target.c */
int sg_target_open(struct sg_target *t, struct sg_supervisor *s,
		   uint64_t id, pid_t tid, bool light);
void sg_tasks_free(struct sg_supervisor *s);
void sg_target_close(struct sg_target *t);
void sg_target_forget(struct sg_target *t);
int sg_target_valid(struct sg_target *t);
int sg_target_read(struct sg_target *t, uint64_t addr, void *buf, size_t len);
int sg_target_read_str(struct sg_target *t, uint64_t addr, char *buf,
		       size_t size);
int sg_target_write(struct sg_target *t, uint64_t addr, const void *buf, size_t len);
int sg_target_getfd(struct sg_target *t, int fd);
int sg_target_getfd_proc(struct sg_target *t, int fd);
/* sg_target_fd_table(): which of the caller's descriptor tables a procfs directory is */
#define SG_TABLE_THREAD  1
#define SG_TABLE_PROCESS 2
int sg_target_fd_table(struct sg_target *t, const struct stat *dir);
int sg_target_cwd(struct sg_target *t);
int sg_target_view(struct sg_target *t, struct sg_view *v, unsigned int what);
int sg_target_umask(struct sg_target *t, mode_t *mask);
bool sg_pidfd_info_works(void);
int sg_creds_read(int proc_fd, struct sg_creds *c);
int sg_creds_pread(int status_fd, char *buf, struct sg_creds *c);
/* sg_view_read(): the root always; these on request */
#define SG_VIEW_MNT  (1u << 0)
#define SG_VIEW_USER (1u << 1)
int sg_view_read(int proc_fd, struct sg_view *v, unsigned int what);
bool sg_creds_no_more_than(const struct sg_creds *self,
			   const struct sg_creds *step, bool same_userns);

/* resolve.c */
int sg_openat2(int dirfd, const char *path, uint64_t flags, uint64_t resolve);
void sg_obj_init(struct sg_obj *o);
void sg_obj_close(struct sg_obj *o);
int sg_resolve_path(struct sg_target *t, int dirfd, const char *path,
		    unsigned int how, struct sg_obj *o);
int sg_resolve_fd(struct sg_target *t, int fd, struct sg_obj *o);
int sg_judge(const struct sg_supervisor *s, const struct sg_obj *o,
	     bool metadata);
int sg_obj_describe(const struct sg_obj *o, char *buf, size_t size);
/* Is directory DIRFD a directory root or beneath one?  1, 0, or -errno. */
int sg_dir_beneath(const struct sg_supervisor *s, int dirfd);

/* exec.c: 1 when refused (*EV says how), 0 when answered or continued (*REP) */
int sg_sup_exec(struct sg_target *t, const struct sg_call *c, const uint64_t *arg,
		struct sg_sup_event *ev, struct sg_reply *rep);

/* intent.c: 1 when refused (*EV says how), 0 when continued or gone (*REP) */
bool sg_call_is_intent(const struct sg_call *c, const uint64_t *arg);
int sg_sup_intent(struct sg_target *t, const struct sg_call *c, const uint64_t *arg,
		  struct sg_sup_event *ev, struct sg_reply *rep);

/* sched.c: the filter's rules; 1 when refused (*EV), 0 when answered or gone */
int sg_sched_add_rules(scmp_filter_ctx ctx);
int sg_sup_sched(struct sg_target *t, const struct sg_call *c, const uint64_t *arg,
		 const struct sg_view *view, struct sg_sup_event *ev, struct sg_reply *rep);

/* connect.c: the filter's rules; 1 when refused (*EV), 0 when answered, queued or gone */
int sg_connect_add_rules(scmp_filter_ctx ctx);
int sg_sup_connect(struct sg_target *t, const struct sg_call *c, const uint64_t *arg,
		   const struct sg_view *view, struct sg_sup_event *ev, struct sg_reply *rep);
void sg_connect_free(struct sg_supervisor *s);

/* ops.c */
const char *sg_kind_op(enum sg_kind k);   /* the log's operation name */
int sg_kind_refusal(enum sg_kind k);      /* EPERM, or EACCES for truncation */
bool sg_same_view(const struct sg_view *a, const struct sg_view *b);
int sg_sup_run(struct sg_target *t, const struct sg_call *c,
	       const struct seccomp_data *d, struct sg_sup_event *ev,
	       struct sg_reply *rep);

#endif /* STEPGUARD_SUPERVISOR_INTERNAL_H */
