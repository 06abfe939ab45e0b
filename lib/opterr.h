/* SPDX-License-Identifier: MIT */
/* opterr.h — one wording for getopt_long()'s failures, for every command. */
#ifndef STEPGUARD_OPTERR_H
#define STEPGUARD_OPTERR_H

#include <getopt.h>
#include <stddef.h>

/*
 * The message for getopt_long()'s '?' or ':' (C, with OPT its optopt),
 * naming the option at fault as the user wrote it ("-x", "--bogus"), and
 * the argument it was in when that is a cluster ("-vx"), or the value a
 * long option does not take ("--check=1").  getopt_long() itself names
 * neither: inside a cluster optind has not moved, so argv[optind - 1] may
 * be the argument before.  AT is optind before the failed call (1 after
 * optind = 0); ARGV ends with NULL, as main's does.  LONGOPTS tells an
 * ambiguous abbreviation from an unknown name; HELP is the command to
 * point at ("stepguard --help").
 */
void sg_option_error(char *msg, size_t len, int c, char *const argv[], int at, int opt,
		     const struct option *longopts, const char *help);

#endif
