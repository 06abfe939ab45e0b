// SPDX-License-Identifier: MIT
#include "policy/expand.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/env.h"
#include "lib/strbuf.h"

static bool valid_env_name(const char *s, size_t n)
{
	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9')))
			return false;
	}
	return true;
}

static int fail(char *msg, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (msg && len)
		vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int sg_expand(const char *in, const struct sg_expand_vars *vars, char **out,
	      char *msg, size_t msglen)
{
	struct sg_strbuf b = SG_STRBUF_INIT;
	const char *p = in;

	if (out)
		*out = NULL;
	while (*p) {
		const char *val, *end, *name;
		size_t n;

		if (*p != '$') {
			if (vars && sg_strbuf_addn(&b, p, 1) < 0)
				goto nomem;
			p++;
			continue;
		}
		if (p[1] == '$') {
			if (vars && sg_strbuf_addn(&b, "$", 1) < 0)
				goto nomem;
			p += 2;
			continue;
		}
		if (p[1] != '{') {
			sg_strbuf_free(&b);
			return fail(msg, msglen,
				    "stray \"$\" in \"%s\" (write \"$$\" for a literal \"$\")", in);
		}
		end = strchr(p + 2, '}');
		if (!end) {
			sg_strbuf_free(&b);
			return fail(msg, msglen, "unterminated \"${\" in \"%s\"", in);
		}
		name = p + 2;
		n = (size_t)(end - name);
		val = NULL;
		if (n == 7 && strncmp(name, "WORKDIR", 7) == 0) {
			if (vars && (!(val = vars->workdir) || !*val)) {
				sg_strbuf_free(&b);
				return fail(msg, msglen, "${WORKDIR} is not known here");
			}
		} else if (n == 4 && strncmp(name, "HOME", 4) == 0) {
			if (vars && (!(val = vars->home) || !*val)) {
				sg_strbuf_free(&b);
				return fail(msg, msglen,
					    "${HOME} is used but HOME is %s (set HOME, or remove the entry)",
					    val ? "empty" : "not set");
			}
		} else if (n > 4 && strncmp(name, "env:", 4) == 0) {
			if (!valid_env_name(name + 4, n - 4)) {
				sg_strbuf_free(&b);
				return fail(msg, msglen, "invalid variable name in \"%.*s\"",
					    (int)(n + 3), p);
			}
			if (vars) {
				char var[256];

				if (n - 4 >= sizeof(var)) {
					sg_strbuf_free(&b);
					return fail(msg, msglen, "variable name too long in \"%s\"", in);
				}
				memcpy(var, name + 4, n - 4);
				var[n - 4] = '\0';
				val = sg_env_get(vars->envp, var);
				if (!val || !*val) {
					sg_strbuf_free(&b);
					return fail(msg, msglen,
						    "${env:%s} is used but %s is %s (set it, or remove the entry)",
						    var, var, val ? "empty" : "not set");
				}
			}
		} else {
			sg_strbuf_free(&b);
			return fail(msg, msglen,
				    "unknown expansion \"%.*s\" (known: ${WORKDIR}, ${HOME}, ${env:NAME})",
				    (int)(n + 3), p);
		}
		if (vars && sg_strbuf_add(&b, val) < 0)
			goto nomem;
		p = end + 1;
	}
	if (!vars) {
		sg_strbuf_free(&b);
		return 0;
	}
	if (sg_strbuf_add(&b, "") < 0) /* an empty input still yields "" */
		goto nomem;
	if (out)
		*out = sg_strbuf_steal(&b);
	sg_strbuf_free(&b);
	return 0;
nomem:
	sg_strbuf_free(&b);
	return -ENOMEM;
}
