#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/cli/summary.sh — a failing step says why (issue 15, item 3),
# judged from outside on the Landlock backend.
#
#   STEPGUARD=build/stepguard bash tests/cli/summary.sh
#
# The refused writes are ones the supervisor refuses and reports (touch
# -d: its open for writing and utimensat; chmod) on a file outside the
# roots that the step's user owns, so only the write filter stands in
# the way:
#
#   1. a step that fails after them ends its stderr with the summary:
#      the count, the directory, the ops and the --allow-write fix;
#   2. the fix, applied, lets the same writes land, and nothing is said;
#   3. with -q no summary (and no other stepguard line);
#   4. a step that succeeds after a refusal: no summary, but with -v one;
#   5. a named step's fix names its policy key, [step:NAME] write.LABEL,
#      and that key, written to a policy, lets the writes land;
#   6. a step refused nothing says nothing, even with -v;
#   7. as root, the step run as another user (--user sgtest, when there
#      is one) gets the same summary: the supervisor runs as that user;
#   8. audit mode: the writes land, and a step that succeeds still ends
#      with the summary, worded "would have been refused"; with -q, none.
# Each case prints a marker before its attempt and checks the file's mode
# and mtime after it: a refusal of a step that never ran proves nothing.
#
# Exit status: 0 passed, 1 failed, 77 skipped (and says why).
# shellcheck disable=SC2016 # single-quoted scripts get their arguments as "$@"
set -u
export LC_ALL=C
SG=${STEPGUARD:?set STEPGUARD to the binary under test}

B=$(mktemp -d /var/tmp/sg-summary.XXXXXX) || exit 1
trap 'rm -rf "$B"' EXIT
mkdir "$B/work" "$B/home" "$B/out"
cd "$B/work" || exit 1
E=(env -i PATH=/usr/bin:/bin HOME="$B/home")
# Skipped only where stepguard says Landlock is what is missing: any other
# answer is the binary under test failing, not this machine lacking.
out=$("${E[@]}" "$SG" -q --filter landlock --check -- true 2>&1)
rc=$?
case $rc in
0) ;;
71)
	if grep -qi landlock <<<"$out"; then
		echo "summary: skipped: the landlock backend cannot be set up here: $(head -1 <<<"$out")"
		exit 77
	fi
	echo "FAIL summary: --filter landlock --check refused (71) without naming Landlock: $out"
	exit 1 ;;
*)
	echo "FAIL summary: --filter landlock --check -- true exited $rc: $out"
	exit 1 ;;
esac
fail=0 n=0
bad() { echo "FAIL summary: $*"; fail=$((fail + 1)); }
ok() { n=$((n + 1)); }

F=$B/out/target
fresh() { # the file, the step's user's, mode 644, with an mtime that touch -d @0 changes
	rm -f "$F"
	echo keep >"$F"
	chown "${OWNER:-$(id -u):$(id -g)}" "$F"
	chmod 644 "$F"
	before=$(stat -c '%a %Y' "$F")
}
unchanged() { [ "$(stat -c '%a %Y' "$F")" = "$before" ]; }
# The step: a marker, the two writes, then STATUS (its first argument).
STEP='echo "marker: trying"; touch -d @0 "$1"; chmod 600 "$1"; exit "$2"'
FIX="stepguard: 3 writes refused under $B/out (open, utimes, chmod); if this step should write there: --allow-write $B/out"

# ---- 1. a failing step ends with the summary ---------------------------------
fresh
"${E[@]}" "$SG" --filter landlock -w "$B/work" -- sh -c "$STEP" sh "$F" 3 >"$B/o" 2>"$B/e"
rc=$?
if [ "$rc" = 3 ] && grep -qx 'marker: trying' "$B/o" && unchanged &&
	grep -q "^stepguard: refused chmod $F " "$B/e" && [ "$(tail -n 1 "$B/e")" = "$FIX" ] &&
	[ "$(grep -c 'refused under' "$B/e")" = 1 ]; then ok; else
	bad "failing step: status $rc (want 3), mode $(stat -c %a "$F"), stdout: $(cat "$B/o"), stderr:"
	cat "$B/e"
fi

# ---- 2. the fix lets the writes land, and then nothing is said ---------------
fresh
"${E[@]}" "$SG" --filter landlock -w "$B/work" --allow-write "$B/out" -- sh -c "$STEP" sh "$F" 3 \
	>"$B/o" 2>"$B/e"
rc=$?
if [ "$rc" = 3 ] && grep -qx 'marker: trying' "$B/o" && [ "$(stat -c '%a %Y' "$F")" = "600 0" ] &&
	! grep -q 'refused' "$B/e"; then ok; else
	bad "the fix applied: status $rc, mode and mtime $(stat -c '%a %Y' "$F") (want 600 0), stderr: $(cat "$B/e")"
fi

# ---- 3. -q: no summary -------------------------------------------------------
fresh
"${E[@]}" "$SG" -q --filter landlock -w "$B/work" -- sh -c "$STEP" sh "$F" 3 >"$B/o" 2>"$B/e"
rc=$?
if [ "$rc" = 3 ] && grep -qx 'marker: trying' "$B/o" && unchanged && ! grep -q '^stepguard:' "$B/e" &&
	grep -q 'chmod' "$B/e"; then ok; else # the step's own chmod error shows it tried
	bad "-q: status $rc, mode $(stat -c %a "$F"), stderr: $(cat "$B/e")"
fi

# ---- 4. success: no summary, unless -v -----------------------------------------
fresh
"${E[@]}" "$SG" --filter landlock -w "$B/work" -- sh -c "$STEP" sh "$F" 0 >"$B/o" 2>"$B/e"
rc=$?
if [ "$rc" = 0 ] && grep -qx 'marker: trying' "$B/o" && unchanged &&
	grep -q "^stepguard: refused chmod $F " "$B/e" && ! grep -q 'refused under' "$B/e"; then ok; else
	bad "success: status $rc, mode $(stat -c %a "$F"), stderr: $(cat "$B/e")"
fi
fresh
"${E[@]}" "$SG" -v --filter landlock -w "$B/work" -- sh -c "$STEP" sh "$F" 0 >"$B/o" 2>"$B/e"
rc=$?
if [ "$rc" = 0 ] && grep -qx 'marker: trying' "$B/o" && unchanged && [ "$(tail -n 1 "$B/e")" = "$FIX" ]; then
	ok; else
	bad "success with -v: status $rc, mode $(stat -c %a "$F"), stderr: $(cat "$B/e")"
fi

# ---- 5. a named step: the policy key, which works when written -----------------
fresh
"${E[@]}" "$SG" --filter landlock -w "$B/work" -s build -- sh -c "$STEP" sh "$F" 3 >"$B/o" 2>"$B/e"
rc=$?
want="stepguard: 3 writes refused under $B/out (open, utimes, chmod); if step build should write there: [step:build] write.out = $B/out (or --allow-write $B/out)"
if [ "$rc" = 3 ] && grep -qx 'marker: trying' "$B/o" && unchanged && [ "$(tail -n 1 "$B/e")" = "$want" ]; then
	ok; else
	bad "named step: status $rc, stderr: $(cat "$B/e")"
fi
key=$(tail -n 1 "$B/e" | sed -n 's/.*should write there: \[step:build\] \(write\.[^ ]* = [^ ]*\) (or.*/\1/p')
printf '[step:build]\n%s\n' "$key" >"$B/policy.ini"
chmod 644 "$B/policy.ini"
fresh
"${E[@]}" "$SG" -p "$B/policy.ini" --filter landlock -w "$B/work" -s build -- sh -c "$STEP" sh "$F" 0 \
	>"$B/o" 2>"$B/e"
rc=$?
if [ -n "$key" ] && [ "$rc" = 0 ] && [ "$(stat -c '%a %Y' "$F")" = "600 0" ] && ! grep -q refused "$B/e"; then
	ok; else
	bad "the suggested key ($key): status $rc, mode and mtime $(stat -c '%a %Y' "$F"), stderr: $(cat "$B/e")"
fi

# ---- 6. nothing refused: nothing said ---------------------------------------------
"${E[@]}" "$SG" -v --filter landlock -w "$B/work" -- sh -c 'echo x >inside; exit 4' >"$B/o" 2>"$B/e"
rc=$?
if [ "$rc" = 4 ] && [ -s inside ] && ! grep -q 'refused' "$B/e"; then ok; else
	bad "nothing refused: status $rc, stderr: $(cat "$B/e")"
fi

# ---- 7. as root, dropping to another user -------------------------------------------
if [ "$(id -u)" = 0 ] && id sgtest >/dev/null 2>&1; then
	chmod 755 "$B" "$B/work" "$B/home" "$B/out"
	OWNER=sgtest:$(id -g sgtest) fresh
	"${E[@]}" "$SG" --user sgtest --filter landlock -w "$B/work" -- sh -c "$STEP" sh "$F" 3 >"$B/o" 2>"$B/e"
	rc=$?
	if [ "$rc" = 3 ] && grep -qx 'marker: trying' "$B/o" && unchanged && [ "$(tail -n 1 "$B/e")" = "$FIX" ]; then
		ok; else
		bad "as sgtest: status $rc, mode $(stat -c %a "$F"), stderr: $(cat "$B/e")"
	fi
else
	echo "SKIP summary as another user: needs root and the user sgtest"
fi

# ---- 8. audit mode: the writes land, and the summary says what would have been refused
fresh
"${E[@]}" "$SG" --mode audit --filter landlock -w "$B/work" -- sh -c "$STEP" sh "$F" 0 >"$B/o" 2>"$B/e"
rc=$?
want="stepguard: 3 writes would have been refused under $B/out (open, utimes, chmod); if this step should write there: --allow-write $B/out"
if [ "$rc" = 0 ] && grep -qx 'marker: trying' "$B/o" && [ "$(stat -c '%a %Y' "$F")" = "600 0" ] &&
	grep -q "^stepguard: audited chmod $F " "$B/e" && [ "$(tail -n 1 "$B/e")" = "$want" ]; then ok; else
	bad "audit mode: status $rc, mode and mtime $(stat -c '%a %Y' "$F") (want 600 0), stderr: $(cat "$B/e")"
fi
fresh
"${E[@]}" "$SG" -q --mode audit --filter landlock -w "$B/work" -- sh -c "$STEP" sh "$F" 0 >"$B/o" 2>"$B/e"
rc=$?
if [ "$rc" = 0 ] && grep -qx 'marker: trying' "$B/o" && [ "$(stat -c '%a %Y' "$F")" = "600 0" ] &&
	! grep -q '^stepguard:' "$B/e"; then ok; else
	bad "audit mode with -q: status $rc, mode and mtime $(stat -c '%a %Y' "$F"), stderr: $(cat "$B/e")"
fi

echo "summary: $n passed, $fail failed"
[ "$fail" = 0 ]
