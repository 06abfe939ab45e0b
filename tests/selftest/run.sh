#!/bin/bash
# Integration test of `stepguard --self-test`, judged from outside:
#   - as root, as an unprivileged user (runuser) and as root dropping to
#     that user (SUDO_UID/SUDO_GID), in text and in --json: exit 0, all
#     cells of the table refused in every run, the control landed, both
#     execs refused (EACCES) in the two ruling runs (scrub 1) and run in
#     the four others, the three reads of the holder (another process of
#     the step's user) made and refused (EACCES or EPERM) in every run
#     after the self-test's own unconfined read of it landed, the rulings
#     held, nothing left behind where the probe wrote, and no holder left
#     running;
#   - a negative case that proves the self-test can fail: a policy that
#     makes /tmp writable must give exit 1 and "landed" in the /tmp column;
#   - negative cases for the reads: as root on Linux 6.15 and later, a
#     policy that keeps CAP_PERFMON lets the step read the holder's
#     environ (may_access_mm()): exit 1 and "read" in every row; and as
#     root dropping to the user, a probe that user cannot read makes the
#     holder non-dumpable, so the control read cannot land: exit 1,
#     "unproven" in every row, never a pass;
#   - --model-cli with a stand-in CLI (fakecli.py), the host test of the
#     self-test's stub API: it checks the stub's answers to the real CLI's
#     request shape and that the stub listens on 127.0.0.1 only, then
#     starts the planted hooks and server, which must all be refused; and
#     stand-ins that must fail (markers written, no request, a bad status,
#     a wrong answer);
#   - --model-cli with the real model CLI ($STEPGUARD_MODEL_CLI, else
#     claude on PATH; skipped with the reason when there is none): it must
#     answer "ok", exit 0, ask the stub, and run none of the plants.
#
# Usage: STEPGUARD=build/stepguard [STEPGUARD_MODEL_CLI=PATH] bash tests/selftest/run.sh
# Needs root for the user cases (skipped, with the reason, otherwise).
set -u
SG=${STEPGUARD:?set STEPGUARD to the binary under test}
SG=$(realpath "$SG") || exit 1
PROBE=$(dirname "$SG")/stepguard-probe
HERE=$(cd "$(dirname "$0")" && pwd)
USER_NAME=sgtest
pass=0 fail=0 skip=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); printf 'FAIL %s\n' "$*"; }
skipped() { skip=$((skip + 1)); printf 'SKIP %s\n' "$*"; }
# check NAME COMMAND...: the command must succeed.
check() {
	local name=$1
	shift
	if "$@"; then ok; else bad "$name"; fi
}

if [ ! -x "$PROBE" ]; then
	bad "the probe $PROBE is missing (make builds it beside stepguard)"
	echo "selftest: $pass passed, $fail failed"
	exit 1
fi

T=$(mktemp -d /var/tmp/sg-selftest-run.XXXXXX) || exit 1
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT

# The step's user must reach the binaries, and a checkout need not be
# reachable by another user (GitHub's /home/runner is 0750): give the user
# cases a copy in the installed layout, which also tests that stepguard
# finds its probe in ../libexec/stepguard/.
mkdir -p "$T/inst/bin" "$T/inst/libexec/stepguard"
cp "$SG" "$T/inst/bin/stepguard"
cp "$PROBE" "$T/inst/libexec/stepguard/stepguard-probe"
chmod -R a+rX "$T/inst"
ISG=$T/inst/bin/stepguard

# A policy that makes a target writable: the self-test must catch it.
# (/tmp, unlike a root containing $HOME, is a root the launcher accepts.)
printf '[writes]\noops = /tmp\n' > "$T/neg.ini"
chmod 644 "$T/neg.ini"
# One that lets a root step keep CAP_PERFMON, which from Linux 6.15 reads
# any process's environ past the ptrace hook (may_access_mm()): the
# self-test must catch the read.
printf '[stepguard]\nkeep-capabilities = CAP_PERFMON\n' > "$T/perfmon.ini"
chmod 644 "$T/perfmon.ini"
# A probe the step's user can execute but not read: the kernel makes the
# holder non-dumpable, the control read cannot land, and the self-test
# must not pass on refusals that prove nothing.
mkdir -p "$T/noread/bin" "$T/noread/libexec/stepguard"
cp "$SG" "$T/noread/bin/stepguard"
cp "$PROBE" "$T/noread/libexec/stepguard/stepguard-probe"
chmod -R a+rX "$T/noread"
chmod 711 "$T/noread/libexec/stepguard/stepguard-probe"

# table_ok FILE [TMPCELL [PEEKCELL]]: the table in FILE has six rows (scrub
# unset, 0, 1, then 1, 0, unset), each with its four targets TMPCELL for
# /tmp and refused elsewhere, the control landed, both execs refused in
# the ruling rows (scrub 1) and run in the others, and the reads of the
# other process PEEKCELL (refused unless told).
table_ok() {
	local tmpcell=${2:-refused} peekcell=${3:-refused}
	awk -F'|' -v tmpcell="$tmpcell" -v peekcell="$peekcell" '
		function trim(s) { gsub(/^ +| +$/, "", s); return s }
		/^  (unset|0|1) +(forward|reverse) +\|/ {
			split(trim($1), a, / +/)
			order = order a[1] "/" a[2] " "
			rows++
			exec = a[1] == "1" ? "refused" : "ran"
			if (NF != 9 || trim($2) != "refused" || trim($3) != "refused" || trim($4) != tmpcell ||
			    trim($5) != "refused" || trim($6) != "landed" || trim($7) != exec ||
			    trim($8) != exec || trim($9) != peekcell) {
				print "  bad row: " $0
				badrows++
			}
		}
		END {
			want = "unset/forward 0/forward 1/forward 1/reverse 0/reverse unset/reverse "
			if (rows != 6 || order != want) { print "  rows: " order; exit 1 }
			exit badrows > 0
		}' "$1"
}

# json_ok FILE EXPECT USER: the --json document parses and says the same
# facts; EXPECT is "pass", "tmp-landed", "peek-read" (the step read the
# holder's environ) or "peek-unproven" (the control read did not land).
# Prints the paths it names (for the leftovers check) to FILE.paths, and
# the holder's pid to FILE.holder.
json_ok() {
	python3 - "$1" "$2" "$3" > "$1.paths" <<'EOF'
import json, os, sys
path, expect, user = sys.argv[1:4]
with open(path) as f:
    d = json.load(f)
errors = []
def want(cond, what):
    if not cond:
        errors.append(what)
want(d["user"]["name"] == user, "user is %r, not %r" % (d["user"]["name"], user))
runs = d["runs"]
want([r["scrub"] for r in runs] == [None, "0", "1", "1", "0", None], "scrub order %r" % [r["scrub"] for r in runs])
want([r["order"] for r in runs] == ["forward"] * 3 + ["reverse"] * 3, "run order")
want(d["backend"] is not None and d["landlock_abi"] is not None, "backend or ABI missing")
want(isinstance(d["not_covered"], list), "not_covered is not a list")
want(d["kernel"] == os.uname().release, "kernel %r" % d["kernel"])
want(isinstance(d["lsm"], list) or d.get("lsm_error"), "neither lsm nor lsm_error")
want(len(d["rulings"]) == 3 and all(c["pass"] for c in d["rulings"]), "rulings %r" % d["rulings"])
want([c["status"] for c in d["rulings"]] == [77, 77, 0], "ruling statuses")
want(d["model_cli"] is None, "model_cli is %r without --model-cli" % (d["model_cli"],))
# The other process: started, read by the self-test itself (unconfined)
# through all three, or, for peek-unproven, not.
h = d["holder"]
want(h["started"] and isinstance(h["pid"], int) and h["address"].startswith("0x") and h["length"] == 40,
     "holder %r" % (h,))
want(h["uid"] == d["user"]["uid"], "holder uid %r, step user %r" % (h["uid"], d["user"]["uid"]))
want([c["attempt"] for c in h["control"]] == ["environ", "mem", "vm"], "control reads %r" % h["control"])
if expect == "peek-unproven":
    want(not h["proven"] and any(c["result"] != "read" for c in h["control"]), "control %r" % (h,))
    want(any("the control read of the holder" in p and "did not land" in p for p in d["problems"]),
         "no problem says the control read did not land: %r" % d["problems"])
else:
    want(h["proven"] and all(c["result"] == "read" and c["marker"] is True and c["pass"] for c in h["control"]),
         "control reads did not all land: %r" % h["control"])
with open(path + ".holder", "w") as f:
    print(h["pid"] or "", file=f)
for r in runs:
    ruling = r["scrub"] == "1"
    # Every read made (the probe reported it) and refused; or what the case says instead.
    op = r["other_process"]
    want([a["attempt"] for a in op["attempts"]] == ["environ", "mem", "vm"], "run %d: reads %r" % (r["run"], op))
    for a in op["attempts"]:
        want(a["probe_reported"], "run %d: read %s not reported (not made)" % (r["run"], a["attempt"]))
        if expect == "peek-read" and a["attempt"] == "environ":
            want(a["result"] == "read" and a["marker"] is True and a["probe_said"] == "read" and not a["pass"],
                 "run %d: environ %r" % (r["run"], a))
        else:
            want(a["result"] == "refused" and a["probe_said"] == "refused" and a["errno"] in ("EACCES", "EPERM")
                 and a["pass"], "run %d: read %s is %r" % (r["run"], a["attempt"], a))
    want(op["result"] == {"peek-read": "read", "peek-unproven": "unproven"}.get(expect, "refused"),
         "run %d: other process %r" % (r["run"], op["result"]))
    want(op["pass"] == (expect in ("pass", "tmp-landed")), "run %d: other process pass %r" % (r["run"], op["pass"]))
    want(r["ruling"] == ruling, "run %d: ruling is %r" % (r["run"], r["ruling"]))
    want([x["exec"] for x in r["execs"]] == ["sh", "touch"], "run %d: execs %r" % (r["run"], r["execs"]))
    for x in r["execs"]:
        want(x["expected"] == ("refused" if ruling else "ran") and x["result"] == x["expected"] and x["pass"],
             "run %d: exec %s is %s (expected %s)" % (r["run"], x["exec"], x["result"], x["expected"]))
        want(x["probe_reported"], "run %d: exec %s not reported" % (r["run"], x["exec"]))
        if ruling:
            want(x["errno"] == "EACCES" and x["probe_said"] == "refused" and x["exit_status"] is None,
                 "run %d: exec %s: %r %r" % (r["run"], x["exec"], x["probe_said"], x["errno"]))
        else:
            want(x["probe_said"] == "executed" and x["exit_status"] == 0 and x["errno"] is None,
                 "run %d: exec %s: %r %r" % (r["run"], x["exec"], x["probe_said"], x["exit_status"]))
        print(x["marker"])
    # Each refused exec is logged, once; none outside a ruling.  Not with
    # the unreadable probe: the step is then non-dumpable as well, and the
    # supervisor (the step's user, no CAP_SYS_PTRACE) cannot read the path
    # of its exec to log it; Landlock still refuses it (checked above).
    if expect != "peek-unproven":
        want(r["exec_denials"] == (2 if ruling else 0),
             "run %d: %r refused execs in its log" % (r["run"], r["exec_denials"]))
    want(r["stepguard_status"] == 0, "run %d: stepguard status %r" % (r["run"], r["stepguard_status"]))
    want([t["target"] for t in r["targets"]] == ["home-file", "home-dotfile", "tmp-file", "parent-file"],
         "run %d: targets" % r["run"])
    for t in r["targets"]:
        landed = expect == "tmp-landed" and t["target"] == "tmp-file"
        want(t["result"] == ("landed" if landed else "refused"),
             "run %d: %s is %s" % (r["run"], t["target"], t["result"]))
        want(t["probe_reported"], "run %d: %s not reported" % (r["run"], t["target"]))
        if landed:
            want(t.get("cleanup") == "removed", "run %d: landed file not removed" % r["run"])
        else:
            want(t["errno"] in ("EACCES", "EPERM"), "run %d: %s errno %r" % (r["run"], t["target"], t["errno"]))
        print(t["path"])
    want(r["control"]["result"] == "landed", "run %d: control %s" % (r["run"], r["control"]["result"]))
    print(r["control"]["path"])
    want(r["pass"] == (expect == "pass"), "run %d: pass is %r" % (r["run"], r["pass"]))
if expect == "pass":
    want(d["result"] == "pass" and d["exit_status"] == 0 and d["problems"] == [],
         "result %r, problems %r" % (d["result"], d["problems"]))
else:
    want(d["result"] == "fail" and d["exit_status"] == 1, "result %r" % d["result"])
if expect == "tmp-landed":
    want(any("/tmp" in p and "landed" in p for p in d["problems"]), "no problem names /tmp")
if expect == "peek-read":
    want(sum("read the holder's marker through /proc/PID/environ" in p for p in d["problems"]) == 6,
         "not one problem per run for the environ read: %r" % d["problems"])
print(os.path.dirname(d["workdir"]))
for e in errors:
    print("  " + e, file=sys.stderr)
sys.exit(1 if errors else 0)
EOF
}

# text_paths FILE: the paths a -v report names (targets, controls, work area).
text_paths() {
	sed -n 's/^      \(\/.*\): probe .*/\1/p' "$1"
	sed -n 's/^  work dir *\(\/.*\)\/work$/\1/p' "$1"
}

# none_left NAME PATHS-FILE: nothing the self-test named is still there.
none_left() {
	local name=$1 list=$2 p left=0
	[ -s "$list" ] || { bad "$name: no paths to check for leftovers"; return; }
	while IFS= read -r p; do
		if [ -e "$p" ] || [ -L "$p" ]; then
			echo "  left behind: $p"
			left=1
		fi
	done < "$list"
	[ $left = 0 ] && ok || bad "$name: files left behind"
}

# holder_gone NAME PID: the self-test's holder does not outlive it.
holder_gone() {
	local name=$1 pid=$2
	if [ -z "$pid" ]; then
		bad "$name: no holder pid in the report"
	elif [ -e "/proc/$pid" ] && grep -qz -- '--hold' "/proc/$pid/cmdline" 2> /dev/null; then
		bad "$name: the holder (pid $pid) is still running"
		kill -KILL "$pid" 2> /dev/null
	else
		ok
	fi
}

# case NAME STATUS TABLE-TMPCELL JSON-EXPECT USER -- COMMAND...: run the
# self-test in text (-v) and in --json, and judge both.  JSON-EXPECT also
# says what the other-process column holds (json_ok).
case_() {
	local name=$1 want=$2 tmpcell=$3 jexpect=$4 user=$5 peekcell=refused
	shift 6
	local out=$T/$name.txt js=$T/$name.json rc
	case $jexpect in
	peek-read) peekcell=read ;;
	peek-unproven) peekcell=unproven ;;
	esac
	# Names the test did not make: a self-test must not leave any either.
	"$@" --self-test -v > "$out" 2>&1
	rc=$?
	[ "$rc" = "$want" ] && ok || { bad "$name: exit $rc (want $want)"; sed 's/^/  | /' "$out" | tail -40; }
	if table_ok "$out" "$tmpcell" "$peekcell"; then ok; else bad "$name: the table"; sed 's/^/  | /' "$out" | head -20; fi
	grep -q '^  backend  *[a-z]' "$out" && grep -q '^  Landlock ABI  *[0-9]' "$out" &&
		grep -q '^  kernel ' "$out" && grep -q '^  active LSMs ' "$out" &&
		grep -q '^  not covered ' "$out" && ok || bad "$name: the facts below the table"
	# Each run's three reads of the holder were made and refused (-v).
	if [ "$peekcell" = refused ]; then
		[ "$(grep -c '^      other process: /proc/PID/environ refused E\(ACCES\|PERM\), /proc/PID/mem refused E\(ACCES\|PERM\), process_vm_readv refused E\(ACCES\|PERM\)$' "$out")" = 6 ] &&
			ok || bad "$name: not six -v lines of three refused reads"
	fi
	if [ "$want" = 0 ]; then
		grep -q '^  control read  landed: as ' "$out" &&
		grep -q '^PASS: in all 6 runs none of the 4 writes outside the work directory landed and the control landed, the 4 execs of the ruling runs were refused (their 8 controls ran), the 18 reads of another process'"'"'s environment and memory were refused (unconfined, each of the 3 kinds read its marker), and the rulings held$' "$out" &&
			ok || bad "$name: no PASS line (with the counts)"
	else
		case $jexpect in
		peek-read) need="read the holder's marker through /proc/PID/environ" ;;
		peek-unproven) need="the control read of the holder" ;;
		*) need="file in /tmp landed" ;;
		esac
		grep -q '^FAIL' "$out" && grep -qF "$need" "$out" && ok ||
			bad "$name: no FAIL line, or no problem saying: $need"
	fi
	text_paths "$out" > "$out.paths"
	none_left "$name" "$out.paths"
	holder_gone "$name" "$(sed -n 's/^  holder  *pid \([0-9]*\),.*/\1/p' "$out")"

	"$@" --self-test --json > "$js" 2> "$js.err"
	rc=$?
	[ "$rc" = "$want" ] && ok || { bad "$name --json: exit $rc (want $want)"; cat "$js.err"; }
	if json_ok "$js" "$jexpect" "$user"; then ok; else bad "$name --json: the document"; fi
	none_left "$name --json" "$js.paths"
	holder_gone "$name --json" "$(cat "$js.holder" 2> /dev/null)"
}

# --- --model-cli -----------------------------------------------------------
# A python3 every user can run: the stand-in CLI's #! line names it.
PY=$(command -v /usr/bin/python3 || command -v python3)

# fake DIR MODE: the stand-in CLI as DIR/claude, told MODE (fakecli.py).
fake() {
	mkdir -p "$1" || return 1
	{ printf '#!%s\n' "$PY"; cat "$HERE/fakecli.py"; } > "$1/claude" || return 1
	printf '%s\n' "$2" > "$1/mode"
	chmod 755 "$1" "$1/claude" && chmod 644 "$1/mode"
}

# cli_ok FILE EXPECT: the model_cli part of a --self-test --json document.
# EXPECT: pass (the CLI answered, was asked, ran none of the plants, each
# of which ran without stepguard), stub (pass, and the stub answered the
# stand-in's four requests as it should), or a failure the stand-in was
# told to cause: markers, silent, exit3, wrong.  Prints the paths it names
# (for the leftovers check) to FILE.paths.
cli_ok() {
	python3 - "$1" "$2" > "$1.paths" <<'EOF'
import json, os, sys
path, expect = sys.argv[1:3]
with open(path) as f:
    d = json.load(f)
errors = []
def want(cond, what):
    if not cond:
        errors.append(what)
m = d["model_cli"]
want(m is not None and m["attempted"], "model_cli: %r" % (m,))
if not errors:
    step, ctl = m["step"], m["control"]
    want(m["command"][1:] == ["-p", "hi", "--tools", ""], "command %r" % m["command"])
    for name, r in (("control", ctl), ("step", step)):
        want(r["stub"]["address"] == "127.0.0.1" and r["stub"]["port"] > 0, "%s: stub %r" % (name, r["stub"]))
        want([p["plant"] for p in r["plants"]] ==
             ["project-hook-SessionStart", "project-hook-UserPromptSubmit", "project-hook-Stop",
              "project-mcp-server", "user-hook-SessionStart", "user-hook-UserPromptSubmit",
              "user-hook-Stop"], "%s: plants" % name)
        for p in r["plants"]:
            print(p["marker"])
        print(r["workdir"])
        print(r["home"])
    # A plant is judged unless stepguard gives the step its user's own HOME.
    for p in step["plants"]:
        want(p["judged"] == (not (m["home_replaced"] and p["plant"].startswith("user-"))),
             "%s judged is %r" % (p["plant"], p["judged"]))
    if expect in ("pass", "stub"):
        want(m["pass"] and d["result"] == "pass" and d["exit_status"] == 0 and d["problems"] == [],
             "result %r, problems %r" % (d["result"], d["problems"]))
        want(step["status"] == 0 and step["answered"] and step["stub"]["messages"] >= 1,
             "under stepguard: status %r, answered %r, %r messages; stdout %r, stderr %r" %
             (step["status"], step["answered"], step["stub"]["messages"], step["stdout"][:300],
              step["stderr"][-600:]))
        want(ctl["status"] == 0 and ctl["answered"],
             "control: status %r, answered %r" % (ctl["status"], ctl["answered"]))
        for p, c in zip(step["plants"], ctl["plants"]):
            want(p["ran"] is False, "%s ran under stepguard" % p["plant"])
            want(c["ran"] is True or not p["judged"], "%s did not run without stepguard" % p["plant"])
        # The user's UserPromptSubmit and Stop hooks reach the kernel: refused, and logged.
        if not m["home_replaced"]:
            want(len(m["refused_execs"]) >= 2 and all(r["op"] == "exec" for r in m["refused_execs"]),
                 "refused execs logged: %r" % m["refused_execs"])
    if expect == "stub":
        log = ["POST /v1/messages?beta=true -> 200 (stream)", "POST /v1/messages -> 200",
               "GET /api/hello -> 404", "POST /v1/messages?beta=true -> 400"]
        for name, r in (("control", ctl), ("step", step)):
            want(r["stub"]["log"] == log and r["stub"]["requests"] == 4 and r["stub"]["messages"] == 2
                 and r["stub"]["end"] == "stopped", "%s: the stub's report %r" % (name, r["stub"]))
    if expect not in ("pass", "stub"):
        want(not m["pass"] and d["result"] == "fail" and d["exit_status"] == 1,
             "pass %r, result %r" % (m["pass"], d["result"]))
    if expect == "markers":
        ran = [p for p in step["plants"] if p["ran"]]
        want(ran, "no marker under stepguard")
        for p in ran:
            want(any(p["marker"] in q and "ran: its marker" in q for q in d["problems"]),
                 "no problem names %s" % p["marker"])
    need = {"silent": "answered no POST /v1/messages", "exit3": "exited with status 3",
            "wrong": 'did not print "ok"'}.get(expect)
    if need:
        want(any(need in q for q in d["problems"]), "no problem says %r: %r" % (need, d["problems"]))
print(os.path.dirname(d["workdir"]))
for e in errors:
    print("  " + e, file=sys.stderr)
sys.exit(1 if errors else 0)
EOF
}

# cli_case NAME STATUS EXPECT CLI -- COMMAND...: COMMAND --self-test --json
# --model-cli CLI must exit STATUS, with a model_cli part as cli_ok EXPECT.
cli_case() {
	local name=$1 want=$2 expect=$3 cli=$4
	shift 5
	local js=$T/$name.json rc
	"$@" --self-test --json --model-cli "$cli" > "$js" 2> "$js.err"
	rc=$?
	[ "$rc" = "$want" ] && ok || { bad "$name: exit $rc (want $want)"; sed 's/^/  | /' "$js.err" | tail -20; }
	if cli_ok "$js" "$expect"; then ok; else bad "$name: the model_cli document"; fi
	none_left "$name" "$js.paths"
}

# The real CLI: $STEPGUARD_MODEL_CLI, else claude on PATH; never passed
# when there is none.
MODEL_CLI=${STEPGUARD_MODEL_CLI:-$(command -v claude 2> /dev/null)}
if [ -n "$MODEL_CLI" ]; then
	# Absolute (the user cases run in /), not resolved: its name is what the rulings read.
	MODEL_CLI=$(realpath -s "$MODEL_CLI")
	[ -x "$MODEL_CLI" ] || { bad "the model CLI $MODEL_CLI is not executable"; MODEL_CLI=; }
fi

for mode in client markers silent exit3 wrong; do
	fake "$T/fake-$mode" "$mode" || bad "cannot install the stand-in CLI in $T/fake-$mode"
done

# --- as whoever runs the tests --------------------------------------------
self=$(id -un)
case_ self 0 refused pass "$self" -- "$SG"
case_ self-negative 1 landed tmp-landed "$self" -- "$SG" -p "$T/neg.ini"
# Linux 6.15 and later (may_access_mm()); the step must be root to keep a capability.
kmaj=$(uname -r | cut -d. -f1) kmin=$(uname -r | cut -d. -f2 | tr -cd 0-9)
if [ "$(id -u)" != 0 ]; then
	skipped "a step that keeps CAP_PERFMON: needs root"
elif [ "$kmaj" -lt 6 ] || { [ "$kmaj" = 6 ] && [ "${kmin:-0}" -lt 15 ]; }; then
	skipped "a step that keeps CAP_PERFMON: Linux $(uname -r) does not let it read another process's environ (6.15 and later do)"
else
	case_ self-negative-peek 1 refused peek-read "$self" -- "$SG" -p "$T/perfmon.ini"
fi
cli_case stub-self 0 stub "$T/fake-client/claude" -- "$SG"
cli_case fake-markers 1 markers "$T/fake-markers/claude" -- "$SG"
cli_case fake-silent 1 silent "$T/fake-silent/claude" -- "$SG"
cli_case fake-exit3 1 exit3 "$T/fake-exit3/claude" -- "$SG"
cli_case fake-wrong 1 wrong "$T/fake-wrong/claude" -- "$SG"
if [ -n "$MODEL_CLI" ]; then
	cli_case cli-self 0 pass "$MODEL_CLI" -- "$SG"
	out=$T/cli-self.txt
	"$SG" --self-test --model-cli "$MODEL_CLI" > "$out" 2>&1
	grep -q '^PASS: .*, the rulings held, and the model CLI answered ok with none of its 7 planted hooks and servers run (each ran without stepguard)$' "$out" &&
		grep -q '^    output  *| ok  *| ok$' "$out" && ok ||
		{ bad "cli-self: the text report"; sed 's/^/  | /' "$out" | tail -30; }
else
	skipped "--model-cli with the real CLI: none installed (set STEPGUARD_MODEL_CLI, or put claude on PATH)"
fi

# --- as an unprivileged user, and as root dropping to it ------------------
if [ "$(id -u)" != 0 ]; then
	skipped "unprivileged and SUDO_UID cases: need root to switch users"
elif ! command -v runuser > /dev/null; then
	skipped "unprivileged and SUDO_UID cases: runuser is missing"
else
	if ! id "$USER_NAME" > /dev/null 2>&1; then
		useradd -m "$USER_NAME" || bad "useradd -m $USER_NAME"
	fi
	uid=$(id -u "$USER_NAME") gid=$(id -g "$USER_NAME")
	home=$(getent passwd "$USER_NAME" | cut -d: -f6)
	[ -d "$home" ] || { mkdir -p "$home" && chown "$uid:$gid" "$home"; }
	cd / || exit 1
	case_ user 0 refused pass "$USER_NAME" -- runuser -u "$USER_NAME" -- "$ISG"
	case_ user-negative 1 landed tmp-landed "$USER_NAME" -- runuser -u "$USER_NAME" -- "$ISG" -p "$T/neg.ini"
	case_ sudo-drop 0 refused pass "$USER_NAME" -- env SUDO_UID="$uid" SUDO_GID="$gid" "$ISG"
	case_ sudo-drop-negative 1 landed tmp-landed "$USER_NAME" -- \
		env SUDO_UID="$uid" SUDO_GID="$gid" "$ISG" -p "$T/neg.ini"
	case_ sudo-drop-unproven 1 refused peek-unproven "$USER_NAME" -- \
		env SUDO_UID="$uid" SUDO_GID="$gid" "$T/noread/bin/stepguard"
	if runuser -u "$USER_NAME" -- "$PY" -c '' 2> /dev/null; then
		cli_case stub-user 0 stub "$T/fake-client/claude" -- runuser -u "$USER_NAME" -- "$ISG"
		cli_case stub-sudo-drop 0 stub "$T/fake-client/claude" -- \
			env SUDO_UID="$uid" SUDO_GID="$gid" "$ISG"
	else
		skipped "the stand-in CLI as $USER_NAME: $USER_NAME cannot run $PY"
	fi
	if [ -z "$MODEL_CLI" ]; then
		skipped "--model-cli with the real CLI as $USER_NAME: none installed"
	elif ! runuser -u "$USER_NAME" -- test -x "$MODEL_CLI"; then
		skipped "--model-cli with the real CLI as $USER_NAME: $USER_NAME cannot execute $MODEL_CLI"
	else
		cli_case cli-user 0 pass "$MODEL_CLI" -- runuser -u "$USER_NAME" -- "$ISG"
		cli_case cli-sudo-drop 0 pass "$MODEL_CLI" -- env SUDO_UID="$uid" SUDO_GID="$gid" "$ISG"
	fi
fi

if [ "$skip" -gt 0 ]; then
	echo "selftest: $pass passed, $fail failed, $skip skipped"
else
	echo "selftest: $pass passed, $fail failed"
fi
[ "$fail" = 0 ]
