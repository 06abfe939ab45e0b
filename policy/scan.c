// SPDX-License-Identifier: MIT
/*
 * scan.c — the line scan in front of inih.
 *
 * inih splits lines longer than its buffer, joins indented lines to the
 * previous value, accepts ':' for '=', and does not tell its handler the
 * line number.  This scan refuses all of that with the file and line, and
 * records the line of every key line, in order: each one the scan accepts
 * produces exactly one handler call, so the k-th call belongs to the k-th
 * key line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/internal.h"

bool sg__is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int scan_push_key(struct scan *sc, unsigned line)
{
	unsigned *v = realloc(sc->key_lines, (sc->n_keys + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	v[sc->n_keys++] = line;
	sc->key_lines = v;
	return 0;
}

static int scan_push_step(struct scan *sc, const char *name, unsigned line)
{
	void *v = realloc(sc->steps, (sc->n_steps + 1) * sizeof(*sc->steps));

	if (!v)
		return -ENOMEM;
	sc->steps = v;
	snprintf(sc->steps[sc->n_steps].name, SECTION_MAX, "%s", name);
	sc->steps[sc->n_steps].line = line;
	sc->n_steps++;
	return 0;
}

int sg__scan_text(const char *file, const char *text, size_t len,
		     struct scan *sc, struct sg_error *err)
{
	const char *p = text, *end = text + len;
	unsigned line = 0;
	bool in_section = false;
	size_t bom = 0;

	/*
	 * inih skips a UTF-8 byte order mark on the first line; so do we,
	 * but its line buffer still holds the mark, so the mark counts
	 * towards the first line's length.
	 */
	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
		p += 3;
		bom = 3;
	}

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		size_t n = (size_t)(eol - p);
		const char *s = p, *e = eol, *bol = p;

		line++;
		if (memchr(p, '\0', n)) {
			sg_errorf(err, 0, file, line, "NUL byte in policy text");
			return -EINVAL;
		}
		if (line == 1)
			n += bom;
		if (n > SG_POLICY_MAX_LINE) {
			sg_errorf(err, 0, file, line,
				  "line too long (%zu bytes, at most %d)", n, SG_POLICY_MAX_LINE);
			return -EINVAL;
		}
		p = nl ? nl + 1 : end;

		while (s < e && sg__is_blank(*s))
			s++;
		while (e > s && sg__is_blank(e[-1]))
			e--;
		if (s == e || *s == ';' || *s == '#')
			continue;
		if (s != bol) {
			/* inih joins an indented line to the previous value. */
			sg_errorf(err, 0, file, line,
				  "indented line (continuation lines are not supported; remove the leading whitespace)");
			return -EINVAL;
		}
		if (*s == '[') {
			const char *close = memchr(s, ']', (size_t)(e - s));
			char name[SECTION_MAX];
			const char *step, *rest;
			size_t nlen;

			if (!close) {
				sg_errorf(err, 0, file, line, "section header without \"]\"");
				return -EINVAL;
			}
			for (rest = close + 1; rest < e && sg__is_blank(*rest); rest++)
				;
			if (rest < e && *rest != ';' && *rest != '#') {
				sg_errorf(err, 0, file, line, "text after the section header");
				return -EINVAL;
			}
			nlen = (size_t)(close - s - 1);
			if (nlen >= sizeof(name) || nlen >= SG_INIH_MAX_SECTION) {
				sg_errorf(err, 0, file, line, "section name too long (at most %d bytes)",
					      SG_INIH_MAX_SECTION - 1);
				return -EINVAL;
			}
			memcpy(name, s + 1, nlen);
			name[nlen] = '\0';
			switch (sg__section_kind(name, &step)) {
			case SEC_NONE:
				sg_errorf(err, 0, file, line,
					  "unknown section [%s] (known: stepguard, model-cli, credentials, scrub, writes, seccomp, step:NAME)",
					  name);
				return -EINVAL;
			case SEC_STEP:
				if (scan_push_step(sc, step, line) < 0)
					return -ENOMEM;
				break;
			default:
				break;
			}
			in_section = true;
			continue;
		}
		{
			const char *sep = NULL;

			for (const char *q = s; q < e; q++) {
				if (*q == '=' || *q == ':') {
					sep = q;
					break;
				}
				/* inih ends the line at an inline comment: no handler call. */
				if (*q == ';' && q > s && sg__is_blank(q[-1])) {
					sg_errorf(err, 0, file, line,
						  "expected \"key = value\" (a \";\" comment starts before the \"=\")");
					return -EINVAL;
				}
			}
			if (!sep || *sep != '=') {
				sg_errorf(err, 0, file, line,
					  "expected \"key = value\"%s",
					  sep ? " (use \"=\", not \":\")" : "");
				return -EINVAL;
			}
			if (sep == s) {
				sg_errorf(err, 0, file, line, "empty key");
				return -EINVAL;
			}
		}
		if (!in_section) {
			sg_errorf(err, 0, file, line, "key outside of a section");
			return -EINVAL;
		}
		if (scan_push_key(sc, line) < 0)
			return -ENOMEM;
	}
	return 0;
}
