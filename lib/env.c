// SPDX-License-Identifier: MIT
#include "lib/env.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
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

int sg_env_set(char ***envp, const char *name, const char *value)
{
	size_t len = strlen(name), n = 0;
	char *entry, **v;

	if (asprintf(&entry, "%s=%s", name, value) < 0)
		return -ENOMEM;
	for (; (*envp)[n]; n++)
		if (strncmp((*envp)[n], name, len) == 0 && (*envp)[n][len] == '=') {
			free((*envp)[n]);
			(*envp)[n] = entry;
			return 0;
		}
	v = realloc(*envp, (n + 2) * sizeof(*v));
	if (!v) {
		free(entry);
		return -ENOMEM;
	}
	v[n] = entry;
	v[n + 1] = NULL;
	*envp = v;
	return 0;
}
