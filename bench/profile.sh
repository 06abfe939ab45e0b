#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/profile.sh — where stepguard's time goes: the profiles behind
# "Where the time goes" in docs/performance.md.  Not part of `make bench`
# (it needs root, perf, strace and valgrind, and takes a minute or two).
#
#   STEPGUARD=build/stepguard bash bench/profile.sh [SECTION]...
#
# Sections (default: all): counts spin strace callgrind attribution build.
# Each prints plain text; a tool that is missing or refused here is
# reported and its section skipped.  Output also goes to
# $BUILD/bench/profile.txt.
set -uo pipefail
export LC_ALL=C

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$SRC/$BUILD ;; esac
SG=$(realpath "${STEPGUARD:-$BUILD/stepguard}") || { echo "profile: no stepguard; run make" >&2; exit 1; }
OUTDIR=$BUILD/bench
CC=${CC:-cc}
mkdir -p "$OUTDIR"
SECTIONS=${*:-counts spin strace callgrind attribution build}

exec > >(tee "$OUTDIR/profile.txt") 2>&1

HFLAGS=(-std=gnu11 -O2 -g -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes)
$CC "${HFLAGS[@]}" -o "$OUTDIR/sysbench" "$SRC/bench/sysbench.c" || exit 1
$CC "${HFLAGS[@]}" -o "$OUTDIR/llwrap" "$SRC/bench/llwrap.c" || exit 1
$CC "${HFLAGS[@]}" -static -o "$OUTDIR/execwrap" "$SRC/bench/execwrap.c" 2>/dev/null ||
	$CC "${HFLAGS[@]}" -o "$OUTDIR/execwrap" "$SRC/bench/execwrap.c" || exit 1

# A work directory on a tmpfs, as in run.sh.
ROOT=$(mktemp -d /dev/shm/stepguard-profile.XXXXXX) || exit 1
trap 'rm -rf "$ROOT"' EXIT
W=$ROOT/work
DEEP=$ROOT/outside/a/b/c/d/e/f/deep.txt
mkdir -p "$W" "$(dirname "$DEEP")" "$W/tmp"
echo deep > "$DEEP"
cd "$W" || exit 1

have() { command -v "$1" >/dev/null 2>&1; }
section() { printf '\n==== %s ====\n' "$*"; }
want() { [[ " $SECTIONS " == *" $1 "* ]]; }

perf_ok=0
if have perf && perf stat -e task-clock true >/dev/null 2>&1; then
	perf_ok=1
	perf stat -e instructions true 2>&1 | grep -q 'not supported' &&
		echo "perf: no hardware counters here (instructions <not supported>); software events and tracepoints only"
fi

if want counts; then
	section "per-run counts, mean of 100 runs (perf stat)"
	if [ $perf_ok = 1 ]; then
		for cmd in "/bin/true" "$OUTDIR/execwrap /bin/true" "$SG -q -- /bin/true" \
			"bwrap --ro-bind / / --bind $W $W --dev /dev --proc /proc /bin/true"; do
			# shellcheck disable=SC2086 # the command is split on purpose
			perf stat -r 100 -x, -e task-clock,page-faults,context-switches,raw_syscalls:sys_enter \
				$cmd 2>&1 >/dev/null | awk -F, -v c="$cmd" '
				{ v[$3] = $1 } END {
					printf "%-60.60s task-clock %6.2f ms  faults %4d  syscalls %4d  ctxsw %d\n",
						c, v["task-clock"], v["page-faults"], v["raw_syscalls:sys_enter"],
						v["context-switches"] }'
		done
	else
		echo "skipped: perf is missing or refused here"
	fi
fi

if want spin; then
	section "after the step exits: stepguard's polls until it reaps it (20 runs, perf tracepoints)"
	if [ $perf_ok = 1 ]; then
		for _ in $(seq 20); do
			perf record -q -o "$OUTDIR/spin.data" \
				-e sched:sched_process_exit,syscalls:sys_enter_poll,syscalls:sys_enter_wait4 \
				"$SG" -q -- /bin/true >/dev/null 2>&1
			perf script -i "$OUTDIR/spin.data" -F comm,pid,cpu,time,event 2>/dev/null | awk '
				$1 == "true" && /sched_process_exit/ { gsub(":", "", $4); t0 = $4; cpu_c = $3 }
				t0 && /sys_enter_poll/ { n++; cpu_p = $3 }
				t0 && /sys_enter_wait4/ { gsub(":", "", $4); t1 = $4 }
				END { printf "polls %5d  exit->wait4 %7.1f us  step cpu %s  stepguard cpu %s\n",
					n, (t1 - t0) * 1e6, cpu_c, cpu_p }'
		done | sort -n -k2 | awk '{ print } { a[NR] = $2 } END { printf "median polls: %d\n", a[int((NR + 1) / 2)] }'
		rm -f "$OUTDIR/spin.data"
	else
		echo "skipped: perf is missing or refused here"
	fi
fi

if want strace; then
	section "one run of stepguard -q -- /bin/true: stepguard, its child and /bin/true (strace -f -c -S calls)"
	if have strace; then
		strace -f -c -S calls -o "$OUTDIR/strace.txt" "$SG" -q -- /bin/true
		head -30 "$OUTDIR/strace.txt"
	else
		echo "skipped: strace is missing (Debian package strace)"
	fi
fi

if want callgrind; then
	section "instructions of stepguard's start-up up to the Landlock probe (callgrind)"
	if have valgrind; then
		# Valgrind (3.19) does not know the Landlock syscalls: the run ends
		# at the probe with exit 71, which is everything before the
		# confinement (dynamic linking, policy, digest, user, roots).
		valgrind --tool=callgrind --callgrind-out-file="$OUTDIR/callgrind.out" \
			"$SG" -q -- /bin/true >/dev/null 2>&1
		callgrind_annotate --inclusive=yes "$OUTDIR/callgrind.out" 2>/dev/null |
			grep -E '^ *[0-9,]+ \(' | head -32 | sed -E 's/ \[[^]]*\]$//'
	else
		echo "skipped: valgrind is missing (Debian package valgrind)"
	fi
fi

if want attribution; then
	section "syscall cost by layer: sysbench ns/op (median of 8 rounds) and ratio to bare"
	variants=(bare seccomp-only ll-abi1 ll+refer ll+refer+truncate ll+all+seccomp stepguard)
	: > "$OUTDIR/attribution.tsv"
	for r in 1 2 3 4 5 6 7 8; do
		for v in "${variants[@]}"; do
			case $v in
			bare) pre=() ;;
			seccomp-only) pre=("$OUTDIR/llwrap" -L -s --) ;;
			ll-abi1) pre=("$OUTDIR/llwrap" -w "$W" --) ;;
			ll+refer) pre=("$OUTDIR/llwrap" -r -w "$W" --) ;;
			ll+refer+truncate) pre=("$OUTDIR/llwrap" -r -t -w "$W" --) ;;
			ll+all+seccomp) pre=("$OUTDIR/llwrap" -r -t -i -s -w "$W" --) ;;
			stepguard) pre=("$SG" -q -w "$W" --) ;;
			esac
			"${pre[@]}" "$OUTDIR/sysbench" -n 10000 "$W" "$DEEP" |
				sed "s/^/$r\t$v\t/" >> "$OUTDIR/attribution.tsv"
		done
	done
	python3 - "$OUTDIR/attribution.tsv" "${variants[@]}" <<'EOF'
import collections, statistics, sys
d = collections.defaultdict(lambda: collections.defaultdict(dict))
for line in open(sys.argv[1]):
    r, v, op, ns = line.split()
    d[op][r][v] = float(ns)
vs = sys.argv[2:]
print("operation".ljust(14) + "".join(v.rjust(20) for v in vs))
for op, rounds in d.items():
    cells = []
    for v in vs:
        ns = statistics.median(x[v] for x in rounds.values())
        ratio = statistics.median(x[v] / x["bare"] for x in rounds.values())
        cells.append(f"{ns:7.0f} {ratio:5.2f}x")
    print(op.ljust(14) + "".join(c.rjust(20) for c in cells))
EOF
fi

if want build; then
	section "the build's syscall mix, bare (strace -f -c, top 18 by calls)"
	if have strace; then
		bash "$SRC/bench/gen.sh" "$W/proj" 48
		(cd "$W/proj" && TMPDIR=$W/tmp strace -f -c -S calls -o "$OUTDIR/build-strace.txt" make -s -j2 >/dev/null)
		head -20 "$OUTDIR/build-strace.txt"
		tail -2 "$OUTDIR/build-strace.txt"
	else
		echo "skipped: strace is missing (Debian package strace)"
	fi
fi
