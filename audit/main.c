// SPDX-License-Identifier: MIT
/*
 * audit/main.c — `stepguard audit`: options, the logs it opens, the
 * output it writes and the job summary it appends to.  The reading and
 * counting are in audit.c, the formats in audit/report.c.
 */
#include "audit/audit.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/exitcodes.h"
#include "lib/opterr.h"
#include "lib/env.h"

static const char audit_usage[] =
	"usage: stepguard audit [--json | --github] [--step NAME] [LOG...]\n"
	"\n"
	"Summarise stepguard's JSON log (--log): denials by step, operation,\n"
	"process and path prefix.  With no LOG, or LOG \"-\", read standard input.\n"
	"\n"
	"      --json         one JSON document for machines\n"
	"      --github       GitHub workflow annotations; if GITHUB_STEP_SUMMARY is\n"
	"                     set, also append a Markdown summary to that file\n"
	"  -s, --step NAME    only the records of step NAME (\"\": unnamed steps)\n"
	"  -h, --help         print this help\n"
	"\n"
	"Exit status: 0 summarised; 64 usage error or a LOG that cannot be read;\n"
	"65 a line is not a record (it is reported, the rest is summarised);\n"
	"71 out of memory; 74 the output or the step summary cannot be written.\n"
	"See docs/audit.md.\n";

enum { OPT_JSON = 256, OPT_GITHUB };

static const struct option audit_options[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "github", no_argument, NULL, OPT_GITHUB },
	{ "step", required_argument, NULL, 's' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

enum format { FMT_TEXT, FMT_JSON, FMT_GITHUB };

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "stepguard: audit: %s: \"%s\" (see stepguard audit --help)\n", what, arg);
	return SG_EXIT_USAGE;
}

/* Every LOG is opened before anything is read: a name that cannot be
 * read stops the audit before it prints a summary that looks whole. */
static int open_logs(char **names, int n, FILE **files)
{
	for (int i = 0; i < n; i++) {
		struct stat st;

		files[i] = strcmp(names[i], "-") == 0 ? stdin : fopen(names[i], "re");
		if (!files[i]) {
			fprintf(stderr, "stepguard: audit: %s: %s\n", names[i], strerror(errno));
			return -1;
		}
		if (fstat(fileno(files[i]), &st) == 0 && S_ISDIR(st.st_mode)) {
			fprintf(stderr, "stepguard: audit: %s: %s\n", names[i], strerror(EISDIR));
			return -1;
		}
	}
	return 0;
}

/* All of LEN bytes at BUF to FD; 0 or -errno. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

/*
 * Append the Markdown summary to PATH.  O_APPEND and never O_TRUNC: the
 * file holds what earlier steps of the job wrote.  The text is built in
 * memory first and written in one go, so a failure leaves no half table.
 */
static int append_summary(const struct sg_audit *a, const char *path)
{
	char *md = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&md, &len);
	int fd, r;

	if (!m)
		return -ENOMEM;
	r = sg_audit_print_markdown(a, m);
	if (fclose(m) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0) {
		free(md);
		return r;
	}
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0666);
	if (fd < 0) {
		r = -errno;
	} else {
		r = write_all(fd, md, len);
		if (close(fd) < 0 && r == 0)
			r = -errno;
	}
	free(md);
	return r;
}

/* 0; 1: the job summary could not be written (said here); -ENOMEM; -EIO. */
static int report(const struct sg_audit *a, enum format fmt, char *const envp[])
{
	const char *summary = sg_env_get(envp, "GITHUB_STEP_SUMMARY");
	json_object *j;
	int r;

	switch (fmt) {
	case FMT_JSON:
		j = sg_audit_json(a);
		if (!j)
			return -ENOMEM;
		puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(j);
		return 0;
	case FMT_GITHUB:
		r = sg_audit_print_github(a, stdout);
		if (r < 0 || !summary || !*summary)
			return r;
		r = append_summary(a, summary);
		if (r < 0 && r != -ENOMEM) {
			fprintf(stderr, "stepguard: audit: GITHUB_STEP_SUMMARY %s: %s\n", summary,
				strerror(-r));
			return 1; /* said here; the status is the output's */
		}
		return r;
	case FMT_TEXT:
	default:
		return sg_audit_print_text(a, stdout);
	}
}

int sg_audit_main(int argc, char **argv, char *const envp[])
{
	enum format fmt = FMT_TEXT;
	const char *only_step = NULL;
	char stdin_name[] = "-";
	char *dash[] = { stdin_name };
	char **names;
	FILE **files = NULL;
	struct sg_audit a;
	int n, c, r, status = SG_EXIT_OK, at = 1; /* at: for sg_option_error() */

	/* Our own messages only; optind = 0 also resets getopt after main's. */
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":s:h", audit_options, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
		case OPT_GITHUB:
			if (fmt != FMT_TEXT)
				return usage_error("give one of --json and --github, not both",
						   argv[optind - 1]);
			fmt = c == OPT_JSON ? FMT_JSON : FMT_GITHUB;
			break;
		case 's':
			only_step = optarg;
			break;
		case 'h':
			fputs(audit_usage, stdout);
			return SG_EXIT_OK;
		case ':':
		case '?':
		default: {
			char msg[512];

			sg_option_error(msg, sizeof(msg), c, argv, at, optopt, audit_options,
					"stepguard audit --help");
			fprintf(stderr, "stepguard: audit: %s\n", msg);
			return SG_EXIT_USAGE;
		}
		}
		at = optind;
	}
	names = optind < argc ? argv + optind : dash;
	n = optind < argc ? argc - optind : 1;

	files = calloc((size_t)n, sizeof(*files)); // NOLINT(bugprone-sizeof-expression): an array of FILE *, so the pointer's size is meant
	if (!files || sg_audit_init(&a, only_step) < 0) {
		free(files);
		fputs("stepguard: audit: out of memory\n", stderr);
		return SG_AUDIT_EXIT_NOMEM;
	}
	if (open_logs(names, n, files) < 0) {
		status = SG_EXIT_USAGE;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		r = sg_audit_read(&a, files[i], strcmp(names[i], "-") == 0 ? "(stdin)" : names[i]);
		if (r == -ENOMEM) {
			fputs("stepguard: audit: out of memory\n", stderr);
			status = SG_AUDIT_EXIT_NOMEM;
			goto out;
		}
		if (r < 0) {
			fprintf(stderr, "stepguard: audit: %s: %s\n", names[i], strerror(-r));
			status = SG_EXIT_USAGE;
			goto out;
		}
	}
	sg_audit_print_problems(&a, stderr);
	r = report(&a, fmt, envp);
	if ((fflush(stdout) != 0 || ferror(stdout)) && r <= 0)
		r = r ? r : errno ? -errno : -EIO;
	if (r > 0) {
		status = SG_AUDIT_EXIT_IOERR;
	} else if (r == -ENOMEM) {
		fputs("stepguard: audit: out of memory\n", stderr);
		status = SG_AUDIT_EXIT_NOMEM;
	} else if (r < 0) {
		fprintf(stderr, "stepguard: audit: cannot write the output: %s\n", strerror(-r));
		status = SG_AUDIT_EXIT_IOERR;
	} else if (a.problem_lines) {
		/* The summary is printed, but a log that is not whole is not a pass. */
		status = SG_AUDIT_EXIT_DATAERR;
	}
out:
	for (int i = 0; i < n; i++)
		if (files[i] && files[i] != stdin)
			(void)fclose(files[i]); /* read only: nothing to lose */
	free(files);
	sg_audit_free(&a);
	return status;
}
