#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/cli/ptys-gap.sh — the gap `ptys` is said when a writable root
# is a devpts directory, and only then (mutant 171's killer).
#
#   STEPGUARD=build/stepguard bash tests/cli/ptys-gap.sh
#
# /dev/pts as a root (the shipped [writes] dev-pts) makes every terminal of
# the user writable, the step's own and the others alike; no backend can
# tell them apart, so stepguard must say so (docs/threat-model.md, "other
# terminals of the user").  The host suite's pty-other case is skipped
# while the gap is said, so it cannot notice the gap going unsaid: this
# checks the saying itself, through `--check`'s write-filter line, with
# the default policy (the gap) and with dev-pts emptied (no gap).
#
# Exit status: 0 passed, 1 failed, 77 skipped (and says why).
set -u
export LC_ALL=C
SG=${STEPGUARD:?set STEPGUARD to the binary under test}

if [ "$(stat -f -c %T /dev/pts 2>/dev/null)" != devpts ]; then
	echo "ptys-gap: skipped: /dev/pts is not a devpts mount here"
	exit 77
fi
T=$(mktemp -d /tmp/sg-ptys.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
mkdir "$T/w"
printf '[writes]\ndev-pts =\n' > "$T/no-pts.ini"
chmod 644 "$T/no-pts.ini"

# The write-filter line of --check; 77 when no backend can be set up here.
filter_line() {
	local out
	out=$("$SG" --check "$@" -w "$T/w" -- true 2>&1)
	sed -n 's/^# write filter: //p' <<<"$out"
}

with=$(filter_line)
if [ -z "$with" ]; then
	echo "ptys-gap: skipped: --check names no write filter here"
	exit 77
fi
without=$(filter_line -p "$T/no-pts.ini")
fail=0
case $with in
*'ptys ('*) echo "PASS ptys-gap-said: /dev/pts a root: $with" ;;
*) echo "FAIL ptys-gap-said: /dev/pts a root, the gap ptys not said: $with"; fail=1 ;;
esac
case $without in
'') echo "FAIL ptys-gap-not-said: --check with dev-pts emptied named no write filter"; fail=1 ;;
*'ptys ('*) echo "FAIL ptys-gap-not-said: dev-pts emptied, ptys said all the same: $without"; fail=1 ;;
*) echo "PASS ptys-gap-not-said: no devpts root: $without" ;;
esac
exit $fail
