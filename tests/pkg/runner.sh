#!/bin/bash
# SPDX-License-Identifier: MIT
# The GitHub Action and the example workflow, run as a hosted runner runs
# them: an unprivileged runner user with passwordless sudo, a workspace and
# RUNNER_TEMP under its home, the action's source under work/_actions.
# Every run: step of action.yml and of docs/examples/factory.yml runs as
# written (tests/pkg/simulate.py), except the two that fetch from the
# network: actions/checkout (the workspace is made here) and the model
# CLI's npm install (a stand-in "claude" is put on PATH).
#
# Usage, as root, inside a private mount namespace (tests/pkg/run.sh):
#   unshare --mount --propagation private bash tests/pkg/runner.sh SRC SCRATCH
# SRC is a clean clone of the tree under test; SCRATCH an empty directory,
# mode 0755, that the caller removes.  /etc and /usr/local are overlaid with
# directories in SCRATCH, so the runner user, its sudoers entry and what
# "sudo make install" writes vanish with the namespace.
#
# Prints "ok NAME" or "FAIL NAME: why" per check.
set -u
SRC=$1 T=$2
HERE=$(cd "$(dirname "$0")" && pwd)
RUNNER=sgrunner

ok() { echo "ok $1"; }
bad() { echo "FAIL $1: $2"; }
# check NAME COMMAND...: ok if COMMAND succeeds.
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else bad "$name" "failed: $*"; fi
}
# jq-like, without jq: pyq FILE EXPR [ARG...] prints EXPR of the JSON
# document d, where a is the list of ARGs.
pyq() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); a = sys.argv[3:]; v = eval(sys.argv[2]); print(v if isinstance(v, str) else json.dumps(v))' "$@"
}

# --- a private /etc and /usr/local ----------------------------------------
for d in /etc /usr/local; do
	o=$T/overlay${d//\//_}
	mkdir -p "$o/upper" "$o/work"
	if ! mount -t overlay overlay -o "lowerdir=$d,upperdir=$o/upper,workdir=$o/work" "$d"; then
		bad overlay "cannot overlay $d: the runner simulation needs overlayfs"
		exit 0
	fi
done

# The packages the action's first step installs must be installed already
# (make deps): apt-get then changes nothing, and nothing it would put in
# the overlaid /etc or /usr/local goes missing from the host.
missing=
for p in $(make -s -C "$SRC" --no-print-directory --eval 'print-%: ; @echo $($*)' print-DEB_BUILD_PACKAGES); do
	dpkg-query -W -f '${Status}\n' "$p" 2> /dev/null | grep -q ' installed$' || missing+=" $p"
done
if [ -n "$missing" ]; then
	bad build-deps "not installed:$missing (run make deps first)"
	exit 0
fi
for tool in sudo setpriv useradd git python3; do
	command -v "$tool" > /dev/null || { bad tools "$tool is missing (make deps)"; exit 0; }
done

# --- the runner user and its machine ----------------------------------------
H=$T/home/$RUNNER
mkdir -p "$T/home"
useradd --create-home --home-dir "$H" --shell /bin/bash --user-group "$RUNNER" ||
	{ bad useradd "cannot create $RUNNER"; exit 0; }
echo "$RUNNER ALL=(ALL) NOPASSWD:ALL" > "/etc/sudoers.d/$RUNNER"
chmod 0440 "/etc/sudoers.d/$RUNNER"
RUID=$(id -u "$RUNNER")

W=$H/work/app/app                        # GITHUB_WORKSPACE
A=$H/work/_actions/OWNER/stepguard/v0.1.0 # where the runner puts the action
RT=$H/work/_temp                         # RUNNER_TEMP
mkdir -p "$W" "$RT" "$(dirname "$A")"
git clone -q "$SRC" "$A" || { bad clone "git clone $SRC"; exit 0; }

# The repository the factory works on: two commits (the review reads the
# diff of the last), a C program for the build step, and the policy.
cat > "$W/hello.c" << 'EOF'
#include <stdio.h>
int main(void) { puts("hello"); return 0; }
EOF
printf 'hello: hello.c\n\t$(CC) -o $@ hello.c\n' > "$W/Makefile"
mkdir -p "$W/.github"
cp "$SRC/docs/examples/stepguard.ini" "$W/.github/stepguard.ini"
G=(git -C "$W" -c user.name=factory -c user.email=factory@example.org -c init.defaultBranch=main)
"${G[@]}" init -q && "${G[@]}" add -A && "${G[@]}" commit -qm one &&
	sed -i 's/hello/hello, factory/' "$W/hello.c" && "${G[@]}" commit -qam two ||
	{ bad workspace "git"; exit 0; }
chown -R "$RUNNER:" "$H"

# The model CLI's stand-in: reports how it was run and what it could
# write, on its standard output (the step's review.md).  Like the real CLI
# it does everything in its own process: a ruling step may execute only
# the CLI (here python3, through env) and [model-cli] exec-allow, so a
# stand-in that ran id or chmod would be refused at exec.
mkdir -p "$T/fakebin"
cat > "$T/fakebin/claude" << 'EOF'
#!/usr/bin/env python3
import os, sys
print("## review (simulated)")
print("uid: %d" % os.getuid())
for a in sys.argv[1:]:
    print("arg: [%s]" % a)
if os.environ.get("ANTHROPIC_API_KEY"):
    print("credential: held")
for v in ("TMPDIR", "TMP", "TEMP", "TEMPDIR"):
    print("%s: [%s]" % (v.lower(), os.environ.get(v, "")))
print("stdin-lines: %d" % len(sys.stdin.readlines()))
def attempt(name, path):
    try:
        with open(path, "w") as f:
            f.write("x\n")
        print("%s: landed" % name)
    except OSError:
        print("%s: refused" % name)
attempt("tmpdir-write", os.path.join(os.environ.get("TMPDIR") or "/tmp", "claude-scratch"))
attempt("runner-temp", os.path.join(os.environ.get("RUNNER_TEMP") or "/tmp", "sg-pkg-claude"))
attempt("home", os.path.join(os.environ["HOME"], ".claude.json"))
attempt("slash-tmp", "/tmp/sg-pkg-claude-%d" % os.getpid())
try:
    os.chmod(os.environ["HOME"], 0o700)
    print("chmod-home: landed")
except OSError:
    print("chmod-home: refused")
try:
    os.execv("/bin/sh", ["sh", "-c", "true"])
except OSError as e:
    print("exec-sh: refused (%s)" % os.strerror(e.errno))
EOF
chmod 0755 "$T/fakebin/claude"

SIM=(python3 "$HERE/simulate.py")
COMMON=(--user "$RUNNER" --workspace "$W" --temp "$RT")

# --- the example workflow, with the action -----------------------------------
job=$(python3 -c 'import sys, yaml; print(next(iter(yaml.safe_load(open(sys.argv[1]))["jobs"])))' \
	"$SRC/docs/examples/factory.yml")
"${SIM[@]}" workflow "$SRC/docs/examples/factory.yml" "$job" \
	--local-action stepguard="$A" --secret ANTHROPIC_API_KEY=sk-ant-simulated-0000 \
	--skip-step 'Install the model CLI' --path-prepend "$T/fakebin" "${COMMON[@]}" > "$T/wf.json"
if [ "$(pyq "$T/wf.json" 'd.get("error", "")')" != "" ]; then
	bad simulate "$(pyq "$T/wf.json" 'd["error"]')"
	exit 0
fi
# Each step's output, which tests/pkg/run.sh shows when a check failed.
python3 -c '
import json, sys
for s in json.load(open(sys.argv[1]))["steps"]:
    how = "skipped (%s)" % s["skipped"] if "skipped" in s else "status %s" % s["status"]
    print("--- %s step %r: %s" % (s["scope"], s["name"], how))
    for line in (s.get("text") or "").splitlines()[-15:]:
        print("    " + line)
' "$T/wf.json" > "$T/wf.txt"

# status STEPNAME: the status of the step with that name ("skipped" ...).
status() { pyq "$T/wf.json" "next((str(s.get('status', 'skipped')) for s in d['steps'] if s['name'] == a[0]), 'absent')" "$1"; }
for s in "Install stepguard's build dependencies" "Build stepguard" "Install stepguard" \
	"Check the policy and the log" "stepguard self-test"; do
	st=$(status "$s")
	[ "$st" = 0 ] && ok "action step: $s" || bad "action step: $s" "status $st (see below)"
done
for s in "How the confined steps run" \
	"Review the change (model CLI, credential, no tools)" "Build (no credential)" "stepguard audit"; do
	st=$(status "$s")
	[ "$st" = 0 ] && ok "workflow step: $s" || bad "workflow step: $s" "status $st (see below)"
done
[ "$(status 'Install the model CLI')" = skipped ] && ok "npm install skipped (stand-in claude)" ||
	bad "npm-skip" "the install step was not skipped"

# The action's outputs and what it exported.
backend=$(pyq "$T/wf.json" "next(s for s in d['steps'] if s.get('id') == 'stepguard')['outputs'].get('backend', '')")
json_backend=$(pyq "$RT/stepguard-self-test.json" 'd["backend"] or ""' 2> /dev/null)
[ -n "$backend" ] && [ "$backend" = "$json_backend" ] && ok "output backend = self-test JSON's ($backend)" ||
	bad output-backend "output [$backend], JSON [$json_backend]"
[ "$(pyq "$RT/stepguard-self-test.json" 'd["user"]["name"] + " " + d["user"]["from"]')" = "$RUNNER SUDO_UID" ] &&
	ok "self-test runs made as the runner user (SUDO_UID)" ||
	bad self-test-user "$(pyq "$RT/stepguard-self-test.json" 'd["user"]')"
[ "$(pyq "$T/wf.json" "d['env'].get('STEPGUARD_POLICY', '')")" = "$W/.github/stepguard.ini" ] &&
	ok "STEPGUARD_POLICY exported, absolute" || bad env-policy "$(pyq "$T/wf.json" "d['env'].get('STEPGUARD_POLICY')")"
[ "$(pyq "$T/wf.json" "d['env'].get('STEPGUARD_LOG', '')")" = "$RT/stepguard.log" ] &&
	ok "STEPGUARD_LOG exported (default \$RUNNER_TEMP/stepguard.log)" ||
	bad env-log "$(pyq "$T/wf.json" "d['env'].get('STEPGUARD_LOG')")"
[ "$(stat -c %u "$RT/stepguard.log" 2> /dev/null)" = "$RUID" ] && ok "log created as the runner user" ||
	bad log-owner "$(stat -c %U "$RT/stepguard.log" 2>&1)"
for f in /usr/local/bin/stepguard /usr/local/libexec/stepguard/stepguard-probe \
	/usr/local/share/man/man1/stepguard.1 /etc/stepguard/rules.d/10-defaults.ini \
	/usr/local/share/bash-completion/completions/stepguard; do
	check "installed $f" test -f "$f"
done

# The model step: the CLI ran as the runner, with the credential and no
# tools; TMPDIR was the step's own temporary directory, made by stepguard
# under $RUNNER_TEMP (which sudo -E kept) and writable, while $HOME, /tmp
# and $RUNNER_TEMP itself were not; it could execute nothing but itself.
R=$RT/review.md
grep -qx "uid: $RUID" "$R" && ok "model CLI ran as the runner user" || bad review-uid "$(cat "$R" 2>&1)"
# The ruling options come first: stepguard adds them to a ruling step's CLI.
[ "$(grep '^arg: ' "$R" | tr '\n' ' ')" = 'arg: [--strict-mcp-config] arg: [--setting-sources=user] arg: [-p] arg: [Review this change for bugs. Answer in Markdown.] arg: [--tools] arg: [] ' ] &&
	ok 'model CLI argv: the ruling options, then -p PROMPT --tools ""' || bad review-argv "$(grep '^arg: ' "$R" 2>&1)"
check "model CLI held the credential" grep -qx 'credential: held' "$R"
check "model CLI read the diff on stdin" grep -qE '^stdin-lines: [1-9]' "$R"
check "a shell refused at exec (ruling step: only the CLI runs)" grep -qx 'exec-sh: refused (Permission denied)' "$R"
tmp=$(sed -n 's/^tmpdir: \[\(.*\)\]$/\1/p' "$R")
case $tmp in
"$RT"/stepguard-review-????????) ok "TMPDIR is the step's own directory under \$RUNNER_TEMP ($tmp)" ;;
*) bad review-tmpdir "TMPDIR [$tmp], not $RT/stepguard-review-XXXXXXXX" ;;
esac
[ "$(grep -E '^(tmp|temp|tempdir): ' "$R" | sort -u | sed 's/^[a-z]*: //' | sort -u)" = "[$tmp]" ] &&
	ok "TMP, TEMP and TEMPDIR name it too" || bad review-tmp-vars "$(grep -E '^te?mp' "$R")"
check "TMPDIR writable (the step's own temporary directory, under \$RUNNER_TEMP)" grep -qx 'tmpdir-write: landed' "$R"
[ -n "$tmp" ] && [ ! -e "$tmp" ] && ok "the step's temporary directory is gone after the step" ||
	bad review-tmpdir-left "$tmp: $(ls -la "$tmp" 2>&1)"
check "\$RUNNER_TEMP itself refused (the base of the temporary directories)" grep -qx 'runner-temp: refused' "$R"
[ ! -e "$RT/sg-pkg-claude" ] && ok "nothing landed in \$RUNNER_TEMP" || bad runner-temp-landed "$RT/sg-pkg-claude exists"
check "\$HOME/.claude.json refused" grep -qx 'home: refused' "$R"
check "/tmp refused (the step's directory is not there)" grep -qx 'slash-tmp: refused' "$R"
check "chmod of \$HOME refused" grep -qx 'chmod-home: refused' "$R"
[ ! -e "$H/.claude.json" ] && ok "nothing landed in \$HOME" || bad home-landed "$H/.claude.json exists"
rm -f /tmp/sg-pkg-claude-*

# The build step: gcc's temporary files went to the step's own temporary
# directory (the workflow sets no TMPDIR), the binary is the runner's.
[ -x "$W/hello" ] && [ "$(stat -c %u "$W/hello")" = "$RUID" ] && [ "$("$W/hello")" = "hello, factory" ] &&
	ok "build step built hello as the runner user" || bad build "$(ls -l "$W" 2>&1)"

# The log and the audit step.
L=$RT/stepguard.log
python3 - "$L" "$RUID" "$RT" << 'EOF' || bad log-records "see above"
import json, os, sys
recs = [json.loads(line) for line in open(sys.argv[1])]
uid = int(sys.argv[2])
def has(ok, name, why):
    print(("ok " if ok else "FAIL ") + name + ("" if ok else ": " + why))
rt = sys.argv[3]
for step in ("review", "build"):
    starts = [r for r in recs if r["event"] == "start" and r["step"] == step]
    ends = [r for r in recs if r["event"] == "end" and r["step"] == step]
    has(len(starts) == 1 and starts[0]["uid"] == uid, f"log: step {step} started as the runner",
        json.dumps(starts))
    tmp = starts[0].get("tmpdir", "") if len(starts) == 1 else ""
    has(tmp.startswith(rt + "/stepguard-" + step + "-") and not os.path.exists(tmp),
        f"log: step {step}'s temporary directory was under $RUNNER_TEMP, and is gone", json.dumps(starts))
    has(len(ends) == 1 and ends[0].get("tmpdir_removed") is True,
        f"log: step {step}'s end record says its temporary directory was removed", json.dumps(ends))
    has(len(ends) == 1 and ends[0]["exit"] == 0, f"log: step {step} ended with 0", json.dumps(ends))
    has(all(r["run"].startswith("4242-1-") for r in starts + ends),
        f"log: step {step}'s run id from GITHUB_RUN_ID", json.dumps(starts + ends))
den = [r for r in recs if r["event"] == "denial" and r["step"] == "review" and r["op"] == "chmod"]
has(len(den) == 1, "log: the refused chmod is recorded", json.dumps(recs))
EOF
audit_text=$(pyq "$T/wf.json" "next(s for s in d['steps'] if s['name'] == 'stepguard audit').get('text', '')")
grep -q '^::error title=stepguard denied chmod::' <<< "$audit_text" &&
	ok "audit --github annotates the refused chmod" || bad audit-annotation "$audit_text"
summary=$(pyq "$T/wf.json" 'd["step_summary"]')
grep -q 'review (simulated)' <<< "$summary" && grep -q 'stepguard' <<< "$summary" &&
	ok "job summary: the review and stepguard's table" || bad summary "$summary"

# --- the action's failures ----------------------------------------------------
# A self-test that does not pass fails the step, with the backend output
# still set: a policy that makes /tmp writable lets the /tmp write land.
printf '[writes]\ntmp = /tmp\n' > "$W/.github/leaky.ini"
chown "$RUNNER:" "$W/.github/leaky.ini"
"${SIM[@]}" action "$A" --only-step self-test --input policy=.github/leaky.ini "${COMMON[@]}" > "$T/n1.json"
st=$(pyq "$T/n1.json" "d['steps'][0].get('status')")
text=$(pyq "$T/n1.json" "d['steps'][0].get('text', '')")
[ "$st" = 1 ] && grep -q '^::error title=stepguard self-test::' <<< "$text" &&
	ok "a failing self-test fails the action (status 1, annotated)" || bad self-test-fail "status $st: $text"
[ -n "$(pyq "$T/n1.json" "d['outputs'].get('backend', '')")" ] && ok "backend output set on a failed self-test" ||
	bad self-test-fail-output "$(pyq "$T/n1.json" "d['outputs']")"

# A log inside the workspace, a step's writable root, is refused before any
# step runs, and nothing is exported.
"${SIM[@]}" action "$A" --only-step configure --input log="$W/inside.log" "${COMMON[@]}" > "$T/n2.json"
st=$(pyq "$T/n2.json" "d['steps'][0].get('status')")
[ "$st" = 64 ] && [ "$(pyq "$T/n2.json" "d['env'].get('STEPGUARD_LOG', '')")" = "" ] && [ ! -e "$W/inside.log" ] &&
	ok "a log inside the workspace fails the action (64), nothing exported" ||
	bad log-inside "status $st: $(pyq "$T/n2.json" "d['steps'][0].get('text', '')")"

echo "ok runner: done"
