/* SPDX-License-Identifier: MIT */
/*
 * env.h — an environment block (envp), never the process's own: read
 * one, or set a variable in one this program allocated (each entry and
 * the array from malloc, NULL-terminated, as sg_user_env() makes it).
 */
#ifndef STEPGUARD_ENV_H
#define STEPGUARD_ENV_H

/* The value of NAME in ENVP (first occurrence), or NULL. */
const char *sg_env_get(char *const *envp, const char *name);

/* Set NAME=VALUE in *ENVP, replacing its first occurrence; 0 or -ENOMEM. */
int sg_env_set(char ***envp, const char *name, const char *value);

#endif
