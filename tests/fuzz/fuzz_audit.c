// SPDX-License-Identifier: MIT
/*
 * fuzz_audit.c — JSON log lines to audit records, and every report made
 * of them.
 *
 * Input: the text of a log (any bytes; lines end at '\n', the last one may
 * have none), read with sg_audit_read from a memory stream, so records on
 * several lines meet in the same tables (runs, hits).  Inputs of odd
 * length are read as `stepguard audit --step build` (records of other
 * steps left out).  Then the text, JSON, GitHub and Markdown outputs are
 * made into memory: nothing is written to a file.
 *
 * Checked beyond the sanitizers: every line is accounted for (a record, an
 * unknown event, another step's record, or a problem), the JSON document
 * is valid JSON, and no output holds a terminal control byte from the log.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "audit/audit.h"
#include "tests/fuzz/fuzz_common.h"

static char *capture(const struct sg_audit *a, int (*print)(const struct sg_audit *, FILE *),
		     size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);
	int r;

	FUZZ_CHECK(m != NULL, "open_memstream");
	r = print(a, m);
	FUZZ_CHECK(fclose(m) == 0, "fclose");
	FUZZ_CHECK(r == 0, "a report failed: %d", r);
	return buf;
}

/* Only '\n' (and '\t' in the text output's own layout) may appear; ESC, BEL, CR never. */
static void check_clean(const char *what, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		FUZZ_CHECK(c >= 0x20 || c == '\n' || c == '\t', "%s: control byte 0x%02x at %zu",
			   what, c, i);
		FUZZ_CHECK(c != 0x7f, "%s: DEL at %zu", what, i);
	}
}

static void print_problems(const struct sg_audit *a, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);

	FUZZ_CHECK(m != NULL, "open_memstream");
	sg_audit_print_problems(a, m);
	FUZZ_CHECK(fclose(m) == 0, "fclose");
	check_clean("problems", buf, *len);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int (*const printers[])(const struct sg_audit *, FILE *) = {
		sg_audit_print_text, sg_audit_print_github, sg_audit_print_markdown,
	};
	static const char *const names[] = { "text", "github", "markdown" };
	struct sg_audit a;
	json_object *j, *back;
	const char *js;
	FILE *f;
	size_t len;
	int r;

	if (size == 0)
		return 0; /* fmemopen needs a buffer; an empty log is a unit test */
	FUZZ_CHECK(sg_audit_init(&a, size % 2 ? "build" : NULL) == 0, "sg_audit_init");
	f = fmemopen((void *)data, size, "r");
	FUZZ_CHECK(f != NULL, "fmemopen");
	r = sg_audit_read(&a, f, "fuzz.log");
	fclose(f);
	FUZZ_CHECK(r == 0, "sg_audit_read = %d", r);

	FUZZ_CHECK(a.lines == a.records + a.unknown + a.other_steps + a.unparsable,
		   "lines %llu != records %llu + unknown %llu + other steps %llu + unparsable %llu",
		   (unsigned long long)a.lines, (unsigned long long)a.records,
		   (unsigned long long)a.unknown, (unsigned long long)a.other_steps,
		   (unsigned long long)a.unparsable);
	FUZZ_CHECK(a.torn <= 1, "%llu torn lines in one file", (unsigned long long)a.torn);
	FUZZ_CHECK(a.n_problems <= SG_AUDIT_PROBLEMS_KEPT && a.n_problems <= a.problem_lines,
		   "problems");
	for (size_t i = 0; i < a.n_steps; i++)
		FUZZ_CHECK(a.steps[i].unfinished <= a.steps[i].runs, "step %zu: unfinished %llu > runs %llu",
			   i, (unsigned long long)a.steps[i].unfinished,
			   (unsigned long long)a.steps[i].runs);

	for (size_t i = 0; i < sizeof(printers) / sizeof(printers[0]); i++) {
		char *out = capture(&a, printers[i], &len);

		check_clean(names[i], out, len);
		free(out);
	}
	print_problems(&a, &len);

	j = sg_audit_json(&a);
	FUZZ_CHECK(j != NULL, "sg_audit_json");
	js = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
	FUZZ_CHECK(js != NULL, "json_object_to_json_string_ext");
	check_clean("json", js, strlen(js));
	back = json_tokener_parse(js);
	FUZZ_CHECK(back != NULL, "the JSON document does not parse: %s", js);
	json_object_put(back);
	json_object_put(j);
	sg_audit_free(&a);
	return 0;
}
