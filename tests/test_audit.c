// SPDX-License-Identifier: MIT
/* test_audit.c — stepguard audit: reading the log, counting, and each output format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "audit/audit.h"

/* Records as stepguard writes them (docs/log-format.md), one per line. */
#define START(step, run, pid, backend)                                                           \
	"{\"time\":\"2026-11-29T19:06:30.000001Z\",\"event\":\"start\",\"step\":\"" step           \
	"\",\"run\":\"" run "\",\"pid\":" #pid ",\"uid\":1000,\"command\":[\"make\"],"              \
	"\"cwd\":\"/w\",\"roots\":[\"/w\"],\"policy_digest\":\"sha256:ab\",\"backend\":\"" backend \
	"\",\"mode\":\"enforce\",\"landlock_abi\":4,\"not_covered\":[],\"accepted_gaps\":[]}\n"
#define DENIAL(step, run, pid, comm, op, path, decision)                                          \
	"{\"time\":\"2026-11-29T19:06:30.000002Z\",\"event\":\"denial\",\"step\":\"" step          \
	"\",\"run\":\"" run "\",\"pid\":" #pid ",\"uid\":1000," comm "\"op\":\"" op               \
	"\",\"path\":\"" path "\",\"decision\":\"" decision "\",\"errno\":1,\"backend\":\"bpf-fmod\"}\n"
#define END(step, run, pid, status, denials, lost, backend)                                      \
	"{\"time\":\"2026-11-29T19:06:31.000001Z\",\"event\":\"end\",\"step\":\"" step             \
	"\",\"run\":\"" run "\",\"pid\":" #pid ",\"status\":" #status ",\"exit\":" #status         \
	",\"denials\":" #denials ",\"lost\":" #lost ",\"backend\":\"" backend                       \
	"\",\"policy_digest\":\"sha256:ab\"}\n"
#define COMM(c) "\"comm\":\"" c "\","
/* An end record of the eBPF fmod backend, which counts recursion misses. */
#define END_FMOD(step, run, pid, denials, lost, misses)                                           \
	"{\"event\":\"end\",\"step\":\"" step "\",\"run\":\"" run "\",\"pid\":" #pid               \
	",\"status\":0,\"exit\":0,\"denials\":" #denials ",\"lost\":" #lost                          \
	",\"recursion_misses\":" #misses ",\"backend\":\"bpf-fmod\"}\n"

/* Two steps: build (2 denials, one path twice, a rename) and test (one audited). */
static const char two_steps[] =
	START("build", "r1", 100, "bpf-fmod")
	DENIAL("build", "r1", 101, COMM("touch"), "open", "/home/u/.bashrc", "denied")
	DENIAL("build", "r1", 101, COMM("touch"), "open", "/home/u/.bashrc", "denied")
	"{\"event\":\"denial\",\"step\":\"build\",\"run\":\"r1\",\"pid\":103,\"comm\":\"mv\","
	"\"op\":\"rename\",\"path\":\"/w/x\",\"path2\":\"/etc/x\",\"decision\":\"denied\"}\n"
	END("build", "r1", 100, 2, 3, 0, "bpf-fmod")
	START("test", "r2", 200, "bpf-lsm")
	DENIAL("test", "r2", 201, "", "chmod", "/etc/passwd", "audited")
	END("test", "r2", 200, 0, 1, 0, "bpf-lsm");

static int feed(struct sg_audit *a, const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	assert_non_null(f);
	r = sg_audit_read(a, f, "t.log");
	fclose(f);
	return r;
}

/* What an output function printed, as one string to free(). */
static char *capture(const struct sg_audit *a, int (*print)(const struct sg_audit *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(print(a, m), 0);
	assert_int_equal(fclose(m), 0);
	return buf;
}

static const struct sg_audit_step *find_step(const struct sg_audit *a, const char *name)
{
	for (size_t i = 0; i < a->n_steps; i++)
		if (strcmp(a->steps[i].name, name) == 0)
			return &a->steps[i];
	return NULL;
}

static const struct sg_entry *find(const struct sg_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0)
			return &t->v[i];
	return NULL;
}

/* The process named COMM, or (COMM NULL) the one shown by pid PID. */
static const struct sg_audit_proc *find_proc(const struct sg_audit *a, const char *comm,
					     long long pid)
{
	for (size_t i = 0; i < a->n_procs; i++) {
		const struct sg_audit_proc *p = &a->procs[i];

		if (comm ? p->comm && strcmp(p->comm, comm) == 0 :
			   !p->comm && p->n_pids && p->pids[0] == pid)
			return p;
	}
	return NULL;
}

static size_t count_lines(const char *s, const char *prefix)
{
	size_t n = 0;

	for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, prefix, strlen(prefix)) == 0)
			n++;
	return n;
}

/* N denial records of STEP under RUN, each by a process of its own. */
static void feed_denials(struct sg_audit *a, const char *step, const char *run, int n)
{
	char line[256];

	for (int i = 0; i < n; i++) {
		snprintf(line, sizeof(line),
			 "{\"event\":\"denial\",\"step\":\"%s\",\"run\":\"%s\",\"pid\":%d,"
			 "\"comm\":\"cc\",\"op\":\"open\",\"path\":\"/x/%d\",\"decision\":\"denied\"}",
			 step, run, 1000 + i, i);
		assert_int_equal(sg_audit_line(a, "t.log", 1, line, strlen(line), false), 0);
	}
}

static const struct sg_audit_runid *find_runid(const struct sg_audit *a, const char *step,
					       const char *run)
{
	for (size_t i = 0; i < a->n_runids; i++)
		if (strcmp(a->runids[i].step, step) == 0 && strcmp(a->runids[i].run, run) == 0)
			return &a->runids[i];
	return NULL;
}

/*
 * What the backends could not see.  build (run 123): its end record counts
 * 52 denials and the log holds 12; 3 were lost, the kernel skipped the
 * filter twice.  test (run 124): started, never ended.  lint (run 125):
 * nothing recorded, 5 lost.
 */
static void feed_gaps(struct sg_audit *a)
{
	assert_int_equal(feed(a, START("build", "123", 100, "bpf-fmod")), 0);
	feed_denials(a, "build", "123", 12);
	assert_int_equal(feed(a, END_FMOD("build", "123", 100, 52, 3, 2)
				 START("test", "124", 200, "bpf-lsm")), 0);
	feed_denials(a, "test", "124", 1);
	assert_int_equal(feed(a, START("lint", "125", 300, "bpf-lsm")
				 END("lint", "125", 300, 0, 0, 5, "bpf-lsm")), 0);
}

/* ---- reading and counting ------------------------------------------------- */

static void test_sg_audit_read_two_steps_counted_apart(void **state)
{
	struct sg_audit a;
	const struct sg_audit_step *b, *t;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, two_steps), 0);
	assert_int_equal(a.lines, 8);
	assert_int_equal(a.records, 8);
	assert_int_equal(a.problem_lines, 0);
	assert_int_equal(a.n_steps, 2);
	b = find_step(&a, "build");
	t = find_step(&a, "test");
	assert_non_null(b);
	assert_non_null(t);
	assert_int_equal(b->runs, 1);
	assert_int_equal(b->unfinished, 0);
	assert_int_equal(b->c.denied, 3);
	assert_int_equal(b->c.audited, 0);
	assert_int_equal(b->end_denials, 3);
	assert_int_equal(b->n_outcomes, 1);
	assert_int_equal(b->outcomes[0].kind, SG_OUTCOME_STATUS);
	assert_int_equal(b->outcomes[0].value, 2);
	assert_int_equal(b->n_backends, 1);
	assert_string_equal(b->backends[0], "bpf-fmod");
	/* the other step's denial is its own, not build's */
	assert_int_equal(t->c.denied, 0);
	assert_int_equal(t->c.audited, 1);
	assert_string_equal(t->backends[0], "bpf-lsm");
	assert_int_equal(find(&a.ops, "open")->c.denied, 2);
	assert_int_equal(find(&a.ops, "chmod")->c.audited, 1);
	assert_int_equal(find_proc(&a, "touch", 0)->c.denied, 2);
	assert_int_equal(find_proc(&a, "touch", 0)->n_pids, 1); /* twice, by one process */
	assert_int_equal(find_proc(&a, NULL, 201)->c.audited, 1); /* no comm: the pid */
	assert_int_equal(find(&a.prefixes, "/home/u")->c.denied, 2);
	/* a rename counts under both of its prefixes */
	assert_int_equal(find(&a.prefixes, "/w")->c.denied, 1);
	assert_int_equal(find(&a.prefixes, "/etc")->c.denied + find(&a.prefixes, "/etc")->c.audited, 2);
	assert_int_equal(a.n_hits, 3); /* .bashrc once, with n = 2 */
	sg_audit_free(&a);
}

static void test_sg_audit_read_unfinished_run_and_end_first(void **state)
{
	struct sg_audit a;
	/* "late": the end record was read before the start (two logs, any order). */
	static const char text[] =
		START("cut", "r1", 10, "bpf-lsm")
		END("late", "r2", 20, 0, 0, 0, "bpf-lsm")
		START("late", "r2", 20, "bpf-lsm")
		START("cut", "r3", 11, "bpf-lsm")
		END("cut", "r3", 11, 0, 0, 0, "bpf-lsm");

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, text), 0);
	assert_int_equal(find_step(&a, "cut")->runs, 2);
	assert_int_equal(find_step(&a, "cut")->unfinished, 1);
	assert_int_equal(find_step(&a, "late")->runs, 1);
	assert_int_equal(find_step(&a, "late")->unfinished, 0);
	sg_audit_free(&a);
}

static void test_sg_audit_read_gaps_held_per_run_id(void **state)
{
	struct sg_audit a;
	const struct sg_audit_runid *g;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	feed_gaps(&a);
	g = find_runid(&a, "build", "123");
	assert_non_null(g);
	assert_int_equal(g->held, 12);
	assert_int_equal(g->end_denials, 52);
	assert_int_equal(sg_audit_missing(g), 40);
	assert_int_equal(g->lost, 3);
	assert_int_equal(g->recursion_misses, 2);
	assert_int_equal(g->unfinished, 0);
	assert_true(sg_audit_incomplete(g));
	assert_int_equal(find_step(&a, "build")->missing, 40);
	assert_int_equal(find_step(&a, "build")->recursion_misses, 2);
	/* started, not ended: no count to hold it against, but unfinished */
	g = find_runid(&a, "test", "124");
	assert_int_equal(g->unfinished, 1);
	assert_int_equal(g->held, 1);
	assert_int_equal(sg_audit_missing(g), 0);
	assert_true(sg_audit_incomplete(g));
	g = find_runid(&a, "lint", "125");
	assert_int_equal(g->lost, 5);
	assert_int_equal(sg_audit_missing(g), 0);
	assert_true(sg_audit_incomplete(g));
	sg_audit_free(&a);
}

static void test_sg_audit_read_missing_not_hidden_by_another_run(void **state)
{
	struct sg_audit a;
	/* r1 was killed after 4 denials; r2 counts 10 and the log holds 6 of
	 * them.  The step's sums agree (10 and 10): only per run id do the 4
	 * missing records of r2 show. */
	static const char r1[] = START("pair", "r1", 1, "bpf-lsm");
	static const char r2[] = START("pair", "r2", 2, "bpf-lsm");
	static const char r2_end[] = END("pair", "r2", 2, 0, 10, 0, "bpf-lsm");

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, r1), 0);
	feed_denials(&a, "pair", "r1", 4);
	assert_int_equal(feed(&a, r2), 0);
	feed_denials(&a, "pair", "r2", 6);
	assert_int_equal(feed(&a, r2_end), 0);
	assert_int_equal(find_step(&a, "pair")->end_denials, 10);
	assert_int_equal(find_step(&a, "pair")->c.denied, 10);
	assert_int_equal(sg_audit_missing(find_runid(&a, "pair", "r2")), 4);
	assert_int_equal(find_step(&a, "pair")->missing, 4);
	assert_int_equal(find_runid(&a, "pair", "r1")->unfinished, 1);
	sg_audit_free(&a);
}

static void test_sg_audit_read_missing_is_a_lower_bound(void **state)
{
	struct sg_audit a;
	/* An end record read before its denials; one without "denials" (no
	 * count to hold the log against); one that counts fewer than the log
	 * holds (a log given twice).  None of them is missing anything. */
	static const char late[] = END("late", "r9", 9, 0, 2, 0, "bpf-lsm");
	static const char nocount[] =
		"{\"event\":\"end\",\"step\":\"nocount\",\"run\":\"r\",\"pid\":1,\"status\":0}\n";
	static const char twice[] = END("twice", "r", 1, 0, 1, 0, "bpf-lsm");

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, late), 0);
	assert_int_equal(find_step(&a, "late")->missing, 2); /* so far */
	feed_denials(&a, "late", "r9", 2);
	assert_int_equal(find_step(&a, "late")->missing, 0);
	assert_false(sg_audit_incomplete(find_runid(&a, "late", "r9")));
	assert_int_equal(feed(&a, nocount), 0);
	assert_false(find_runid(&a, "nocount", "r")->counted);
	assert_int_equal(sg_audit_missing(find_runid(&a, "nocount", "r")), 0);
	assert_int_equal(feed(&a, twice), 0);
	feed_denials(&a, "twice", "r", 3);
	assert_int_equal(sg_audit_missing(find_runid(&a, "twice", "r")), 0);
	assert_int_equal(find_step(&a, "twice")->missing, 0);
	sg_audit_free(&a);
}

static void test_sg_audit_line_recursion_misses_must_be_a_count(void **state)
{
	struct sg_audit a;
	char buf[] = "{\"event\":\"end\",\"step\":\"s\",\"recursion_misses\":-1}";

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(sg_audit_line(&a, "x.log", 1, buf, strlen(buf), false), 0);
	assert_int_equal(a.unparsable, 1);
	assert_non_null(strstr(a.problems[0].reason, "\"recursion_misses\" is not a count"));
	sg_audit_free(&a);
}

static void test_sg_audit_read_escaped_paths_stay_escaped(void **state)
{
	struct sg_audit a;
	/* The writer's \xNN (a backslash in JSON text), and a raw control
	 * character a hand-written log could carry through a JSON escape. */
	static const char text[] =
		DENIAL("build", "r1", 7, "", "unlink", "/tmp/a\\\\xff\\\\x0ab", "denied")
		DENIAL("build", "r1", 7, COMM("ev\\u001b[31mil"), "open", "/tmp/\\u001b]0;pwn\\u0007",
		       "denied");
	char *out;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, text), 0);
	assert_int_equal(a.problem_lines, 0);
	assert_string_equal(a.hits[0].path, "/tmp/a\\xff\\x0ab");
	assert_string_equal(a.hits[1].path, "/tmp/\\x1b]0;pwn\\x07");
	assert_non_null(find_proc(&a, "ev\\x1b[31mil", 0));
	assert_non_null(find(&a.prefixes, "/tmp"));
	out = capture(&a, sg_audit_print_text);
	assert_non_null(strstr(out, "/tmp/a\\xff\\x0ab"));
	assert_null(strchr(out, '\x1b'));
	assert_null(strchr(out, '\x07'));
	free(out);
	sg_audit_free(&a);
}

static void test_sg_audit_read_audited_apart_from_denied(void **state)
{
	struct sg_audit a;
	static const char text[] =
		DENIAL("s", "r", 1, "", "mkdir", "/opt/x", "audited")
		DENIAL("s", "r", 1, "", "mkdir", "/opt/x", "audited")
		DENIAL("s", "r", 1, "", "mkdir", "/opt/x", "denied");

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, text), 0);
	assert_int_equal(find_step(&a, "s")->c.audited, 2);
	assert_int_equal(find_step(&a, "s")->c.denied, 1);
	/* the same (step, op, path) under each decision: two annotations */
	assert_int_equal(a.n_hits, 2);
	sg_audit_free(&a);
}

static void test_sg_audit_read_lost_summed_per_step(void **state)
{
	struct sg_audit a;
	static const char text[] =
		END("b", "r1", 1, 0, 5, 3, "bpf-fmod")
		END("b", "r2", 2, 0, 0, 4, "bpf-fmod")
		END("c", "r3", 3, 0, 0, 0, "bpf-fmod");

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, text), 0);
	assert_int_equal(find_step(&a, "b")->lost, 7);
	assert_int_equal(find_step(&a, "b")->end_denials, 5);
	assert_int_equal(find_step(&a, "c")->lost, 0);
	sg_audit_free(&a);
}

static void test_sg_audit_line_malformed_counted_with_line(void **state)
{
	static const char *const bad[] = {
		"not json",
		"[1,2]",
		"{\"event\":\"denial\",\"step\":\"s\"}",          /* no op, no path */
		"{\"step\":\"s\"}",                                  /* no event */
		"{\"event\":\"start\"}",                             /* no step */
		"{\"event\":\"end\",\"step\":\"s\",\"pid\":\"12\"}", /* pid not an integer */
		"{\"event\":\"end\",\"step\":\"s\",\"lost\":-1}",    /* a negative count */
		("{\"event\":\"denial\",\"step\":\"s\",\"op\":\"open\",\"path\":\"/x\","
		 "\"decision\":\"maybe\"}"),
		"{\"event\":\"start\",\"step\":\"s\"} trailing",
		"{\"event\":\"start\",\"step\":\"s\",}",
		"",
		"  \r",
	};
	struct sg_audit a;
	char buf[256];

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		snprintf(buf, sizeof(buf), "%s", bad[i]);
		assert_int_equal(sg_audit_line(&a, "x.log", i + 1, buf, strlen(buf), false), 0);
	}
	assert_int_equal(a.unparsable, sizeof(bad) / sizeof(*bad));
	assert_int_equal(a.problem_lines, sizeof(bad) / sizeof(*bad));
	assert_int_equal(a.records, 0);
	assert_int_equal(a.n_problems, SG_AUDIT_PROBLEMS_KEPT);
	assert_string_equal(a.problems[0].file, "x.log");
	assert_int_equal(a.problems[0].line, 1);
	assert_non_null(strstr(a.problems[0].reason, "not JSON"));
	assert_non_null(strstr(a.problems[1].reason, "not a JSON object"));
	assert_non_null(strstr(a.problems[2].reason, "without \"op\""));
	assert_non_null(strstr(a.problems[3].reason, "no \"event\""));
	assert_int_equal(a.problems[4].line, 5);
	/* and a good line after them is still counted */
	snprintf(buf, sizeof(buf), "{\"event\":\"start\",\"step\":\"s\"}");
	assert_int_equal(sg_audit_line(&a, "x.log", 13, buf, strlen(buf), false), 0);
	assert_int_equal(a.records, 1);
	sg_audit_free(&a);
}

static void test_sg_audit_line_nul_byte_is_a_problem(void **state)
{
	struct sg_audit a;
	char buf[] = "{\"event\":\"start\",\"step\":\"s\"}\0{}";

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(sg_audit_line(&a, "x.log", 1, buf, sizeof(buf) - 1, false), 0);
	assert_int_equal(a.unparsable, 1);
	assert_int_equal(a.records, 0);
	assert_non_null(strstr(a.problems[0].reason, "NUL"));
	sg_audit_free(&a);
}

static void test_sg_audit_line_unknown_event_counted_not_failed(void **state)
{
	struct sg_audit a;
	char buf[] = "{\"event\":\"pin\",\"step\":\"s\",\"whatever\":[1]}";

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(sg_audit_line(&a, "x.log", 1, buf, strlen(buf), false), 0);
	assert_int_equal(a.unknown, 1);
	assert_int_equal(a.unparsable, 0);
	assert_int_equal(a.problem_lines, 0);
	assert_int_equal(a.records, 0);
	sg_audit_free(&a);
}

static void test_sg_audit_read_torn_last_line_reported(void **state)
{
	struct sg_audit a;
	static const char text[] = START("s", "r", 1, "bpf-lsm") "{\"event\":\"denial\",\"st";

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, text), 0);
	assert_int_equal(a.lines, 2);
	assert_int_equal(a.records, 1);
	assert_int_equal(a.torn, 1);
	assert_int_equal(a.unparsable, 1);
	assert_int_equal(a.problems[0].line, 2);
	assert_non_null(strstr(a.problems[0].reason, "torn"));
	sg_audit_free(&a);
}

static void test_sg_audit_read_whole_last_line_without_newline_counted(void **state)
{
	struct sg_audit a;
	static const char text[] = "{\"event\":\"start\",\"step\":\"s\",\"run\":\"r\",\"pid\":1}";

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, text), 0);
	assert_int_equal(a.records, 1);
	assert_int_equal(a.torn, 1);
	assert_int_equal(a.unparsable, 0);
	assert_int_equal(a.problem_lines, 1); /* still reported */
	assert_non_null(strstr(a.problems[0].reason, "no newline"));
	sg_audit_free(&a);
}

static void test_sg_audit_read_empty_input(void **state)
{
	struct sg_audit a;
	FILE *f = fopen("/dev/null", "r");
	char *out;

	(void)state;
	assert_non_null(f);
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(sg_audit_read(&a, f, "/dev/null"), 0);
	fclose(f);
	assert_int_equal(a.lines, 0);
	assert_int_equal(a.records, 0);
	assert_int_equal(a.problem_lines, 0);
	out = capture(&a, sg_audit_print_text);
	assert_non_null(strstr(out, "0 records"));
	assert_non_null(strstr(out, "No denials."));
	free(out);
	out = capture(&a, sg_audit_print_github);
	assert_string_equal(out, "");
	free(out);
	sg_audit_free(&a);
}

static void test_sg_audit_read_crlf_and_long_lines(void **state)
{
	/* A path of PATH_MAX bytes, each escaped as \xNN, is a record of ~16 KiB. */
	size_t plen = 4096 * 4, big = SG_AUDIT_LINE_MAX + 10;
	char *text = malloc(plen * 2 + big + 512), *p = text;
	struct sg_audit a;

	(void)state;
	assert_non_null(text);
	p += sprintf(p, "{\"event\":\"start\",\"step\":\"s\"}\r\n");
	p += sprintf(p, "{\"event\":\"denial\",\"step\":\"s\",\"op\":\"open\",\"decision\":\"denied\",\"path\":\"/");
	for (size_t i = 0; i < plen / 4; i++)
		p += sprintf(p, "\\\\xff");
	p += sprintf(p, "\"}\n");
	memset(p, 'x', big);
	p += big;
	p += sprintf(p, "\n{\"event\":\"start\",\"step\":\"s\",\"run\":\"z\"}\n");
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, text), 0);
	assert_int_equal(a.records, 3); /* CRLF accepted, the long path whole */
	assert_int_equal(strlen(a.hits[0].path), 1 + plen);
	assert_int_equal(a.unparsable, 1); /* the line over the limit, refused */
	assert_int_equal(a.problems[0].line, 3);
	assert_non_null(strstr(a.problems[0].reason, "longer than"));
	free(text);
	sg_audit_free(&a);
}

static void test_sg_audit_read_real_file(void **state)
{
	char path[] = "/tmp/sg-test-audit.XXXXXX";
	int fd = mkstemp(path);
	struct sg_audit a;
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, two_steps, strlen(two_steps)), (ssize_t)strlen(two_steps));
	close(fd);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(sg_audit_read(&a, f, path), 0);
	fclose(f);
	unlink(path);
	assert_int_equal(a.records, 8);
	assert_int_equal(a.n_files, 1);
	assert_string_equal(a.files[0], path);
	sg_audit_free(&a);
}

static void test_sg_audit_read_denial_without_path_and_truncated(void **state)
{
	struct sg_audit a;
	/* The eBPF guard: bpf(2) has no path; a record may carry empty paths
	 * and say that the kernel could not give a path whole. */
	static const char text[] =
		"{\"event\":\"denial\",\"step\":\"s\",\"pid\":9,\"comm\":\"x\",\"op\":\"bpf\","
		"\"decision\":\"denied\",\"reason\":\"guard\",\"backend\":\"bpf-lsm\"}\n"
		"{\"event\":\"denial\",\"step\":\"s\",\"pid\":9,\"op\":\"signal\",\"path\":\"\","
		"\"path2\":\"\",\"decision\":\"denied\",\"backend\":\"bpf-lsm\"}\n"
		"{\"event\":\"denial\",\"step\":\"s\",\"pid\":9,\"op\":\"open\",\"path\":\"/a/b/long\","
		"\"path2\":\"\",\"path_truncated\":true,\"decision\":\"denied\"}\n"
		"{\"event\":\"denial\",\"step\":\"s\",\"pid\":9,\"op\":\"open\",\"path\":\"/a/b/c\","
		"\"path_truncated\":\"yes\",\"decision\":\"denied\"}\n";
	json_object *j, *paths, *v;
	char *out;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, text), 0);
	assert_int_equal(a.records, 3);
	assert_int_equal(a.unparsable, 1); /* path_truncated must be a boolean */
	assert_non_null(strstr(a.problems[0].reason, "\"path_truncated\" is not true or false"));
	assert_int_equal(find(&a.prefixes, SG_AUDIT_NO_PATH)->c.denied, 2);
	assert_null(find(&a.prefixes, "."));
	assert_int_equal(find(&a.prefixes, "/a/b")->c.denied, 1);
	assert_string_equal(a.hits[0].path, SG_AUDIT_NO_PATH);
	assert_null(a.hits[1].path2); /* an empty path2 is no second path */
	assert_false(a.hits[1].truncated);
	assert_true(a.hits[2].truncated);
	assert_null(a.hits[2].path2);
	out = capture(&a, sg_audit_print_text);
	assert_non_null(strstr(out, "/a/b/long [truncated]  (denied open, step s)"));
	free(out);
	out = capture(&a, sg_audit_print_github);
	assert_non_null(strstr(out, "::error title=stepguard denied bpf::(no path) (step s, x pid 9)\n"));
	free(out);
	j = sg_audit_json(&a);
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "paths", &paths));
	for (size_t i = 0; i < json_object_array_length(paths); i++) {
		json_object *p = json_object_array_get_idx(paths, i);

		assert_true(json_object_object_get_ex(p, "path", &v));
		assert_int_equal(json_object_object_get_ex(p, "path_truncated", NULL),
				 strcmp(json_object_get_string(v), "/a/b/long") == 0);
	}
	json_object_put(j);
	sg_audit_free(&a);
}

static void test_sg_audit_read_step_filter(void **state)
{
	struct sg_audit a;

	(void)state;
	assert_int_equal(sg_audit_init(&a, "test"), 0);
	assert_int_equal(feed(&a, two_steps), 0);
	assert_int_equal(a.n_steps, 1);
	assert_non_null(find_step(&a, "test"));
	assert_null(find_step(&a, "build"));
	assert_int_equal(a.records, 3);
	assert_int_equal(a.other_steps, 5);
	assert_null(find(&a.ops, "open"));
	sg_audit_free(&a);
}

/* npm in six processes (one of them twice), a record without comm, one
 * whose comm is "" (Landlock: the process had exited), and a comm that
 * looks like the name given to a pid. */
static const char who[] =
	DENIAL("build", "123", 4242, COMM("npm"), "open", "/home/u/.npmrc", "denied")
	DENIAL("build", "123", 4250, COMM("npm"), "open", "/home/u/.npmrc", "denied")
	DENIAL("build", "123", 4242, COMM("npm"), "open", "/home/u/.npmrc", "denied")
	DENIAL("build", "123", 4251, COMM("npm"), "open", "/home/u/.npmrc", "denied")
	DENIAL("build", "123", 4252, COMM("npm"), "open", "/home/u/.npmrc", "denied")
	DENIAL("build", "123", 4253, COMM("npm"), "open", "/home/u/.npmrc", "denied")
	DENIAL("build", "123", 4254, COMM("npm"), "open", "/home/u/.npmrc", "audited")
	DENIAL("build", "123", 77, "", "chmod", "/etc/x", "denied")
	DENIAL("build", "123", 78, COMM(""), "chmod", "/etc/y", "denied")
	DENIAL("build", "123", 9, COMM("pid 9"), "chmod", "/etc/z", "denied")
	DENIAL("build", "123", 9, "", "chmod", "/etc/z", "denied")
	DENIAL("build", "123", 10, COMM("sh"), "unlink", "/tmp/a", "denied")
	DENIAL("build", "123", 11, COMM("sh"), "unlink", "/tmp/b", "denied")
	DENIAL("build", "123", 12, COMM("sh"), "unlink", "/tmp/c", "denied")
	DENIAL("build", "123", 13, COMM("sh"), "unlink", "/tmp/d", "denied");

static void test_sg_audit_read_processes_by_comm_and_pid(void **state)
{
	struct sg_audit a;
	const struct sg_audit_proc *npm, *p;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, who), 0);
	npm = find_proc(&a, "npm", 0);
	assert_non_null(npm);
	assert_int_equal(npm->c.denied, 6);
	assert_int_equal(npm->c.audited, 1);
	assert_int_equal(npm->n_pids, 6); /* 4242 counted once, in the order first seen */
	assert_int_equal(npm->pids[0], 4242);
	assert_int_equal(npm->pids[1], 4250);
	assert_int_equal(npm->pids[5], 4254);
	/* no comm, and an empty comm: each shown by its pid alone */
	assert_int_equal(find_proc(&a, NULL, 77)->c.denied, 1);
	assert_int_equal(find_proc(&a, NULL, 78)->c.denied, 1);
	assert_null(find_proc(&a, "", 0));
	/* a process named "pid 9" is not pid 9 without a name */
	p = find_proc(&a, "pid 9", 0);
	assert_non_null(p);
	assert_int_equal(p->c.denied, 1);
	assert_int_equal(find_proc(&a, NULL, 9)->c.denied, 1);
	assert_int_equal(a.n_procs, 6);
	sg_audit_free(&a);
}

static void test_sg_audit_print_text_process_pids_bounded(void **state)
{
	struct sg_audit a;
	char *out;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, who), 0);
	out = capture(&a, sg_audit_print_text);
	/* at most SG_AUDIT_PIDS_SHOWN pids, then how many more */
	assert_int_equal(SG_AUDIT_PIDS_SHOWN, 4);
	assert_non_null(strstr(out, "\nBy process\n         7  npm (pid 4242, 4250, 4251, 4252, "
				    "+2 more)  (1 audited)\n"));
	/* exactly four: no "more" */
	assert_non_null(strstr(out, "\n         4  sh (pid 10, 11, 12, 13)\n"));
	assert_non_null(strstr(out, "\n         1  pid 9 (pid 9)\n"));
	/* without comm: the pid alone, named ones first, then by pid */
	assert_non_null(strstr(out, "\n         1  pid 9\n         1  pid 77\n         1  pid 78\n"));
	assert_null(strstr(out, "  (pid"));
	free(out);
	sg_audit_free(&a);
}

static void test_sg_audit_json_processes_comm_and_pids(void **state)
{
	struct sg_audit a;
	json_object *j, *procs, *p, *v;
	bool saw_npm = false, saw_77 = false;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, who), 0);
	j = sg_audit_json(&a);
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "processes", &procs));
	assert_int_equal(json_object_array_length(procs), 6);
	for (size_t i = 0; i < json_object_array_length(procs); i++) {
		p = json_object_array_get_idx(procs, i);
		assert_true(json_object_object_get_ex(p, "process", &v));
		if (strcmp(json_object_get_string(v), "npm") == 0) {
			saw_npm = true;
			assert_true(json_object_object_get_ex(p, "comm", &v));
			assert_string_equal(json_object_get_string(v), "npm");
			/* --json lists every pid, not the text's few */
			assert_true(json_object_object_get_ex(p, "pids", &v));
			assert_int_equal(json_object_array_length(v), 6);
			assert_int_equal(json_object_get_int64(json_object_array_get_idx(v, 5)), 4254);
			assert_true(json_object_object_get_ex(p, "count", &v));
			assert_int_equal(json_object_get_int64(v), 7);
		} else if (strcmp(json_object_get_string(v), "pid 77") == 0) {
			saw_77 = true;
			/* no comm: null, and the pid */
			assert_true(json_object_object_get_ex(p, "comm", &v));
			assert_null(v);
			assert_true(json_object_object_get_ex(p, "pids", &v));
			assert_int_equal(json_object_array_length(v), 1);
			assert_int_equal(json_object_get_int64(json_object_array_get_idx(v, 0)), 77);
		}
	}
	assert_true(saw_npm && saw_77);
	/* a path says who tried first, and how many processes did */
	assert_true(json_object_object_get_ex(j, "paths", &v));
	p = json_object_array_get_idx(v, 0);
	assert_true(json_object_object_get_ex(p, "path", &v));
	assert_string_equal(json_object_get_string(v), "/home/u/.npmrc");
	assert_true(json_object_object_get_ex(p, "comm", &v));
	assert_string_equal(json_object_get_string(v), "npm");
	assert_true(json_object_object_get_ex(p, "pid", &v));
	assert_int_equal(json_object_get_int64(v), 4242);
	assert_true(json_object_object_get_ex(p, "processes", &v));
	assert_int_equal(json_object_get_int64(v), 5); /* denied; 4254 audited it */
	json_object_put(j);
	sg_audit_free(&a);
}

static void test_sg_audit_print_github_names_the_process(void **state)
{
	struct sg_audit a;
	char *out;
	/* the same pid in two runs is two processes */
	static const char text[] =
		DENIAL("b", "r1", 5, COMM("cc"), "open", "/x/y", "denied")
		DENIAL("b", "r2", 5, COMM("cc"), "open", "/x/y", "denied");

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, who), 0);
	assert_int_equal(feed(&a, text), 0);
	out = capture(&a, sg_audit_print_github);
	assert_non_null(strstr(out, "::error title=stepguard denied open::/home/u/.npmrc (step build, "
				    "npm pid 4242 and 4 other processes, 6 times)\n"));
	assert_non_null(strstr(out, "::error title=stepguard denied open::/x/y (step b, cc pid 5 and "
				    "1 other process, 2 times)\n"));
	assert_non_null(strstr(out, "::error title=stepguard denied chmod::/etc/x (step build, pid 77)\n"));
	assert_non_null(strstr(out, "::error title=stepguard denied unlink::/tmp/a (step build, sh pid 10)\n"));
	free(out);
	sg_audit_free(&a);
}

/* ---- pure helpers ------------------------------------------------------------ */

static void test_sg_audit_prefix_depth_cases(void **state)
{
	static const char *const cases[][2] = {
		{ "/home/u/.bashrc", "/home/u" },  { "/tmp/x", "/tmp" },
		{ "/home/u/a/b/c", "/home/u" },    { "/x", "/" },
		{ "/", "/" },                      { "/tmp/", "/" },
		{ "//home///u//f", "/home/u" },    { "rel/a/b/f", "rel/a" },
		{ "f", "." },                      { "/tmp/a\\xff/f", "/tmp/a\\xff" },
	};
	char buf[64];

	(void)state;
	assert_int_equal(SG_AUDIT_PREFIX_DEPTH, 2);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		assert_string_equal(sg_audit_prefix(cases[i][0], 2, buf, sizeof(buf)), cases[i][1]);
	assert_string_equal(sg_audit_prefix("/a/b/c/d", 3, buf, sizeof(buf)), "/a/b/c");
	assert_string_equal(sg_audit_prefix("/a/b/c/d", 1, buf, sizeof(buf)), "/a");
	/* never past the buffer */
	assert_string_equal(sg_audit_prefix("/abcdef/g/h", 2, buf, 5), "/abc");
}

static void test_sg_audit_display_escapes_what_a_terminal_acts_on(void **state)
{
	static const struct {
		const char *in;
		size_t n;
		const char *out;
	} cases[] = {
		{ "/home/caf\xc3\xa9", 11, "/home/caf\xc3\xa9" }, /* UTF-8 kept */
		{ "a\\x0ab", 6, "a\\x0ab" },                      /* the writer's escapes kept */
		{ "\x1b[2J", 4, "\\x1b[2J" },
		{ "a\0b", 3, "a\\x00b" },
		{ "\x7f", 1, "\\x7f" },
		{ "\xff\xfe", 2, "\\xff\\xfe" },
		{ "\xc2\x9b" "1m", 4, "\\xc2\\x9b1m" },         /* C1 CSI */
		{ "x\xe2\x80\xaey", 5, "x\\xe2\\x80\\xaey" },   /* RIGHT-TO-LEFT OVERRIDE */
		{ "\xe2\x80\x93", 3, "\xe2\x80\x93" },           /* an en dash is fine */
		{ "\xc3", 1, "\\xc3" },                          /* cut sequence */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *s = sg_audit_display(cases[i].in, cases[i].n);

		assert_non_null(s);
		assert_string_equal(s, cases[i].out);
		free(s);
	}
}

static void test_sg_audit_gh_escape_data_and_property(void **state)
{
	char *d = sg_audit_gh_escape("100%\r\n a:b,c", false);
	char *p = sg_audit_gh_escape("100%\r\n a:b,c", true);

	(void)state;
	assert_string_equal(d, "100%25%0D%0A a:b,c");
	assert_string_equal(p, "100%25%0D%0A a%3Ab%2Cc");
	free(d);
	free(p);
}

static void test_sg_audit_sorted_by_count_then_name(void **state)
{
	struct sg_audit a;
	static const char text[] =
		DENIAL("s", "r", 1, COMM("b"), "open", "/z/1", "denied")
		DENIAL("s", "r", 1, COMM("a"), "open", "/z/2", "denied")
		DENIAL("s", "r", 1, COMM("c"), "open", "/z/3", "denied")
		DENIAL("s", "r", 1, COMM("c"), "open", "/z/4", "audited");
	const struct sg_entry **v;
	const struct sg_audit_proc **p;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, text), 0);
	v = sg_audit_sorted(&a.ops);
	assert_non_null(v);
	assert_string_equal(v[0]->name, "open");
	free(v);
	p = sg_audit_sorted_procs(&a);
	assert_non_null(p);
	assert_string_equal(p[0]->comm, "c");
	assert_string_equal(p[1]->comm, "a");
	assert_string_equal(p[2]->comm, "b");
	free(p);
	sg_audit_free(&a);
}

/* ---- outputs ----------------------------------------------------------------- */

static void test_sg_audit_print_text_sections(void **state)
{
	struct sg_audit a;
	char *out;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, two_steps), 0);
	out = capture(&a, sg_audit_print_text);
	assert_non_null(strstr(out, "8 records in 1 file; 4 denials (1 audited) in 2 steps"));
	assert_non_null(strstr(out, "  build: 1 run; ended: status 2 (1)"));
	assert_non_null(strstr(out, "backends: bpf-lsm"));
	assert_non_null(strstr(out, "\nBy operation\n         2  open\n"));
	assert_non_null(strstr(out, "  chmod  (1 audited)"));
	assert_non_null(strstr(out, "\nBy process\n"));
	assert_non_null(strstr(out, "         2  /home/u\n"));
	assert_non_null(strstr(out, "/w/x -> /etc/x  (denied rename, step build)"));
	assert_null(strstr(out, "No denials."));
	free(out);
	sg_audit_free(&a);
}

static void test_sg_audit_print_text_gaps_one_line_each(void **state)
{
	struct sg_audit a;
	char *out;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	feed_gaps(&a);
	out = capture(&a, sg_audit_print_text);
	assert_non_null(strstr(out, "in 3 steps\nincomplete: 48 refusals not in this log (40 missing "
				    "from the file, 8 lost in a full ring buffer); the kernel skipped "
				    "the eBPF filter 2 times; 1 run without an end record\n"));
	/* before the steps, in their order (most denials first) */
	assert_non_null(strstr(
		out,
		"\nIncomplete\n"
		"  step build (run 123): 40 refusals not in this log (the end records count 52, "
		"the log holds 12)\n"
		"  step build (run 123): 3 refusals could not be logged (ring buffer full)\n"
		"  step build (run 123): the kernel skipped the eBPF filter 2 times (fmod_ret "
		"recursion): those calls were neither checked nor logged\n"
		"  step test (run 124): no end record (stepguard was killed, or the log is cut): its "
		"denials may be incomplete (the log holds 1)\n"
		"  step lint (run 125): 5 refusals could not be logged (ring buffer full)\n"
		"\nSteps\n"));
	assert_non_null(strstr(out, "lost: 3 (the log misses them); eBPF filter skipped: 2; "));
	assert_non_null(strstr(out, "    end records count 52 denials, the log holds 12\n"));
	free(out);
	sg_audit_free(&a);
}

static void test_sg_audit_print_text_no_denials_never_over_a_gap(void **state)
{
	/* lost only; a count with no records; unfinished only; and whole */
	static const struct {
		const char *log, *want;
	} cases[] = {
		{ END("lint", "125", 300, 0, 0, 5, "bpf-lsm"),
		  "\nNo denials recorded, but 5 were lost (see Incomplete above).\n" },
		{ END("cut", "9", 3, 0, 1, 0, "bpf-lsm"),
		  "\nNo denials recorded, but 1 was lost (see Incomplete above).\n" },
		{ START("killed", "8", 4, "bpf-lsm"),
		  "\nNo denials recorded, but the log may be incomplete (see Incomplete above).\n" },
		{ END_FMOD("skip", "7", 5, 0, 0, 1),
		  "\nNo denials recorded, but the log may be incomplete (see Incomplete above).\n" },
		{ START("ok", "6", 6, "bpf-lsm") END("ok", "6", 6, 0, 0, 0, "bpf-lsm"),
		  "\nNo denials.\n" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct sg_audit a;
		char *out;

		assert_int_equal(sg_audit_init(&a, NULL), 0);
		assert_int_equal(feed(&a, cases[i].log), 0);
		out = capture(&a, sg_audit_print_text);
		assert_non_null(strstr(out, cases[i].want));
		if (i < 4) {
			assert_null(strstr(out, "No denials."));
			assert_non_null(strstr(out, "\nincomplete: "));
		} else {
			assert_null(strstr(out, "ncomplete"));
		}
		free(out);
		sg_audit_free(&a);
	}
}

static void test_sg_audit_print_text_gap_without_run_id(void **state)
{
	struct sg_audit a;
	static const char text[] = "{\"event\":\"start\",\"step\":\"\",\"pid\":1}\n";
	char *out;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, text), 0);
	out = capture(&a, sg_audit_print_text);
	assert_non_null(strstr(out, "\n  step (unnamed): no end record (stepguard was killed"));
	free(out);
	sg_audit_free(&a);
}

static void test_sg_audit_print_text_gap_of_a_shared_run_id(void **state)
{
	struct sg_audit a;
	/* STEPGUARD_RUN_ID shared: two runs (pids 1 and 2) under one run id,
	 * one of which ended */
	static const char text[] =
		START("s", "ci", 1, "bpf-lsm")
		START("s", "ci", 2, "bpf-lsm")
		END("s", "ci", 2, 0, 0, 0, "bpf-lsm");
	char *out;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, text), 0);
	assert_int_equal(find_runid(&a, "s", "ci")->runs, 2);
	out = capture(&a, sg_audit_print_text);
	assert_non_null(strstr(out, "\n  step s (run ci): 1 of its 2 runs has no end record (stepguard "
				    "was killed, or the log is cut): their denials may be incomplete "
				    "(the log holds 0)\n"));
	free(out);
	sg_audit_free(&a);
}

static void test_sg_audit_json_gaps_fields(void **state)
{
	struct sg_audit a;
	json_object *j, *v, *inc, *e, *steps;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	feed_gaps(&a);
	j = sg_audit_json(&a);
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "missing", &v));
	assert_int_equal(json_object_get_int64(v), 40);
	assert_true(json_object_object_get_ex(j, "lost", &v));
	assert_int_equal(json_object_get_int64(v), 8);
	assert_true(json_object_object_get_ex(j, "recursion_misses", &v));
	assert_int_equal(json_object_get_int64(v), 2);
	assert_true(json_object_object_get_ex(j, "unfinished", &v));
	assert_int_equal(json_object_get_int64(v), 1);
	assert_true(json_object_object_get_ex(j, "steps", &steps));
	e = json_object_array_get_idx(steps, 0);
	assert_true(json_object_object_get_ex(e, "step", &v));
	assert_string_equal(json_object_get_string(v), "build");
	assert_true(json_object_object_get_ex(e, "missing", &v));
	assert_int_equal(json_object_get_int64(v), 40);
	assert_true(json_object_object_get_ex(e, "recursion_misses", &v));
	assert_int_equal(json_object_get_int64(v), 2);
	/* one entry per incomplete run id, in the order of the text */
	assert_true(json_object_object_get_ex(j, "incomplete", &inc));
	assert_int_equal(json_object_array_length(inc), 3);
	e = json_object_array_get_idx(inc, 0);
	assert_true(json_object_object_get_ex(e, "run", &v));
	assert_string_equal(json_object_get_string(v), "123");
	assert_true(json_object_object_get_ex(e, "count", &v));
	assert_int_equal(json_object_get_int64(v), 12);
	assert_true(json_object_object_get_ex(e, "end_denials", &v));
	assert_int_equal(json_object_get_int64(v), 52);
	assert_true(json_object_object_get_ex(e, "missing", &v));
	assert_int_equal(json_object_get_int64(v), 40);
	assert_true(json_object_object_get_ex(e, "lost", &v));
	assert_int_equal(json_object_get_int64(v), 3);
	assert_true(json_object_object_get_ex(e, "recursion_misses", &v));
	assert_int_equal(json_object_get_int64(v), 2);
	e = json_object_array_get_idx(inc, 1);
	assert_true(json_object_object_get_ex(e, "step", &v));
	assert_string_equal(json_object_get_string(v), "test");
	assert_true(json_object_object_get_ex(e, "unfinished", &v));
	assert_int_equal(json_object_get_int64(v), 1);
	assert_true(json_object_object_get_ex(e, "end_denials", &v));
	assert_null(v); /* no end record: nothing counted */
	json_object_put(j);
	sg_audit_free(&a);
}

static void test_sg_audit_json_parses_back(void **state)
{
	struct sg_audit a;
	json_object *j, *back, *v, *steps, *s0, *paths;
	char bad[] = "{oops";

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, two_steps), 0);
	assert_int_equal(sg_audit_line(&a, "t.log", 9, bad, strlen(bad), false), 0);
	j = sg_audit_json(&a);
	assert_non_null(j);
	back = json_tokener_parse(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY));
	json_object_put(j);
	assert_non_null(back);
	assert_true(json_object_object_get_ex(back, "records", &v));
	assert_int_equal(json_object_get_int64(v), 8);
	assert_true(json_object_object_get_ex(back, "denied", &v));
	assert_int_equal(json_object_get_int64(v), 3);
	assert_true(json_object_object_get_ex(back, "audited", &v));
	assert_int_equal(json_object_get_int64(v), 1);
	assert_true(json_object_object_get_ex(back, "unparsable", &v));
	assert_int_equal(json_object_get_int64(v), 1);
	assert_true(json_object_object_get_ex(back, "problems", &v));
	assert_int_equal(json_object_array_length(v), 1);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(v, 0), "line", &v));
	assert_int_equal(json_object_get_int64(v), 9);
	assert_true(json_object_object_get_ex(back, "steps", &steps));
	assert_int_equal(json_object_array_length(steps), 2);
	s0 = json_object_array_get_idx(steps, 0); /* most denials first */
	assert_true(json_object_object_get_ex(s0, "step", &v));
	assert_string_equal(json_object_get_string(v), "build");
	assert_true(json_object_object_get_ex(s0, "outcomes", &v));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(v, 0), "status", &v));
	assert_int_equal(json_object_get_int(v), 2);
	assert_true(json_object_object_get_ex(back, "paths", &paths));
	assert_int_equal(json_object_array_length(paths), 3);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(paths, 0), "path", &v));
	assert_string_equal(json_object_get_string(v), "/home/u/.bashrc");
	assert_true(json_object_object_get_ex(json_object_array_get_idx(paths, 0), "count", &v));
	assert_int_equal(json_object_get_int(v), 2);
	assert_true(json_object_object_get_ex(back, "prefix_depth", &v));
	assert_int_equal(json_object_get_int(v), SG_AUDIT_PREFIX_DEPTH);
	json_object_put(back);
	sg_audit_free(&a);
}

static void test_sg_audit_print_github_annotations(void **state)
{
	struct sg_audit a;
	static const char text[] =
		DENIAL("build", "r1", 42, "", "open", "/w/100%\\\\x0a", "denied")
		DENIAL("build", "r1", 42, "", "open", "/w/100%\\\\x0a", "denied")
		DENIAL("b,c", "r1", 43, "", "op:x", "/w/a\\nb", "audited")
		END("build", "r1", 40, 0, 2, 5, "bpf-fmod");
	char *out;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, text), 0);
	out = capture(&a, sg_audit_print_github);
	assert_non_null(strstr(out, "::warning title=stepguard lost events::step build (run r1): 5 "
				    "refusals could not be logged (ring buffer full)\n"));
	assert_non_null(strstr(out, "::error title=stepguard denied open::/w/100%25\\x0a "
				    "(step build, pid 42, 2 times)\n"));
	/* the op is in a property: its ':' is escaped; a JSON "\n" is shown as \x0a */
	assert_non_null(strstr(out, "::warning title=stepguard audited op%3Ax::/w/a\\x0ab "
				    "(step b,c, pid 43)\n"));
	/* every line is a command: nothing from the log started a line of its own */
	assert_int_equal(count_lines(out, "::"), count_lines(out, ""));
	/* the lost-events warning comes before the denials */
	assert_true(strstr(out, "lost events") < strstr(out, "::error"));
	free(out);
	sg_audit_free(&a);
}

static void test_sg_audit_print_github_caps_errors_first(void **state)
{
	size_t n = SG_AUDIT_GITHUB_MAX + 10;
	struct sg_audit a;
	char line[256], *out;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	/* one audited decision seen most often, then n distinct refusals */
	for (int k = 0; k < 3; k++) {
		snprintf(line, sizeof(line), "{\"event\":\"denial\",\"step\":\"s\",\"op\":\"open\","
					     "\"path\":\"/a/audited\",\"decision\":\"audited\"}");
		assert_int_equal(sg_audit_line(&a, "t", 1, line, strlen(line), false), 0);
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "{\"event\":\"denial\",\"step\":\"s\",\"op\":\"open\","
					     "\"path\":\"/d/%03zu\",\"decision\":\"denied\"}", i);
		assert_int_equal(sg_audit_line(&a, "t", i + 2, line, strlen(line), false), 0);
	}
	out = capture(&a, sg_audit_print_github);
	assert_int_equal(count_lines(out, "::error "), SG_AUDIT_GITHUB_MAX);
	assert_int_equal(count_lines(out, "::warning "), 0); /* the cap kept the errors */
	assert_non_null(strstr(out, "::notice title=stepguard audit::11 more distinct denials"));
	assert_non_null(strstr(out, "::error title=stepguard denied open::/d/000 (step s)\n"));
	assert_null(strstr(out, "/d/050"));
	free(out);
	sg_audit_free(&a);
}

static void test_sg_audit_print_github_reports_problems(void **state)
{
	struct sg_audit a;
	static const char text[] = "junk\n" START("s", "r", 1, "bpf-lsm") "{\"event\"";
	char *out;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, text), 0);
	out = capture(&a, sg_audit_print_github);
	assert_non_null(strstr(out, "::warning title=stepguard audit::t.log:1: not JSON"));
	assert_non_null(strstr(out, "::warning title=stepguard audit::t.log:3: the last line has "
				    "no newline"));
	assert_non_null(strstr(out, "::warning title=stepguard unfinished run::step s (run r): no end "
				    "record (stepguard was killed, or the log is cut)"));
	free(out);
	sg_audit_free(&a);
}

static void test_sg_audit_print_github_gaps_warned_first(void **state)
{
	struct sg_audit a;
	char *out;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	feed_gaps(&a);
	out = capture(&a, sg_audit_print_github);
	assert_non_null(strstr(
		out,
		"::warning title=stepguard missing records::step build (run 123): 40 refusals not in "
		"this log (the end records count 52, the log holds 12)\n"
		"::warning title=stepguard lost events::step build (run 123): 3 refusals could not be "
		"logged (ring buffer full)\n"
		"::warning title=stepguard skipped checks::step build (run 123): the kernel skipped the "
		"eBPF filter 2 times (fmod_ret recursion): those calls were neither checked nor "
		"logged\n"
		"::warning title=stepguard unfinished run::step test (run 124): no end record "
		"(stepguard was killed, or the log is cut): its denials may be incomplete (the log "
		"holds 1)\n"
		"::warning title=stepguard lost events::step lint (run 125): 5 refusals could not be "
		"logged (ring buffer full)\n"
		"::error "));
	assert_int_equal(count_lines(out, "::warning "), 5);
	free(out);
	sg_audit_free(&a);
}

static void test_sg_audit_print_github_gaps_capped(void **state)
{
	size_t n = SG_AUDIT_GITHUB_MAX + 7;
	struct sg_audit a;
	char line[256], *out;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	for (size_t i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "{\"event\":\"end\",\"step\":\"s\",\"run\":\"%zu\","
					     "\"pid\":1,\"denials\":0,\"lost\":1}", i);
		assert_int_equal(sg_audit_line(&a, "t", i + 1, line, strlen(line), false), 0);
	}
	out = capture(&a, sg_audit_print_github);
	assert_int_equal(count_lines(out, "::warning title=stepguard lost events::"),
			 SG_AUDIT_GITHUB_MAX);
	assert_non_null(strstr(out, "::warning title=stepguard audit::7 more gaps in the log not "
				    "annotated"));
	free(out);
	out = capture(&a, sg_audit_print_markdown);
	assert_int_equal(count_lines(out, "- step `s` (run "), SG_AUDIT_GITHUB_MAX);
	assert_non_null(strstr(out, "- …and 7 more (`stepguard audit` lists them all)\n"));
	free(out);
	sg_audit_free(&a);
}

static void test_sg_audit_print_markdown_gaps(void **state)
{
	struct sg_audit a;
	char *out;

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	feed_gaps(&a);
	out = capture(&a, sg_audit_print_markdown);
	assert_non_null(strstr(out, "\n**Incomplete**\n\n- step `build` (run `123`): 40 refusals not "
				    "in this log (the end records count 52, the log holds 12)\n"));
	assert_non_null(strstr(out, "\n- step `test` (run `124`): no end record"));
	assert_non_null(strstr(out, "| `test` | 1 (1 unfinished) | 1 | 0 | 0 | `bpf-lsm` |\n"));
	free(out);
	sg_audit_free(&a);
}

static void test_sg_audit_print_markdown_tables_and_escapes(void **state)
{
	struct sg_audit a;
	static const char text[] =
		START("build", "r1", 100, "bpf-fmod")
		DENIAL("build", "r1", 101, "", "open", "/w/a|b", "denied")
		DENIAL("build", "r1", 101, "", "open", "/w/`x``y", "denied")
		END("build", "r1", 100, 0, 2, 1, "bpf-fmod");
	char *out;

	char bad[] = "{\"event\":\"<b>x</b>\"}";

	(void)state;
	assert_int_equal(sg_audit_init(&a, NULL), 0);
	assert_int_equal(feed(&a, text), 0);
	assert_int_equal(sg_audit_line(&a, "<i>.log", 5, bad, strlen(bad), false), 0);
	out = capture(&a, sg_audit_print_markdown);
	/* a problem is reported without letting the log's text be Markdown */
	assert_non_null(strstr(out, "**1 line could not be read as a record**; the first: `<i>.log` "
				    "line 5: not a stepguard record: a record without \"step\"\n"));
	assert_null(strstr(out, "<b>"));
	assert_non_null(strstr(out, "### stepguard audit\n"));
	assert_non_null(strstr(out, "| step | runs | denied | audited | lost | backend |\n"));
	assert_non_null(strstr(out, "| `build` | 1 | 2 | 0 | 1 | `bpf-fmod` |\n"));
	assert_non_null(strstr(out, "| 1 | denied | `open` | `/w/a\\|b` | `build` |\n"));
	/* a fence longer than any run of backticks inside */
	assert_non_null(strstr(out, "| ```/w/`x``y``` |"));
	free(out);
	sg_audit_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sg_audit_read_two_steps_counted_apart),
		cmocka_unit_test(test_sg_audit_read_unfinished_run_and_end_first),
		cmocka_unit_test(test_sg_audit_read_gaps_held_per_run_id),
		cmocka_unit_test(test_sg_audit_read_missing_not_hidden_by_another_run),
		cmocka_unit_test(test_sg_audit_read_missing_is_a_lower_bound),
		cmocka_unit_test(test_sg_audit_line_recursion_misses_must_be_a_count),
		cmocka_unit_test(test_sg_audit_read_escaped_paths_stay_escaped),
		cmocka_unit_test(test_sg_audit_read_audited_apart_from_denied),
		cmocka_unit_test(test_sg_audit_read_lost_summed_per_step),
		cmocka_unit_test(test_sg_audit_line_malformed_counted_with_line),
		cmocka_unit_test(test_sg_audit_line_nul_byte_is_a_problem),
		cmocka_unit_test(test_sg_audit_line_unknown_event_counted_not_failed),
		cmocka_unit_test(test_sg_audit_read_torn_last_line_reported),
		cmocka_unit_test(test_sg_audit_read_whole_last_line_without_newline_counted),
		cmocka_unit_test(test_sg_audit_read_empty_input),
		cmocka_unit_test(test_sg_audit_read_crlf_and_long_lines),
		cmocka_unit_test(test_sg_audit_read_real_file),
		cmocka_unit_test(test_sg_audit_read_denial_without_path_and_truncated),
		cmocka_unit_test(test_sg_audit_read_step_filter),
		cmocka_unit_test(test_sg_audit_read_processes_by_comm_and_pid),
		cmocka_unit_test(test_sg_audit_print_text_process_pids_bounded),
		cmocka_unit_test(test_sg_audit_json_processes_comm_and_pids),
		cmocka_unit_test(test_sg_audit_print_github_names_the_process),
		cmocka_unit_test(test_sg_audit_prefix_depth_cases),
		cmocka_unit_test(test_sg_audit_display_escapes_what_a_terminal_acts_on),
		cmocka_unit_test(test_sg_audit_gh_escape_data_and_property),
		cmocka_unit_test(test_sg_audit_sorted_by_count_then_name),
		cmocka_unit_test(test_sg_audit_print_text_sections),
		cmocka_unit_test(test_sg_audit_print_text_gaps_one_line_each),
		cmocka_unit_test(test_sg_audit_print_text_no_denials_never_over_a_gap),
		cmocka_unit_test(test_sg_audit_print_text_gap_without_run_id),
		cmocka_unit_test(test_sg_audit_print_text_gap_of_a_shared_run_id),
		cmocka_unit_test(test_sg_audit_json_gaps_fields),
		cmocka_unit_test(test_sg_audit_json_parses_back),
		cmocka_unit_test(test_sg_audit_print_github_annotations),
		cmocka_unit_test(test_sg_audit_print_github_caps_errors_first),
		cmocka_unit_test(test_sg_audit_print_github_reports_problems),
		cmocka_unit_test(test_sg_audit_print_github_gaps_warned_first),
		cmocka_unit_test(test_sg_audit_print_github_gaps_capped),
		cmocka_unit_test(test_sg_audit_print_markdown_gaps),
		cmocka_unit_test(test_sg_audit_print_markdown_tables_and_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
