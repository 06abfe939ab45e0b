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
#
# VM-only mutants (the eBPF filter's: this kind of host refuses BPF LSM
# and fmod_ret programs) are killed by rows of tests/vm/t/25-exec.sh or
# 20-bpf.sh (vm_file says which).
# They run only with SG_MUTANTS_VM=1 (root, QEMU, a cached kernel): each
# builds bpfdrive with the mutant and boots one kernel (the first cached,
# or SG_MUTANTS_VM_KERNEL) with bpf in lsm=, running that file alone, in
# both attach modes; the mutant is killed when one of its rows FAILs.
# Without SG_MUTANTS_VM=1 they are listed as not run, and do not fail the
# run.
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
	[30-landlock-roots-grant-exec]=test_landlock
	[31-landlock-exec-not-handled]=test_landlock
	[32-execs-without-elf-interpreter]=test_execs
	[33-execs-script-interpreter-dropped]=test_execs
	[34-supervisor-continues-refused-exec]=test_supervisor
	[40-resume-becomes-optional-value]=test_ruling
	[41-tool-variable-dropped]=test_ruling
	[42-tool-variables-not-judged]=test_ruling
	[43-ruling-option-value-not-compared]=test_ruling
	[44-ruling-options-not-added]=test_ruling
	[45-credential-channel-dropped]=test_ruling
	[46-after-double-dash-always-prompt]=test_ruling
	[47-variadic-equals-takes-operands]=test_ruling
	[48-proc-fd-of-another-process]=test_supervisor
	[49-proc-fd-dir-rest-not-walked]=test_supervisor
	[50-tmpdir-shared-base-accepted]=test_tmpdir
	[51-tmpdir-base-owner-unchecked]=test_tmpdir
	[52-tmpdir-remove-follows-links]=test_tmpdir
	[53-intent-parent-always-inside]=test_supervisor
	[54-write-open-not-notified]=test_supervisor
	[55-chdir-keeps-cwd]=test_supervisor
	[56-link-refer-not-judged]=test_supervisor
	[57-audit-mode-refuses]=test_supervisor
	[58-abi1-refer-continued]=test_supervisor
	[60-prebuilt-ignores-policy-deny]=test_seccomp
	[61-prebuilt-without-supervisor-rules]=test_seccomp
	[62-notify-gate-below-api-5]=test_seccomp
	[63-caps-sys-admin-kept]=test_policy
	[64-caps-bounding-set-kept]=script:tests/cli/caps.sh
	[65-caps-landlock-not-dropped]=script:tests/cli/caps.sh
	[66-core-limit-not-set]=script:tests/cli/caps.sh
	[67-no-private-ipc]=script:tests/cli/caps.sh
	[68-fs-label-ioctl-allowed]=test_seccomp
	[69-mq-unlink-allowed]=test_seccomp
	[90-landed-read-counted-refused]=test_selftest
	[80-sched-stepguard-itself-inside]=test_supervisor
	[81-sched-top-of-walk-inside]=test_supervisor
	[82-sched-user-form-served]=test_supervisor
	[83-sched-group-outside-member-ignored]=test_supervisor
	[84-sched-prlimit-not-notified]=test_supervisor
	[85-sched-creds-not-compared]=test_supervisor
	[86-sched-setpriority-who-not-notified]=test_supervisor
	[87-connect-pathname-not-judged]=test_supervisor
	[88-connect-abstract-performed]=test_supervisor
	[89-sendto-not-notified]=test_supervisor
)

# The VM rows that kill each VM-only mutant (result names in the test
# file, a grep -E pattern; the mode is lsm or fmod).
declare -A vm_killer=(
	[09-exec-allows-unregistered]='exec-(lsm|fmod)-copy'
	[10-exec-restriction-not-marked]='exec-(lsm|fmod)-copy'
	[11-exec-restriction-not-inherited]='exec-(lsm|fmod)-copy'
	[12-exec-restriction-read-from-policy]='exec-(lsm|fmod)-daemon-restricted'
	[13-exec-identity-ignores-device]='exec-(lsm|fmod)-device'
	[14-exec-identity-ignores-generation]='exec-(lsm|fmod)-generation'
	[70-sched-guard-lets-others-through]='bpf-(lsm|fmod)-sched'
	[71-proc-any-entry-public]='bpf-(lsm|fmod)-proc'
	[72-connect-any-socket-allowed]='bpf-(lsm|fmod)-connect(-unlisted)?'
	[73-receive-judges-read-only]='bpf-(lsm|fmod)-receive'
)
# The test file (tests/vm/t/NAME.sh) whose rows those are: 25-exec unless named.
declare -A vm_file=(
	[70-sched-guard-lets-others-through]=20-bpf
	[71-proc-any-entry-public]=20-bpf
	[72-connect-any-socket-allowed]=20-bpf
	[73-receive-judges-read-only]=20-bpf
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
# A TEST of the form script:PATH is a shell test of the built stepguard
# (STEPGUARD set, as make check runs it); its exit 77 (skipped, with the
# reason on its output) leaves the mutant not judged, never killed.
run() {
	if [[ $1 == script:* ]]; then
		(cd "$scratch" && make -s -j2 build/stepguard build/stepguard-probe >"$scratch/make.log" 2>&1) || {
			echo "build/stepguard did not build:"; sed 's/^/    /' "$scratch/make.log" | tail -20
			return 125
		}
		(cd "$scratch" && STEPGUARD="$scratch/build/stepguard" bash "${1#script:}") >"$scratch/test.log" 2>&1
		local r=$?
		if [ "$r" -eq 77 ]; then
			echo "${1#script:} skipped:"; sed 's/^/    /' "$scratch/test.log" | tail -3
			return 125
		fi
		return "$r"
	fi
	(cd "$scratch" && make -s -j2 "build/tests/$1" >"$scratch/make.log" 2>&1) || {
		echo "build/tests/$1 did not build:"; sed 's/^/    /' "$scratch/make.log" | tail -20
		return 125
	}
	(cd "$scratch" && STEPGUARD_SOURCE_DIR="$scratch" "build/tests/$1") >"$scratch/test.log" 2>&1
}

# vm_run FILE: build bpfdrive in the scratch tree and boot it with
# tests/vm/t/FILE.sh alone; 0 if the boot ran (whatever its rows said),
# the rows in vm.log.
vm_run() {
	local k=${SG_MUTANTS_VM_KERNEL:-} file=$1
	(cd "$scratch" && make -s -j2 build/tests/bpfdrive >"$scratch/make.log" 2>&1) || {
		echo "build/tests/bpfdrive did not build:"; sed 's/^/    /' "$scratch/make.log" | tail -20
		return 125
	}
	# The kernels from this tree's cache, the console logs in the scratch.
	mkdir -p "$scratch/vmcache"
	for d in "$src"/tests/vm/cache/*/; do
		case $(basename "$d") in run | bin) ;; *) ln -sfn "${d%/}" "$scratch/vmcache/" ;; esac
	done
	[ -n "$k" ] || k=$(SG_VM_CACHE="$scratch/vmcache" "$scratch/tests/vm/fetch-kernels.sh" --offline | head -n 1)
	[ -n "$k" ] || { echo "no cached kernel (run tests/vm/fetch-kernels.sh)"; return 125; }
	(cd "$scratch" && SG_VM_CACHE="$scratch/vmcache" SG_VM_OFFLINE=1 SG_VM_JOBS=1 \
		SG_VM_APPEND=sg.tests=$file BUILD=build \
		bash tests/vm/run.sh --kernel "$k" --config bpf \
		"$scratch/build/tests/bpfdrive:/usr/local/bin/bpfdrive") >"$scratch/vm.log" 2>&1
	grep -q '^vm: [0-9]* passed' "$scratch/vm.log" || { tail -20 "$scratch/vm.log"; return 125; }
}

status=0
declare -A baseline=()
declare -A vm_baseline=()
for p in "${patches[@]}"; do
	p=$(realpath "$p")
	name=$(basename "$p" .patch)
	row=${vm_killer[$name]:-}
	if [ -n "$row" ]; then
		vf=${vm_file[$name]:-25-exec}
		if [ "${SG_MUTANTS_VM:-0}" != 1 ]; then
			echo "$name: VM-only, not run (killed by tests/vm/t/$vf.sh $row; SG_MUTANTS_VM=1 runs it)"
			continue
		fi
		if [ -z "${vm_baseline[$vf]:-}" ]; then
			# The unmodified code: every row passes.
			vm_baseline[$vf]=fail
			if vm_run "$vf" && ! grep -q '^VMTEST .* FAIL' "$scratch/vm.log"; then
				vm_baseline[$vf]=pass
			else
				echo "tests/vm/t/$vf.sh fails on the unmodified code:"
				grep '^VMTEST .* FAIL\|^vm: ' "$scratch/vm.log" | sed 's/^/    /'
			fi
			cp "$scratch/vm.log" "$scratch/vm-baseline-$vf.log" 2>/dev/null
		fi
		[ "${vm_baseline[$vf]}" = pass ] || { status=1; continue; }
		(cd "$scratch" && patch -s -p1 <"$p") || { echo "$name: does not apply"; status=1; continue; }
		vm_run "$vf"
		r=$?
		(cd "$scratch" && patch -s -R -p1 <"$p")
		if [ "$r" -ne 0 ]; then
			echo "$name: not judged (the build or the boot failed with it applied)"
			status=1
		elif grep -Eq "^VMTEST [^ ]*/($row) FAIL" "$scratch/vm.log"; then
			echo "$name: killed by $vf.sh $row"
			grep -E '^VMTEST .* FAIL' "$scratch/vm.log" | sed 's/^/    /'
		else
			echo "$name: SURVIVED $vf.sh $row"
			grep -E "^VMTEST [^ ]*/($row) " "$scratch/vm.log" | sed 's/^/    /'
			status=1
		fi
		continue
	fi
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
		grep -E '^\[  FAILED  \] test_|^(ERROR: |step [0-9]+ \()|\[  ERROR   \] --- [^[]|^FAIL ' "$scratch/test.log" |
			sort -u | sed 's/^/    /'
	fi
done
exit $status
