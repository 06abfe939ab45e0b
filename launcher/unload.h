/* SPDX-License-Identifier: MIT */
/* unload.h — stepguard --unload. */
#ifndef STEPGUARD_UNLOAD_H
#define STEPGUARD_UNLOAD_H

#include "launcher/options.h"

/* Prints what it did; returns stepguard's exit status. */
int sg_unload_run(const struct sg_options *o);

#endif
