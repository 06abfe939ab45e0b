#!/bin/bash
# run.sh — the VM test matrix, as `make check` and CI run it.
#
#   tests/vm/run.sh [--kernel RELEASE]... [--config NAME]... [--jobs N]
#           [--timeout S] [--verbose] [FILE | SRC:DEST]...
#
# Fetches the kernels (fetch-kernels.sh), builds one initramfs per kernel
# (mkinitramfs.sh) holding the built binaries, the guest tests t/*.sh (as
# /tests/) and any FILE given, then boots every kernel in every config:
#
#   bpf         lsm=landlock,lockdown,yama,bpf   bpf-lsm possible
#   nobpf       lsm=landlock,lockdown,yama       bpf-lsm impossible (as on
#                                                stock Ubuntu): bpf-fmod
#   nolandlock  lsm=lockdown,yama                Landlock off: fail closed
#
# and prints each guest result as VMTEST <release>/<config>/<name> PASS|FAIL|SKIP
# <reason>, then "vm: N passed, M failed, K skipped".  Exit status 1 when
# anything failed, a boot included (no VM-EXIT line, panic, timeout).
#
# Binaries, from the environment as the Makefile passes them (default:
# $BUILD, or build/, under the repository): STEPGUARD, STEPGUARD_PROBE,
# ADVERSARY.  A missing one is left out of the image and the guest tests
# that need it report SKIP.
#
# Environment: SG_VM_JOBS boots at a time (default: the number of CPUs),
# SG_VM_SMP CPUs and SG_VM_MEM MiB per VM (1, 1024), SG_VM_TIMEOUT seconds
# per boot (900: a boot runs up to three passes of the adversarial suite), SG_VM_OFFLINE=1 to boot only what the cache holds,
# SG_VM_CACHE (tests/vm/cache), SG_VM_KERNEL_METAS (see fetch-kernels.sh),
# SG_VM_CONFIGS the configs without --config (default: all),
# SG_VM_APPEND more kernel arguments (e.g. sg.adv=bpf-fmod:root, see t/50-adversarial.sh;
# sg.tests=REGEX boots run only the test files t/*.sh whose name matches).
set -euo pipefail
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${SG_VM_CACHE:-$here/cache}
export SG_VM_CACHE=$cache
build=${BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac

declare -A lsm_of=(
	[bpf]="lsm=landlock,lockdown,yama,bpf"
	[nobpf]="lsm=landlock,lockdown,yama"
	[nolandlock]="lsm=lockdown,yama"
)
all_configs=(bpf nobpf nolandlock)

usage() {
	echo "usage: $0 [--kernel RELEASE]... [--config bpf|nobpf|nolandlock]... [--jobs N] [--timeout S] [--verbose] [FILE|SRC:DEST]..." >&2
	exit 64
}
want_kernels=() configs=() jobs=${SG_VM_JOBS:-$(nproc)} timeout=${SG_VM_TIMEOUT:-900} verbose=0
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) want_kernels+=("${2?}"); shift 2 ;;
	--config) [ -n "${lsm_of[${2?}]-}" ] || usage; configs+=("$2"); shift 2 ;;
	--jobs) jobs=${2?}; shift 2 ;;
	--timeout) timeout=${2?}; shift 2 ;;
	--verbose | -v) verbose=1; shift ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
done
# SG_VM_CONFIGS: the configs to boot when no --config is given (make asan
# boots bpf only: the other boots differ by kernel configuration, which
# the plain matrix already covers, not by stepguard's code).
if [ ${#configs[@]} -eq 0 ] && [ -n "${SG_VM_CONFIGS:-}" ]; then
	for c in $SG_VM_CONFIGS; do
		[ -n "${lsm_of[$c]-}" ] || usage
		configs+=("$c")
	done
fi
[ ${#configs[@]} -gt 0 ] || configs=("${all_configs[@]}")
extra=("$@")

say() { echo "vm: $*"; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
t0=$EPOCHREALTIME

# What the harness itself needs; CI installs it (.ci/run), a developer
# may not have it: say what to install instead of failing obscurely.
missing=
for tool in qemu-system-x86_64 busybox cpio gzip apt-get dpkg-deb; do
	command -v "$tool" > /dev/null || missing="$missing $tool"
done
if [ -n "$missing" ]; then
	say "missing:$missing"
	say "install: apt-get install --no-install-recommends qemu-system-x86 busybox-static cpio e2fsprogs"
	say "0 passed, 1 failed, 0 skipped"
	exit 1
fi

t=$EPOCHREALTIME
fetch_opts=()
[ "${SG_VM_OFFLINE:-0}" = 1 ] && fetch_opts=(--offline)
mapfile -t kernels < <("$here/fetch-kernels.sh" "${fetch_opts[@]}")
[ ${#kernels[@]} -gt 0 ] || { say "no kernels (tests/vm/fetch-kernels.sh failed)"; say "0 passed, 1 failed, 0 skipped"; exit 1; }
if [ ${#want_kernels[@]} -gt 0 ]; then
	for k in "${want_kernels[@]}"; do
		printf '%s\n' "${kernels[@]}" | grep -qx -- "$k" ||
			{ say "kernel $k: not among the fetched ones (${kernels[*]})"; exit 1; }
	done
	kernels=("${want_kernels[@]}")
fi
say "kernels: ${kernels[*]} (fetched in $(since "$t") s)"

# The files every image holds.  Binaries go where `make install` with
# PREFIX=/usr/local puts them, so the launcher finds its probe as it would
# on a real machine.
files=()
add_if() {  # SRC DEST WHAT: add SRC if it exists, else say it is left out
	if [ -e "$1" ]; then
		files+=("$1:$2")
	else
		say "no $3 ($1): left out, its tests will skip"
	fi
}
add_if "${STEPGUARD:-$build/stepguard}" /usr/local/bin/stepguard "stepguard"
probe=${STEPGUARD_PROBE:-$build/stepguard-probe}
add_if "$probe" /usr/local/libexec/stepguard/stepguard-probe "probe"
[ -e "$probe" ] && files+=("$probe:/usr/local/bin/stepguard-probe")
add_if "${ADVERSARY:-$build/tests/adversary}" /usr/local/bin/adversary "adversary"

# A helper that asks the kernel for its Landlock ABI without stepguard.
mkdir -p "$cache/bin"
helper=$cache/bin/landlock-abi
if [ ! -x "$helper" ] || [ "$here/landlock-abi.c" -nt "$helper" ]; then
	${CC:-cc} -O2 -Wall -Wextra -o "$helper" "$here/landlock-abi.c" ||
		say "could not build landlock-abi: its test will skip"
fi
[ -x "$helper" ] && files+=("$helper:/usr/local/bin/landlock-abi")
# ext4 images and xattrs: e2fsprogs' mke2fs (busybox's cannot make ext4
# with journals and extents), attr's setfattr/getfattr.
for f in /usr/sbin/mke2fs:/usr/sbin/mkfs.ext4 /etc/mke2fs.conf:/etc/mke2fs.conf \
	/usr/bin/setfattr:/usr/bin/setfattr /usr/bin/getfattr:/usr/bin/getfattr; do
	[ -e "${f%%:*}" ] && files+=("$f")
done
# The adversarial suite (t/50-adversarial.sh runs tests/host/run.sh) is a
# bash script; busybox (static) serves most of its tools, which matters
# under TCG, where a dynamically linked program pays for ld.so on every
# exec.  What busybox lacks or does differently comes from the host and
# goes under /opt/gnu/bin, which only that test puts first in PATH: bash;
# grep (-z, for the sweep of /proc/*/environ); setpriv (--init-groups);
# getent; losetup (--show).
files+=("$top/tests/host/run.sh:/usr/local/share/stepguard/adversarial.sh")
for tool in bash grep setpriv getent losetup; do
	if p=$(type -P "$tool"); then
		files+=("$p:/opt/gnu/bin/$tool")
	else
		say "no $tool on this machine: the adversarial suite in the VM will fail"
	fi
done
# The compatibility suite (t/55-compat.sh runs tests/compat/run.sh) runs
# real GNU tools, not busybox's applets: they go under /opt/compat/bin,
# which only that test puts first in the steps' PATH (and GNU find, for
# tree.sh's -printf).  What is left out (git, python3, npm, gcc, cargo:
# tens of MB with their runtimes) is skipped there as "not in the VM image".
files+=("$top/tests/compat/run.sh:/usr/local/share/stepguard/compat/run.sh"
	"$top/tests/compat/tree.sh:/usr/local/share/stepguard/compat/tree.sh")
for tool in tar cp mv ln touch chmod chown install mktemp sort sed patch find \
	setfacl getfacl rsync; do
	if p=$(type -P "$tool"); then
		files+=("$p:/opt/compat/bin/$tool")
	else
		say "no $tool on this machine: its compat cases in the VM will skip"
	fi
done
for f in "$here"/t/*.sh; do
	files+=("$f:/tests/$(basename "$f")")
done
files+=("${extra[@]}")

run=$cache/run
rm -rf "$run"
mkdir -p "$run"
for k in "${kernels[@]}"; do
	t=$EPOCHREALTIME
	"$here/mkinitramfs.sh" --kernel "$k" --test "$here/guest.sh" "$run/$k.cpio.gz" "${files[@]}" 2> "$run/$k.mkinitramfs" ||
		{ cat "$run/$k.mkinitramfs"; say "initramfs for $k failed"; exit 1; }
	say "initramfs for $k: $(du -k "$run/$k.cpio.gz" | cut -f1) KiB in $(since "$t") s"
done

passed=0 failed=0 skipped=0
count() {
	case $1 in
	PASS) passed=$((passed + 1)) ;;
	FAIL) failed=$((failed + 1)) ;;
	SKIP) skipped=$((skipped + 1)) ;;
	esac
}

# report ID: print one finished boot's results and add them up.
report() {
	local id=$1 k=${1%%@*} cfg=${1#*@} log=$run/$1.log status line name result reason nfail=0 end
	status=$(cat "$run/$id.status")
	local tag="$k/$cfg"
	[ "$verbose" = 1 ] && tr -d '\r' < "$log" | sed 's/^/    /'
	while read -r line; do
		read -r name result reason <<< "${line#VMTEST }"
		echo "VMTEST $tag/$name $result $reason"
		count "$result"
		[ "$result" = FAIL ] && nfail=$((nfail + 1))
	done < <(tr -d '\r' < "$log" | grep -E '^VMTEST [^ ]+ (PASS|FAIL|SKIP)( |$)')
	end=$(tr -d '\r' < "$log" | grep -c '^VMTEST-END ' || true)

	# The boot itself is a result: it must reach VM-EXIT, the guest runner
	# must finish, and a non-zero status must come with a failed test.
	local secs
	secs=$(cat "$run/$id.secs")
	if ! tr -d '\r' < "$log" | grep -q '^VM-EXIT [0-9]'; then
		# No marker: boot.sh said why (timeout, panic, no kernel...).
		echo "VMTEST $tag/boot FAIL exit $status: $(grep '^boot.sh:' "$run/$id.boot" | tail -n 1 | sed 's/^boot.sh: //')"
		sed -n '/last lines:$/,$p' "$run/$id.boot" | tail -n +2
		count FAIL
	elif [ "$end" = 0 ]; then
		echo "VMTEST $tag/boot FAIL VM-EXIT $status, but the guest runner did not finish (log: $log)"
		tr -d '\r' < "$log" | tail -n 20 | sed 's/^/    /'
		count FAIL
	elif [ "$status" != 0 ] && [ "$nfail" = 0 ]; then
		echo "VMTEST $tag/boot FAIL VM-EXIT $status without a failed test (log: $log)"
		count FAIL
	else
		echo "VMTEST $tag/boot PASS VM-EXIT $status in $secs s (${lsm_of[$cfg]})"
		count PASS
	fi
}

# One boot, in the background: its status and time go to files.
boot() {  # ID RELEASE CONFIG
	local t=$EPOCHREALTIME st=0
	: > "$run/$1.log"
	"$here/boot.sh" --kernel "$2" --initrd "$run/$2.cpio.gz" --append "${lsm_of[$3]}${SG_VM_APPEND:+ $SG_VM_APPEND}" \
		--timeout "$timeout" --smp "${SG_VM_SMP:-1}" --mem "${SG_VM_MEM:-1024}" \
		--log "$run/$1.log" 2> "$run/$1.boot" || st=$?
	echo "$st" > "$run/$1.status"
	since "$t" > "$run/$1.secs"
}

t=$EPOCHREALTIME
declare -A pid_of=()
queue=()
for k in "${kernels[@]}"; do
	for cfg in "${configs[@]}"; do
		queue+=("$k@$cfg")
	done
done
say "${#queue[@]} boots, $jobs at a time, timeout $timeout s each"
# Boots finish in any order; say so as they do, report in matrix order.
finished() {
	local id=${pid_of[$1]}
	say "  $id: exit $(cat "$run/$id.status") after $(cat "$run/$id.secs") s"
}
running=0
for id in "${queue[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n -p done_pid || true
		finished "$done_pid"
		running=$((running - 1))
	fi
	boot "$id" "${id%%@*}" "${id#*@}" &
	pid_of[$!]=$id
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
	wait -n -p done_pid || true
	finished "$done_pid"
	running=$((running - 1))
done
for id in "${queue[@]}"; do
	report "$id"
done

say "boots took $(since "$t") s; the whole run $(since "$t0") s; console logs in $run/"
say "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
