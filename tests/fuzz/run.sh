#!/bin/bash
# tests/fuzz/run.sh — build stepguard's libFuzzer targets with clang, replay
# the regression inputs, then fuzz each target for FUZZ_SECONDS.
#
#   bash tests/fuzz/run.sh [--smoke] [--build-only] [--regress-only] [TARGET...]
#
#   TARGET         policy, ruling, audit, options, log (default: all)
#   --smoke        FUZZ_SECONDS=5: a quick check that everything builds and runs
#   --build-only   build the targets and stop
#   --regress-only build and replay tests/fuzz/regress/ without fuzzing
#
# Environment:
#   FUZZ_SECONDS   seconds of fuzzing per target (default 60)
#   FUZZ_JOBS      targets fuzzed at once (default 2: CI machines have 2 cores)
#   FUZZ_CC        the compiler (default clang; libFuzzer needs clang)
#   FUZZ_BUILD     where everything goes (default build/fuzz)
#
# The checked-in seeds (tests/fuzz/corpus/TARGET) are copied to
# FUZZ_BUILD/corpus/TARGET and only the copy grows: the seeds change only
# by hand.  A crash, leak, timeout, sanitizer report or failed check is
# saved as FUZZ_BUILD/artifacts/TARGET/<kind>-<sha1> and fails the run;
# tests/fuzz/README.md says how to turn it into a regression input.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_JOBS=${FUZZ_JOBS:-2}
FUZZ_CC=${FUZZ_CC:-clang}
FUZZ_BUILD=${FUZZ_BUILD:-build/fuzz}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
ALL_TARGETS=(policy ruling audit options log)
# Each target's largest input: a policy and a drop-in of a few KiB (the
# shipped rules.d is 3 KiB), a log of a few dozen lines, a command line,
# a path (PATH_MAX).
declare -A MAX_LEN=([policy]=8192 [ruling]=2048 [audit]=8192 [options]=2048 [log]=4096)

mode=fuzz
targets=()
for a in "$@"; do
	case "$a" in
	--smoke) FUZZ_SECONDS=5 ;;
	--build-only) mode=build ;;
	--regress-only) mode=regress ;;
	-h | --help)
		sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	-*)
		echo "run.sh: unknown option $a" >&2
		exit 64
		;;
	*)
		if [[ -z ${MAX_LEN[$a]+x} ]]; then
			echo "run.sh: unknown target $a (known: ${ALL_TARGETS[*]})" >&2
			exit 64
		fi
		targets+=("$a")
		;;
	esac
done
[[ ${#targets[@]} -gt 0 ]] || targets=("${ALL_TARGETS[@]}")
if ! [[ $FUZZ_SECONDS =~ ^[0-9]+$ && $FUZZ_SECONDS -gt 0 ]]; then
	echo "run.sh: FUZZ_SECONDS must be a positive number of seconds, not \"$FUZZ_SECONDS\"" >&2
	exit 64
fi

# ---- build ----------------------------------------------------------------

# As the Makefile: its LIBS_PKGS, its POLICY_SRCS, the generated default
# policy (policy/embed.sh over rules.d), and the other files each
# target needs.  Shared libraries: the fuzzers are not installed.
LIBS_PKGS="inih libseccomp json-c nettle libbpf"
LIB_SRCS="lib/error.c lib/strbuf.c lib/env.c"
POLICY_SRCS="policy/policy.c policy/scan.c policy/parse.c policy/words.c policy/dump.c policy/expand.c
	policy/gaps.c policy/caps.c policy/ruling.c $LIB_SRCS"
AUDIT_SRCS="audit/audit.c audit/table.c audit/strings.c audit/report.c"
declare -A SRCS=(
	[policy]="$POLICY_SRCS"
	[ruling]="$POLICY_SRCS @default"
	[audit]="$AUDIT_SRCS"
	[options]="launcher/options.c lib/opterr.c $POLICY_SRCS @default"
	[log]="lib/log.c $LIB_SRCS $AUDIT_SRCS"
)

SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
CFLAGS="-std=gnu11 -g -O1 -Wall -Wextra -Wno-unused-parameter $SAN"
CPPFLAGS="-I. -D_GNU_SOURCE"

die() {
	echo "run.sh: $*" >&2
	exit 1
}

build() {
	local pkg_cflags pkg_libs t src obj objs gen=$FUZZ_BUILD/gen/default_policy.c

	command -v "$FUZZ_CC" >/dev/null || die "$FUZZ_CC not found (apt-get install clang)"
	mkdir -p "$FUZZ_BUILD/obj" "$FUZZ_BUILD/gen"
	echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
		>"$FUZZ_BUILD/gen/probe.c"
	"$FUZZ_CC" -fsanitize=fuzzer,address,undefined -o "$FUZZ_BUILD/gen/probe" \
		"$FUZZ_BUILD/gen/probe.c" 2>"$FUZZ_BUILD/gen/probe.log" ||
		die "$FUZZ_CC cannot build a libFuzzer target ($(head -1 "$FUZZ_BUILD/gen/probe.log"));" \
			"install clang with its compiler-rt (Debian: clang, libclang-rt-dev on newer releases)"
	# shellcheck disable=SC2086 # one word per package
	pkg_cflags=$($PKG_CONFIG --cflags $LIBS_PKGS) || die "pkg-config: $LIBS_PKGS (make deps)"
	# shellcheck disable=SC2086
	pkg_libs=$($PKG_CONFIG --libs $LIBS_PKGS) || die "pkg-config: $LIBS_PKGS (make deps)"

	sh policy/embed.sh rules.d/*.ini >"$gen.tmp" || die "policy/embed.sh failed"
	mv "$gen.tmp" "$gen"

	# Every source once (coverage and sanitizers, no libFuzzer main), then
	# one link per target.
	declare -A done_src=()
	for t in "${targets[@]}"; do
		objs=()
		for src in ${SRCS[$t]} "tests/fuzz/fuzz_$t.c"; do
			[[ $src == @default ]] && src=$gen
			obj=$FUZZ_BUILD/obj/$(echo "${src%.c}" | tr / _).o
			if [[ -z ${done_src[$src]+x} ]]; then
				# shellcheck disable=SC2086 # word splitting of the flag lists is wanted
				"$FUZZ_CC" $CPPFLAGS $pkg_cflags $CFLAGS -fsanitize=fuzzer-no-link \
					-c -o "$obj" "$src" || die "cannot compile $src"
				done_src[$src]=1
			fi
			objs+=("$obj")
		done
		# shellcheck disable=SC2086
		"$FUZZ_CC" $CFLAGS -fsanitize=fuzzer -o "$FUZZ_BUILD/fuzz_$t" "${objs[@]}" $pkg_libs ||
			die "cannot link fuzz_$t"
		echo "built $FUZZ_BUILD/fuzz_$t"
	done
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
COMMON_ARGS=(-timeout=10 -rss_limit_mb=2048)

# ---- regression inputs: run once each, no fuzzing -------------------------

regress() {
	local t files failed=0

	for t in "${targets[@]}"; do
		mapfile -t files < <(find "tests/fuzz/regress/$t" -type f ! -name '*.md' 2>/dev/null | sort)
		if [[ ${#files[@]} -eq 0 ]]; then
			echo "regress $t: no inputs"
			continue
		fi
		mkdir -p "$FUZZ_BUILD/logs"
		if "$FUZZ_BUILD/fuzz_$t" "${COMMON_ARGS[@]}" "${files[@]}" \
			>"$FUZZ_BUILD/logs/regress-$t.log" 2>&1; then
			echo "regress $t: ${#files[@]} inputs pass"
		else
			echo "regress $t: FAILED (${#files[@]} inputs); the end of $FUZZ_BUILD/logs/regress-$t.log:"
			tail -40 "$FUZZ_BUILD/logs/regress-$t.log" | sed 's/^/    /'
			failed=1
		fi
	done
	return $failed
}

# ---- fuzzing ----------------------------------------------------------------

fuzz_one() {
	local t=$1 work=$FUZZ_BUILD/corpus/$1 art=$FUZZ_BUILD/artifacts/$1 log=$FUZZ_BUILD/logs/$1.log
	local dict=() seeds=() rc

	rm -rf "$work"
	mkdir -p "$work" "$art" "$FUZZ_BUILD/logs"
	cp -r "tests/fuzz/corpus/$t/." "$work/"
	[[ -f tests/fuzz/dict/$t.dict ]] && dict=(-dict="tests/fuzz/dict/$t.dict")
	# The first directory receives what libFuzzer finds; the regression
	# inputs are read as seeds too (libFuzzer never writes to them).
	[[ -d tests/fuzz/regress/$t ]] && seeds=("tests/fuzz/regress/$t")
	"$FUZZ_BUILD/fuzz_$t" "${COMMON_ARGS[@]}" "${dict[@]}" \
		-max_total_time="$FUZZ_SECONDS" -max_len="${MAX_LEN[$t]}" \
		-print_final_stats=1 -artifact_prefix="$art/" \
		"$work" "${seeds[@]}" >"$log" 2>&1
	rc=$?
	echo "$rc" >"$FUZZ_BUILD/logs/$t.rc"
}

report() {
	local t=$1 log=$FUZZ_BUILD/logs/$1.log rc execs units
	rc=$(cat "$FUZZ_BUILD/logs/$t.rc" 2>/dev/null || echo 1)
	execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
	units=$(grep -o 'stat::new_units_added: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
	# A sanitizer report that did not end the run (it should) fails it too.
	if [[ $rc -eq 0 ]] && grep -qE '^(==[0-9]+==ERROR|SUMMARY: (Address|Leak|UndefinedBehavior)Sanitizer)|runtime error:' "$log"; then
		rc=1
	fi
	if [[ $rc -eq 0 && -n $execs ]]; then
		printf '%-8s ok      %10s executions in %s s, %s new inputs\n' "$t" "$execs" \
			"$FUZZ_SECONDS" "${units:-0}"
		return 0
	fi
	printf '%-8s FAILED  (exit %s, %s executions); the end of %s:\n' "$t" "$rc" "${execs:-?}" "$log"
	grep -E 'ERROR|SUMMARY|runtime error|check failed|Test unit written' "$log" | head -20 | sed 's/^/    /'
	tail -25 "$log" | sed 's/^/    /'
	find "$FUZZ_BUILD/artifacts/$t" -type f 2>/dev/null | sed 's|^|    artifact: |'
	return 1
}

build
[[ $mode == build ]] && exit 0
regress_ok=0
regress || regress_ok=1
if [[ $mode == regress ]]; then
	exit $regress_ok
fi

echo "fuzzing ${targets[*]} for $FUZZ_SECONDS s each, $FUZZ_JOBS at a time"
for t in "${targets[@]}"; do
	while [[ $(jobs -rp | wc -l) -ge $FUZZ_JOBS ]]; do
		wait -n
	done
	rm -f "$FUZZ_BUILD/logs/$t.rc"
	fuzz_one "$t" &
done
wait

failed=$regress_ok
for t in "${targets[@]}"; do
	report "$t" || failed=1
done
if [[ $failed -ne 0 ]]; then
	echo "fuzz: FAILED (reproduce with $FUZZ_BUILD/fuzz_TARGET ARTIFACT; see tests/fuzz/README.md)"
	exit 1
fi
echo "fuzz: all targets passed"
