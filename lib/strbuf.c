// SPDX-License-Identifier: MIT
#include "lib/strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(struct sg_strbuf *b, size_t extra)
{
	size_t need = b->len + extra + 1, cap;
	char *s;

	if (need < b->len) /* overflow */
		return -ENOMEM;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	s = realloc(b->s, cap);
	if (!s)
		return -ENOMEM;
	b->s = s;
	b->cap = cap;
	return 0;
}

int sg_strbuf_addn(struct sg_strbuf *b, const char *s, size_t n)
{
	if (grow(b, n) < 0)
		return -ENOMEM;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

int sg_strbuf_add(struct sg_strbuf *b, const char *s)
{
	return sg_strbuf_addn(b, s, strlen(s));
}

int sg_strbuf_addf(struct sg_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if (grow(b, (size_t)n) < 0)
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

char *sg_strbuf_steal(struct sg_strbuf *b)
{
	char *s = b->s;

	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void sg_strbuf_free(struct sg_strbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}
