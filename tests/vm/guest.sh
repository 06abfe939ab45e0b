#!/bin/sh
# guest.sh — /test.sh of the VMs run.sh boots: run every /tests/*.sh in
# name order, each in its own shell with the guest library, then report.
# Each file's results are framed by "VMTEST-BEGIN NAME" and
# "VMTEST-DONE NAME STATUS", with its plans (vm_plan) in between: run.sh
# compares what each file reported with what it planned.  A test file
# that exits non-zero has crashed (results are reported with
# pass/fail/skip, not with the status) and counts as a failure; one that
# lacks what its "# needs:" line names is not run and fails.
. /lib/vmtest.sh

echo "VM: $(uname -r); lsm=$(cat /sys/kernel/security/lsm 2>/dev/null); cmdline: $(cat /proc/cmdline)"
# sg.tests=REGEX on the kernel command line (SG_VM_APPEND) runs only the
# test files whose name matches: for working on one file, never in CI.
only=$(vm_cmdline sg.tests)

# A mutant plan (tests/mutants/run.sh): each line "NAME FILE...": run
# those test files with /mutants/NAME first in PATH (its bpfdrive, built
# with one mutant; NAME baseline is the unmodified code), every result
# named NAME:ROW.  Nothing else runs in such a boot.
if [ -f /mutants/plan ]; then
	while read -r mutant files; do
		for f in $files; do
			echo "== $mutant: $f"
			PATH=/mutants/$mutant:$PATH VMTEST_PREFIX=$mutant: \
				sh -c '. /lib/vmtest.sh; . "$1"' sh "/tests/$f.sh"
			st=$?
			[ "$st" = 0 ] || fail "$mutant:$f" "test file exited $st"
		done
	done < /mutants/plan
	vm_finish
	exit 0
fi
found=0
for t in /tests/*.sh; do
	[ -f "$t" ] || continue
	found=1
	name=$(basename "$t" .sh)
	if [ -n "$only" ] && ! echo "$name" | grep -Eq "$only"; then
		echo "== $name: not in sg.tests=$only"
		continue
	fi
	echo "== $name"
	echo "VMTEST-BEGIN $name"
	missing=$(vm_needs "$t")
	if [ -n "$missing" ]; then
		echo "VMTEST-DONE $name not-run"
		fail "$name" "not run: the image lacks$missing (its '# needs:' line)"
		continue
	fi
	sh -c '. /lib/vmtest.sh; . "$1"' sh "$t"
	st=$?
	echo "VMTEST-DONE $name $st"
	[ "$st" = 0 ] || fail "$name" "test file exited $st"
done
[ "$found" = 1 ] || fail harness "no test files in /tests"
vm_finish
