/* SPDX-License-Identifier: MIT */
/*
 * caps.h — what a step runs without: capabilities, core dumps, other
 * processes' IPC objects.  Each returns 0 or -errno.
 */
#ifndef STEPGUARD_CONFINE_CAPS_H
#define STEPGUARD_CONFINE_CAPS_H

#include <stdbool.h>
#include <stdint.h>

/* Is capability CAP in this process's effective set? */
bool sg_caps_have(unsigned cap);

/*
 * Remove the capabilities in DROP (bit n: capability n) from this
 * process's bounding set (when it may: CAP_SETPCAP) and from its
 * effective, permitted and inheritable sets, and so its ambient set.
 */
int sg_caps_drop(uint64_t drop);

/*
 * RLIMIT_CORE soft and hard to 1: no core file, no core_pattern pipe
 * helper.  Where the hard limit is already 0 and cannot be raised, it is
 * left so (no core file), and *HELPER_LEFT says whether core_pattern is
 * a pipe, whose helper a crash would still run.
 */
int sg_caps_no_core(bool *helper_left);

/* A new IPC namespace for this process and what it forks (CAP_SYS_ADMIN). */
int sg_caps_private_ipc(void);

#endif
