#!/bin/bash
# Integration test of `stepguard --self-test`, judged from outside:
#   - as root, as an unprivileged user (runuser) and as root dropping to
#     that user (SUDO_UID/SUDO_GID), in text and in --json: exit 0, all
#     cells of the table refused in every run, the control landed, the
#     rulings held, and nothing left behind where the probe wrote;
#   - a negative case that proves the self-test can fail: a policy that
#     makes /tmp writable must give exit 1 and "landed" in the /tmp column.
#
# Usage: STEPGUARD=build/stepguard bash tests/selftest/run.sh
# Needs root for the user cases (skipped, with the reason, otherwise).
set -u
SG=${STEPGUARD:?set STEPGUARD to the binary under test}
SG=$(realpath "$SG") || exit 1
PROBE=$(dirname "$SG")/stepguard-probe
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

# table_ok FILE [TMPCELL]: the table in FILE has six rows (scrub unset, 0,
# 1, then 1, 0, unset), each with its four targets TMPCELL for /tmp and
# refused elsewhere, and the control landed.
table_ok() {
	local tmpcell=${2:-refused}
	awk -F'|' -v tmpcell="$tmpcell" '
		function trim(s) { gsub(/^ +| +$/, "", s); return s }
		/^  (unset|0|1) +(forward|reverse) +\|/ {
			split(trim($1), a, / +/)
			order = order a[1] "/" a[2] " "
			rows++
			if (trim($2) != "refused" || trim($3) != "refused" || trim($4) != tmpcell ||
			    trim($5) != "refused" || trim($6) != "landed") {
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
# facts; EXPECT is "pass" or "tmp-landed".  Prints the paths it names (for
# the leftovers check) to FILE.paths.
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
for r in runs:
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
    want(any("/tmp" in p and "landed" in p for p in d["problems"]), "no problem names /tmp")
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

# case NAME STATUS TABLE-TMPCELL JSON-EXPECT USER -- COMMAND...: run the
# self-test in text (-v) and in --json, and judge both.
case_() {
	local name=$1 want=$2 tmpcell=$3 jexpect=$4 user=$5
	shift 6
	local out=$T/$name.txt js=$T/$name.json rc
	# Names the test did not make: a self-test must not leave any either.
	"$@" --self-test -v > "$out" 2>&1
	rc=$?
	[ "$rc" = "$want" ] && ok || { bad "$name: exit $rc (want $want)"; sed 's/^/  | /' "$out" | tail -40; }
	if table_ok "$out" "$tmpcell"; then ok; else bad "$name: the table"; sed 's/^/  | /' "$out" | head -20; fi
	grep -q '^  backend  *[a-z]' "$out" && grep -q '^  Landlock ABI  *[0-9]' "$out" &&
		grep -q '^  kernel ' "$out" && grep -q '^  active LSMs ' "$out" &&
		grep -q '^  not covered ' "$out" && ok || bad "$name: the facts below the table"
	if [ "$want" = 0 ]; then
		grep -q '^PASS' "$out" && ok || bad "$name: no PASS line"
	else
		grep -q '^FAIL' "$out" && grep -q 'file in /tmp landed' "$out" && ok ||
			bad "$name: no FAIL line naming the /tmp write"
	fi
	text_paths "$out" > "$out.paths"
	none_left "$name" "$out.paths"

	"$@" --self-test --json > "$js" 2> "$js.err"
	rc=$?
	[ "$rc" = "$want" ] && ok || { bad "$name --json: exit $rc (want $want)"; cat "$js.err"; }
	if json_ok "$js" "$jexpect" "$user"; then ok; else bad "$name --json: the document"; fi
	none_left "$name --json" "$js.paths"
}

# --- as whoever runs the tests --------------------------------------------
self=$(id -un)
case_ self 0 refused pass "$self" -- "$SG"
case_ self-negative 1 landed tmp-landed "$self" -- "$SG" -p "$T/neg.ini"

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
fi

if [ "$skip" -gt 0 ]; then
	echo "selftest: $pass passed, $fail failed, $skip skipped"
else
	echo "selftest: $pass passed, $fail failed"
fi
[ "$fail" = 0 ]
