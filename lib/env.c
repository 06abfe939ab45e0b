// SPDX-License-Identifier: MIT
#include "lib/env.h"

#include <stddef.h>
#include <string.h>

const char *sg_env_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	if (!envp)
		return NULL;
	for (; *envp; envp++)
		if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}
