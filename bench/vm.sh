#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/vm.sh — item 6 of `make bench`: the eBPF backends measured inside
# the VMs of tests/vm (QEMU TCG: software emulation, so only ratios mean
# anything).  bench/run.sh calls it; it also runs alone:
#
#   STEPGUARD=build/stepguard bash bench/vm.sh [--quick] [--out FILE]
#           [--kernel RELEASE] [--jobs N]
#
#   --quick           a smoke run (a few iterations, about a minute)
#   --out FILE        the results (default: $BUILD/bench/vm.tsv, which
#                     bench/report.py reads)
#   --kernel RELEASE  a cached kernel (default: the newest that
#                     tests/vm/fetch-kernels.sh fetches; SG_VM_OFFLINE=1:
#                     only what tests/vm/cache holds)
#   --jobs N          boots at a time (default 2, 1 on a 1-CPU machine)
#
# One initramfs (tests/vm/mkinitramfs.sh) holds stepguard, bench/runner and
# bench/sysbench (built here, static when libc's archive exists) and
# bench/vm-guest.sh as /test.sh; it boots (tests/vm/boot.sh) twice:
#
#   bpf    lsm=landlock,lockdown,yama,bpf   backend bpf-lsm
#   nobpf  lsm=landlock,lockdown,yama       backend bpf-fmod
#
# The guest's SGBENCH lines go to the TSV with the boot's name in front
# (bench/vm-guest.sh describes them), plus lines of this script's own:
#
#   -     meta  KEY VALUE             kernel, qemu, quick, seconds...
#   -     skip  REASON                nothing was booted, and why
#   CFG   boot  STATUS SECONDS REASON one per boot (STATUS as boot.sh's)
#
# A boot that fails or cannot load the programs is a result (the report
# says so), not an error: the exit status is non-zero only when the
# binaries are missing or cannot be built.  Work files (initramfs, console
# logs) go to $BUILD/bench/vm/.
set -euo pipefail
export LC_ALL=C

die() { echo "bench-vm: $*" >&2; exit 1; }
note() { echo "bench-vm: $*" >&2; }

QUICK=0 OUT='' KERNEL='' JOBS=''
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1; shift ;;
	--out) OUT=${2:?--out needs a file}; shift 2 ;;
	--kernel) KERNEL=${2:?--kernel needs a release}; shift 2 ;;
	--jobs) JOBS=${2:?--jobs needs a number}; shift 2 ;;
	-h | --help) sed -n '4,35p' "$0"; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
done

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$SRC/$BUILD ;; esac
OUT=${OUT:-$BUILD/bench/vm.tsv}
WORK=$BUILD/bench/vm
CC=${CC:-cc}
VM=$SRC/tests/vm
mkdir -p "$WORK" "$(dirname "$OUT")"
rm -f "$WORK"/*.log "$WORK"/*.boot "$WORK"/*.status "$WORK"/*.secs

# The rounds.  TCG makes an exec cost about 30 ms and a cold load of the
# programs 0.5-3 s; these keep both boots (run side by side) within about
# four minutes, the quick ones within about a minute.
if [ $QUICK = 1 ]; then
	PARAMS="QUICK=1 SU_ROUNDS=3 SU_BATCH=1 SU_LIMIT=10 COLD_N=1 SC_ROUNDS=2 SC_N=200 SC_LIMIT=15"
	TIMEOUT=100
else
	PARAMS="QUICK=0 SU_ROUNDS=20 SU_BATCH=3 SU_LIMIT=40 COLD_N=5 SC_ROUNDS=12 SC_N=2500 SC_LIMIT=75"
	TIMEOUT=240
fi

# ---- the binaries: missing ones are the only error ----------------------
SG=${STEPGUARD:-$BUILD/stepguard}
if [ ! -x "$SG" ] && [ -z "${STEPGUARD:-}" ]; then
	note "no $SG: make -j2 build/stepguard"
	make -C "$SRC" -j2 build/stepguard >&2 || die "cannot build build/stepguard"
fi
[ -x "$SG" ] || die "no stepguard at $SG; run make first"
# A copy: the image must hold one binary, even if the tree is rebuilt
# while this runs.
cp "$SG" "$WORK/stepguard.new" && mv "$WORK/stepguard.new" "$WORK/stepguard"
SG_VERSION=$("$WORK/stepguard" --version) || die "$SG does not run"
HFLAGS=(-std=gnu11 -O2 -g -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes)
LINK=static
for t in runner sysbench; do
	if ! $CC "${HFLAGS[@]}" -static -o "$WORK/$t" "$SRC/bench/$t.c" 2> /dev/null; then
		$CC "${HFLAGS[@]}" -o "$WORK/$t" "$SRC/bench/$t.c" || die "cannot build bench/$t.c"
		LINK=dynamic
	fi
done

# ---- what is not a reason to fail the bench -------------------------------
t_start=$EPOCHREALTIME
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }'; }
tsv=$WORK/vm.tsv.tmp
{
	printf -- '-\tmeta\tquick\t%s\n' "$QUICK"
	printf -- '-\tmeta\tstepguard\t%s\n' "$SG_VERSION"
	printf -- '-\tmeta\thelpers\t%s\n' "$LINK"
	printf -- '-\tmeta\tparams\t%s\n' "$PARAMS"
} > "$tsv"
finish() {  # write the TSV where report.py reads it
	printf -- '-\tmeta\tseconds\t%s\n' "$(since "$t_start")" >> "$tsv"
	mv "$tsv" "$OUT"
	note "results in $OUT; console logs in $WORK/"
	exit 0
}
skip() {
	note "not measured: $*"
	printf -- '-\tskip\t%s\n' "$*" >> "$tsv"
	finish
}

missing=
for tool in qemu-system-x86_64 busybox cpio gzip; do
	command -v "$tool" > /dev/null || missing="$missing $tool"
done
[ -z "$missing" ] || skip "missing on this machine:$missing (apt-get install --no-install-recommends qemu-system-x86 busybox-static cpio)"
printf -- '-\tmeta\tqemu\t%s\n' "$(qemu-system-x86_64 --version | head -n 1)" >> "$tsv"

if [ -z "$KERNEL" ]; then
	# As tests/vm/run.sh: download what the cache lacks (a fresh machine
	# after `make deps`), unless SG_VM_OFFLINE=1.
	fetch_opts=()
	[ "${SG_VM_OFFLINE:-0}" = 1 ] && fetch_opts=(--offline)
	KERNEL=$("$VM/fetch-kernels.sh" "${fetch_opts[@]}" 2> "$WORK/fetch.err" | sort -V | tail -n 1 || true)
	[ -n "$KERNEL" ] || skip "no kernel: tests/vm/fetch-kernels.sh failed ($(tail -n 1 "$WORK/fetch.err" 2> /dev/null))"
fi
[ -f "$VM/cache/$KERNEL/vmlinuz" ] || skip "kernel $KERNEL is not in tests/vm/cache"
printf -- '-\tmeta\tkernel\t%s\n' "$KERNEL" >> "$tsv"

# ---- the image --------------------------------------------------------------
tr ' ' '\n' <<< "$PARAMS" > "$WORK/sgbench.conf"
files=("$WORK/stepguard:/usr/local/bin/stepguard" "$WORK/runner:/usr/local/bin/runner"
	"$WORK/sysbench:/usr/local/bin/sysbench" "$WORK/sgbench.conf:/etc/sgbench.conf")
# The bare command is this machine's /bin/true (coreutils, dynamically
# linked), as in item 1, instead of the image's busybox applet: a static
# busybox exec is a cheaper floor than any runner's /bin/true.
if true_bin=$(type -P true); then
	files+=("$true_bin:/bin/true")
	kind=static
	ldd "$true_bin" > /dev/null 2>&1 && kind="dynamically linked"
	printf -- "-\tmeta\ttrue\t%s (this machine's, %s)\n" "$true_bin" "$kind" >> "$tsv"
else
	printf -- '-\tmeta\ttrue\tbusybox (no true on this machine)\n' >> "$tsv"
fi
img=$WORK/bench.cpio.gz
if ! "$VM/mkinitramfs.sh" --kernel "$KERNEL" --test "$SRC/bench/vm-guest.sh" "$img" \
	"${files[@]}" 2> "$WORK/mkinitramfs.err"; then
	cat "$WORK/mkinitramfs.err" >&2
	skip "tests/vm/mkinitramfs.sh failed: $(tail -n 1 "$WORK/mkinitramfs.err")"
fi

# ---- the boots ----------------------------------------------------------------
declare -A lsm_of=([bpf]="lsm=landlock,lockdown,yama,bpf" [nobpf]="lsm=landlock,lockdown,yama")
configs=(bpf nobpf)
[ -n "$JOBS" ] || { JOBS=2; [ "$(nproc)" -ge 2 ] || JOBS=1; }
printf -- '-\tmeta\tvm\t-accel tcg -cpu max, 1 vCPU, 1024 MiB, %s boots at a time\n' "$JOBS" >> "$tsv"

boot() {  # CONFIG
	local t=$EPOCHREALTIME st=0
	"$VM/boot.sh" --kernel "$KERNEL" --initrd "$img" --append "${lsm_of[$1]}" \
		--timeout "$TIMEOUT" --smp 1 --mem 1024 --log "$WORK/$1.log" 2> "$WORK/$1.boot" || st=$?
	echo "$st" > "$WORK/$1.status"
	since "$t" > "$WORK/$1.secs"
}
note "4/4 eBPF in the VM: kernel $KERNEL, boots ${configs[*]}, $JOBS at a time (timeout $TIMEOUT s each)"
running=0
for cfg in "${configs[@]}"; do
	if [ "$running" -ge "$JOBS" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	boot "$cfg" &
	running=$((running + 1))
done
wait

for cfg in "${configs[@]}"; do
	st=$(cat "$WORK/$cfg.status")
	secs=$(cat "$WORK/$cfg.secs")
	log=$WORK/$cfg.log
	tr -d '\r' < "$log" | grep -a $'^SGBENCH\t' | sed "s/^SGBENCH/$cfg/" >> "$tsv" || true
	# What happened, for the report: boot.sh's own line says why a boot
	# failed (timeout, panic); a guest error is in its SGBENCH error lines.
	if tr -d '\r' < "$log" | grep -aq '^VM-EXIT [0-9]'; then
		if tr -d '\r' < "$log" | grep -aq $'^SGBENCH\tdone\t'; then
			why="VM-EXIT $st"
		else
			why="VM-EXIT $st before the benchmark finished"
		fi
	else
		why=$(grep '^boot.sh:' "$WORK/$cfg.boot" | tail -n 1 | sed 's/^boot.sh: //; s/; console log.*//')
		why=${why:-no VM-EXIT line}
	fi
	printf '%s\tboot\t%s\t%s\t%s\n' "$cfg" "$st" "$secs" "$why" >> "$tsv"
	note "  $cfg (${lsm_of[$cfg]}): $why after $secs s"
done
finish
