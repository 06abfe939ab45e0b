#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/cli/landlock-log.sh — every refusal on Landlock is a record, audit
# mode works on Landlock, and a failing step says why (issue 15).
#
#   STEPGUARD=build/stepguard bash tests/cli/landlock-log.sh
#
# As an unprivileged user (sgtest, through setpriv when run as root; the
# caller itself otherwise), on the Landlock backend:
#   1. enforce: a step that tries create, mkdir, symlink, link, rename,
#      unlink and an O_TRUNC write open outside the roots, then fails:
#      each call gets EACCES (EXDEV for the link that would carry a file
#      in), one `denial` record each with its op and path, the end
#      record's `denials` is 7, `stepguard audit` lists each path, the
#      step's stderr names the refused directory in a `stepguard:` line
#      with the fix, and nothing outside changed;
#   2. audit: the same step, `--mode audit`: it runs, every write lands,
#      each is recorded as `audited`, and the start line says audit on
#      Landlock is not a boundary.
# The step prints a marker line before its attempts, which is checked: a
# refusal of a step that never ran proves nothing.
#
# Exit status: 0 passed, 1 failed, 77 skipped (and says why).
set -u
export LC_ALL=C
SG=${STEPGUARD:?set STEPGUARD to the binary under test}
command -v python3 >/dev/null || { echo "landlock-log: skipped: no python3"; exit 77; }

pass=0 fail=0
ok() { pass=$((pass + 1)); }
ko() {
	fail=$((fail + 1))
	printf 'FAIL landlock-log %s\n' "$*"
}

# Who runs the step: an unprivileged user, as on a runner without sudo.
if [ "$(id -u)" = 0 ]; then
	if ! id sgtest >/dev/null 2>&1 || ! command -v setpriv >/dev/null; then
		echo "landlock-log: skipped: as root it needs the user sgtest and setpriv"
		exit 77
	fi
	AS=(setpriv --reuid=sgtest --regid=sgtest --init-groups --)
	OWNER=sgtest
else
	AS=()
	OWNER=$(id -un)
fi

T=$(mktemp -d /var/tmp/sg-llog.XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
mkdir "$T/work" "$T/out" "$T/out/dd" "$T/logs"
printf 'outside\n' >"$T/out/f"
printf 'outside\n' >"$T/out/g"
printf 'inside\n' >"$T/work/a"
chown -R "$OWNER" "$T/work" "$T/out" "$T/logs" 2>/dev/null

# One attempt per line: "NAME ERRNO", so the test sees each call was made.
cat >"$T/step.py" <<'EOF'
import errno, os, sys
out, work = sys.argv[1], sys.argv[2]
print("STEP-STARTED", flush=True)
def t(name, f):
    try:
        f()
        print(name, "ok", flush=True)
    except OSError as e:
        print(name, errno.errorcode[e.errno], flush=True)
t("create", lambda: os.close(os.open(out + "/new", os.O_WRONLY | os.O_CREAT, 0o644)))
t("mkdir", lambda: os.mkdir(out + "/d"))
t("symlink", lambda: os.symlink("x", out + "/l"))
t("link", lambda: os.link(out + "/f", work + "/l"))
t("rename", lambda: os.rename(out + "/g", out + "/h"))
t("unlink", lambda: os.unlink(out + "/f"))
t("truncate", lambda: os.close(os.open(out + "/f", os.O_WRONLY | os.O_TRUNC)))
sys.exit(int(sys.argv[3]))
EOF

run() { # LOG MODE STATUS: the step, as the user, from the work dir
	(cd "$T/work" && env -i PATH=/usr/bin:/bin HOME="$T" "${AS[@]}" \
		"$SG" --filter landlock --mode "$2" --log "$1" -- python3 "$T/step.py" "$T/out" "$T/work" "$3")
}

# --- 1. enforce --------------------------------------------------------------
out=$(run "$T/logs/enforce.jsonl" enforce 1 2>&1)
rc=$?
if ! grep -q '^STEP-STARTED$' <<<"$out"; then
	ko "enforce: the step did not start (status $rc):"
	head -20 <<<"$out"
	echo "landlock-log: $pass passed, $fail failed"
	exit 1
fi
[ "$rc" = 1 ] && ok || ko "enforce: status $rc, want the step's 1"
for want in "create EACCES" "mkdir EACCES" "symlink EACCES" "link EXDEV" "rename EACCES" \
	"unlink EACCES" "truncate EACCES"; do
	grep -qx "$want" <<<"$out" && ok || ko "enforce: no line '$want' in: $out"
done
python3 - "$T/logs/enforce.jsonl" "$T" <<'EOF'
import json, sys
log, t = sys.argv[1], sys.argv[2]
recs = [json.loads(l) for l in open(log)]
den = [r for r in recs if r["event"] == "denial"]
end = [r for r in recs if r["event"] == "end"]
want = [("create", t + "/out/new"), ("mkdir", t + "/out/d"), ("symlink", t + "/out/l"),
        ("link", t + "/out/f"), ("rename", t + "/out/g"), ("unlink", t + "/out/f"),
        ("open", t + "/out/f")]
got = [(r["op"], r["path"]) for r in den]
bad = []
if got != want:
    bad.append("records %s, want %s" % (got, want))
if any(r["decision"] != "denied" or r["backend"] != "supervisor" or not r.get("comm")
       or r.get("uid") is None for r in den):
    bad.append("a record lacks decision/backend/comm/uid: %s" % den)
if den and den[3].get("path2") != t + "/work/l":
    bad.append("link record path2 %s" % den[3].get("path2"))
if den and den[4].get("path2") != t + "/out/h":
    bad.append("rename record path2 %s" % den[4].get("path2"))
if len(end) != 1 or end[0]["denials"] != len(den):
    bad.append("end record %s, %d denial records" % (end, len(den)))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
[ $? = 0 ] && ok || ko "enforce: the log (above)"
for f in new d l h; do
	[ ! -e "$T/out/$f" ] && [ ! -L "$T/out/$f" ] && ok || ko "enforce: out/$f was made"
done
[ "$(cat "$T/out/f")" = outside ] && [ "$(cat "$T/out/g")" = outside ] && ok ||
	ko "enforce: a file outside changed"
[ ! -e "$T/work/l" ] && ok || ko "enforce: the link from outside landed"
# the failing step says why, last, naming the directory and the fix
grep -q "^stepguard: 7 writes refused under $T/out (.*); if this step should write there: --allow-write $T/out" <<<"$out" &&
	ok || ko "enforce: no summary line naming $T/out in: $out"
a=$("$SG" audit "$T/logs/enforce.jsonl" 2>&1)
for p in "$T/out/new" "$T/out/d" "$T/out/l" "$T/out/f" "$T/out/g"; do
	grep -qF -- "$p" <<<"$a" && ok || ko "audit: $p not listed in: $a"
done

# --- 2. audit mode -----------------------------------------------------------
out=$(run "$T/logs/audit.jsonl" audit 0 2>&1)
rc=$?
grep -q '^STEP-STARTED$' <<<"$out" && [ "$rc" = 0 ] && ok ||
	ko "audit: status $rc or no start: $out"
grep -q 'audit mode on Landlock is a roll-out aid, not a boundary' <<<"$out" && ok ||
	ko "audit: the start line does not say it is not a boundary: $out"
for want in "create ok" "mkdir ok" "symlink ok" "link ok" "rename ok" "unlink ok" \
	"truncate ENOENT"; do
	grep -qx "$want" <<<"$out" && ok || ko "audit: no line '$want' in: $out"
done
for f in new d l h; do
	{ [ -e "$T/out/$f" ] || [ -L "$T/out/$f" ]; } && ok || ko "audit: out/$f did not land"
done
python3 - "$T/logs/audit.jsonl" <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
den = [r for r in recs if r["event"] == "denial"]
ops = [r["op"] for r in den]
bad = []
if ops != ["create", "mkdir", "symlink", "link", "rename", "unlink"]:
    bad.append("ops %s" % ops)
if any(r["decision"] != "audited" for r in den):
    bad.append("not all audited: %s" % den)
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
[ $? = 0 ] && ok || ko "audit: the log (above)"

echo "landlock-log: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
