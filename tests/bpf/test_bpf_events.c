// SPDX-License-Identifier: MIT
/*
 * test_bpf_events.c — reading the eBPF filter's events (bpf/events.c):
 * a record is read only when its size is exactly what its header says,
 * and the numbers get the log's names.  No kernel, no root.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bpf/loader.h"

/* A record as the program sends it: header, then path, then path2. */
static size_t make_event(struct sg_event *ev, const char *p1, const char *p2)
{
	memset(ev, 0, sizeof(*ev));
	ev->op = SG_OP_RENAME;
	ev->decision = SG_DECISION_DENIED;
	ev->reason = SG_WHY_OUTSIDE;
	ev->error = -13;
	ev->path_len = (uint16_t)strlen(p1);
	ev->path2_len = (uint16_t)strlen(p2);
	memcpy(ev->data, p1, ev->path_len);
	memcpy(ev->data + ev->path_len, p2, ev->path2_len);
	return SG_EVENT_HDR_SIZE + ev->path_len + ev->path2_len;
}

static void test_sg_bpf_event_check_exact_size(void **state)
{
	static struct sg_event ev;
	size_t size = make_event(&ev, "/w/a", "/tmp/b");

	(void)state;
	assert_int_equal(sg_bpf_event_check(&ev, size), 0);
	/* one byte more or less is not this record */
	assert_int_equal(sg_bpf_event_check(&ev, size - 1), -EBADMSG);
	assert_int_equal(sg_bpf_event_check(&ev, size + 1), -EBADMSG);
}

static void test_sg_bpf_event_check_short_header(void **state)
{
	static struct sg_event ev;

	(void)state;
	make_event(&ev, "", "");
	assert_int_equal(sg_bpf_event_check(&ev, SG_EVENT_HDR_SIZE), 0);
	assert_int_equal(sg_bpf_event_check(&ev, SG_EVENT_HDR_SIZE - 1), -EBADMSG);
	assert_int_equal(sg_bpf_event_check(NULL, SG_EVENT_HDR_SIZE), -EBADMSG);
}

static void test_sg_bpf_event_check_lengths_bounded(void **state)
{
	static struct sg_event ev;

	(void)state;
	make_event(&ev, "/a", "");
	ev.path_len = SG_PATH_MAX + 1;
	assert_int_equal(sg_bpf_event_check(&ev, SG_EVENT_HDR_SIZE + SG_PATH_MAX + 1), -EBADMSG);
	/* the largest legal record */
	ev.path_len = SG_PATH_MAX;
	ev.path2_len = SG_PATH_MAX;
	assert_int_equal(sg_bpf_event_check(&ev, sizeof(ev)), 0);
}

static void test_sg_bpf_event_check_unknown_values(void **state)
{
	static struct sg_event ev;
	size_t size = make_event(&ev, "/a", "");

	(void)state;
	ev.op = SG_OP__MAX;
	assert_int_equal(sg_bpf_event_check(&ev, size), -EBADMSG);
	ev.op = SG_OP_NONE;
	assert_int_equal(sg_bpf_event_check(&ev, size), -EBADMSG);
	ev.op = SG_OP_OPEN;
	ev.decision = 0;
	assert_int_equal(sg_bpf_event_check(&ev, size), -EBADMSG);
	ev.decision = SG_DECISION_AUDITED;
	assert_int_equal(sg_bpf_event_check(&ev, size), 0);
}

static void test_sg_bpf_event_path_second_follows_first(void **state)
{
	static struct sg_event ev;
	const char *p;
	size_t len;

	(void)state;
	make_event(&ev, "/w/old", "/tmp/new");
	p = sg_bpf_event_path(&ev, 0, &len);
	assert_int_equal(len, 6);
	assert_memory_equal(p, "/w/old", 6);
	p = sg_bpf_event_path(&ev, 1, &len);
	assert_int_equal(len, 8);
	assert_memory_equal(p, "/tmp/new", 8);
}

/* The operation names are the log's (docs/log-format.md, design §5). */
static void test_sg_bpf_op_name_log_names(void **state)
{
	(void)state;
	assert_string_equal(sg_bpf_op_name(SG_OP_OPEN), "open");
	assert_string_equal(sg_bpf_op_name(SG_OP_CREATE), "create");
	assert_string_equal(sg_bpf_op_name(SG_OP_MKDIR), "mkdir");
	assert_string_equal(sg_bpf_op_name(SG_OP_RMDIR), "rmdir");
	assert_string_equal(sg_bpf_op_name(SG_OP_UNLINK), "unlink");
	assert_string_equal(sg_bpf_op_name(SG_OP_RENAME), "rename");
	assert_string_equal(sg_bpf_op_name(SG_OP_LINK), "link");
	assert_string_equal(sg_bpf_op_name(SG_OP_SYMLINK), "symlink");
	assert_string_equal(sg_bpf_op_name(SG_OP_TRUNCATE), "truncate");
	assert_string_equal(sg_bpf_op_name(SG_OP_CHMOD), "chmod");
	assert_string_equal(sg_bpf_op_name(SG_OP_CHOWN), "chown");
	assert_string_equal(sg_bpf_op_name(SG_OP_SETXATTR), "setxattr");
	assert_string_equal(sg_bpf_op_name(SG_OP_MKNOD), "mknod");
	assert_string_equal(sg_bpf_op_name(SG_OP_UTIMES), "utimes");
	assert_string_equal(sg_bpf_op_name(SG_OP__MAX), "unknown");
	assert_string_equal(sg_bpf_op_name(9999), "unknown");
	for (unsigned op = SG_OP_OPEN; op < SG_OP__MAX; op++)
		assert_string_not_equal(sg_bpf_op_name(op), "unknown");
}

/*
 * An exec refusal as bprm_check_security sends it: one path (the file),
 * read back with the log's words for it.
 */
static void test_sg_bpf_event_check_exec_refusal(void **state)
{
	static struct sg_event ev;
	size_t size = make_event(&ev, "/w/bin/busybox", "");
	const char *p;
	size_t len;

	(void)state;
	ev.op = SG_OP_EXEC;
	ev.reason = SG_WHY_NOT_ALLOWED;
	assert_int_equal(sg_bpf_event_check(&ev, size), 0);
	assert_string_equal(sg_bpf_op_name(ev.op), "exec");
	assert_string_equal(sg_bpf_reason_name(ev.reason), "not-allowed");
	p = sg_bpf_event_path(&ev, 0, &len);
	assert_int_equal(len, strlen("/w/bin/busybox"));
	assert_memory_equal(p, "/w/bin/busybox", len);
	(void)sg_bpf_event_path(&ev, 1, &len);
	assert_int_equal(len, 0);
}

static void test_sg_bpf_names_decision_mode(void **state)
{
	(void)state;
	assert_string_equal(sg_bpf_decision_name(SG_DECISION_DENIED), "denied");
	assert_string_equal(sg_bpf_decision_name(SG_DECISION_AUDITED), "audited");
	assert_string_equal(sg_bpf_mode_name(SG_BPF_LSM), "bpf-lsm");
	assert_string_equal(sg_bpf_mode_name(SG_BPF_FMOD), "bpf-fmod");
	assert_string_equal(sg_bpf_reason_name(SG_WHY_DEPTH), "depth");
	assert_string_equal(sg_bpf_reason_name(SG_WHY_NO_SCOPE), "no-scope");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sg_bpf_event_check_exact_size),
		cmocka_unit_test(test_sg_bpf_event_check_short_header),
		cmocka_unit_test(test_sg_bpf_event_check_lengths_bounded),
		cmocka_unit_test(test_sg_bpf_event_check_unknown_values),
		cmocka_unit_test(test_sg_bpf_event_path_second_follows_first),
		cmocka_unit_test(test_sg_bpf_event_check_exec_refusal),
		cmocka_unit_test(test_sg_bpf_op_name_log_names),
		cmocka_unit_test(test_sg_bpf_names_decision_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
