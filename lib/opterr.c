// SPDX-License-Identifier: MIT
#include "lib/opterr.h"

#include <stdio.h>
#include <string.h>

void sg_option_error(char *msg, size_t len, int c, char *const argv[], int at, int opt,
		     const struct option *longopts, const char *help)
{
	const char *arg;
	char name[8];

	/*
	 * A permuting getopt_long() (audit's) skips operands before it scans
	 * the next option; it moves only what lies before optind, so the
	 * argument at fault is the first from AT on that looks like an option.
	 */
	if (at < 1)
		at = 1;
	while (argv[at] && (argv[at][0] != '-' || argv[at][1] == '\0'))
		at++;
	arg = argv[at];

	if (!arg) { /* not where getopt_long() can fail; say something true */
		snprintf(msg, len, "invalid command line (see %s)", help);
		return;
	}
	if (strncmp(arg, "--", 2) == 0) {
		int n = (int)strcspn(arg + 2, "="), matches = 0;

		if (c == ':') {
			snprintf(msg, len, "option --%.*s needs a value (see %s)", n, arg + 2, help);
			return;
		}
		/* a known long option with "=VALUE" it does not take */
		if (opt) {
			snprintf(msg, len, "option --%.*s takes no value, given \"%s\" (see %s)", n,
				 arg + 2, arg, help);
			return;
		}
		if (n == 0) { /* "--=VALUE" */
			snprintf(msg, len, "unknown option \"%s\" (see %s)", arg, help);
			return;
		}
		for (const struct option *l = longopts; l && l->name; l++)
			if (strncmp(l->name, arg + 2, (size_t)n) == 0)
				matches++;
		snprintf(msg, len, "%s option --%.*s (see %s)", matches > 1 ? "ambiguous" : "unknown",
			 n, arg + 2, help);
		return;
	}
	/*
	 * A short option, alone or in a cluster: getopt_long() has not moved
	 * optind past a cluster it is still inside, so argv[optind - 1] may be
	 * the argument before ("-xv" was reported as "stepguard"); name the
	 * letter from optopt and the argument from AT.
	 */
	if (opt > ' ' && opt < 0x7f)
		snprintf(name, sizeof(name), "-%c", opt);
	else
		snprintf(name, sizeof(name), "-\\x%02x", (unsigned)opt & 0xffU);
	if (strcmp(arg, name) == 0)
		snprintf(msg, len, "%s %s%s (see %s)", c == ':' ? "option" : "unknown option", name,
			 c == ':' ? " needs a value" : "", help);
	else
		snprintf(msg, len, "%s %s%s in \"%s\" (see %s)",
			 c == ':' ? "option" : "unknown option", name,
			 c == ':' ? " needs a value" : "", arg, help);
}
