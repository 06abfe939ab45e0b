/* SPDX-License-Identifier: MIT */
/* strbuf.h — a growable string, and the small allocation helpers. */
#ifndef STEPGUARD_STRBUF_H
#define STEPGUARD_STRBUF_H

#include <stddef.h>

struct sg_strbuf {
	char *s;
	size_t len, cap;
};

#define SG_STRBUF_INIT { NULL, 0, 0 }

int sg_strbuf_addn(struct sg_strbuf *b, const char *s, size_t n);
int sg_strbuf_add(struct sg_strbuf *b, const char *s);
int sg_strbuf_addf(struct sg_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Take the string (never NULL after a successful add); B is reset. */
char *sg_strbuf_steal(struct sg_strbuf *b);
void sg_strbuf_free(struct sg_strbuf *b);

#endif
