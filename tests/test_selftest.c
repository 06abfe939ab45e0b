// SPDX-License-Identifier: MIT
/*
 * Tests for selftest/holder.c: how the self-test judges the probe's reads
 * of another process.  Each case feeds the probe's report lines for one
 * run and reads the verdict; each failure is shown next to the refusal
 * that passes.  The holder is a child that only waits, so the judgement
 * sees one that is alive; the control is taken as proven unless the case
 * says otherwise.  sg_st_problem() and the other helpers of the rest of
 * the self-test are stubs here that count.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "selftest/internal.h"

#define MARKER "sg-held-00112233445566778899aabbccddeeff"

/* ---- stubs for what holder.c uses of the rest of the self-test --------- */

static int n_problems;
static char last_problem[512];

void sg_st_problem(struct selftest *s, const char *fmt, ...)
{
	va_list ap;

	(void)s;
	va_start(ap, fmt);
	vsnprintf(last_problem, sizeof(last_problem), fmt, ap);
	va_end(ap);
	n_problems++;
}

const char *sg_st_scrub_label(const char *scrub)
{
	return scrub ? scrub : "unset";
}

int sg_st_user_can(const struct selftest *s, const char *path, int mode)
{
	(void)s;
	(void)path;
	(void)mode;
	return 0;
}

/* ---- fixtures ---------------------------------------------------------- */

struct fx {
	struct selftest s;
	struct run *r;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	pid_t pid;

	assert_non_null(f);
	/* A holder that is alive: a child that waits to be killed. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	f->s.holder.pid = pid;
	f->s.holder.running = true;
	f->s.holder.in = -1;
	f->s.holder.proven = true;
	snprintf(f->s.holder.marker, sizeof(f->s.holder.marker), "%s", MARKER);
	snprintf(f->s.holder.word, sizeof(f->s.holder.word), "peek=%d:0x1000:40", (int)pid);
	f->r = &f->s.runs[0];
	n_problems = 0;
	last_problem[0] = '\0';
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	sg_st_holder_stop(&f->s);
	free(f);
	return 0;
}

/* One probe line, as probe.c prints it; it must be one the judge takes. */
static void line(struct fx *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line(struct fx *f, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	assert_true(sg_st_parse_peek_line(&f->s, f->r, buf));
}

/* HEX of S, as the probe reports what came back. */
static const char *hex(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; *s && o + 3 <= len; s++)
		o += (size_t)snprintf(buf + o, len - o, "%02x", (unsigned char)*s);
	return buf;
}

static void refused_all(struct fx *f)
{
	line(f, "peek\tenviron\trefused\tEACCES");
	line(f, "peek\tmem\trefused\tEACCES");
	line(f, "peek\tvm\trefused\tEPERM");
}

/* ---- sg_st_judge_peeks --------------------------------------------------- */

static void test_sg_st_judge_peeks_all_refused_passes(void **state)
{
	struct fx *f = *state;

	refused_all(f);
	sg_st_judge_peeks(&f->s, f->r);
	assert_string_equal(f->r->peek_result, "refused");
	assert_true(f->r->peek_ok);
	assert_false(f->s.landed_any);
	assert_int_equal(n_problems, 0);
}

static void test_sg_st_judge_peeks_marker_read_is_landed(void **state)
{
	struct fx *f = *state;
	char h[256];

	line(f, "peek\tenviron\tread\t%s", hex("STEPGUARD_SELFTEST_HELD=" MARKER, h, sizeof(h)));
	line(f, "peek\tmem\trefused\tEACCES");
	line(f, "peek\tvm\trefused\tEPERM");
	sg_st_judge_peeks(&f->s, f->r);
	assert_string_equal(f->r->p[0].result, "read");
	assert_string_equal(f->r->p[1].result, "refused");
	assert_string_equal(f->r->peek_result, "read");
	assert_false(f->r->peek_ok);
	/* The failure the self-test exists for: it outranks every status. */
	assert_true(f->s.landed_any);
	assert_int_equal(n_problems, 1);
	assert_non_null(strstr(last_problem, "read the holder's marker through /proc/PID/environ"));
}

static void test_sg_st_judge_peeks_memory_read_is_landed_even_unproven(void **state)
{
	struct fx *f = *state;
	char h[256];

	/* A read that landed needs no control to be a failure. */
	f->s.holder.proven = false;
	line(f, "peek\tenviron\trefused\tEACCES");
	line(f, "peek\tmem\tread\t%s", hex(MARKER, h, sizeof(h)));
	line(f, "peek\tvm\trefused\tEPERM");
	sg_st_judge_peeks(&f->s, f->r);
	assert_string_equal(f->r->peek_result, "read");
	assert_true(f->s.landed_any);
	assert_false(f->r->peek_ok);
}

static void test_sg_st_judge_peeks_read_without_marker_is_granted(void **state)
{
	struct fx *f = *state;
	char h[256];

	line(f, "peek\tenviron\trefused\tEACCES");
	line(f, "peek\tmem\trefused\tEACCES");
	line(f, "peek\tvm\tread\t%s", hex("something else entirely, forty bytes....", h, sizeof(h)));
	sg_st_judge_peeks(&f->s, f->r);
	assert_string_equal(f->r->p[2].result, "granted");
	assert_string_equal(f->r->peek_result, "granted");
	assert_false(f->r->peek_ok);
	assert_false(f->s.landed_any);
	assert_int_equal(n_problems, 1);
}

static void test_sg_st_judge_peeks_other_errno_is_no_refusal(void **state)
{
	struct fx *f = *state;

	line(f, "peek\tenviron\trefused\tESRCH");
	line(f, "peek\tmem\trefused\tEACCES");
	line(f, "peek\tvm\trefused\tEPERM");
	sg_st_judge_peeks(&f->s, f->r);
	assert_string_equal(f->r->p[0].result, "failed");
	assert_string_equal(f->r->peek_result, "failed");
	assert_false(f->r->peek_ok);
	assert_non_null(strstr(last_problem, "not EACCES or EPERM"));
}

static void test_sg_st_judge_peeks_unreported_is_not_tried(void **state)
{
	struct fx *f = *state;

	/* The probe made two of the three: the third is no refusal. */
	line(f, "peek\tenviron\trefused\tEACCES");
	line(f, "peek\tvm\trefused\tEPERM");
	sg_st_judge_peeks(&f->s, f->r);
	assert_string_equal(f->r->p[1].result, "not tried");
	assert_string_equal(f->r->peek_result, "not tried");
	assert_false(f->r->peek_ok);
	assert_non_null(strstr(last_problem, "did not report its read of /proc/PID/mem"));
}

static void test_sg_st_judge_peeks_refusals_without_control_unproven(void **state)
{
	struct fx *f = *state;

	f->s.holder.proven = false;
	refused_all(f);
	sg_st_judge_peeks(&f->s, f->r);
	assert_string_equal(f->r->peek_result, "unproven");
	assert_false(f->r->peek_ok);
	assert_false(f->s.landed_any);
}

static void test_sg_st_judge_peeks_holder_gone_unproven(void **state)
{
	struct fx *f = *state;

	refused_all(f);
	/* It ended before the run was judged: the refusals may be of nobody. */
	assert_int_equal(kill(f->s.holder.pid, SIGKILL), 0);
	while (waitid(P_PID, (id_t)f->s.holder.pid, NULL, WEXITED | WNOWAIT) < 0)
		;
	sg_st_judge_peeks(&f->s, f->r);
	assert_string_equal(f->r->peek_result, "unproven");
	assert_false(f->r->peek_ok);
	assert_false(f->s.holder.running);
	assert_string_equal(f->s.holder.word, "");
	assert_non_null(strstr(last_problem, "ended during the runs"));
}

/* ---- sg_st_parse_peek_line ------------------------------------------------ */

static void test_sg_st_parse_peek_line_refuses_what_is_not_a_read(void **state)
{
	struct fx *f = *state;
	const char *bad[] = {
		"peek\tcmdline\trefused\tEACCES", /* not one of the three */
		"peek\tmem\tlanded\t-",           /* neither read nor refused */
		"peek\tmem\tread\t7",             /* half a byte */
		"peek\tmem\tread\tzz",            /* not hex */
		"peek\tmem\trefused",             /* no errno */
		"exec\tmem\trefused\tEACCES",     /* not a peek line */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char buf[128];

		snprintf(buf, sizeof(buf), "%s", bad[i]);
		assert_false(sg_st_parse_peek_line(&f->s, f->r, buf));
	}
	/* The same attempt twice: only the first counts. */
	line(f, "peek\tmem\trefused\tEACCES");
	{
		char buf[] = "peek\tmem\tread\t-";

		assert_false(sg_st_parse_peek_line(&f->s, f->r, buf));
	}
	assert_string_equal(f->r->p[1].probe_said, "refused");
	/* "-": the read came back empty, which is no refusal. */
	line(f, "peek\tvm\tread\t-");
	assert_true(f->r->p[2].reported);
	assert_int_equal(f->r->p[2].got, 0);
	assert_false(f->r->p[2].marker);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sg_st_judge_peeks_all_refused_passes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sg_st_judge_peeks_marker_read_is_landed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sg_st_judge_peeks_memory_read_is_landed_even_unproven,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_sg_st_judge_peeks_read_without_marker_is_granted, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sg_st_judge_peeks_other_errno_is_no_refusal, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sg_st_judge_peeks_unreported_is_not_tried, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sg_st_judge_peeks_refusals_without_control_unproven,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_sg_st_judge_peeks_holder_gone_unproven, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sg_st_parse_peek_line_refuses_what_is_not_a_read, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
