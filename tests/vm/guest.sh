#!/bin/sh
# guest.sh — /test.sh of the VMs run.sh boots: run every /tests/*.sh in
# name order, each in its own shell with the guest library, then report.
# A test file that exits non-zero has crashed (results are reported with
# pass/fail/skip, not with the status) and counts as a failure.
. /lib/vmtest.sh

echo "VM: $(uname -r); lsm=$(cat /sys/kernel/security/lsm 2>/dev/null); cmdline: $(cat /proc/cmdline)"
found=0
for t in /tests/*.sh; do
	[ -f "$t" ] || continue
	found=1
	name=$(basename "$t" .sh)
	echo "== $name"
	sh -c '. /lib/vmtest.sh; . "$1"' sh "$t"
	st=$?
	[ "$st" = 0 ] || fail "$name" "test file exited $st"
done
[ "$found" = 1 ] || fail harness "no test files in /tests"
vm_finish
