#!/bin/bash
# tests/standin/run.sh [host|cli|failclosed|vm]... — do the suites judge
# what they say they judge?
#
# Runs each suite (all four without arguments) against the real build and
# against three stand-ins for stepguard that confine nothing:
#
#   nothing-0     runs nothing, exits 0
#   nothing-71    runs nothing, exits 71 (as if confinement were unavailable)
#   unconfined    runs the command after `--` as it is, unconfined
#
# A case that passes with the real stepguard must fail against every
# stand-in: a refusal is only shown when the attack started and reached
# the refused call, an allowed action only when it happened.  The few that
# may pass against one (an allowed action, which an unconfined run also
# lets through) are listed in tests/standin/controls with the reason.
# A case that passes against a stand-in and is not listed there, or that
# is skipped there but passes with the real build, fails this run.  A
# case the stand-in's run never reached (the suite stopped) counts as
# failed against it, and the table says so.
#
# Root (the suites' root and sgtest passes); writes outside the work dirs
# land for real against the unconfined stand-in, but only in the suites'
# own scratch trees.  The vm suite boots one kernel (SG_STANDIN_KERNEL, or
# the newest cached) with bpf in lsm= once per stand-in, sg.adv=none (the
# adversarial suite is the host suite's, judged above): about five minutes
# a boot under TCG.  There the stand-in also replaces bpfdrive, which runs
# the eBPF rows.  SG_STANDIN_KEEP=1 keeps the logs; SG_STANDIN_REUSE=DIR
# judges a kept run's logs again without running the suites.
set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
SG=${STEPGUARD:-$build/stepguard}
controls=$here/controls

[ "$(id -u)" = 0 ] || { echo "standin: run as root (the suites' root passes)"; exit 77; }
for f in "$SG" "$build/stepguard-probe" "$build/tests/adversary" "$build/tests/fchelper"; do
	[ -x "$f" ] || { echo "standin: $f is missing: make all build/tests/adversary build/tests/fchelper"; exit 1; }
done

suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(host cli failclosed vm)

out=$(mktemp -d /tmp/sg-standin.XXXXXX)
chmod 755 "$out"
keep=${SG_STANDIN_KEEP:-0}
[ "$keep" = 1 ] || trap 'rm -rf "$out"' EXIT

# ---- the stand-ins -------------------------------------------------------
mkdir -p "$out/bin"
printf '#!/bin/sh\n# a stand-in for stepguard: runs nothing\nexit 0\n' >"$out/bin/nothing-0"
printf '#!/bin/sh\n# a stand-in for stepguard: runs nothing, says confinement failed\nexit 71\n' >"$out/bin/nothing-71"
cat >"$out/bin/unconfined" <<'SH'
#!/bin/sh
# a stand-in for stepguard: the command after -- runs unconfined
while [ $# -gt 0 ]; do
	if [ "$1" = -- ]; then
		shift
		exec "$@"
	fi
	shift
done
exit 0
SH
chmod 755 "$out"/bin/*
standins=(nothing-0 nothing-71 unconfined)

# ---- one suite, one binary: its results as "STATUS KEY" lines -----------

# normalize SUITE < output: one "STATUS KEY" line per result.
normalize() {
	case $1 in
	host)
		# == adversarial suite as root ... / as sgtest via sudo ... / as sgtest ...
		awk '
			/^== adversarial suite as / {
				who = $5; if ($6 == "via") who = who "-sudo"; next
			}
			/^(PASS|FAIL|SKIP) / { print $1, "host/" who "/" $2 ":" $3 }'
		;;
	failclosed) awk '/^(PASS|FAIL|SKIP) [^ ]+ — / { print $1, "failclosed/" $2 }' ;;
	cli) sed -nE 's/^(PASS|FAIL|SKIP) ([^ :]+).*/\1 cli\/\2/p' ;;
	vm) sed -nE 's/^VMTEST ([^ ]+) (PASS|FAIL|SKIP)( .*)?$/\2 vm\/\1/p' ;;
	esac
}

# run_suite SUITE NAME BINARY: the suite's output in $out/NAME.SUITE.log,
# its results in $out/NAME.SUITE, its status in $out/NAME.SUITE.status.
# With SG_STANDIN_REUSE=DIR (a kept run's directory), a suite whose log
# and status are there is judged again from them, not run: for changing
# the controls without booting again.
run_suite() {
	local suite=$1 name=$2 bin=$3 log=$out/$2.$1.log st
	local reuse=${SG_STANDIN_REUSE:-}
	if [ -n "$reuse" ] && [ -f "$reuse/$name.$suite.log" ] && [ -f "$reuse/$name.$suite.status" ]; then
		echo "standin: $suite against $name, from $reuse"
		cp "$reuse/$name.$suite.log" "$log"
		cp "$reuse/$name.$suite.status" "$out/$name.$suite.status"
		normalize "$suite" <"$log" | sort -u -k2 >"$out/$name.$suite"
		return
	fi
	echo "standin: $suite against $name"
	case $suite in
	host)
		(cd "$top" && STEPGUARD=$bin ADVERSARY=$build/tests/adversary \
			timeout 3600 bash tests/host/run.sh) >"$log" 2>&1
		;;
	cli)
		(cd "$top" && STEPGUARD=$bin STEPGUARD_MODEL_CLI=$(bash tests/modelcli/install.sh) \
			timeout 1800 bash tests/cli/run.sh -v) >"$log" 2>&1
		;;
	failclosed)
		(cd "$top" && STEPGUARD=$bin FC_HELPER=$build/tests/fchelper \
			timeout 3600 bash tests/failclosed/run.sh) >"$log" 2>&1
		;;
	vm)
		local k=${SG_STANDIN_KERNEL:-} drive=$build/tests/bpfdrive
		[ -n "$k" ] || k=$("$top/tests/vm/fetch-kernels.sh" --offline | tail -n 1)
		# The eBPF rows run the filter through bpfdrive, not stepguard
		# (its command line is the same: OPTIONS -- COMMAND): the
		# stand-in replaces both.
		[ "$name" = real ] || drive=$bin
		(cd "$top" && STEPGUARD=$bin BUILD=$build SG_VM_OFFLINE=1 SG_VM_APPEND=sg.adv=none \
			bash tests/vm/run.sh --kernel "$k" --config bpf \
			"$drive:/usr/local/bin/bpfdrive" \
			"$build/tests/fchelper:/usr/local/bin/fchelper") >"$log" 2>&1
		;;
	esac
	st=$?
	echo "$st" >"$out/$name.$suite.status"
	normalize "$suite" <"$log" | sort -u -k2 >"$out/$name.$suite"
	echo "standin:   exit $st, $(grep -c '^PASS' "$out/$name.$suite") passed," \
		"$(grep -c '^FAIL' "$out/$name.$suite") failed, $(grep -c '^SKIP' "$out/$name.$suite") skipped"
}

# control STANDIN KEY: the reason KEY may pass against STANDIN, or nothing.
control() {
	awk -v s="$1" -v k="$2" '
		/^#/ || NF < 3 { next }
		($1 == s || $1 == "*") && k ~ ("^" $2 "$") { $1 = ""; $2 = ""; sub(/^  /, ""); print; exit }
	' "$controls"
}

status=0
declare -a table=()
for suite in "${suites[@]}"; do
	case $suite in host | cli | failclosed | vm) ;; *) echo "standin: no suite $suite"; exit 64 ;; esac
	run_suite "$suite" real "$SG"
	if [ "$(cat "$out/real.$suite.status")" != 0 ]; then
		echo "standin: $suite fails with the real stepguard (log: $out/real.$suite.log):"
		grep -E '^FAIL|^VMTEST .* FAIL' "$out/real.$suite.log" | head -20 | sed 's/^/    /'
		status=1
	fi
	passed_real=$(awk '$1 == "PASS" { print $2 }' "$out/real.$suite")
	n_real=$(wc -w <<<"$passed_real")
	[ "$n_real" -gt 0 ] || { echo "standin: $suite passed nothing with the real stepguard"; status=1; continue; }
	for s in "${standins[@]}"; do
		run_suite "$suite" "$s" "$out/bin/$s"
		n_fail=0 n_control=0 n_bad=0 n_unreached=0
		while read -r key; do
			[ -n "$key" ] || continue
			got=$(awk -v k="$key" '$2 == k { print $1; exit }' "$out/$s.$suite")
			case $got in
			FAIL) n_fail=$((n_fail + 1)) ;;
			"") n_unreached=$((n_unreached + 1)) ;;
			PASS | SKIP)
				why=$(control "$s" "$key")
				if [ "$got" = PASS ] && [ -n "$why" ]; then
					n_control=$((n_control + 1))
				else
					n_bad=$((n_bad + 1))
					echo "standin:   $got against $s: $key (passes with the real stepguard)"
					grep -F -- "${key##*/}" "$out/$s.$suite.log" | head -3 | sed 's/^/      | /'
				fi
				;;
			esac
		done <<<"$passed_real"
		[ "$n_bad" = 0 ] || status=1
		table+=("$suite|$s|$n_real|$n_fail|$n_unreached|$n_control|$n_bad|$(cat "$out/$s.$suite.status")")
	done
done

echo
printf '| %-10s | %-10s | %9s | %6s | %9s | %8s | %10s | %s\n' suite stand-in "real PASS" failed "not reached" controls "NOT FAILED" "suite exit"
for r in "${table[@]}"; do
	IFS='|' read -r a b c d e f g h <<<"$r"
	printf '| %-10s | %-10s | %9s | %6s | %11s | %8s | %10s | %s\n' "$a" "$b" "$c" "$d" "$e" "$f" "$g" "$h"
done
[ "$keep" = 1 ] && echo "standin: logs in $out"
[ "$status" = 0 ] && echo "standin: every case that passes with stepguard fails against each stand-in, but the listed controls" ||
	echo "standin: FAILED (see above)"
exit $status
