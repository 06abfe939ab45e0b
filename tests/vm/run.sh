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
# anything failed, a boot included (no VM-EXIT line, panic, timeout), or
# a test file that did not report exactly the results it planned
# (vm_plan; <release>/<config>/<file>/plan).
#
# Binaries, from the environment as the Makefile passes them (default:
# $BUILD, or build/, under the repository): STEPGUARD, STEPGUARD_PROBE,
# ADVERSARY, BPFDRIVE, FCHELPER.  Each test file names what it needs on a
# "# needs:" line; when a file that will run needs something the image
# would lack, nothing boots: run.sh names what is missing and fails.
#
# Environment: SG_VM_JOBS boots at a time (default: the number of CPUs),
# SG_VM_SMP CPUs and SG_VM_MEM MiB per VM (1, 1024), SG_VM_TIMEOUT seconds
# per boot (1500: a boot runs up to three passes of the adversarial suite, about 500 s on an idle 2-core machine, and more than 900 s when the machine is busy), SG_VM_OFFLINE=1 to boot only what the cache holds,
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
want_kernels=() configs=() jobs=${SG_VM_JOBS:-$(nproc)} timeout=${SG_VM_TIMEOUT:-1500} verbose=0
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
# on a real machine.  A file that does not exist is left out; what the
# test files need is checked below, and from[] says where each was looked
# for.
files=()
declare -A from=()
add_if() {  # SRC DEST: add SRC if it exists
	from[$2]=$1
	from[$(basename "$2")]=$1
	if [ -e "$1" ]; then files+=("$1:$2"); fi
}
add_if "${STEPGUARD:-$build/stepguard}" /usr/local/bin/stepguard
probe=${STEPGUARD_PROBE:-$build/stepguard-probe}
add_if "$probe" /usr/local/libexec/stepguard/stepguard-probe
add_if "$probe" /usr/local/bin/stepguard-probe
add_if "${ADVERSARY:-$build/tests/adversary}" /usr/local/bin/adversary
add_if "${BPFDRIVE:-$build/tests/bpfdrive}" /usr/local/bin/bpfdrive
add_if "${FCHELPER:-$build/tests/fchelper}" /usr/local/bin/fchelper

# A helper that asks the kernel for its Landlock ABI without stepguard.
mkdir -p "$cache/bin"
helper=$cache/bin/landlock-abi
if [ ! -x "$helper" ] || [ "$here/landlock-abi.c" -nt "$helper" ]; then
	${CC:-cc} -O2 -Wall -Wextra -o "$helper" "$here/landlock-abi.c" ||
		say "could not build landlock-abi"
fi
add_if "$helper" /usr/local/bin/landlock-abi
from[landlock-abi]="$helper, built from tests/vm/landlock-abi.c with ${CC:-cc}"
# ext4 images and xattrs: e2fsprogs' mke2fs (busybox's cannot make ext4
# with journals and extents), attr's setfattr/getfattr.
for f in /usr/sbin/mke2fs:/usr/sbin/mkfs.ext4 /etc/mke2fs.conf:/etc/mke2fs.conf \
	/usr/bin/setfattr:/usr/bin/setfattr /usr/bin/getfattr:/usr/bin/getfattr; do
	add_if "${f%%:*}" "${f#*:}"
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
		from[/opt/gnu/bin/$tool]="$tool in this machine's PATH"
	fi
done
# The compatibility suite (t/55-compat.sh runs tests/compat/run.sh) runs
# real GNU tools, not busybox's applets (and util-linux's script, whose
# ptys the eBPF pty rule must let through): they go under /opt/compat/bin,
# which only that test puts first in the steps' PATH (and GNU find, for
# tree.sh's -printf).  What is left out (git, python3, npm, gcc, cargo:
# tens of MB with their runtimes) is skipped there as "not in the VM image".
files+=("$top/tests/compat/run.sh:/usr/local/share/stepguard/compat/run.sh"
	"$top/tests/compat/tree.sh:/usr/local/share/stepguard/compat/tree.sh")
for tool in tar cp mv ln touch chmod chown install mktemp sort sed patch find \
	setfacl getfacl rsync script nice logger; do
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

# What the image will hold (the DEST of each file that exists), and the
# test files that will run in it: those sg.tests= in SG_VM_APPEND selects,
# as guest.sh selects them.
declare -A src_of=()
for f in "${files[@]}"; do
	case $f in
	*:/*) src=${f%%:/*} dest=/${f#*:/} ;;
	*) src=$f dest=/usr/local/bin/$(basename "$f") ;;
	esac
	[ -e "$src" ] && src_of[$dest]=$src
done
only=$(tr ' ' '\n' <<< "${SG_VM_APPEND:-}" | sed -n 's/^sg\.tests=//p' | tail -n 1)
selected=()
while read -r dest; do
	name=$(basename "$dest" .sh)
	if [ -z "$only" ] || grep -Eq -- "$only" <<< "$name"; then
		selected+=("$name")
	fi
done < <(printf '%s\n' "${!src_of[@]}" | grep '^/tests/[^/]*\.sh$' | sort)
[ ${#selected[@]} -gt 0 ] || { say "no test file matches sg.tests=$only"; say "0 passed, 1 failed, 0 skipped"; exit 1; }

# Each test file names what it needs ("# needs: stepguard bpfdrive ..."):
# a command the guest finds in PATH (busybox's applets are always there)
# or an absolute path.  Whatever a selected file needs must be in the
# image: a test cannot pass for want of what it tests with, and skipping
# it would hide that.
# busybox's applets, read once: grep -q on the pipe itself would stop
# reading at the first match, and busybox's SIGPIPE would then fail the
# pipeline (pipefail) at random.
applets=$(busybox --list)
in_image() {
	local d
	case $1 in
	/*) [ -n "${src_of[$1]-}" ]; return ;;
	esac
	for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
		[ -n "${src_of[$d/$1]-}" ] && return 0
	done
	grep -qxF -- "$1" <<<"$applets"
}
declare -A needed_by=()
for name in "${selected[@]}"; do
	for need in $(sed -n 's/^# needs: *//p' "${src_of[/tests/$name.sh]}"); do
		needed_by[$need]="${needed_by[$need]-}${needed_by[$need]:+, }$name"
	done
done
missing=0
for need in $(printf '%s\n' "${!needed_by[@]}" | sort); do
	in_image "$need" && continue
	say "missing: $need (${from[$need]:-not among the files given}), needed by ${needed_by[$need]}"
	missing=$((missing + 1))
done
if [ "$missing" -gt 0 ]; then
	say "nothing booted: build what is missing (make vm builds every binary and passes it)"
	say "0 passed, $missing failed, 0 skipped"
	exit 1
fi
say "test files: ${selected[*]}"

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

	# Each result needs a name of its own: a second one with the same
	# name would stand in for a row that was never reported.
	local dup n
	while read -r n dup; do
		echo "VMTEST $tag/$dup/unique FAIL reported $n times"
		count FAIL
	done < <(tr -d '\r' < "$log" | sed -n 's/^VMTEST \([^ ]*\) \(PASS\|FAIL\|SKIP\)\( .*\)\{0,1\}$/\1/p' |
		sort | uniq -c | awk '$1 > 1')

	# Each test file that was to run must have begun, finished, and
	# reported exactly the results it planned (guest.sh frames them with
	# VMTEST-BEGIN and VMTEST-DONE, vm_plan declares them): a file that
	# stopped half-way, or a guest that died, is not a shorter pass.
	local acct f st nplans planned rows
	acct=$(tr -d '\r' < "$log" | awk '
		/^VMTEST-BEGIN / { cur = $2; order[++n] = cur; st[cur] = "unfinished"; np[cur] = 0; pl[cur] = 0; rw[cur] = 0; next }
		/^VMTEST-PLAN / { if (cur != "") { np[cur]++; pl[cur] += $2 } next }
		/^VMTEST-DONE / { if ($2 == cur) st[cur] = $3; cur = ""; next }
		/^VMTEST [^ ]+ (PASS|FAIL|SKIP)( |$)/ { if (cur != "") rw[cur]++ }
		END { for (i = 1; i <= n; i++) { f = order[i]; print f, st[f], np[f], pl[f], rw[f] } }')
	for f in "${selected[@]}"; do
		if ! read -r _ st nplans planned rows < <(grep "^$f " <<< "$acct"); then
			echo "VMTEST $tag/$f/plan FAIL never started: the guest stopped before it"
			count FAIL
		elif [ "$st" = unfinished ]; then
			echo "VMTEST $tag/$f/plan FAIL started, never finished: $rows results of $planned planned"
			count FAIL
		elif [ "$st" = not-run ]; then
			: # guest.sh failed it: the image lacks what it needs
		elif [ "$nplans" = 0 ]; then
			echo "VMTEST $tag/$f/plan FAIL $rows results, but no plan (vm_plan)"
			count FAIL
		elif [ "$rows" != "$planned" ]; then
			echo "VMTEST $tag/$f/plan FAIL $rows results, $planned planned"
			count FAIL
		else
			echo "VMTEST $tag/$f/plan PASS $rows results, as planned"
			count PASS
		fi
	done
	while read -r f _; do
		[ -n "$f" ] || continue
		printf '%s\n' "${selected[@]}" | grep -qxF -- "$f" && continue
		echo "VMTEST $tag/$f/plan FAIL ran, but run.sh did not select it"
		count FAIL
	done <<< "$acct"

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
