/* SPDX-License-Identifier: MIT */
/* env.h — reading an environment block (envp), never the process's own. */
#ifndef STEPGUARD_ENV_H
#define STEPGUARD_ENV_H

/* The value of NAME in ENVP (first occurrence), or NULL. */
const char *sg_env_get(char *const *envp, const char *name);

#endif
