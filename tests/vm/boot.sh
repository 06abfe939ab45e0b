#!/bin/bash
# boot.sh — boot one test VM and return the status of its /test.sh.
#
#   tests/vm/boot.sh --kernel RELEASE --initrd FILE [--append "lsm=..."]
#           [--timeout SECONDS] [--log FILE] [--show] [--smp N] [--mem MB]
#
# QEMU with software emulation (-accel tcg: KVM hangs on the machines this
# runs on), the kernel from tests/vm/cache/RELEASE (fetch-kernels.sh), the
# console on the first serial port, captured to --log (default
# tests/vm/cache/logs/RELEASE.<pid>.log).  --show copies the console to
# stdout as it comes.
#
# Exit status: the N of the console's last "VM-EXIT N" line.  A boot with
# no such line fails: 124 when it timed out (default 300 s), 125 when the
# kernel panicked or QEMU stopped early; the tail of the console is printed.
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
cache=${SG_VM_CACHE:-$here/cache}
usage() {
	echo "usage: $0 --kernel RELEASE --initrd FILE [--append ARGS] [--timeout S] [--log FILE] [--show] [--smp N] [--mem MB]" >&2
	exit 64
}

kernel='' initrd='' append='' timeout=300 log='' show=0 smp=1 mem=1024
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=${2?}; shift 2 ;;
	--initrd) initrd=${2?}; shift 2 ;;
	--append) append=${2?}; shift 2 ;;
	--timeout) timeout=${2?}; shift 2 ;;
	--log) log=${2?}; shift 2 ;;
	--show) show=1; shift ;;
	--smp) smp=${2?}; shift 2 ;;
	--mem) mem=${2?}; shift 2 ;;
	*) usage ;;
	esac
done
if [ -z "$kernel" ] || [ -z "$initrd" ]; then usage; fi
if [ -f "$kernel" ]; then
	vmlinuz=$kernel
else
	vmlinuz=$cache/$kernel/vmlinuz
fi
[ -f "$vmlinuz" ] || { echo "boot.sh: $vmlinuz: no kernel (run tests/vm/fetch-kernels.sh)" >&2; exit 2; }
[ -f "$initrd" ] || { echo "boot.sh: $initrd: no initramfs" >&2; exit 2; }
command -v qemu-system-x86_64 > /dev/null ||
	{ echo "boot.sh: qemu-system-x86_64 not found (apt-get install --no-install-recommends qemu-system-x86)" >&2; exit 2; }
if [ -z "$log" ]; then
	mkdir -p "$cache/logs"
	log=$cache/logs/$(basename "$kernel").$$.log
fi
mkdir -p "$(dirname "$log")"
: > "$log"

# panic=-1 reboots at once on a panic (a crashed /init included) and
# -no-reboot turns that reboot into QEMU's exit, so a broken boot ends
# quickly instead of waiting for the timeout.
cmdline="console=ttyS0 panic=-1 quiet $append"
qemu=(qemu-system-x86_64 -accel tcg -cpu max -smp "$smp" -m "$mem"
	-nodefaults -no-user-config -display none -no-reboot
	-chardev "file,id=con,path=$log" -serial chardev:con -monitor none
	-kernel "$vmlinuz" -initrd "$initrd" -append "$cmdline")

start=$EPOCHREALTIME
set +e
timeout -k 5 "$timeout" "${qemu[@]}" < /dev/null &
qpid=$!
if [ "$show" = 1 ]; then
	tail -n +1 -f "$log" --pid="$qpid" | tr -d '\r' &
	tailpid=$!
fi
wait "$qpid"
qstatus=$?
[ "$show" = 1 ] && wait "$tailpid"
set -e
elapsed=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

# The serial line ends lines with \r\n; the marker is the last of its kind
# (a test's own output could contain one, init's comes after it).
marker=$(tr -d '\r' < "$log" | sed -n 's/^VM-EXIT \([0-9][0-9]*\)$/\1/p' | tail -n 1)
if [ -n "$marker" ]; then
	printf 'boot.sh: %s: VM-EXIT %s after %s s\n' "$(basename "$kernel")" "$marker" "$elapsed" >&2
	exit "$marker"
fi

if [ "$qstatus" = 124 ] || [ "$qstatus" = 137 ]; then
	why="timed out after $timeout s" status=124
elif tr -d '\r' < "$log" | grep -q 'Kernel panic'; then
	why="kernel panic" status=125
else
	why="QEMU exited $qstatus without a VM-EXIT line" status=125
fi
printf 'boot.sh: %s: %s (%s s); console log %s, last lines:\n' \
	"$(basename "$kernel")" "$why" "$elapsed" "$log" >&2
tr -d '\r' < "$log" | tail -n 40 | sed 's/^/    /' >&2
exit "$status"
