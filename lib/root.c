// SPDX-License-Identifier: MIT
#include "lib/root.h"

#include <string.h>

bool sg_path_covers(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (strcmp(a, "/") == 0)
		return true;
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}
