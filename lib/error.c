// SPDX-License-Identifier: MIT
#include "lib/error.h"

#include <stdio.h>

int sg_verrorf(struct sg_error *err, int e, const char *file, unsigned line, const char *fmt,
	       va_list ap)
{
	if (!err)
		return e;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	err->line = line;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	return e;
}

int sg_errorf(struct sg_error *err, int e, const char *file, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sg_verrorf(err, e, file, line, fmt, ap);
	va_end(ap);
	return e;
}
