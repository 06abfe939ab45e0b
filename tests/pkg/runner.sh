#!/bin/bash
# SPDX-License-Identifier: MIT
# The GitHub Action and the example workflow, run as a hosted runner runs
# them: an unprivileged runner user with passwordless sudo, a workspace and
# RUNNER_TEMP under its home, the action's source under work/_actions.
# Every run: step of action.yml and of docs/examples/factory.yml runs as
# written (tests/pkg/simulate.py), except the two that fetch from the
# network: actions/checkout (the workspace is made here) and the model
# CLI's npm install (a stand-in "claude" is put on PATH).  The Actions
# cache is simulated with a directory that lasts the whole script.
#
# The workflow runs twice, as two jobs on two fresh runners that share
# the repository's cache: the first builds stepguard and saves the build
# (a miss), the second must restore it and run neither apt, make nor a
# compiler (a hit); the time the action's steps took is printed for
# each.  Then the action alone, on cache entries made corrupt, foreign or
# misleading, must refuse them or rebuild, never install them.
#
# Usage, as root, inside a private mount namespace (tests/pkg/run.sh):
#   unshare --mount --propagation private bash tests/pkg/runner.sh SRC SCRATCH
# SRC is a clean clone of the tree under test; SCRATCH an empty directory,
# mode 0755, that the caller removes.  /etc and /usr/local are overlaid with
# directories in SCRATCH, so the runner user, its sudoers entry and what
# the action installs vanish with the namespace: one layer for the
# machine (the runner user), and over it one per job, so that each job
# starts without what the one before installed.
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
# overlay DIR LAYER: a new writable layer over what DIR shows now.
overlay() {
	local o=$T/overlay${1//\//_}.$2
	mkdir -p "$o/upper" "$o/work"
	mount -t overlay overlay -o "lowerdir=$1,upperdir=$o/upper,workdir=$o/work" "$1"
}
for d in /etc /usr/local; do
	if ! overlay "$d" machine; then
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
# A tripwire for what the action runs: these tools, first on the action's
# PATH and on sudo's secure_path, record their call in $TRIP.calls and
# run the real one.  The job that builds must trip it (apt-get, make, the
# compilers); a job on a cache hit must not.  The workflow's own steps
# keep their PATH: its build step runs make and cc, confined.
TRIP=$T/tripwire
mkdir -p "$TRIP"
cat > "$TRIP/tripwire" << 'EOF'
#!/bin/sh
dir=$(dirname "$0") name=$(basename "$0")
echo "$name $*" >> "$dir.calls"
# The real tool, found on PATH without this directory; PATH itself stays,
# so that what the tool runs (make's compilers) trips the wire too.
real=$(PATH=$(printf %s "$PATH" | tr : '\n' | grep -vxF "$dir" | paste -sd :) command -v "$name")
exec "$real" "$@"
EOF
chmod 0755 "$TRIP/tripwire"
for tool in apt-get apt dpkg make cc gcc clang bpftool; do
	ln -s tripwire "$TRIP/$tool"
done
: > "$TRIP.calls"
chmod 0666 "$TRIP.calls"
{
	echo "$RUNNER ALL=(ALL) NOPASSWD:ALL"
	echo "Defaults secure_path=\"$TRIP:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\""
} > "/etc/sudoers.d/$RUNNER"
chmod 0440 "/etc/sudoers.d/$RUNNER"
RUID=$(id -u "$RUNNER")

W=$H/work/app/app                        # GITHUB_WORKSPACE
A=$H/work/_actions/OWNER/stepguard/v0.1.0 # where the runner puts the action
RT=$H/work/_temp                         # RUNNER_TEMP
mkdir -p "$W" "$RT" "$(dirname "$A")"

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
CACHE=$T/cache # the repository's Actions cache, shared by the jobs
mkdir -p "$CACHE"
COMMON=(--user "$RUNNER" --workspace "$W" --temp "$RT" --action-path-prepend "$TRIP")

# new_job NAME: the runner a job starts on: /etc and /usr/local without
# what an earlier job installed, the action downloaded again (no build/),
# an empty RUNNER_TEMP and the workspace as checked out, the tripwire's
# record emptied.
job_layer=
new_job() {
	if [ -n "$job_layer" ]; then
		umount /usr/local && umount /etc || return 1
	fi
	overlay /etc "$1" && overlay /usr/local "$1" || return 1
	job_layer=$1
	rm -rf "$A" "$RT" && mkdir -p "$RT" && git clone -q "$SRC" "$A" && rm -f "$W/hello" &&
		chown -R "$RUNNER:" "$H" && : > "$TRIP.calls"
}
# steps JSON: each step's output, which tests/pkg/run.sh shows when a
# check failed.
steps() {
	python3 -c '
import json, sys
for s in json.load(open(sys.argv[1]))["steps"]:
    how = "skipped (%s)" % s["skipped"] if "skipped" in s else "status %s" % s["status"]
    print("--- %s step %r: %s" % (s["scope"], s["name"], how))
    for line in (s.get("text") or "").splitlines()[-15:]:
        print("    " + line)
' "$1"
}
# timing JSON: the time each of the action's steps took, and their sum.
timing() {
	python3 -c '
import json, sys
steps = [s for s in json.load(open(sys.argv[1]))["steps"] if s["scope"] == "action"]
print("%.1f" % sum(s.get("seconds", 0) for s in steps), "s:",
      ", ".join("%s %s" % (s["name"], "%.1f s" % s["seconds"] if "seconds" in s else "skipped")
                for s in steps))' "$1"
}
# installed: the files the current job wrote to /etc and /usr/local (its
# layers' upper directories), with their digest, mode and owner.
installed() {
	local d
	for d in /etc /usr/local; do
		(cd "$T/overlay${d//\//_}.$job_layer/upper" &&
			find . -type f -printf "$d/%P %m %u:%g\n")
	done | sort | while read -r f rest; do echo "$(sha256sum < "$f" | cut -c1-16) $f $rest"; done
}
# workflow JSON: the example workflow, with the action, as one job.
job=$(python3 -c 'import sys, yaml; print(next(iter(yaml.safe_load(open(sys.argv[1]))["jobs"])))' \
	"$SRC/docs/examples/factory.yml")
workflow() {
	"${SIM[@]}" workflow "$SRC/docs/examples/factory.yml" "$job" \
		--local-action stepguard="$A" --secret ANTHROPIC_API_KEY=sk-ant-simulated-0000 \
		--skip-step 'Install the model CLI' --path-prepend "$T/fakebin" --cache-dir "$CACHE" \
		"${COMMON[@]}" > "$1"
	if [ "$(pyq "$1" 'd.get("error", "")')" != "" ]; then
		bad simulate "$(pyq "$1" 'd["error"]')"
		exit 0
	fi
}
# status JSON STEPNAME: the status of the step with that name ("skipped" ...).
status() { pyq "$1" "next((str(s.get('status', 'skipped')) for s in d['steps'] if s['name'] == a[0]), 'absent')" "$2"; }
cache_hit() { pyq "$1" "next((s['outputs'].get('cache-hit', '') for s in d['steps'] if s.get('id') == 'cache' and 'outputs' in s), 'absent')"; }
BUILD_STEPS=("Install stepguard's build dependencies" "Build stepguard" "Stage stepguard's install")

# --- the first job: a miss, which builds and saves -------------------------------
new_job miss || { bad new-job "cannot set up the first job's runner"; exit 0; }
workflow "$T/wf1.json"
{ echo "=== the first job (a cache miss)"; steps "$T/wf1.json"; } > "$T/wf.txt"
echo "# the first job, a cache miss: the action's steps took $(timing "$T/wf1.json")"
[ "$(cache_hit "$T/wf1.json")" = false ] && ok "first job: a cache miss" ||
	bad first-miss "cache-hit [$(cache_hit "$T/wf1.json")]"
for s in "${BUILD_STEPS[@]}" "Install stepguard" "Save stepguard's build"; do
	st=$(status "$T/wf1.json" "$s")
	[ "$st" = 0 ] && ok "first job, action step: $s" || bad "first job, action step: $s" "status $st (see below)"
done
key=$(pyq "$T/wf1.json" "next(s['outputs']['cache-primary-key'] for s in d['steps'] if s.get('id') == 'cache')")
case $key in
stepguard-X64-debian-* | stepguard-ARM64-debian-* | stepguard-*-ubuntu-*)
	ok "cache key: $key" ;;
*) bad cache-key "[$key]" ;;
esac
entries=$(ls "$CACHE")
[ "$(wc -l <<< "$entries")" = 1 ] && [ -n "$entries" ] && ok "first job saved one cache entry" ||
	bad cache-save "entries: [$entries]"
tar -tf "$CACHE"/*.tar 2> /dev/null | grep -qx './usr/local/bin/stepguard' &&
	ok "the entry holds the staged usr/local/bin/stepguard" || bad cache-entry "$(tar -tf "$CACHE"/*.tar 2>&1 | head)"
grep -q '^apt-get ' "$TRIP.calls" && grep -q '^make ' "$TRIP.calls" && grep -qE '^(cc|gcc|clang) ' "$TRIP.calls" &&
	ok "first job: the tripwire saw apt-get, make and the compilers" || bad tripwire "$(head "$TRIP.calls")"
installed > "$T/installed1"

# --- the second job: a hit, which builds nothing ---------------------------------
new_job hit || { bad new-job "cannot set up the second job's runner"; exit 0; }
[ ! -e /usr/local/bin/stepguard ] && [ ! -e /etc/stepguard ] && ok "second job starts without stepguard" ||
	bad fresh-runner "the first job's install is still there"
workflow "$T/wf.json"
{ echo "=== the second job (a cache hit)"; steps "$T/wf.json"; } >> "$T/wf.txt"
echo "# the second job, a cache hit: the action's steps took $(timing "$T/wf.json")"
if [ "$(cache_hit "$T/wf.json")" = true ]; then
	ok "second job: a cache hit"
else
	bad second-hit "cache-hit [$(cache_hit "$T/wf.json")]: the second job would build"
fi
for s in "${BUILD_STEPS[@]}" "Save stepguard's build"; do
	st=$(status "$T/wf.json" "$s")
	[ "$st" = skipped ] && ok "second job skips: $s" || bad "second job: $s" "status $st, not skipped"
done
[ ! -s "$TRIP.calls" ] && ok "second job: the action ran no apt, make, dpkg, compiler or bpftool" ||
	bad tripwire-hit "$(head "$TRIP.calls")"
[ ! -e "$A/build" ] && ok "second job: nothing built in the action's checkout (no build/)" ||
	bad build-dir "$(ls "$A/build" | head)"
installed > "$T/installed2"
diff_out=$(diff "$T/installed1" "$T/installed2")
[ -z "$diff_out" ] && [ -s "$T/installed1" ] && ok "second job installed the same $(wc -l < "$T/installed1") files" ||
	bad same-files "$diff_out"
! grep -qv ' root:root$' "$T/installed2" && ok "every installed file is root's" ||
	bad install-owner "$(grep -v ' root:root$' "$T/installed2")"
hit_time=$(timing "$T/wf.json" | cut -d' ' -f1)
python3 -c 'import sys; sys.exit(float(sys.argv[1]) >= 30)' "$hit_time" &&
	ok "second job: the action's steps took $hit_time s (under 30 s)" || bad hit-time "$hit_time s"

for s in "Install stepguard" "Check the policy and the log" "stepguard self-test"; do
	st=$(status "$T/wf.json" "$s")
	[ "$st" = 0 ] && ok "action step: $s" || bad "action step: $s" "status $st (see below)"
done
for s in "How the confined steps run" \
	"Review the change (model CLI, credential, no tools)" "Build (no credential)" "stepguard audit"; do
	st=$(status "$T/wf.json" "$s")
	[ "$st" = 0 ] && ok "workflow step: $s" || bad "workflow step: $s" "status $st (see below)"
done
[ "$(status "$T/wf.json" 'Install the model CLI')" = skipped ] && ok "npm install skipped (stand-in claude)" ||
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

# --- cache entries that must not be installed --------------------------------
# The action alone, in a new job, on a copy of the cache whose entry a
# function changed (run in the unpacked entry).  An entry under this
# source's key that is not its build must be refused, loudly, and nothing
# of it installed; it is not rebuilt over (an entry cannot be replaced,
# and one that is wrong is worth a look).
not_stepguard() { cp /bin/true usr/local/bin/stepguard; }
other_version() { printf '#!/bin/sh\necho "stepguard 0.0.1"\n' > usr/local/bin/stepguard; }
extra_file() { mkdir -p etc/sudoers.d && echo "$RUNNER ALL=(ALL) NOPASSWD:ALL" > etc/sudoers.d/zz; }
a_symlink() { ln -s /bin/sh usr/local/libexec/stepguard/sh; }
# action_on NAME CHANGE [ENTRY]: the run, in $T/NAME.json; the changed entry
# is saved as ENTRY.tar (default: under its own key).
action_on() {
	local name=$1 change=$2 entry=${3:-$key} c=$T/cache-$1
	mkdir -p "$c/x" && tar -xf "$CACHE/$key.tar" -C "$c/x" &&
		(cd "$c/x" && "$change") && tar -cf "$c/$entry.tar" -C "$c/x" . && rm -rf "$c/x" &&
		new_job "$name" || return 1
	"${SIM[@]}" action "$A" --cache-dir "$c" "${COMMON[@]}" > "$T/$name.json"
	if [ "$(pyq "$T/$name.json" 'd.get("error", "")')" != "" ]; then
		bad "simulate $name" "$(pyq "$T/$name.json" 'd["error"]')"
		return 1
	fi
	{ echo "=== the action on a cache entry changed by $change"; steps "$T/$name.json"; } >> "$T/wf.txt"
}
for change in not_stepguard other_version extra_file a_symlink; do
	action_on "$change" "$change" || { bad "$change" "no run (see above)"; continue; }
	st=$(status "$T/$change.json" "Install stepguard")
	text=$(pyq "$T/$change.json" "next(s.get('text', '') for s in d['steps'] if s['name'] == 'Install stepguard')")
	[ "$(cache_hit "$T/$change.json")" = true ] && [ "$st" = 1 ] &&
		grep -q "^::error title=stepguard cache::.*not this source's build" <<< "$text" &&
		ok "$change: a cache hit refused, annotated ($(grep -o 'cache::[^:]*' <<< "$text" | head -n 1 | cut -c8-90))" ||
		bad "$change" "cache-hit $(cache_hit "$T/$change.json"), status $st: $text"
	[ ! -e /usr/local/bin/stepguard ] && [ ! -e /etc/sudoers.d/zz ] && [ ! -e /usr/local/libexec/stepguard ] &&
		ok "$change: nothing installed" || bad "$change-installed" "$(ls -R /usr/local/bin /usr/local/libexec)"
	[ "$(status "$T/$change.json" "stepguard self-test")" = skipped ] && [ ! -s "$TRIP.calls" ] &&
		ok "$change: nothing built, no self-test run" ||
		bad "$change-ran" "self-test $(status "$T/$change.json" "stepguard self-test"); $(head -n 3 "$TRIP.calls")"
done

# An entry whose key only starts with this one's is restored too, with
# cache-hit false: the action builds, and installs nothing of that entry.
foreign() { echo foreign > usr/local/bin/stepguard-foreign; }
if action_on prefix foreign "$key-foreign"; then
	[ "$(cache_hit "$T/prefix.json")" = false ] &&
		[ "$(pyq "$T/prefix.json" "next(s['outputs'].get('cache-matched-key', '') for s in d['steps'] if s.get('id') == 'cache')")" = "$key-foreign" ] &&
		ok "prefix: an entry under $key-foreign restored, cache-hit false" ||
		bad prefix-restore "cache-hit [$(cache_hit "$T/prefix.json")]"
	[ "$(status "$T/prefix.json" "Build stepguard")" = 0 ] && [ "$(status "$T/prefix.json" "Install stepguard")" = 0 ] &&
		[ "$(/usr/local/bin/stepguard --version 2>&1)" = "stepguard $(sed -n 's/^VERSION *:= *//p' "$SRC/Makefile")" ] &&
		[ ! -e /usr/local/bin/stepguard-foreign ] &&
		ok "prefix: rebuilt, installed, and nothing of the foreign entry installed" ||
		bad prefix-build "$(ls /usr/local/bin): $(steps "$T/prefix.json" | tail -n 20)"
else
	bad prefix "no run (see above)"
fi

echo "ok runner: done"
