/* SPDX-License-Identifier: MIT */
/*
 * exitcodes.h — stepguard's own exit statuses.
 *
 * When the step runs, stepguard exits with the step's status (128+N when
 * the step died of signal N).  Its own failures use statuses from
 * sysexits(3) that ordinary build and test commands rarely return, so a
 * CI log can tell "stepguard refused" from "the tests failed".
 * Documented in stepguard(1), EXIT STATUS.
 *
 * --unload exits SG_EXIT_OK (unloaded, or nothing to unload) or
 * SG_EXIT_CONFINE (the pins could not be removed: steps still confined,
 * no root).  `stepguard audit` uses 0, 64 and 71 as here, and two more
 * of its own, defined in audit/audit.h: 65 (EX_DATAERR, a line of a
 * log is not a record, or the last one is torn) and 74 (EX_IOERR, its
 * output or $GITHUB_STEP_SUMMARY could not be written); docs/audit.md.
 */
#ifndef STEPGUARD_EXITCODES_H
#define STEPGUARD_EXITCODES_H

enum sg_exit {
	SG_EXIT_OK = 0,
	SG_EXIT_SELFTEST = 1,   /* --self-test did not pass; see docs/self-test.md */
	SG_EXIT_USAGE = 64,     /* invalid command line or policy (EX_USAGE) */
	SG_EXIT_CONFINE = 71,   /* confinement unavailable or failed: fail closed (EX_OSERR) */
	SG_EXIT_REFUSED = 77,   /* refused by ruling 1 or 2 (EX_NOPERM) */
	SG_EXIT_NOEXEC = 126,   /* the command exists but cannot be executed */
	SG_EXIT_NOTFOUND = 127, /* the command was not found */
};

#endif
