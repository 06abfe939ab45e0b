/* SPDX-License-Identifier: MIT */
/*
 * summary.h — what a step's refusals add up to, said when it ends
 * (issue 15): how many, under which directories, and the fix.
 *
 *   stepguard: 12 writes refused under /home/ci/.npm (mkdir, create); if this step should write there: --allow-write /home/ci/.npm
 *
 * Pure: fed every struct sg_denial the launcher sees, it prints to a
 * FILE *.  It makes no system calls, so its tests need no kernel.
 *
 * The grouping rule (docs/design.md, "The summary at the end of a step"):
 *   - a write refused outside the roots counts for the directory its
 *     object is in: the parent of the record's path (for a rename or a
 *     link the first path, the one the record names);
 *   - a group whose directory lies beneath another group's directory is
 *     folded into the highest such ancestor, unless that ancestor cannot
 *     be a writable root ("/", the home directory or one of its
 *     ancestors: stepguard refuses those, so the fix would be refused);
 *   - groups are ordered by count, ties by path; the SG_SUMMARY_TOP
 *     largest are printed, one more line counts the rest;
 *   - refusals that no writable root would change (guards, execs, a
 *     path that could not be had whole, a reason other than "outside")
 *     are one line of their own, without a fix.
 * Memory is bounded: at most SG_SUMMARY_MAX_DIRS directories are kept,
 * each a copy of at most one path; a refusal in a further directory is
 * counted in its kept ancestor if there is one, else "elsewhere".
 */
#ifndef STEPGUARD_SUMMARY_H
#define STEPGUARD_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/denial.h"

#define SG_SUMMARY_MAX_DIRS 256 /* directories kept; the rest: "elsewhere" */
#define SG_SUMMARY_TOP 5        /* groups printed; one more line counts the rest */
#define SG_SUMMARY_MAX_OPS 4    /* op names in a group's parentheses, then "..." */
#define SG_SUMMARY_MAX_LABEL 32 /* bytes of a suggested write.LABEL */

struct sg_summary;

/*
 * A new, empty summary.  HOME is the step's home directory, resolved
 * (sg_roots_home()), or NULL when it has none: no fix names it or an
 * ancestor.  It is copied.  NULL when out of memory.
 */
struct sg_summary *sg_summary_new(const char *home);
void sg_summary_free(struct sg_summary *s);

/* Count one refusal.  D's strings are copied where kept. S may be NULL. */
void sg_summary_add(struct sg_summary *s, const struct sg_denial *d);

/* Refusals counted, and how many of them were only audited.  0 for NULL. */
unsigned long long sg_summary_count(const struct sg_summary *s);
unsigned long long sg_summary_audited(const struct sg_summary *s);

/*
 * Whether a step that ended FAILED (non-zero), with VERBOSE (-v), gets a
 * summary: when something was refused and the step failed or -v was
 * given, and in audit mode whenever a write was let through (finding
 * those is the point of a roll-out).  -q is the caller's to check.
 */
bool sg_summary_wanted(const struct sg_summary *s, bool failed, bool verbose);

/* What the fix may name, and what the counts miss. */
struct sg_summary_fix {
	const char *step;           /* --step NAME; NULL: an unnamed step */
	const char *const *labels;  /* write labels the policy already has ([writes] and the step's) */
	size_t n_labels;
	unsigned long long lost;    /* refusals the backend could not report (end.lost) */
};

/*
 * Print the summary's lines, each starting "stepguard: ".  Folds the
 * groups first (which changes S; printing again prints the same).
 * Paths are escaped as sg_denial_print() escapes them.
 */
void sg_summary_print(struct sg_summary *s, FILE *f, const struct sg_summary_fix *fix);

#endif
