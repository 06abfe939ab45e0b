/* SPDX-License-Identifier: MIT */
/* internal.h — what the files of selftest/ share (not probe.c); nothing outside selftest/. */
#ifndef STEPGUARD_SELFTEST_INTERNAL_H
#define STEPGUARD_SELFTEST_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <nettle/sha2.h>

struct json_object;

#include "confine/user.h"
#include "policy/policy.h"
#include "selftest/selftest.h"

#define N_TARGETS 4               /* outside the work directory */
#define N_CELLS (N_TARGETS + 1)   /* and the control, last */
#define CONTROL N_TARGETS
#define N_EXECS 2                 /* /bin/sh -c, and touch from $PATH */
#define N_PEEKS 3                 /* another process's environ, /proc/PID/mem, process_vm_readv */
#define N_RUNS 6
#define RUN_TIMEOUT_MS 60000
#define CHECK_TIMEOUT_MS 30000
#define CLI_TIMEOUT_MS 120000     /* the real model CLI, each of its two runs */
#define CAPTURE_MAX ((size_t)64 * 1024)

/* sg_st_common_args() at most, plus the command, its targets, execs and peek */
#define ARGV_MAX(s) (32 + 2 * (s)->o->n_allow_write + N_CELLS + N_EXECS + 1)

#define SCRUB_VAR "CLAUDE_CODE_SUBPROCESS_ENV_SCRUB"
#define CRED_VAR "ANTHROPIC_API_KEY"
#define HOLD_VAR "STEPGUARD_SELFTEST_HELD" /* the holder's marker (probe.c --hold) */


struct buf {
	char *p;
	size_t n;
	bool truncated;
};

struct snap {
	int err; /* errno of lstat other than ENOENT: cannot judge */
	bool exists;
	struct stat st;
	bool hashed;
	uint8_t hash[SHA256_DIGEST_SIZE];
};

struct cell {
	char path[PATH_MAX];
	struct snap before;
	bool reported;       /* the probe printed a line for it */
	char probe_said[16]; /* "landed" or "refused" */
	char errname[32];
	bool landed;         /* judged from outside */
	const char *result;  /* "refused", "landed", "not tried", "unknown" */
	char fate[160];      /* what was done about a landed write */
};

/*
 * One exec the probe tries after its writes: a program that would create
 * MARKER in the work directory.  Refused in a ruling run, run in the others
 * (the control: exec is restricted only under a ruling).
 */
struct exec_cell {
	char marker[PATH_MAX];
	struct snap before;
	bool reported;          /* the probe printed a line for it */
	char program[PATH_MAX]; /* the file the probe gave execve */
	char probe_said[16];    /* "executed" or "refused" */
	char errname[32];       /* refused: the errno; executed: the exit status */
	int exit_status;        /* executed: the same, as a number (-1: not a number) */
	bool ran;               /* judged from outside: the marker appeared */
	const char *result;     /* "refused", "ran", "failed", "executed", "not tried", "unknown" */
	bool ok;                /* what this run expects */
};

/*
 * One read of the holder, another process of the step's user: by the
 * probe under stepguard (it must be refused), or by the self-test itself,
 * unconfined (the control: it must land, or a refusal proves nothing).
 */
struct peek {
	bool reported;         /* it was tried (the probe printed a line for it) */
	char probe_said[16];   /* "read" or "refused" */
	char errname[32];      /* refused: the errno */
	size_t got;            /* read: the bytes that came back */
	bool marker;           /* read: the holder's marker was in them */
	const char *result;    /* "refused", "read", "granted", "failed", "not tried" */
};

/*
 * The process outside the step (issue 16, class 1): unconfined, as the
 * step's user and without capabilities, holding a fresh marker in its
 * environment and at ADDR in its memory, alive through the runs.
 */
struct holder {
	pid_t pid;              /* 0: never started */
	bool running;           /* started, not yet seen to end, not yet stopped */
	int in;                 /* its standard input: closing it ends the holder */
	char marker[48];
	uintmax_t addr;
	size_t len;
	char word[96];          /* peek=PID:ADDRESS:LENGTH, for the probe */
	char error[256];        /* why it could not start, or when it died */
	struct peek control[N_PEEKS];
	bool proven;            /* every control read returned the marker */
	int yama;               /* kernel.yama.ptrace_scope; -1: no Yama */
};

struct run {
	const char *scrub;
	bool ruling;  /* the scrub is set: ruling 1 applies, exec is restricted */
	bool attempted;
	int status; /* stepguard's exit status, or -errno if not started */
	struct cell c[N_CELLS];
	struct exec_cell x[N_EXECS];
	int exec_denials; /* the run's log: denial records of op exec */
	struct peek p[N_PEEKS];  /* the probe's reads of the holder */
	const char *peek_result; /* the worst of them, or "unproven" */
	bool peek_ok;
	char backend[64];
	int abi; /* -1: unknown */
	struct buf out, err;
	bool ok;
};

struct ruling_check {
	const char *what;
	const char *var, *value;
	const char *tools; /* NULL: no tools option */
	int expect;
	int status;
	bool ok;
	struct buf out;
};

/* --model-cli: the real CLI as a ruling-2 step against the stub API. */
#define N_PLANTS 7
#define PLANT_MCP 3  /* the project's stdio MCP server */
#define PLANT_USER 4 /* the first of the user's hooks, in HOME */

struct plant {
	char marker[PATH_MAX];
	bool ran;       /* the marker is there */
	int err;        /* lstat failed other than ENOENT: cannot judge */
};

/* One run of the CLI: unconfined (the control) or under stepguard. */
struct cli_run {
	bool attempted;
	char dir[PATH_MAX];  /* its work directory, with the plants */
	char home[PATH_MAX]; /* its scratch HOME, beside DIR */
	int port;            /* of its stub */
	int status;          /* exit status, or -errno if not started */
	struct buf out, err;
	bool answered;       /* a line of its output is exactly "ok" */
	struct plant p[N_PLANTS];
	char **stub_log;     /* one line per request the stub answered */
	unsigned stub_requests, stub_messages;
	char stub_end[64];   /* why the stub stopped */
};

struct model_cli {
	char path[PATH_MAX];   /* as given, made absolute */
	const char *skipped;   /* why it did not run */
	struct cli_run control, confined;
	char log[PATH_MAX];    /* the confined run's log */
	struct json_object *denials; /* its denial records of op exec, as logged; or NULL */
	char backend[64];      /* its start record */
	bool home_replaced;    /* stepguard drops to a user and gives it its own HOME */
	bool ok;
};

/* The plants, in the report's order. */
struct sg_st_plant_name {
	const char *id;
	const char *label;
};
extern const struct sg_st_plant_name sg_st_plants[N_PLANTS];

struct selftest {
	const struct sg_selftest_args *o;
	char *const *envp;
	struct sg_user user;
	const struct sg_policy *pol;
	const char *cli;   /* the model CLI's name, from the policy */
	const char *tools; /* its tools option */
	char cwd[PATH_MAX];
	char probe[PATH_MAX];
	char home[PATH_MAX];
	char nonce[48];
	char top[PATH_MAX], work[PATH_MAX], config[PATH_MAX], bin[PATH_MAX];
	char priv[PATH_MAX], cli_path[PATH_MAX];
	bool have_top;
	char abs_policy[PATH_MAX], abs_rules[PATH_MAX];
	char **abs_allow;
	struct utsname uts;
	char lsm[512], lsm_err[256];
	char backend[64];
	int abi;
	char **gaps; /* the start record's not_covered, NULL-terminated */
	struct holder holder;
	struct run runs[N_RUNS];
	struct ruling_check checks[3];
	struct model_cli *cli_run; /* NULL without --model-cli */
	char **problems;
	size_t n_problems;
	bool lost_problem; /* out of memory while recording one: never a pass */
	/* landed_any: a write landed, a program ran that a ruling step must
	 * not execute, or a read of the holder returned its marker; each
	 * outranks every other status. */
	bool landed_any, confine_failed;
};


/* The cells of the table, in its column order. */
struct sg_st_cell_name {
	const char *id;
	const char *label;
};
extern const struct sg_st_cell_name sg_st_cells[N_CELLS];
/* The execs, in the table's column order after the control. */
extern const struct sg_st_cell_name sg_st_execs[N_EXECS];
/* The reads of the holder, in the probe's order (the id is its word). */
extern const struct sg_st_cell_name sg_st_peeks[N_PEEKS];

const char *sg_st_scrub_label(const char *scrub);
const char *sg_st_buf_str(const struct buf *b);
void sg_st_print_human(const struct selftest *s, int status);
void sg_st_print_json(const struct selftest *s, int status);

/* launch.c: starting a child stepguard */
void sg_st_strv_free(char **v);
void sg_st_buf_add(struct buf *b, const char *data, size_t n);
const char *sg_st_absolute(const struct selftest *s, const char *p, char *buf, size_t len);
int sg_st_run_stepguard(char *const argv[], char *const env[], const char *cwd, int timeout_ms,
			struct buf *out, struct buf *err);
int sg_st_run_program(const char *prog, char *const argv[], char *const env[], const char *cwd,
		      const struct sg_user *as, int timeout_ms, struct buf *out, struct buf *err);
size_t sg_st_common_args(struct selftest *s, const char **a, size_t n, const char *workdir);
char **sg_st_make_env(const struct selftest *s, const char *const set[]);
void sg_st_buf_free(struct buf *b);

/* prepare.c: before the runs */
int sg_st_prepare(struct selftest *s);
void sg_st_check_rulings(struct selftest *s);

/* selftest.c and area.c */
void sg_st_escape_line(const char *in, char *out, size_t len);
void sg_st_judge_cell(struct selftest *s, struct run *r, int k);
void sg_st_judge_control(struct selftest *s, struct run *r);
void sg_st_judge_exec(struct selftest *s, struct run *r, int k);
int sg_st_make_area(struct selftest *s);
void sg_st_parse_report(struct selftest *s, struct run *r);
int sg_st_pathf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void sg_st_preflight(struct selftest *s);
void sg_st_problem(struct selftest *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sg_st_read_start(struct selftest *s, struct run *r, const char *log);
int sg_st_rm_rf_at(int dfd, const char *name);
void sg_st_snap_take(const char *path, struct snap *sn);
int sg_st_user_can(const struct selftest *s, const char *path, int mode);
int sg_st_give(const struct selftest *s, const char *path);

/* holder.c: the process outside the step, before, during and after the runs */
void sg_st_holder_start(struct selftest *s);
void sg_st_holder_stop(struct selftest *s);
bool sg_st_parse_peek_line(struct selftest *s, struct run *r, char *line);
void sg_st_judge_peeks(struct selftest *s, struct run *r);

/* modelcli.c: --model-cli, after the runs */
void sg_st_model_cli(struct selftest *s);
void sg_st_model_cli_free(struct model_cli *m);

#endif
