# vmtest.sh — the guest side of the VM tests, sourced by /test.sh and by
# each test file (installed in the initramfs as /lib/vmtest.sh).
#
# A result is one console line the host parses:
#     VMTEST <name> PASS|FAIL|SKIP <reason>
# Anything else a test prints is for people; print command output through
# vm_show, which indents it so it never starts a line with VMTEST.
# shellcheck shell=sh

VMTEST_STATE=/run/vmtest
mkdir -p "$VMTEST_STATE"

# VMTEST_PREFIX (guest.sh's mutant plan) goes before every name.
vm_result() {  # RESULT NAME REASON...
	_r=$1 _n=$2
	shift 2
	echo "VMTEST ${VMTEST_PREFIX:-}$_n $_r ${*:-ok}"
	echo "$_r" >> "$VMTEST_STATE/results"
}
pass() { vm_result PASS "$@"; }
fail() { vm_result FAIL "$@"; }
skip() { vm_result SKIP "$@"; }

# vm_plan N [WHAT]: this file will report N more results.  A file declares
# its plan from what the boot gives it (the modes, the passes), before the
# work: run.sh adds up each file's plans and fails the file when it
# reported fewer or more results than that, so a file that stopped
# half-way, or a branch that returned without its rows, cannot pass short.
vm_plan() {
	echo "VMTEST-PLAN $1 ${2:-}"
}

# $vm_await: a function for a step's script (sh -c "$vm_await"'...'):
# "await FILE WHAT" waits up to 30 s for FILE and says "saw: WHAT", or
# says "timed out waiting: WHAT" and ends the step with 3.  Steps that must
# run at the same time signal with files and wait with it, and the judge
# requires their "saw" lines: an overlap that did not happen fails the
# row instead of letting it pass on timing.
# shellcheck disable=SC2016,SC2034 # expanded in the step; used by the test files
vm_await='await() { _i=0; while [ ! -e "$1" ]; do [ $_i -ge 300 ] && { echo "timed out waiting: $2"; exit 3; }; sleep 0.1; _i=$((_i + 1)); done; echo "saw: $2"; }'

# vm_needs FILE: what FILE's "# needs:" line names and this image lacks
# (a command, or an absolute path).  run.sh refuses to boot without it;
# this is for images built by hand.
vm_needs() {
	for _need in $(sed -n 's/^# needs: *//p' "$1"); do
		case $_need in
		/*) [ -e "$_need" ] ;;
		*) command -v "$_need" > /dev/null ;;
		esac || printf ' %s' "$_need"
	done
}

vm_show() { sed 's/^/    | /'; }

# vm_cmdline KEY: the value of KEY=... on the kernel command line.
vm_cmdline() {
	tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1=//p" | tail -n 1
}

# vm_lsm_active NAME / vm_lsm_requested NAME: is NAME in the active LSM
# list / in the lsm= the VM was booted with.
vm_lsm_active() {
	tr ',' '\n' < /sys/kernel/security/lsm 2>/dev/null | grep -qx "$1"
}
vm_lsm_requested() {
	vm_cmdline lsm | tr ',' '\n' | grep -qx "$1"
}

# as_user CMD...: run CMD as sgtest (uid and gid 1000, no supplementary
# groups; leaving uid 0 clears the capabilities), in its home directory.
# busybox su runs "sh -c CMD ARG0 ARGS", which keeps CMD's words intact.
as_user() {
	(cd /home/sgtest && su -s /bin/sh sgtest -c 'exec "$@"' sh "$@")
}

# vm_run NAME CMD...: run CMD, keep its status in $vm_status and its
# output (stdout and stderr) in $VMTEST_STATE/NAME.out, and show it.
vm_run() {
	_n=$1
	shift
	"$@" > "$VMTEST_STATE/$_n.out" 2>&1
	vm_status=$?
	echo "  \$ $* -> $vm_status"
	vm_show < "$VMTEST_STATE/$_n.out"
	return 0
}
vm_out() { cat "$VMTEST_STATE/$1.out"; }

# _vm_why NAME STATUS REGEX: after vm_run NAME, why it did not give STATUS
# and (if REGEX is not empty) output matching REGEX (grep -Ei); empty when
# it did
_vm_why() {
	if [ "$vm_status" != "$2" ]; then
		_o=$(head -c 200 "$VMTEST_STATE/$1.out" | tr '\n' ' ')
		echo "exit $vm_status, expected $2: ${_o:-(no output)}"
	elif [ -n "$3" ] && ! grep -Eiq "$3" "$VMTEST_STATE/$1.out"; then
		echo "exit $vm_status as expected, but the output does not match /$3/"
	fi
}

# vm_expect NAME STATUS [REGEX] CMD...: PASS when CMD exits with STATUS
# and (if REGEX is not empty) its output matches REGEX (grep -Ei).
vm_expect() {
	_n=$1 _want=$2 _re=$3
	shift 3
	vm_run "$_n" "$@"
	_why=$(_vm_why "$_n" "$_want" "$_re")
	if [ -n "$_why" ]; then
		fail "$_n" "$_why"
	else
		pass "$_n" "exit $vm_status${_re:+, output matches /$_re/}"
	fi
}

# vm_refused NAME STATUS REGEX MARKER CMD...: CMD must refuse to start
# its step: exit STATUS, output matching REGEX, and no MARKER, the file
# the step writes first.  Without the marker, a launcher that ran the step
# and then exited with the refusal's status would pass.
# vm_ran NAME STATUS REGEX MARKER CMD...: the control, the same step
# allowed: STATUS, REGEX, and the step wrote MARKER.  Both remove MARKER
# before the run, and leave what the run left for the rows after.
vm_refused() {
	_n=$1 _want=$2 _re=$3 _mk=$4
	shift 4
	rm -f "$_mk"
	vm_run "$_n" "$@"
	_why=$(_vm_why "$_n" "$_want" "$_re")
	if [ -n "$_why" ]; then
		fail "$_n" "$_why"
	elif [ -e "$_mk" ]; then
		fail "$_n" "exit $vm_status, but the step ran: it wrote $_mk"
	else
		pass "$_n" "exit $vm_status${_re:+, output matches /$_re/}, the step did not run (no $_mk)"
	fi
}
vm_ran() {
	_n=$1 _want=$2 _re=$3 _mk=$4
	shift 4
	rm -f "$_mk"
	vm_run "$_n" "$@"
	_why=$(_vm_why "$_n" "$_want" "$_re")
	if [ -n "$_why" ]; then
		fail "$_n" "$_why"
	elif [ ! -e "$_mk" ]; then
		fail "$_n" "exit $vm_status, but the step did not run: no $_mk"
	else
		pass "$_n" "exit $vm_status${_re:+, output matches /$_re/}, the step ran (wrote $_mk)"
	fi
}

# vm_finish: the kernel log must hold no oops, BUG or WARNING (a BPF
# program or a hook can provoke one without any test noticing); print the
# totals and return non-zero if anything failed.
vm_finish() {
	if dmesg | grep -Eq 'BUG:|WARNING:|Oops|general protection|Call Trace:'; then
		dmesg | tail -n 60 | vm_show
		fail kernel-log "the kernel logged a BUG, WARNING or oops (shown above)"
	else
		pass kernel-log "no BUG, WARNING or oops in dmesg"
	fi
	_p=$(grep -c PASS "$VMTEST_STATE/results")
	_f=$(grep -c FAIL "$VMTEST_STATE/results")
	_s=$(grep -c SKIP "$VMTEST_STATE/results")
	echo "VMTEST-END pass=$_p fail=$_f skip=$_s"
	[ "$_f" = 0 ]
}
