// SPDX-License-Identifier: MIT
/*
 * audit/strings.c — strings from the log as `stepguard audit` shows them:
 * made safe for a terminal, cut to a path prefix, escaped for a GitHub
 * workflow command.  Pure functions.
 */
#include "audit/audit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at S (at most N bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		if (n < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))
			return 0; /* overlong, surrogate */
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		if (n < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		if ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

/*
 * Valid UTF-8 that a terminal still acts on: C1 controls (U+0080-009F,
 * which some terminals read as CSI and friends) and the bidi marks and
 * overrides that reorder what a reader sees (U+061C, U+200E-200F,
 * U+202A-202E, U+2066-2069).
 */
static bool unsafe_char(const unsigned char *s, size_t k)
{
	if (k == 2)
		return (s[0] == 0xc2 && s[1] < 0xa0) || (s[0] == 0xd8 && s[1] == 0x9c);
	if (k == 3 && s[0] == 0xe2 && s[1] == 0x80)
		return s[2] == 0x8e || s[2] == 0x8f || (s[2] >= 0xaa && s[2] <= 0xae);
	if (k == 3 && s[0] == 0xe2 && s[1] == 0x81)
		return s[2] >= 0xa6 && s[2] <= 0xa9;
	return false;
}

char *sg_audit_display(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	char *out = malloc(n * 4 + 1), *o = out;
	static const char hex[] = "0123456789abcdef";

	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t k = utf8_len(s + i, n - i);

		if (k == 0 || s[i] < 0x20 || s[i] == 0x7f || unsafe_char(s + i, k)) {
			for (size_t e = i + (k ? k : 1); i < e; i++) {
				*o++ = '\\';
				*o++ = 'x';
				*o++ = hex[s[i] >> 4];
				*o++ = hex[s[i] & 15];
			}
			continue;
		}
		memcpy(o, s + i, k);
		o += k;
		i += k;
	}
	*o = '\0';
	return out;
}

char *sg_audit_prefix(const char *path, unsigned depth, char *buf, size_t len)
{
	size_t end = strlen(path), o = 0;
	bool abs = path[0] == '/';
	unsigned taken = 0;

	if (!len)
		return buf;
	/* The object's own name is not part of its prefix: drop it (and
	 * the slashes after it, for "/tmp/"), keep its directory. */
	while (end > 0 && path[end - 1] == '/')
		end--;
	while (end > 0 && path[end - 1] != '/')
		end--;
	if (end == 0) {
		snprintf(buf, len, "%s", abs ? "/" : ".");
		return buf;
	}
	if (abs && o + 1 < len)
		buf[o++] = '/';
	for (size_t i = 0; i < end && taken < depth;) {
		size_t j = i;

		while (j < end && path[j] != '/')
			j++;
		if (j > i) {
			if (taken && o + 1 < len)
				buf[o++] = '/';
			for (size_t k = i; k < j && o + 1 < len; k++)
				buf[o++] = path[k];
			taken++;
		}
		i = j + 1;
	}
	buf[o] = '\0';
	return buf;
}

char *sg_audit_gh_escape(const char *s, bool property)
{
	char *out = malloc(strlen(s) * 3 + 1), *o = out;

	if (!out)
		return NULL;
	/* docs.github.com, "Workflow commands": the message escapes % CR LF;
	 * a property value also : and , which end or separate properties. */
	for (; *s; s++) {
		if (*s == '%' || *s == '\r' || *s == '\n' || (property && (*s == ':' || *s == ','))) {
			o += sprintf(o, "%%%02X", (unsigned char)*s);
			continue;
		}
		*o++ = *s;
	}
	*o = '\0';
	return out;
}
