#!/bin/bash
# tests/mutants/run.sh [--quick] [NN-name.patch...] — prove that the
# safety net holds (make mutants; make mutants-quick is --quick).
#
# Copies the source tree (without build/) to a scratch directory, builds
# and runs each mutant's killing test there on the unmodified code (it
# must pass), then applies each mutant in turn, rebuilds, runs the test
# again and reverts: the test must now fail.  The product code in this
# tree is never touched.  Ends with a table, one row per mutant: killed,
# SURVIVED, or not judged (and why); exit 0 only when every mutant listed
# was killed.  Run it as root and as an unprivileged user: the live tests
# that need root skip otherwise, and their mutants are then not judged
# (README.md says which test kills each mutant for whom).
#
# --quick: only the mutants a unit test kills (the subset CI runs: a few
# minutes of builds, no root, no VM); every other mutant must still
# apply to the code (a dry run), so that one left stale by a change to its
# decision fails CI and not only the next full run.
#
# VM-only mutants (the eBPF filter's: this kind of host refuses BPF LSM
# and fmod_ret programs) are killed by rows of tests/vm/t/25-exec.sh or
# 20-bpf.sh (vm_file says which).  They are batched: bpfdrive is built
# once unmodified and once per mutant, and one boot per cached kernel
# (bpf in lsm=, so both attach modes, lsm and fmod) runs each mutant's
# test file with that mutant's bpfdrive (tests/vm/guest.sh's mutant plan),
# the unmodified one first.  A kernel judges a mutant when its killing
# rows pass there with the unmodified bpfdrive; the mutant is killed when
# one of them fails on every kernel that judges it.  They need root, QEMU
# and a cached kernel (tests/vm/fetch-kernels.sh); SG_MUTANTS_VM=0 leaves
# them out (listed as not judged), SG_MUTANTS_VM_KERNEL=RELEASE boots
# that kernel only.
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
	[100-landlock-write-file-not-handled]=test_landlock
	[101-landlock-make-reg-not-handled]=test_landlock
	[102-landlock-fifo-socket-not-handled]=test_landlock
	[103-landlock-make-dir-not-handled]=test_landlock
	[104-landlock-remove-dir-not-handled]=test_landlock
	[105-landlock-remove-file-not-handled]=test_landlock
	[106-landlock-refer-not-handled]=test_landlock
	[107-landlock-make-sym-not-handled]=test_landlock
	[108-landlock-ioctl-dev-not-handled]=test_landlock
	[109-landlock-signal-not-scoped]=test_landlock
	[110-landlock-abstract-socket-not-scoped]=test_landlock
	[111-seccomp-mknod-device-allowed]=test_seccomp
	[112-seccomp-setflags-allowed]=test_seccomp
	[113-seccomp-setversion-allowed]=test_seccomp
	[114-seccomp-ioctl-compares-all-64-bits]=test_seccomp
	[115-seccomp-ptrace-allowed]=test_seccomp
	[116-seccomp-mount-allowed]=test_seccomp
	[117-seccomp-clone-newuser-allowed]=test_seccomp
	[118-seccomp-bpf-allowed]=test_seccomp
	[119-seccomp-io-uring-allowed]=test_seccomp
	[120-seccomp-open-by-handle-allowed]=test_seccomp
	[121-seccomp-perf-event-allowed]=test_seccomp
	[122-seccomp-foreign-arch-allowed]=test_seccomp
	[123-seccomp-unknown-numbers-allowed]=test_seccomp
	[140-otrunc-read-open-not-notified]=test_supervisor
	[141-openat2-not-refused]=test_supervisor
	[142-truncate-not-notified]=test_supervisor
	[143-steps-own-listener-allowed]=test_supervisor
	[144-chown-family-not-notified]=test_supervisor
	[145-times-not-notified]=test_supervisor
	[146-xattr-not-notified]=test_supervisor
	[147-device-root-metadata-allowed]=test_supervisor
	[148-unreadable-step-let-through]=test_supervisor
	[160-log-follows-symlinks]=test_log
	[161-log-without-append]=test_log
	[162-escape-keeps-control-bytes]=test_log
	[163-credential-only-whole]=test_ruling
	[164-audit-unfinished-not-a-gap]=test_audit
	[166-unlogged-not-counted]='failclosed:^log-full\.'
	[168-inherited-fds-kept]='host:^(fd-inherited|dirfd-inherited)$'
	[170-uncovered-gap-runs-unaccepted]='failclosed:^backend-supervisor-unavailable\.'
	[171-ptys-gap-not-reported]=script:tests/cli/ptys-gap.sh
	[172-sigterm-escalated-to-sigkill]='failclosed:^sigterm-ignored\.'
	[173-log-inside-root-accepted]=script:tests/cli/run.sh
	[174-pin-root-owner-unchecked]='failclosed:^backend-ebpf-pins-bad\.'
	[175-denials-not-counted]=script:tests/cli/landlock-log.sh
	[184-landlock-restricts-without-nnp]=test_landlock
	[185-seccomp-loads-without-nnp]=test_seccomp
	[186-no-new-privs-not-set]='host:^setuid-chown$'
	[187-chmod-acts-on-the-name-again]=test_supervisor
	[188-pins-not-named-by-the-object]=script:tests/cli/run.sh
	[191-explanation-judges-the-argument-only]=test_ruling
	[192-log-judges-the-argument-only]=script:tests/cli/run.sh
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
	[180-unload-ignores-busy-scopes]='bpf-(lsm|fmod)-unload-busy'
	[181-ring-overflow-not-counted]='bpf-(lsm|fmod)-lost'
	[182-scope-gone-lets-task-loose]='bpf-(lsm|fmod)-daemon'
	[189-other-builds-pins-not-named]='bpf-(lsm|fmod)-stale'
	[190-lsm-list-not-read]='bpf-lsm-probe-unlisted'
	[193-pty-open-not-judged]='bpf-(lsm|fmod)-pty'
	[194-pty-owner-scope-not-compared]='bpf-(lsm|fmod)-pty-other-scope'
	[195-pty-claim-not-recorded]='bpf-(lsm|fmod)-pty-own'
	[196-pty-terminal-not-allowed]='bpf-(lsm|fmod)-pty-ctty'
	[197-abstract-connect-not-judged]='bpf-(lsm|fmod)-connect-abstract'
	[198-listen-not-recorded]='bpf-(lsm|fmod)-connect-abstract-own'
	[199-abstract-owner-scope-not-compared]='bpf-(lsm|fmod)-connect-abstract-other-scope'
)
# The test file (tests/vm/t/NAME.sh) whose rows those are: 25-exec unless named.
declare -A vm_file=(
	[70-sched-guard-lets-others-through]=20-bpf
	[71-proc-any-entry-public]=20-bpf
	[72-connect-any-socket-allowed]=20-bpf
	[73-receive-judges-read-only]=20-bpf
	[180-unload-ignores-busy-scopes]=20-bpf
	[181-ring-overflow-not-counted]=20-bpf
	[182-scope-gone-lets-task-loose]=20-bpf
	[189-other-builds-pins-not-named]=20-bpf
	[190-lsm-list-not-read]=20-bpf
	[193-pty-open-not-judged]=20-bpf
	[194-pty-owner-scope-not-compared]=20-bpf
	[195-pty-claim-not-recorded]=20-bpf
	[196-pty-terminal-not-allowed]=20-bpf
	[197-abstract-connect-not-judged]=20-bpf
	[198-listen-not-recorded]=20-bpf
	[199-abstract-owner-scope-not-compared]=20-bpf
)

quick=0
if [ "${1:-}" = --quick ]; then
	quick=1
	shift
fi
if [ $# -gt 0 ]; then
	patches=("$@")
else
	patches=("$here"/[0-9][0-9]-*.patch "$here"/[0-9][0-9][0-9]-*.patch)
fi

scratch=$(mktemp -d /tmp/sg-mutants.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
tar -C "$src" --exclude=./build --exclude=./tests/vm/cache -cf - . | tar -C "$scratch" -xf -
chmod -R a+rX "$scratch" # an unprivileged user may run the tests from here

# The table: one row per mutant, in the order run.
rows=()
status=0
row() {  # NAME RESULT KILLER DETAIL
	rows+=("$1"$'\t'"$2"$'\t'"$3"$'\t'"$4")
	case $2 in killed) ;; *) status=1 ;; esac
}

# build TARGET...: make them in the scratch tree; 125 (not judged) if not.
build() {
	(cd "$scratch" && make -s -j2 "$@" >"$scratch/make.log" 2>&1) || {
		echo "    $* did not build:"; sed 's/^/      /' "$scratch/make.log" | tail -20
		return 125
	}
}

# run TEST: 0 if it passes, its status otherwise; its output goes to the log.
# TEST is a unit test's name, or a test of the built stepguard (STEPGUARD
# set, as make check runs it):
#   script:PATH      a shell test
#   host:REGEX       tests/host/run.sh --only REGEX (every pass of the suite)
#   failclosed:REGEX tests/failclosed/run.sh --only REGEX
# A script's exit 77 (skipped, with the reason on its output) leaves the
# mutant not judged, never killed; so does a host or failclosed run that
# ran none of its cases (all skipped).
run() {
	local r
	case $1 in
	script:*)
		build build/stepguard build/stepguard-probe || return 125
		(cd "$scratch" && STEPGUARD="$scratch/build/stepguard" bash "${1#script:}") >"$scratch/test.log" 2>&1
		r=$?
		if [ "$r" -eq 77 ]; then
			skipped_why=$(tail -n 1 "$scratch/test.log")
			return 125
		fi
		return "$r"
		;;
	host:* | failclosed:*)
		local suite=${1%%:*}
		build build/stepguard build/stepguard-probe build/tests/adversary build/tests/fchelper || return 125
		(cd "$scratch" && STEPGUARD="$scratch/build/stepguard" ADVERSARY="$scratch/build/tests/adversary" \
			FC_HELPER="$scratch/build/tests/fchelper" \
			bash "tests/$suite/run.sh" --only "${1#*:}") >"$scratch/test.log" 2>&1
		r=$?
		if ! grep -Eq '^(PASS|FAIL) ' "$scratch/test.log"; then
			skipped_why="tests/$suite/run.sh --only ${1#*:} ran no case: $(grep -E '^SKIP ' "$scratch/test.log" | head -n 1)"
			return 125
		fi
		return "$r"
		;;
	esac
	build "build/tests/$1" || return 125
	(cd "$scratch" && STEPGUARD_SOURCE_DIR="$scratch" "build/tests/$1") >"$scratch/test.log" 2>&1
}

# What the killing test printed against a mutant, one line for the table.
evidence() {
	grep -E '^\[  FAILED  \] test_|^(ERROR: |step [0-9]+ \()|\[  ERROR   \] --- [^[]|^FAIL ' "$scratch/test.log" |
		sort -u | sed 's/^/    /'
}

# ---- mutants a test on this host kills ---------------------------------

# still_applies P NAME: a mutant --quick leaves out must still apply to
# the code, or the next full run finds it stale (its decision moved or
# was rewritten) and nothing said so in between: a row, and a failure.
still_applies() {
	patch -p1 --dry-run -s -d "$scratch" <"$1" >/dev/null 2>&1 && return 0
	echo "$2: does not apply (left out by --quick, but stale: regenerate it)"
	row "$2" "not judged" "${killer[$2]:-${vm_killer[$2]:-?}}" "the patch does not apply"
	return 1
}

declare -A baseline=()
vm_patches=()
left_out=0
for p in "${patches[@]}"; do
	p=$(realpath "$p")
	name=$(basename "$p" .patch)
	if [ -n "${vm_killer[$name]:-}" ]; then
		if [ "$quick" = 1 ]; then
			still_applies "$p" "$name" && left_out=$((left_out + 1))
			continue
		fi
		vm_patches+=("$p")
		continue
	fi
	t=${killer[$name]:-}
	if [ -z "$t" ]; then
		echo "$name: no test named for it in run.sh"
		row "$name" "not judged" "-" "no killing test named in run.sh"
		continue
	fi
	if [ "$quick" = 1 ] && [[ $t == *:* ]]; then
		still_applies "$p" "$name" && left_out=$((left_out + 1))
		continue
	fi
	if [ -z "${baseline[$t]:-}" ]; then
		skipped_why=
		run "$t"
		r=$?
		if [ "$r" -eq 0 ]; then
			baseline[$t]=pass
		elif [ "$r" -eq 125 ]; then
			baseline[$t]="not run: ${skipped_why:-it did not build}"
		else
			baseline[$t]="fails on the unmodified code"
			echo "$t fails on the unmodified code:"
			grep -E 'FAILED|ERROR|want|FAIL' "$scratch/test.log" | head -20
		fi
	fi
	if [ "${baseline[$t]}" != pass ]; then
		echo "$name: not judged ($t ${baseline[$t]})"
		row "$name" "not judged" "$t" "${baseline[$t]}"
		continue
	fi

	(cd "$scratch" && patch -s -p1 <"$p") || {
		echo "$name: does not apply"
		row "$name" "not judged" "$t" "the patch does not apply"
		continue
	}
	skipped_why=
	run "$t"
	r=$?
	(cd "$scratch" && patch -s -R -p1 <"$p")
	# A unit test binary that skipped cases (root-only ones, as a user)
	# may have skipped the killing one: not judged, which fails the run
	# all the same, but says why.
	skipped_cases=
	[ "$r" -eq 0 ] && [[ $t != *:* ]] &&
		skipped_cases=$(sed -n 's/^\[  SKIPPED \] \(test_[A-Za-z0-9_]*\).*/\1/p' "$scratch/test.log" | sort -u | tr '\n' ' ')
	if [ -n "$skipped_cases" ]; then
		echo "$name: not judged ($t passed with it applied, and skipped ${skipped_cases% })"
		row "$name" "not judged" "$t" "passed, skipping ${skipped_cases% } (as $(id -un)): the killing case may be among them"
	elif [ "$r" -eq 0 ]; then
		echo "$name: SURVIVED $t"
		row "$name" SURVIVED "$t" "the test passed with the mutant applied"
	elif [ "$r" -eq 125 ]; then
		echo "$name: not judged (${skipped_why:-the build failed with it applied})"
		row "$name" "not judged" "$t" "${skipped_why:-the build failed with it applied}"
	else
		echo "$name: killed by $t"
		evidence
		# The table shows the most telling line: a step or an ERROR first.
		seen=$(evidence | sed 's/^ *//' | grep -E '^(step |ERROR: )' | head -n 1)
		[ -n "$seen" ] || seen=$(evidence | sed 's/^ *//' | head -n 1)
		[ -n "$seen" ] || seen="the test exited $r: $(tail -n 1 "$scratch/test.log")"
		row "$name" killed "$t" "$(cut -c1-110 <<<"$seen")"
	fi
done

# ---- VM-only mutants: one boot per kernel ------------------------------

vm_why=
if [ "$quick" = 1 ]; then
	vm_patches=() # counted in left_out above, once each was seen to apply
elif [ ${#vm_patches[@]} -gt 0 ]; then
	if [ "${SG_MUTANTS_VM:-1}" = 0 ]; then
		vm_why="SG_MUTANTS_VM=0"
	elif [ "$(id -u)" != 0 ]; then
		vm_why="the VM tests need root"
	elif ! command -v qemu-system-x86_64 >/dev/null; then
		vm_why="no qemu-system-x86_64"
	fi
fi

if [ ${#vm_patches[@]} -gt 0 ] && [ -z "$vm_why" ]; then
	# The kernels from this tree's cache, the console logs in the scratch.
	mkdir -p "$scratch/vmcache" "$scratch/vmbin"
	for d in "$src"/tests/vm/cache/*/; do
		[ -d "$d" ] || continue
		case $(basename "$d") in run | bin) ;; *) ln -sfn "$(realpath "$d")" "$scratch/vmcache/" ;; esac
	done
	if [ -n "${SG_MUTANTS_VM_KERNEL:-}" ]; then
		kernels=("$SG_MUTANTS_VM_KERNEL")
	else
		mapfile -t kernels < <(SG_VM_CACHE="$scratch/vmcache" "$scratch/tests/vm/fetch-kernels.sh" --offline)
	fi
	[ ${#kernels[@]} -gt 0 ] || vm_why="no cached kernel (run tests/vm/fetch-kernels.sh)"
fi

if [ ${#vm_patches[@]} -gt 0 ] && [ -z "$vm_why" ]; then
	# Every binary the matrix ships, unmodified; then bpfdrive per mutant.
	plan=$scratch/vmbin/plan
	vm_files=()
	if build all build/tests/adversary build/tests/bpfdrive build/tests/fchelper; then
		mkdir -p "$scratch/vmbin/baseline"
		cp "$scratch/build/tests/bpfdrive" "$scratch/vmbin/baseline/"
		vm_files+=("$scratch/vmbin/baseline/bpfdrive:/mutants/baseline/bpfdrive")
		declare -A vm_needed=()
		for p in "${vm_patches[@]}"; do
			name=$(basename "$p" .patch)
			vm_needed[${vm_file[$name]:-25-exec}]=1
		done
		echo "baseline ${!vm_needed[*]}" >"$plan"
		declare -A vm_built=()
		for p in "${vm_patches[@]}"; do
			name=$(basename "$p" .patch)
			if ! (cd "$scratch" && patch -s -p1 <"$p"); then
				row "$name" "not judged" "VM" "the patch does not apply"
				continue
			fi
			if build build/tests/bpfdrive; then
				mkdir -p "$scratch/vmbin/$name"
				cp "$scratch/build/tests/bpfdrive" "$scratch/vmbin/$name/"
				vm_files+=("$scratch/vmbin/$name/bpfdrive:/mutants/$name/bpfdrive")
				echo "$name ${vm_file[$name]:-25-exec}" >>"$plan"
				vm_built[$name]=1
			else
				row "$name" "not judged" "VM" "bpfdrive did not build with it applied"
			fi
			(cd "$scratch" && patch -s -R -p1 <"$p")
		done
		# The unmodified bpfdrive again: it is not on PATH in the guest
		# but under /mutants/baseline.
		build build/tests/bpfdrive
		echo "VM plan ($(wc -l <"$plan") runs a boot, kernels: ${kernels[*]}):"
		sed 's/^/    /' "$plan"
		kargs=()
		for k in "${kernels[@]}"; do kargs+=(--kernel "$k"); done
		(cd "$scratch" && SG_VM_CACHE="$scratch/vmcache" SG_VM_OFFLINE=1 \
			SG_VM_JOBS=${SG_VM_JOBS:-2} BUILD=build \
			bash tests/vm/run.sh "${kargs[@]}" --config bpf --timeout "${SG_MUTANTS_VM_TIMEOUT:-5400}" \
			"${vm_files[@]}" "$plan:/mutants/plan") >"$scratch/vm.log" 2>&1
		grep -E '^vm: ' "$scratch/vm.log" | tail -n 3 | sed 's/^/    /'
		cp "$scratch/vm.log" "${SG_MUTANTS_VM_LOG:-/tmp/sg-mutants-vm.log}" 2>/dev/null &&
			echo "    the boot's results: ${SG_MUTANTS_VM_LOG:-/tmp/sg-mutants-vm.log}"
		for p in "${vm_patches[@]}"; do
			name=$(basename "$p" .patch)
			[ -n "${vm_built[$name]:-}" ] || continue
			rowre=${vm_killer[$name]}
			vf=${vm_file[$name]:-25-exec}
			judged=() killed_on=() survived_on=()
			for k in "${kernels[@]}"; do
				# A release is no regex (6.12.117+deb12: the + is not literal).
				k_re=$(sed 's/[.+]/[&]/g' <<<"$k")
				# The kernel judges it when the killing rows ran and passed unmodified.
				base=$(grep -E "^VMTEST $k_re/bpf/baseline:($rowre) " "$scratch/vm.log")
				if [ -z "$base" ] || grep -qv ' PASS' <<<"$base"; then
					continue
				fi
				judged+=("$k")
				if grep -Eq "^VMTEST $k_re/bpf/$name:($rowre) FAIL" "$scratch/vm.log"; then
					killed_on+=("$k")
				else
					survived_on+=("$k")
				fi
			done
			if [ ${#judged[@]} -eq 0 ]; then
				echo "$name: not judged (no kernel ran $vf.sh $rowre passing unmodified)"
				grep -E "^VMTEST [^ ]*/bpf/baseline:($rowre) " "$scratch/vm.log" | sed 's/^/    /'
				row "$name" "not judged" "$vf.sh" "no kernel ran $rowre passing unmodified"
			elif [ ${#survived_on[@]} -gt 0 ]; then
				echo "$name: SURVIVED $vf.sh $rowre on ${survived_on[*]}"
				grep -E "^VMTEST [^ ]*/bpf/$name:($rowre) " "$scratch/vm.log" | sed 's/^/    /'
				row "$name" SURVIVED "$vf.sh" "on ${survived_on[*]}"
			else
				echo "$name: killed by $vf.sh $rowre on ${killed_on[*]}"
				grep -E "^VMTEST [^ ]*/bpf/$name:[^ ]* FAIL" "$scratch/vm.log" | sed 's/^/    /'
				first=$(grep -E "^VMTEST [^ ]*/bpf/$name:($rowre) FAIL" "$scratch/vm.log" | head -n 1 |
					sed "s/^VMTEST [^ ]*\/bpf\/$name://" | cut -c1-100)
				row "$name" killed "$vf.sh" "on ${killed_on[*]}: $first"
			fi
		done
	else
		vm_why="the binaries the VM needs did not build"
	fi
fi
if [ -n "$vm_why" ]; then
	for p in "${vm_patches[@]}"; do
		name=$(basename "$p" .patch)
		echo "$name: not judged ($vm_why)"
		row "$name" "not judged" "${vm_file[$name]:-25-exec}.sh" "$vm_why"
	done
fi

# ---- the table ---------------------------------------------------------

n_killed=0 n_survived=0 n_not=0
# A Markdown table (tests/mutants/README.md keeps the last full run's).
md() { sed 's/|/\\|/g' <<<"$1"; }
echo
echo "| mutant | result | killed by | seen |"
echo "|---|---|---|---|"
for r in "${rows[@]}"; do
	IFS=$'\t' read -r name result t detail <<<"$r"
	printf '| %s | %s | `%s` | %s |\n' "$name" "$result" "$(md "$t")" "$(md "$detail")"
	case $result in
	killed) n_killed=$((n_killed + 1)) ;;
	SURVIVED) n_survived=$((n_survived + 1)) ;;
	*) n_not=$((n_not + 1)) ;;
	esac
done
echo "mutants: ${#rows[@]} run, $n_killed killed, $n_survived survived, $n_not not judged (as $(id -un))"
[ "$left_out" = 0 ] || echo "mutants: $left_out more are killed by live or VM tests: make mutants runs them"
exit $status
