// SPDX-License-Identifier: MIT
/*
 * fuzz_log.c — the log's byte escaping (lib/log.c), which turns the
 * paths, arguments and process names of a step into JSON strings, and its
 * reader (`stepguard audit`, audit/audit.c) on what it wrote.
 *
 * Input: the bytes of a path or an argument, up to the first NUL (a C
 * string cannot hold one).  Checked, as lib/log.h promises:
 *   - the escaped text is valid UTF-8 without control bytes or raw
 *     backslashes, and every input byte can be recovered from it;
 *   - into a buffer too small, the output is a terminated prefix of the
 *     whole (launcher/step.c prints such a cut path), never stale bytes,
 *     and still valid UTF-8: never half a character;
 *   - a denial record holding it, as the writer builds it, is read back by
 *     `stepguard audit` as a record with that path, shown display-safe.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "audit/audit.h"
#include "lib/log.h"
#include "tests/fuzz/fuzz_common.h"

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Undo the escaping: \xNN back to the byte.  Returns a malloc'd string. */
static char *unescape(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	FUZZ_CHECK(out != NULL, "malloc");
	while (*s) {
		if (*s == '\\') {
			FUZZ_CHECK(s[1] == 'x' && hexval(s[2]) >= 0 && hexval(s[3]) >= 0,
				   "a backslash that is not \\xNN: \"%.8s\"", s);
			*o++ = (char)(hexval(s[2]) * 16 + hexval(s[3]));
			s += 4;
			continue;
		}
		*o++ = *s++;
	}
	*o = '\0';
	return out;
}

/* Is S valid UTF-8 (RFC 3629: no overlongs, surrogates or values past U+10FFFF)? */
static bool utf8_valid(const unsigned char *s)
{
	while (*s) {
		size_t n = *s < 0x80 ? 1 : *s >= 0xc2 && *s <= 0xdf ? 2 : *s >= 0xe0 && *s <= 0xef ? 3
			 : *s >= 0xf0 && *s <= 0xf4 ? 4 : 0;
		unsigned char lo = *s == 0xe0 ? 0xa0 : *s == 0xf0 ? 0x90 : 0x80;
		unsigned char hi = *s == 0xed ? 0x9f : *s == 0xf4 ? 0x8f : 0xbf;

		if (n == 0)
			return false;
		if (n > 1 && (s[1] < lo || s[1] > hi))
			return false;
		for (size_t i = 2; i < n; i++)
			if ((s[i] & 0xc0) != 0x80)
				return false;
		s += n;
	}
	return true;
}

static void check_cut(const char *in, const char *full, size_t need, size_t len)
{
	char *buf = malloc(len ? len : 1);
	size_t got, n;

	FUZZ_CHECK(buf != NULL, "malloc");
	memset(buf, 0xA5, len ? len : 1); /* stale bytes, as on a stack */
	got = sg_escape_bytes(in, buf, len);
	FUZZ_CHECK(got == need, "needed %zu, then %zu", need, got);
	if (len) {
		FUZZ_CHECK(memchr(buf, '\0', len) != NULL, "not terminated in %zu bytes", len);
		n = strlen(buf);
		FUZZ_CHECK(strncmp(buf, full, n) == 0,
			   "cut to %zu bytes, the output is not a prefix of the whole:\n"
			   "whole: \"%s\"\ncut:   \"%s\"", len, full, buf);
		FUZZ_CHECK(utf8_valid((const unsigned char *)buf),
			   "cut to %zu bytes, the output is not valid UTF-8:\n\"%s\"", len, buf);
		/* As snprintf: all that fits, less at most one unfinished escape or character. */
		FUZZ_CHECK(n + 4 >= (need < len ? need : len) - 1,
			   "cut to %zu bytes, only %zu of %zu written", len, n, need - 1);
	}
	free(buf);
}

static void read_back(const char *full)
{
	json_object *rec = json_object_new_object(), *path = json_object_new_string(full);
	struct sg_audit a;
	const char *line;
	char *buf, *shown;
	size_t len;

	FUZZ_CHECK(rec && path, "json-c");
	/* As launcher/step.c and lib/log.c write a denial. */
	json_object_object_add(rec, "time", json_object_new_string("2026-11-29T19:06:30.000001Z"));
	json_object_object_add(rec, "event", json_object_new_string("denial"));
	json_object_object_add(rec, "step", json_object_new_string("build"));
	json_object_object_add(rec, "run", json_object_new_string("r1"));
	json_object_object_add(rec, "pid", json_object_new_int64(7));
	json_object_object_add(rec, "comm", json_object_new_string(full));
	json_object_object_add(rec, "op", json_object_new_string("open"));
	json_object_object_add(rec, "path", path);
	json_object_object_add(rec, "decision", json_object_new_string("denied"));
	line = json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN);
	len = strlen(line);
	buf = malloc(len + 1);
	FUZZ_CHECK(buf != NULL, "malloc");
	memcpy(buf, line, len);
	json_object_put(rec);

	FUZZ_CHECK(sg_audit_init(&a, NULL) == 0, "sg_audit_init");
	FUZZ_CHECK(sg_audit_line(&a, "fuzz.log", 1, buf, len, false) == 0, "sg_audit_line");
	FUZZ_CHECK(a.records == 1 && a.problem_lines == 0,
		   "the reader refused what the writer wrote: %s\n%s",
		   a.n_problems ? a.problems[0].reason : "?", buf);
	shown = sg_audit_display(full, strlen(full));
	FUZZ_CHECK(shown != NULL, "sg_audit_display");
	/* An empty path is "(no path)" to the reader. */
	FUZZ_CHECK(a.n_hits == 1 && strcmp(a.hits[0].path, *full ? shown : SG_AUDIT_NO_PATH) == 0,
		   "path read back as \"%s\", written as \"%s\"", a.n_hits ? a.hits[0].path : "?",
		   full);
	free(shown);
	free(buf);
	sg_audit_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1), *full, *back;
	size_t need, n;
	json_object *j;

	FUZZ_CHECK(in != NULL, "malloc");
	memcpy(in, data, size);
	in[size] = '\0';

	need = sg_escape_bytes(in, NULL, 0);
	FUZZ_CHECK(need >= strlen(in) + 1, "needed %zu for %zu bytes", need, strlen(in));
	full = malloc(need);
	FUZZ_CHECK(full != NULL, "malloc");
	FUZZ_CHECK(sg_escape_bytes(in, full, need) == need, "needed size changed");
	n = strlen(full);
	FUZZ_CHECK(n == need - 1, "wrote %zu, needed %zu", n, need - 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)full[i];

		FUZZ_CHECK(c >= 0x20 && c != 0x7f, "control byte 0x%02x in the output", c);
	}
	/* Valid UTF-8: the reader's display (which escapes what is not) keeps it but for C1 and bidi controls. */
	back = unescape(full);
	FUZZ_CHECK(strcmp(back, in) == 0, "the bytes cannot be recovered");
	free(back);

	/* Every cut up to the whole, for short inputs; a few for long ones. */
	for (size_t len = 0; len <= need; len += (need > 64 ? need / 16 + 1 : 1))
		check_cut(in, full, need, len);
	check_cut(in, full, need, need);

	j = sg_json_bytes(in);
	FUZZ_CHECK(j && strcmp(json_object_get_string(j), full) == 0, "sg_json_bytes");
	json_object_put(j);

	read_back(full);
	free(full);
	free(in);
	return 0;
}
