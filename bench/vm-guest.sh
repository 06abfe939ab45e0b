#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/vm-guest.sh — item 6 of `make bench`, the guest side: what the
# eBPF backends cost, measured inside a tests/vm VM (QEMU TCG), as root.
# bench/vm.sh puts it in the initramfs as /test.sh, with bench/runner,
# bench/sysbench, stepguard and /etc/sgbench.conf (the rounds), and boots
# it twice: with `bpf` in lsm= (backend bpf-lsm) and without (bpf-fmod).
#
# The backend follows from the boot: bpf-lsm when `bpf` is an active LSM,
# else bpf-fmod.  On a tmpfs of its own (/bench), with W the work dir:
#
#   a) warm start: bench/runner interleaves `/bin/true` bare,
#      `stepguard -q --filter B -w W -- /bin/true` with the programs
#      already pinned (one step ran before), and the same with
#      `--filter landlock`, a reference for how emulation skews start-up
#      ratios (the host measures that one natively, item 1);
#   b) cold start: the same pair, `stepguard --unload` (untimed, runner's
#      PREP) before every run, so each stepguard loads and verifies;
#   c) syscalls: bench/sysbench -n N W DEEP (DEEP six directories deep
#      outside W, on /var/tmp) in three states, ABC CBA over the rounds:
#      U  bare, nothing loaded (after `stepguard --unload`)
#      A  bare and unconfined, with the programs pinned and attached
#         (a step ran and exited; its pins stay)
#      C  confined: `stepguard -q --filter B -w W -- sysbench ...`
#
# Results are console lines, tab-separated, all starting "SGBENCH<TAB>":
#
#   SGBENCH meta    KEY VALUE
#   SGBENCH startup ROUND LABEL BATCH WALL_NS_MEAN WALL_NS_MIN CPU_NS   (runner's line)
#   SGBENCH cold    ROUND LABEL BATCH WALL_NS_MEAN WALL_NS_MIN CPU_NS
#   SGBENCH sys     ROUND STATE OP NS_PER_OP
#   SGBENCH error   PHASE MESSAGE
#   SGBENCH done    NUMBER_OF_ERRORS
#
# Nothing is timed while the console is written to: the tools write to
# files, printed afterwards.  An error ends the phase it happened in (a
# failed run is never timed) and is reported; the other phases still run.
# Also usable as a tests/vm test file (sourced, after /lib/vmtest.sh): then
# it reports one result, bench PASS or FAIL.
# shellcheck shell=sh disable=SC2086
# (unquoted $SG, $W, $O on purpose: commands and paths without spaces)

# The rounds (bench/vm.sh writes the file; these are the fallbacks).
SU_ROUNDS=20 SU_BATCH=3 SU_LIMIT=40 COLD_N=4 SC_ROUNDS=6 SC_N=2000 SC_LIMIT=60 QUICK=0
# shellcheck source=/dev/null
[ -r /etc/sgbench.conf ] && . /etc/sgbench.conf

SGB_T=$(printf '\t')
sgb_errors=0
sgb_line() {  # KIND FIELD...: one result line
	_l="SGBENCH"
	for _f in "$@"; do _l="$_l$SGB_T$_f"; done
	echo "$_l"
}
sgb_meta() { sgb_line meta "$1" "$2"; }
sgb_error() {  # PHASE MESSAGE [FILE whose first lines explain]
	_m=$2
	[ -n "${3:-}" ] && [ -s "$3" ] && _m="$_m: $(head -n 3 "$3" | tr '\t\n' '  ')"
	sgb_line error "$1" "$_m"
	sgb_errors=$((sgb_errors + 1))
}
# sgb_print KIND FILE: FILE's tab-separated lines as KIND result lines
sgb_print() {
	awk -v k="$1" 'NF { print "SGBENCH\t" k "\t" $0 }' "$2"
}
sgb_uptime() { cut -d' ' -f1 /proc/uptime | cut -d. -f1; }
sgb_lsm_active() { tr ',' '\n' < /sys/kernel/security/lsm 2> /dev/null | grep -qx "$1"; }
# sgb_pins: how many entries this build's pins hold under bpffs
sgb_pins() { find /sys/fs/bpf/stepguard -mindepth 1 2> /dev/null | wc -l; }

sgb_main() {
	O=/run/sgbench
	mkdir -p $O
	sgb_meta kernel "$(uname -r)"
	sgb_meta lsm "$(cat /sys/kernel/security/lsm 2> /dev/null)"
	sgb_meta cmdline_lsm "$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^lsm=//p' | tail -n 1)"
	sgb_meta quick "$QUICK"
	sgb_meta params "su_rounds=$SU_ROUNDS su_batch=$SU_BATCH su_limit=$SU_LIMIT cold_n=$COLD_N sc_rounds=$SC_ROUNDS sc_n=$SC_N sc_limit=$SC_LIMIT"
	if sgb_lsm_active bpf; then B=bpf-lsm; else B=bpf-fmod; fi
	sgb_meta backend "$B"
	for t in stepguard runner sysbench; do
		if ! command -v $t > /dev/null; then
			sgb_error setup "$t is not in the image"
			return 1
		fi
	done
	sgb_meta stepguard "$(stepguard --version 2>&1 | head -n 1)"

	# The work dir on a tmpfs of its own, as on the host; the deep file
	# six directories down outside it (/var/tmp is another tmpfs).
	mkdir -p /bench
	mount -t tmpfs -o size=256m,mode=0755 sgbench /bench || sgb_error setup "mount -t tmpfs /bench failed (using the initramfs)"
	W=/bench/work
	mkdir -p $W
	DEEP=/var/tmp/d1/d2/d3/d4/d5/d6/f
	mkdir -p "${DEEP%/*}"
	echo deep > $DEEP
	cd $W || return 1
	SG="stepguard -q --filter $B -w $W --"

	# The first step loads the programs (and says why, if it cannot).
	stepguard --unload > /dev/null 2>&1
	if ! stepguard --filter $B -w $W -- /bin/true > $O/first.out 2>&1; then
		sgb_error load "stepguard --filter $B -- /bin/true failed; the eBPF backend cannot run on this boot" $O/first.out
		return 1
	fi
	sgb_meta start_line "$(head -n 1 $O/first.out)"
	stepguard --filter $B -w $W -- /bin/true > $O/second.out 2>&1
	sgb_meta warm_line "$(head -n 1 $O/second.out)"
	sgb_meta pins_after_step "$(sgb_pins)"
	if [ "$(sgb_pins)" = 0 ]; then
		sgb_error load "no pins under /sys/fs/bpf/stepguard after a $B step: nothing to measure attached"
		return 1
	fi
	# Page cache, dentries, the binaries' pages: one untimed run each.
	sysbench -n 50 $W $DEEP > /dev/null 2>&1
	$SG sysbench -n 50 $W $DEEP > /dev/null 2>&1

	# a) warm start, with the Landlock reference if it runs on this boot
	t0=$(sgb_uptime)
	set -- bare /bin/true :: warm $SG /bin/true
	if stepguard -q --filter landlock -w $W -- /bin/true > $O/landlock.out 2>&1; then
		set -- "$@" :: landlock stepguard -q --filter landlock -w $W -- /bin/true
	else
		sgb_meta landlock "the Landlock reference cannot run: $(head -n 1 $O/landlock.out)"
	fi
	if runner -C $W -r "$SU_ROUNDS" -n "$SU_BATCH" -w 1 -T "$SU_LIMIT" -o $O/startup.tsv -- \
		"$@" 2> $O/startup.err; then
		sgb_print startup $O/startup.tsv
	else
		sgb_error startup "bench/runner failed" $O/startup.err
	fi
	sgb_meta startup_seconds $(($(sgb_uptime) - t0))

	# b) cold start: unload (untimed) before every run of both commands
	t0=$(sgb_uptime)
	if runner -C $W -r "$COLD_N" -n 1 -w 0 -p 'stepguard --unload > /dev/null' -o $O/cold.tsv -- \
		bare /bin/true :: cold $SG /bin/true 2> $O/cold.err; then
		sgb_print cold $O/cold.tsv
	else
		sgb_error cold "bench/runner failed (stepguard --unload or the step)" $O/cold.err
	fi
	sgb_meta cold_seconds $(($(sgb_uptime) - t0))

	# c) syscalls: U A C in even rounds, C A U in odd ones, so a drift
	# over the run weighs on every state alike.  Each state is checked
	# (pins absent or present) before it is timed.
	t0=$(sgb_uptime)
	r=0
	while [ $r -lt "$SC_ROUNDS" ]; do
		if [ $r -ge 2 ] && [ $(($(sgb_uptime) - t0)) -gt "$SC_LIMIT" ]; then
			sgb_meta sys_limit "time limit of $SC_LIMIT s reached after $r rounds"
			break
		fi
		if [ $((r % 2)) = 0 ]; then order="U A C"; else order="C A U"; fi
		for s in $order; do
			case $s in
			U)
				if ! stepguard --unload > $O/unload.out 2>&1; then
					sgb_error sys "stepguard --unload failed in round $r" $O/unload.out
					break 2
				fi
				if [ "$(sgb_pins)" != 0 ]; then
					sgb_error sys "pins left after stepguard --unload in round $r"
					break 2
				fi
				cmd="sysbench"
				;;
			A | C)
				if [ "$(sgb_pins)" = 0 ] && ! $SG /bin/true > $O/load.out 2>&1; then
					sgb_error sys "the step that loads the programs failed in round $r" $O/load.out
					break 2
				fi
				if [ "$(sgb_pins)" = 0 ]; then
					sgb_error sys "no pins after a step in round $r"
					break 2
				fi
				if [ $s = A ]; then cmd="sysbench"; else cmd="$SG sysbench"; fi
				;;
			esac
			# shellcheck disable=SC2086
			if ! $cmd -n "$SC_N" $W $DEEP > $O/sys.out 2> $O/sys.err; then
				sgb_error sys "sysbench failed in state $s, round $r" $O/sys.err
				break 2
			fi
			awk -v r=$r -v s=$s 'NF == 2 { print "SGBENCH\tsys\t" r "\t" s "\t" $1 "\t" $2 }' $O/sys.out
		done
		r=$((r + 1))
	done
	sgb_meta sys_rounds "$r"
	sgb_meta sys_seconds $(($(sgb_uptime) - t0))
	cd /
	stepguard --unload > /dev/null 2>&1
	return 0
}

sgb_main
sgb_line "done" "$sgb_errors"
if command -v pass > /dev/null 2>&1 && [ "$0" != /test.sh ]; then
	# sourced as a tests/vm test file
	if [ "$sgb_errors" = 0 ]; then pass bench "eBPF figures measured"; else fail bench "$sgb_errors errors (SGBENCH error lines)"; fi
elif [ "$sgb_errors" != 0 ]; then
	exit 1
fi
