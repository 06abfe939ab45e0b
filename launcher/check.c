// SPDX-License-Identifier: MIT
#include "launcher/check.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "bpf/loader.h"
#include "confine/confine.h"
#include "lib/exitcodes.h"

static void origin(FILE *f, const struct sg_origin *o)
{
	if (o->file)
		fprintf(f, " (%s:%u)", o->file, o->line);
}

static int report(FILE *f, const struct sg_plan *pl, const struct sg_roots *roots,
		  const struct sg_error *root_err, const struct sg_confine *conf,
		  const char *confine_err)
{
	const struct sg_options *o = pl->o;
	const struct sg_policy *p = &pl->policy;
	const struct sg_sources *srcs = &pl->sources;
	const struct sg_step *step = pl->step;
	const struct sg_settings *eff = &pl->eff;
	const struct sg_ruling *ruling = &pl->ruling;
	char *const *envp = pl->env;
	const char *scrub = sg_scrub_set(p, envp), *cred = sg_credential_held(p, envp);
	char msg[2048];
	int status = SG_EXIT_OK;

	if (!o->quiet) {
		fprintf(f, "# policy sources, in the order merged:\n");
		for (size_t i = 0; i < srcs->n; i++)
			fprintf(f, "#   %s: %s\n", srcs->v[i].name, srcs->v[i].state);
		fprintf(f, "# effective policy (each key after the file and line it comes from):\n\n");
		sg_policy_dump(p, f, true);
		fprintf(f, "\n# ---- this step ----\n");
		if (o->step)
			fprintf(f, "# step: %s (%s)\n", o->step,
				step ? "its [step:...] section applies" : "no [step:...] section; defaults apply");
		else
			fprintf(f, "# step: (none given)\n");
		fprintf(f, "# mode: %s", sg_mode_name(eff->mode));
		if (o->mode != SG_MODE_UNSET)
			fprintf(f, " (--mode)");
		else
			origin(f, &eff->mode_origin);
		fprintf(f, "\n# filter: %s", sg_filter_name(eff->filter));
		if (o->filter != SG_FILTER_UNSET)
			fprintf(f, " (--filter)");
		else
			origin(f, &eff->filter_origin);
		fprintf(f, "\n# log: ");
		if (o->log)
			fprintf(f, "%s (--log or STEPGUARD_LOG)\n", o->log);
		else if (eff->log.set && *eff->log.s)
			fprintf(f, "%s (%s:%u)\n", eff->log.s, eff->log.origin.file,
				eff->log.origin.line);
		else
			fprintf(f, "(none)\n");
		if (roots) {
			fprintf(f, "# writable roots, as resolved now:\n");
			for (size_t i = 0; i < roots->n; i++) {
				const struct sg_root *e = &roots->v[i];

				if (e->fd < 0)
					fprintf(f, "#   %s: %s -> absent, skipped", e->what, e->given);
				else if (strcmp(e->given, e->path) != 0)
					fprintf(f, "#   %s: %s -> %s", e->what, e->given, e->path);
				else
					fprintf(f, "#   %s: %s", e->what, e->path);
				origin(f, &e->origin);
				fputc('\n', f);
			}
		}
		if (roots && pl->tmp.on) {
			fprintf(f, "#   temporary directory: a new one under %s (base: %s), made at the start;"
				   " TMPDIR, TMP, TEMP and TEMPDIR name it; ",
				pl->tmp.base, pl->tmp.base_why);
			if (pl->tmp.keep) {
				fprintf(f, "kept at the end");
				origin(f, &pl->tmp.origin);
			} else {
				fprintf(f, "removed at the end");
			}
			fputc('\n', f);
		} else if (roots) {
			fprintf(f, "# temporary directory: none");
			origin(f, &pl->tmp.origin);
			fprintf(f, "; TMPDIR and its kin are passed as they are\n");
		}
		if (roots && pl->sockets.n) {
			fprintf(f, "# sockets the step may connect to outside its roots ([sockets] allow):\n");
			for (size_t i = 0; i < pl->sockets.n; i++) {
				const struct sg_root *e = &pl->sockets.v[i];

				if (e->fd < 0)
					fprintf(f, "#   %s -> absent, skipped\n", e->given);
				else if (strcmp(e->given, e->path) != 0)
					fprintf(f, "#   %s -> %s\n", e->given, e->path);
				else
					fprintf(f, "#   %s\n", e->path);
			}
		}
		if (!pl->user.drop && geteuid() == 0) {
			char caps[512];

			fprintf(f, "# capabilities: the step runs as root without %s\n",
				sg_caps_str(p->dropped_caps, caps, sizeof(caps)));
		}
		fprintf(f, "# core dumps: %s\n",
			p->core_dumps == SG_YES ? "allowed ([stepguard] core-dumps = yes)"
						: "none (RLIMIT_CORE 1: no core file, no core_pattern helper)");
		if (scrub)
			fprintf(f, "# ruling 1 (scrub): applies, %s is set\n", scrub);
		else
			fprintf(f, "# ruling 1 (scrub): does not apply, no scrub variable is set\n");
		if (cred)
			fprintf(f, "# ruling 2 (credential): applies, %s is held\n", cred);
		else
			fprintf(f, "# ruling 2 (credential): does not apply, no credential variable is held\n");
		if (pl->exec_restricted && pl->execs_r < 0)
			/*
			 * A warning, not the decision: --check judges the policy
			 * and the command line; the run exits 127 (or 71) here,
			 * as it would for any command it cannot find.
			 */
			fprintf(f, "# warning: the step's executables cannot be resolved: %s\n",
				sg_credential_in(p, envp, pl->execs_err.msg)
					? "(the message holds a credential, not shown)"
					: pl->execs_err.msg);
		if (pl->exec_restricted && pl->execs_r == 0) {
			fprintf(f, "# executable by the step (ruling step; every other exec is refused):\n");
			for (size_t i = 0; i < pl->execs.n; i++) {
				const struct sg_root *e = &pl->execs.v[i];

				if (e->fd < 0)
					fprintf(f, "#   %s: %s -> not found, allows nothing\n", e->what, e->given);
				else
					fprintf(f, "#   %s: %s\n", e->what, e->path);
			}
		}
		if (conf) {
			char g[1024], sum[256];

			fprintf(f, "# write filter: %s; not covered: %s\n",
				sg_confine_summary(conf, sum, sizeof(sum)),
				sg_gaps_str(sg_confine_gaps(conf), g, sizeof(g)));
			if (sg_confine_fallback_why(conf)[0])
				fprintf(f, "# eBPF backends: %s\n", sg_confine_fallback_why(conf));
			/*
			 * Which pin directory is this build's: the one --unload
			 * removes and the only one it ever reuses (named by a
			 * digest of the embedded object, bpf/loader.c).
			 */
			fprintf(f, "# eBPF pins of this build: %s/%s\n", SG_BPF_PIN_ROOT,
				sg_bpf_version());
		}
		if (p->credentials.n == 0)
			fprintf(f, "# warning: [credentials] variables is empty, so ruling 2 never applies\n");
		if (p->scrub.n == 0)
			fprintf(f, "# warning: [scrub] variables is empty, so ruling 1 never applies\n");
	}

	if (root_err) {
		if (root_err->line)
			fprintf(f, "error: %s:%u: %s\n", root_err->file, root_err->line, root_err->msg);
		else
			fprintf(f, "error: %s\n", root_err->msg);
		status = SG_EXIT_USAGE;
	}
	if (status == SG_EXIT_OK && confine_err) {
		fprintf(f, "error: the write filter cannot be set up: %s\n", confine_err);
		status = SG_EXIT_CONFINE;
	}
	if (o->argc == 0) {
		fprintf(f, "decision: %s (no command given)\n",
			status == SG_EXIT_OK ? "policy valid, write filter available"
			: status == SG_EXIT_CONFINE ? "policy valid, but no step could run"
						    : "policy invalid");
		return status;
	}
	sg_ruling_explain(p, ruling, o->argv, envp, msg, sizeof(msg));
	if (ruling->reason != SG_OK) {
		fprintf(f, "decision: %s\n", msg);
		return ruling->reason == SG_NO_COMMAND ? SG_EXIT_USAGE : SG_EXIT_REFUSED;
	}
	if (status == SG_EXIT_USAGE) {
		fprintf(f, "decision: refused: the writable roots are invalid (see the error above)\n");
		return status;
	}
	if (status == SG_EXIT_CONFINE) {
		fprintf(f, "decision: refused: the write filter cannot be set up (see the error above)\n");
		return status;
	}
	fprintf(f, "decision: run (%s)\n", msg);
	return SG_EXIT_OK;
}

int sg_check_run(FILE *f, const struct sg_plan *pl)
{
	struct sg_error err = { .file = "log" };
	struct sg_confine *conf = NULL;
	struct sg_error cerr = { 0 };
	int cr = -1, status;
	bool valid = pl->roots_r == 0 && pl->tmp_r == 0 && pl->log_r == 0;

	if (pl->roots_r == 0 && pl->log_r < 0)
		snprintf(err.msg, sizeof(err.msg), "%s",
			 pl->log_r == -ENOMEM ? "out of memory" : pl->log_msg);

	/*
	 * Prepared, never applied: --check says whether the step would run.
	 * On an eBPF backend preparing loads and pins the filter, as the
	 * first step would (the pins outlive stepguard), and registers a
	 * scope that sg_confine_free() removes at once; the report says which
	 * ("programs loaded and pinned" or "pinned programs reused").
	 */
	if (valid)
		cr = sg_confine_prepare(&conf,
					&(struct sg_confine_req){ &pl->policy, pl->eff.filter,
								  pl->eff.mode, &pl->roots, &pl->user,
								  pl->exec_restricted ? &pl->execs : NULL,
								  &pl->sockets },
					&cerr);
	status = report(f, pl, valid ? &pl->roots : NULL,
			pl->roots_r < 0 ? &pl->roots_err
			: pl->tmp_r < 0 ? &pl->tmp_err
			: pl->log_r < 0 ? &err
					: NULL,
			conf,
			valid && cr < 0 ? cerr.msg : NULL);
	sg_confine_free(conf);
	return status;
}
