// SPDX-License-Identifier: MIT
/* options.c — getopt_long over stepguard's options; no side effects. */
#include "launcher/options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/env.h"
#include "lib/opterr.h"

const char sg_usage[] =
	"usage: stepguard [OPTIONS] -- COMMAND [ARG]...\n"
	"       stepguard --check [OPTIONS] [-- COMMAND [ARG]...]\n"
	"       stepguard --self-test [--json] [--model-cli PATH] [OPTIONS]\n"
	"       stepguard audit [--json|--github] [--step NAME] [LOG...]\n"
	"\n"
	"Run COMMAND confined: writes outside the work directory and the policy's\n"
	"allowed roots are refused, and the step is refused before it starts if it\n"
	"sets the model CLI's scrub or holds its credential without --tools \"\".\n"
	"\n"
	"  -p, --policy FILE        main policy file (default /etc/stepguard/stepguard.ini)\n"
	"      --rules-dir DIR      drop-in directory (default /etc/stepguard/rules.d)\n"
	"  -s, --step NAME          step name: selects [step:NAME], names the log records\n"
	"  -w, --workdir DIR        the step's writable root (default: current directory)\n"
	"      --allow-write PATH   another writable root (repeatable)\n"
	"      --filter BACKEND     auto, bpf-lsm, bpf-fmod or landlock\n"
	"      --mode MODE          enforce or audit\n"
	"      --log FILE           append JSON records to FILE\n"
	"      --user NAME|UID      run the step as this user (root only; default\n"
	"                           under sudo: the invoking user)\n"
	"      --check              validate the policy and decide, without running\n"
	"      --self-test          prove the confinement on this machine\n"
	"      --model-cli PATH     with --self-test: also run the model CLI at PATH as a\n"
	"                           ruling step, against a stub API, with planted hooks\n"
	"      --unload [--force]   remove the pinned eBPF filter (root)\n"
	"      --json               machine-readable --self-test output\n"
	"  -v, --verbose            say more (repeatable)\n"
	"  -q, --quiet              only errors\n"
	"      --version            print the version\n"
	"  -h, --help               print this help\n"
	"\n"
	"Environment: STEPGUARD_POLICY, STEPGUARD_STEP, STEPGUARD_LOG.\n"
	"Exit status: the command's; 64 usage or policy error; 77 refused by a ruling;\n"
	"71 confinement unavailable or failed; 126 not executable; 127 not found.\n"
	"See stepguard(1) and stepguard.ini(5).\n";

enum {
	OPT_RULES_DIR = 256,
	OPT_ALLOW_WRITE,
	OPT_FILTER,
	OPT_MODE,
	OPT_LOG,
	OPT_CHECK,
	OPT_SELF_TEST,
	OPT_JSON,
	OPT_VERSION,
	OPT_USER,
	OPT_UNLOAD,
	OPT_FORCE,
	OPT_MODEL_CLI,
};

static const struct option long_options[] = {
	{ "policy", required_argument, NULL, 'p' },
	{ "rules-dir", required_argument, NULL, OPT_RULES_DIR },
	{ "step", required_argument, NULL, 's' },
	{ "workdir", required_argument, NULL, 'w' },
	{ "allow-write", required_argument, NULL, OPT_ALLOW_WRITE },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "user", required_argument, NULL, OPT_USER },
	{ "unload", no_argument, NULL, OPT_UNLOAD },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "self-test", no_argument, NULL, OPT_SELF_TEST },
	{ "model-cli", required_argument, NULL, OPT_MODEL_CLI },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* An option's value refused: "WHAT: "ARG"", about no file. */
static int bad(struct sg_error *err, const char *what, const char *arg)
{
	return sg_errorf(err, -EINVAL, NULL, 0, "%s: \"%s\"", what, arg);
}

/* Step names appear in logs and select [step:NAME]: keep them plain. */
static int check_step_name(const char *s, struct sg_error *err)
{
	if (!*s)
		return bad(err, "empty step name", s);
	for (const char *q = s; *q; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		      (*q >= '0' && *q <= '9') || *q == '_' || *q == '-' || *q == '.'))
			return bad(err, "invalid step name (use [A-Za-z0-9_.-])", s);
	return 0;
}

int sg_options_parse(int argc, char **argv, char *const envp[], struct sg_options *o,
		     struct sg_error *err)
{
	const char *env;
	int c, at = 1; /* the argument getopt_long() scans next (for sg_option_error) */

	memset(o, 0, sizeof(*o));
	/* Our own messages only; optind = 0 also resets getopt between calls. */
	opterr = 0;
	optind = 0;
	/* '+': stop at the first operand, so the command's own options are its own. */
	while ((c = getopt_long(argc, argv, "+:p:s:w:vqh", long_options, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->policy = optarg;
			o->policy_explicit = true;
			break;
		case OPT_RULES_DIR:
			o->rules_dir = optarg;
			break;
		case 's':
			o->step = optarg;
			break;
		case 'w':
			o->workdir = optarg;
			break;
		case OPT_ALLOW_WRITE: {
			const char **v = realloc(o->allow_write, (o->n_allow_write + 1) * sizeof(*v));

			if (!v)
				return sg_errorf(err, -ENOMEM, NULL, 0, "out of memory");
			o->allow_write = v;
			if (!*optarg)
				return bad(err, "--allow-write needs a path", optarg);
			o->allow_write[o->n_allow_write++] = optarg;
			break;
		}
		case OPT_FILTER:
			if (sg_filter_parse(optarg, &o->filter) < 0)
				return bad(err,
					   "--filter takes auto, bpf-lsm, bpf-fmod or landlock, not", optarg);
			break;
		case OPT_MODE:
			if (sg_mode_parse(optarg, &o->mode) < 0)
				return bad(err, "--mode takes enforce or audit, not", optarg);
			break;
		case OPT_LOG:
			if (!*optarg)
				return bad(err, "--log needs a path", optarg);
			o->log = optarg;
			break;
		case OPT_USER:
			if (!*optarg)
				return bad(err, "--user needs a name or uid", optarg);
			o->user = optarg;
			break;
		case OPT_UNLOAD:
			o->unload = true;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case OPT_CHECK:
			o->check = true;
			break;
		case OPT_SELF_TEST:
			o->self_test = true;
			break;
		case OPT_MODEL_CLI:
			if (!*optarg)
				return bad(err, "--model-cli needs the path of the model CLI", optarg);
			o->model_cli = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_VERSION:
			o->version = true;
			break;
		case 'h':
			o->help = true;
			break;
		case ':':
		case '?':
		default:
			sg_errorf(err, -EINVAL, NULL, 0, "%s", "");
			sg_option_error(err->msg, sizeof(err->msg), c, argv, at, optopt, long_options,
					"stepguard --help");
			return -EINVAL;
		}
		at = optind;
	}
	o->argv = argv + optind;
	o->argc = argc - optind;

	/* The environment fills in what the command line did not say. */
	if (!o->policy && (env = sg_env_get(envp, "STEPGUARD_POLICY")) && *env) {
		o->policy = env;
		o->policy_explicit = true;
	}
	if (!o->step && (env = sg_env_get(envp, "STEPGUARD_STEP")) && *env)
		o->step = env;
	if (!o->log && (env = sg_env_get(envp, "STEPGUARD_LOG")) && *env)
		o->log = env;

	if (o->step && check_step_name(o->step, err) < 0)
		return -EINVAL;
	if (o->policy && !*o->policy)
		return bad(err, "--policy needs a file", o->policy);
	if (o->quiet && o->verbose)
		return sg_errorf(err, -EINVAL, NULL, 0, "--quiet and --verbose contradict each other");
	if (o->json && !o->self_test)
		return sg_errorf(err, -EINVAL, NULL, 0, "--json goes with --self-test");
	if (o->model_cli && !o->self_test)
		return sg_errorf(err, -EINVAL, NULL, 0, "--model-cli goes with --self-test");
	if (o->check && o->self_test)
		return sg_errorf(err, -EINVAL, NULL, 0, "--check and --self-test are separate modes; give one");
	if (o->force && !o->unload)
		return sg_errorf(err, -EINVAL, NULL, 0, "--force goes with --unload");
	if (o->unload && (o->check || o->self_test || o->argc > 0))
		return sg_errorf(err, -EINVAL, NULL, 0, "--unload is a mode of its own: no command, no --check or --self-test");
	if (o->self_test && o->argc > 0)
		return sg_errorf(err, -EINVAL, NULL, 0, "--self-test runs its own probe and takes no command");
	if (!o->help && !o->version && !o->check && !o->self_test && !o->unload && o->argc == 0)
		return sg_errorf(err, -EINVAL, NULL, 0, "no command given (usage: stepguard [OPTIONS] -- COMMAND [ARG]...)");
	return 0;
}

void sg_options_free(struct sg_options *o)
{
	free(o->allow_write);
	o->allow_write = NULL;
	o->n_allow_write = 0;
}
