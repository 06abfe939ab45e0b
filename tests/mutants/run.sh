#!/bin/bash
# tests/mutants/run.sh [NN-name.patch...] — prove that the safety net holds.
#
# Copies the source tree (without build/) to a scratch directory, builds
# and runs each mutant's unit test there on the unmodified code (it must
# pass), then applies each mutant in turn, rebuilds, runs the test again
# and reverts: the test must now fail.  A mutant that survives, or a test
# that fails on the unmodified code, fails the run.  The product code in
# this tree is never touched.  Run it as root and as an unprivileged user:
# the live tests that need root skip otherwise (README.md says which test
# kills each mutant for whom).
set -u

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

# The unit test that kills each mutant (the README's table, by file name).
declare -A killer=(
	[01-settings-becomes-value-option]=test_ruling
	[02-tool-flag-removed]=test_ruling
	[03-identity-ignores-device]=test_supervisor
	[04-view-check-dropped]=test_supervisor
	[05-capability-subset-always-true]=test_supervisor
	[06-fd-name-identity-skipped]=test_supervisor
	[07-walk-out-of-levels-inside]=test_supervisor
	[08-landlock-grants-device-nodes]=test_landlock
)

if [ $# -gt 0 ]; then
	patches=("$@")
else
	patches=("$here"/[0-9][0-9]-*.patch)
fi

scratch=$(mktemp -d /tmp/sg-mutants.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
tar -C "$src" --exclude=./build --exclude=./tests/vm/cache -cf - . | tar -C "$scratch" -xf -
chmod -R a+rX "$scratch" # an unprivileged user may run the tests from here

# run TEST: 0 if it passes, its status otherwise; its output goes to the log.
run() {
	(cd "$scratch" && make -s -j2 "build/tests/$1" >"$scratch/make.log" 2>&1) || {
		echo "build/tests/$1 did not build:"; sed 's/^/    /' "$scratch/make.log" | tail -20
		return 125
	}
	(cd "$scratch" && STEPGUARD_SOURCE_DIR="$scratch" "build/tests/$1") >"$scratch/test.log" 2>&1
}

status=0
declare -A baseline=()
for p in "${patches[@]}"; do
	p=$(realpath "$p")
	name=$(basename "$p" .patch)
	t=${killer[$name]:-}
	if [ -z "$t" ]; then
		echo "$name: no test named for it in run.sh"; status=1; continue
	fi
	if [ -z "${baseline[$t]:-}" ]; then
		run "$t"
		r=$?
		if [ "$r" -eq 0 ]; then
			baseline[$t]=pass
		else
			baseline[$t]=fail
			status=1
			if [ "$r" -ne 125 ]; then
				echo "$t fails on the unmodified code:"
				grep -E 'FAILED|ERROR|want' "$scratch/test.log"
			fi
		fi
	fi
	[ "${baseline[$t]}" = pass ] || continue

	(cd "$scratch" && patch -s -p1 <"$p") || { echo "$name: does not apply"; status=1; continue; }
	run "$t"
	r=$?
	(cd "$scratch" && patch -s -R -p1 <"$p")
	if [ "$r" -eq 0 ]; then
		echo "$name: SURVIVED $t"; status=1
	elif [ "$r" -eq 125 ]; then
		echo "$name: not judged (the build failed with it applied)"
		status=1
	else
		echo "$name: killed by $t"
		grep -E '^\[  FAILED  \] test_|^(ERROR: |step [0-9]+ \()|\[  ERROR   \] --- [^[]' "$scratch/test.log" |
			sort -u | sed 's/^/    /'
	fi
done
exit $status
