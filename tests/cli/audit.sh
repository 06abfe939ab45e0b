#!/bin/bash
# Command-line tests of `stepguard audit`: statuses, the three outputs and
# the job summary, judged from outside on logs written here.
# Usage: STEPGUARD=build/stepguard bash tests/cli/audit.sh
set -u
SG=${STEPGUARD:?set STEPGUARD to the binary under test}
pass=0 fail=0
T=$(mktemp -d /tmp/sg-audit.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

ok() { pass=$((pass + 1)); }
ko() {
	fail=$((fail + 1))
	printf 'FAIL %s\n' "$*"
}

# expect STATUS NEEDLE NAME -- COMMAND...: the command exits with STATUS and
# its stdout+stderr contains NEEDLE.
expect() {
	local want=$1 needle=$2 name=$3
	shift 4
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && grep -qF -- "$needle" <<<"$out"; then
		ok
	else
		ko "$name: status $rc (want $want), output:"
		head -20 <<<"$out"
	fi
}
# refute STATUS SHOWN HIDDEN NAME -- COMMAND...: the command exits with
# STATUS, its stdout+stderr contains SHOWN (so it is the real output: a
# binary that prints nothing must fail) and never HIDDEN.
refute() {
	local want=$1 shown=$2 hidden=$3 name=$4
	shift 5
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" != "$want" ] || ! grep -qF -- "$shown" <<<"$out"; then
		ko "$name: status $rc (want $want), or no line with $shown: the output judged is not stepguard's:"
		head -20 <<<"$out"
	elif grep -qF -- "$hidden" <<<"$out"; then
		ko "$name: output contains $hidden"
	else
		ok
	fi
}

# --- sample logs, as stepguard writes them (docs/log-format.md) -----------
rec() { printf '%s\n' "$1"; }
{
	rec '{"time":"2026-11-29T19:06:30.000001Z","event":"start","step":"build","run":"r1","pid":100,"uid":1000,"command":["make"],"cwd":"/w","roots":["/w"],"policy_digest":"sha256:ab","backend":"bpf-fmod","mode":"enforce","landlock_abi":4,"not_covered":[],"accepted_gaps":[]}'
	rec '{"time":"2026-11-29T19:06:30.000002Z","event":"denial","step":"build","run":"r1","pid":101,"uid":1000,"comm":"touch","op":"open","path":"/home/u/.bashrc","decision":"denied","errno":1,"backend":"bpf-fmod"}'
	rec '{"time":"2026-11-29T19:06:30.000003Z","event":"denial","step":"build","run":"r1","pid":101,"uid":1000,"comm":"touch","op":"open","path":"/home/u/.bashrc","decision":"denied","errno":1,"backend":"bpf-fmod"}'
	rec '{"time":"2026-11-29T19:06:30.000004Z","event":"denial","step":"build","run":"r1","pid":102,"uid":1000,"comm":"sh","op":"unlink","path":"/tmp/a\\xff\\x0ab","decision":"denied","errno":1,"backend":"bpf-fmod"}'
	rec '{"time":"2026-11-29T19:06:30.000005Z","event":"denial","step":"build","run":"r1","pid":103,"uid":1000,"comm":"mv","op":"rename","path":"/w/x","path2":"/etc/x","decision":"denied","errno":1,"backend":"bpf-fmod"}'
	rec '{"time":"2026-11-29T19:06:30.000006Z","event":"end","step":"build","run":"r1","pid":100,"status":0,"exit":0,"denials":4,"lost":2,"backend":"bpf-fmod","policy_digest":"sha256:ab"}'
} >build.log
{
	rec '{"time":"2026-11-29T19:07:00.000001Z","event":"start","step":"test","run":"r2","pid":200,"uid":1000,"backend":"bpf-lsm","mode":"audit"}'
	rec '{"time":"2026-11-29T19:07:00.000002Z","event":"denial","step":"test","run":"r2","pid":201,"uid":1000,"op":"chmod","path":"/etc/passwd","decision":"audited","errno":0,"backend":"supervisor"}'
	rec '{"time":"2026-11-29T19:07:00.000003Z","event":"end","step":"test","run":"r2","pid":200,"signal":9,"exit":137,"denials":1,"lost":0,"backend":"bpf-lsm","policy_digest":"sha256:ab"}'
} >test.log
cat build.log test.log >both.log
{
	cat build.log
	rec 'this is not json'
	rec '{"event":"denial","step":"build"}'
} >bad.log
{
	cat test.log
	printf '%s' '{"event":"denial","step":"test","op":"open","pa'
} >torn.log
# A JSON-level escape can carry raw control bytes; they must not reach the terminal.
rec '{"event":"denial","step":"evil","pid":1,"comm":"x\u001b[2Jy","op":"open","path":"/tmp/\u001b]0;owned\u0007","decision":"denied"}' >ctl.log
: >empty.log
# npm in six processes: the text lists four pids and counts the rest.
for pid in 4242 4250 4242 4251 4252 4253 4254; do
	rec '{"event":"denial","step":"build","run":"123","pid":'$pid',"comm":"npm","op":"open","path":"/home/u/.npmrc","decision":"denied"}'
done >npm.log
# What the backends could not see: build's end record counts 52 denials
# and the log holds 12, 3 were lost, 2 eBPF checks skipped; test was
# killed (no end record); lint recorded nothing and lost 5.
{
	rec '{"event":"start","step":"build","run":"123","pid":100,"backend":"bpf-fmod"}'
	for i in $(seq 12); do
		rec '{"event":"denial","step":"build","run":"123","pid":'$((4000 + i))',"comm":"cc","op":"open","path":"/x/'$i'","decision":"denied"}'
	done
	rec '{"event":"end","step":"build","run":"123","pid":100,"status":0,"exit":71,"denials":52,"lost":3,"recursion_misses":2,"backend":"bpf-fmod"}'
	rec '{"event":"start","step":"test","run":"124","pid":200,"backend":"bpf-lsm"}'
	rec '{"event":"denial","step":"test","run":"124","pid":201,"op":"open","path":"/tmp/x","decision":"denied"}'
} >gaps.log
{
	rec '{"event":"start","step":"lint","run":"125","pid":300,"backend":"bpf-lsm"}'
	rec '{"event":"end","step":"lint","run":"125","pid":300,"status":0,"exit":0,"denials":0,"lost":5,"backend":"bpf-lsm"}'
} >lost.log

# --- the text summary ------------------------------------------------------
expect 0 'stepguard audit: 9 records in 2 files; 5 denials (1 audited) in 2 steps' text-header -- \
	"$SG" audit build.log test.log
expect 0 'build: 1 run; ended: status 0 (1)' text-step-outcome -- "$SG" audit both.log
expect 0 'test: 1 run; ended: signal 9 (1)' text-step-signal -- "$SG" audit both.log
expect 0 'lost: 2 (the log misses them); backends: bpf-fmod' text-lost-backend -- "$SG" audit both.log
expect 0 '         2  open' text-by-operation -- "$SG" audit both.log
expect 0 '         2  touch (pid 101)' text-by-process -- "$SG" audit both.log
expect 0 '         1  pid 201  (1 audited)' text-process-pid-without-comm -- "$SG" audit both.log
expect 0 '         2  /home/u' text-by-prefix -- "$SG" audit both.log
expect 0 '/tmp/a\xff\x0ab  (denied unlink, step build)' text-escapes-kept -- "$SG" audit both.log
expect 0 '/w/x -> /etc/x' text-rename-both-paths -- "$SG" audit both.log
expect 0 '6 records of other steps left out' step-filter -- "$SG" audit --step test both.log
refute 0 '/etc/passwd' 'touch' step-filter-excludes -- "$SG" audit --step test both.log
expect 0 'No denials.' empty-file -- "$SG" audit empty.log
expect 0 '0 records in 1 file' empty-stdin -- "$SG" audit </dev/null
expect 0 '4 denials (0 audited)' stdin-dash -- "$SG" audit - <build.log
expect 0 '5 denials (1 audited)' stdin-dash-and-file -- "$SG" audit - test.log <build.log
expect 0 'usage: stepguard audit' help -- "$SG" audit --help
expect 0 '         7  npm (pid 4242, 4250, 4251, 4252, +2 more)' text-process-pids-bounded -- \
	"$SG" audit npm.log
expect 0 '::error title=stepguard denied open::/home/u/.npmrc (step build, npm pid 4242 and 5 other processes, 7 times)' \
	github-process-count -- "$SG" audit --github npm.log

# --- what the backends could not see: said in every form ----------------
expect 0 'step build (run 123): 40 refusals not in this log (the end records count 52, the log holds 12)' \
	text-missing -- "$SG" audit gaps.log
expect 0 'step build (run 123): 3 refusals could not be logged (ring buffer full)' text-lost-line -- \
	"$SG" audit gaps.log
expect 0 'step build (run 123): the kernel skipped the eBPF filter 2 times (fmod_ret recursion)' \
	text-skipped -- "$SG" audit gaps.log
expect 0 'step test (run 124): no end record (stepguard was killed, or the log is cut): its denials may be incomplete (the log holds 1)' \
	text-unfinished -- "$SG" audit gaps.log
expect 0 'incomplete: 43 refusals not in this log (40 missing from the file, 3 lost in a full ring buffer)' \
	text-incomplete-header -- "$SG" audit gaps.log
expect 0 'No denials recorded, but 5 were lost (see Incomplete above).' text-none-but-lost -- \
	"$SG" audit lost.log
refute 0 'No denials recorded, but 5 were lost' 'No denials.' text-never-no-denials-over-a-loss -- \
	"$SG" audit lost.log
out=$("$SG" audit --github gaps.log lost.log 2>&1)
for want in \
	'::warning title=stepguard missing records::step build (run 123): 40 refusals not in this log (the end records count 52, the log holds 12)' \
	'::warning title=stepguard lost events::step build (run 123): 3 refusals could not be logged (ring buffer full)' \
	'::warning title=stepguard skipped checks::step build (run 123): the kernel skipped the eBPF filter 2 times (fmod_ret recursion): those calls were neither checked nor logged' \
	'::warning title=stepguard unfinished run::step test (run 124): no end record (stepguard was killed, or the log is cut): its denials may be incomplete (the log holds 1)' \
	'::warning title=stepguard lost events::step lint (run 125): 5 refusals could not be logged (ring buffer full)'; do
	grep -qxF -- "$want" <<<"$out" && ok || ko "github-gap: $want not in: $out"
done
if "$SG" audit --json gaps.log lost.log >gaps.json 2>err.txt &&
	python3 - gaps.json <<'EOF'; then ok; else ko "json-gaps: document does not match"; cat err.txt; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert (d["missing"], d["lost"], d["recursion_misses"], d["unfinished"]) == (40, 8, 2, 1), d
inc = {(r["step"], r["run"]): r for r in d["incomplete"]}
assert list(inc) == [("build", "123"), ("test", "124"), ("lint", "125")], inc
b = inc[("build", "123")]
assert (b["count"], b["end_denials"], b["missing"], b["lost"], b["recursion_misses"]) == (12, 52, 40, 3, 2), b
assert inc[("test", "124")]["unfinished"] == 1 and inc[("test", "124")]["end_denials"] is None, inc
s = {x["step"]: x for x in d["steps"]}
assert s["build"]["missing"] == 40 and s["build"]["recursion_misses"] == 2, s
EOF
GITHUB_STEP_SUMMARY=$T/gaps.md "$SG" audit --github gaps.log >/dev/null 2>&1
grep -qxF -- '- step `build` (run `123`): 40 refusals not in this log (the end records count 52, the log holds 12)' \
	gaps.md && ok || ko "summary-gaps: $(cat gaps.md)"

# never a raw control byte on the terminal: the path is there, escaped
out=$("$SG" audit ctl.log 2>&1)
if ! grep -qF '/tmp/\x1b]0;owned\x07' <<<"$out"; then ko "ctl-bytes: the path is not shown escaped: $out"
elif grep -q $'\x1b\|\x07' <<<"$out"; then ko "ctl-bytes: raw control bytes printed"; else ok; fi
expect 0 '/tmp/\x1b]0;owned\x07' ctl-bytes-shown-escaped -- "$SG" audit ctl.log

# --- problems: reported with file and line, the rest summarised, 65 ------
expect 65 'bad.log:7: not JSON' malformed-line -- "$SG" audit bad.log
expect 65 'bad.log:8: not a stepguard record: denial record without "op"' invalid-record -- \
	"$SG" audit bad.log
expect 65 'unparsable lines: 2' malformed-counted -- "$SG" audit bad.log
expect 65 '4 denials (0 audited)' malformed-rest-summarised -- "$SG" audit bad.log
expect 65 'torn.log:4: the last line has no newline and is not whole JSON (a torn write)' torn -- \
	"$SG" audit torn.log
expect 65 '"torn": 1' torn-json -- "$SG" audit --json torn.log

# --- usage and unreadable input: 64, and no summary ---------------------------
expect 64 'no-such.log: No such file or directory' missing-file -- "$SG" audit build.log no-such.log
refute 64 'no-such.log: No such file or directory' 'stepguard audit:' missing-file-no-summary -- \
	"$SG" audit build.log no-such.log
expect 64 'Is a directory' directory -- "$SG" audit .
expect 64 'give one of --json and --github' json-and-github -- "$SG" audit --json --github build.log
expect 64 'unknown option --frobnicate' unknown-option -- "$SG" audit --frobnicate build.log
expect 64 'option --step needs a value' step-needs-value -- "$SG" audit build.log --step
expect 64 'unknown option -x in "-xh"' unknown-option-cluster -- "$SG" audit build.log -xh

# --- --json: one document, parsed back -------------------------------------
if "$SG" audit --json both.log >out.json 2>err.txt &&
	python3 - out.json <<'EOF'; then ok; else ko "json: document does not match"; cat err.txt; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["records"] == 9 and d["denied"] == 4 and d["audited"] == 1 and d["lost"] == 2, d
assert [s["step"] for s in d["steps"]] == ["build", "test"], d["steps"]
b = d["steps"][0]
assert b["runs"] == 1 and b["lost"] == 2 and b["backends"] == ["bpf-fmod"], b
assert b["outcomes"] == [{"status": 0, "runs": 1}], b
assert d["operations"][0] == {"op": "open", "count": 2, "denied": 2, "audited": 0}, d
assert d["paths"][0]["path"] == "/home/u/.bashrc" and d["paths"][0]["count"] == 2, d
assert any(p["path"] == "/tmp/a\\xff\\x0ab" for p in d["paths"]), d["paths"]
assert d["prefix_depth"] == 2 and d["unparsable"] == 0 and d["problems"] == [], d
procs = {p["process"]: p for p in d["processes"]}
assert procs["touch"]["comm"] == "touch" and procs["touch"]["pids"] == [101], procs
assert procs["pid 201"]["comm"] is None and procs["pid 201"]["pids"] == [201], procs
assert d["paths"][0]["comm"] == "touch" and d["paths"][0]["processes"] == 1, d["paths"][0]
EOF

# --- --github: annotations and the job summary --------------------------------
printf '## Earlier step\n\nkeep me\n' >summary.md
before=$(cat summary.md)
out=$(GITHUB_STEP_SUMMARY=$T/summary.md "$SG" audit --github both.log 2>&1)
rc=$?
[ "$rc" = 0 ] && grep -q '^::error title=stepguard denied' <<<"$out" && ok || ko "github: status $rc: $out"
grep -qxF '::error title=stepguard denied open::/home/u/.bashrc (step build, touch pid 101, 2 times)' \
	<<<"$out" && ok || ko "github-error: $out"
grep -qxF '::error title=stepguard denied rename::/w/x -> /etc/x (step build, mv pid 103)' \
	<<<"$out" && ok || ko "github-rename: $out"
grep -qxF '::warning title=stepguard audited chmod::/etc/passwd (step test, pid 201)' \
	<<<"$out" && ok || ko "github-audited: $out"
grep -qxF '::warning title=stepguard lost events::step build (run r1): 2 refusals could not be logged (ring buffer full)' \
	<<<"$out" && ok || ko "github-lost: $out"
# appended, never truncated: the earlier content is still first, and the
# summary follows it
[ "$(head -c ${#before} summary.md)" = "$before" ] && grep -q '^### stepguard audit' summary.md && ok ||
	ko "summary-truncated: $(cat summary.md)"
grep -qF '| `build` | 1 | 4 | 0 | 2 | `bpf-fmod` |' summary.md && ok || ko "summary-step-row: $(cat summary.md)"
grep -qF '| 2 | denied | `open` | `/home/u/.bashrc` | `build` |' summary.md && ok ||
	ko "summary-top-path: $(cat summary.md)"
GITHUB_STEP_SUMMARY=$T/summary.md "$SG" audit --github test.log >/dev/null 2>&1
[ "$(grep -c '^### stepguard audit' summary.md)" = 2 ] && [ "$(head -c ${#before} summary.md)" = "$before" ] &&
	ok || ko "summary-second-append: $(cat summary.md)"
# GitHub's escaping: a path with % and a newline stays one command
rec '{"event":"denial","step":"s","pid":5,"op":"open","path":"/w/100%\n::add-mask::x","decision":"denied"}' >gh.log
out=$("$SG" audit --github gh.log 2>&1)
[ "$(wc -l <<<"$out")" = 1 ] && grep -qxF '::error title=stepguard denied open::/w/100%25\x0a::add-mask::x (step s, pid 5)' \
	<<<"$out" && ok || ko "github-escaping: $out"
expect 65 '::warning title=stepguard audit::bad.log:7: not JSON' github-problems -- \
	"$SG" audit --github bad.log
expect 0 '::error title=stepguard denied open::/home/u/.bashrc' github-without-summary -- \
	env -u GITHUB_STEP_SUMMARY "$SG" audit --github both.log
expect 74 'GITHUB_STEP_SUMMARY' summary-unwritable -- \
	env GITHUB_STEP_SUMMARY="$T/no/such/dir/summary.md" "$SG" audit --github both.log
# a new summary file is created
GITHUB_STEP_SUMMARY=$T/new.md "$SG" audit --github both.log >/dev/null 2>&1
grep -qF '### stepguard audit' new.md && ok || ko "summary-created"

echo "audit: $pass passed, $fail failed"
[ "$fail" = 0 ]
