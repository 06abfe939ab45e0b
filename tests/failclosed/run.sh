#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # single-quoted step scripts get their arguments as "$@"
#
# tests/failclosed/run.sh — the fail-closed matrix of issue 6, on this host,
# judged from outside.
#
#   STEPGUARD=build/stepguard bash tests/failclosed/run.sh [--only REGEX]
#       [--list] [--keep] [-v]
#
# Each test produces one bad-day condition (a policy that cannot be trusted,
# a root that moves, a backend that is missing, stepguard or its step
# killed, a step out of processes or memory) and judges stepguard by its
# exit status, its message and the file system afterwards: the step must
# not have run, or must have run confined (nothing outside the roots
# landed: no file, no mode change).  Where it is cheap, the same step is
# also run unconfined, or with the condition removed, to show that the
# test can fail (what would land does land).
#
# As root every test runs twice: as root (name.root) and as the
# unprivileged sgtest (name.sgtest, through setpriv --reuid=sgtest
# --regid=sgtest --init-groups; created with useradd -m if missing, as
# tests/host/run.sh does).  Run by another user, once, as that user; the
# tests that need root are skipped.  Every step runs with --filter landlock
# unless the backend is what the test is about.  The VM-only rows are
# listed in tests/failclosed/README.md.
#
# Output: one line per test, "PASS|FAIL|SKIP name — reason" (a FAIL is
# followed by indented details), then exactly
#   failclosed: N passed, M failed, K skipped
# and the exit status is non-zero when M > 0.
#
# Needs: bash, coreutils, util-linux (setpriv, prlimit, unshare, setarch),
# a C compiler and libseccomp's headers for the helper (fchelper.c; set
# FC_HELPER to a built one instead), strace for one test.  Everything is
# made under /var/tmp/sg-fc.XXXXXX and removed at the end (--keep keeps it).
set -u
umask 022

die() { echo "run.sh: $*" >&2; exit 2; }

ONLY='' LIST=0 KEEP=0 VERBOSE=0
while [ $# -gt 0 ]; do
	case $1 in
	--only) ONLY=${2:?--only needs a regex}; shift 2 ;;
	--list) LIST=1; shift ;;
	--keep) KEEP=1; shift ;;
	-v) VERBOSE=1; shift ;;
	-h | --help) sed -n '5,36p' "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done

HERE=$(cd "$(dirname "$0")" && pwd)
ME=$(id -un)
MYUID=$(id -u)
SUITE_USER=sgtest
RUNID=fc.$$.$RANDOM

# The tests, in matrix order: name | matrix row | what it does.
TESTS=(
	"policy-missing|no policy file|-p / STEPGUARD_POLICY / --rules-dir naming nothing: 64, not run"
	"policy-default-absent|no policy file|no /etc/stepguard at all: the built-in policy applies, the step is confined"
	"policy-unreadable|unreadable policy|policy or drop-in the user cannot read (EACCES), policy that is a directory: 64, not run"
	"policy-syntax|policy with a syntax error|main file, section header, drop-in, bad value: 64, file:line, not run"
	"policy-writable|writable-by-others policy|policy 0666 / 0620, drop-in dir 0777, drop-in 0666, policy of another owner: 64, not run"
	"root-missing|root does not exist|-w, --allow-write, [writes] naming nothing: 64, not run"
	"root-missing-optional|root does not exist|a ?-optional root absent at start and created mid-step is no root"
	"root-symlink|root is a symlink|symlink roots resolve at start; to \$HOME or / they are refused (64)"
	"root-symlink-retarget|root replaced by a symlink|an --allow-write symlink retargeted to \$HOME mid-step: writes stay in the old target"
	"root-swapped-running|root replaced by a symlink|work dir renamed away and replaced by a symlink to \$HOME mid-step: nothing lands in \$HOME"
	"root-swapped-before-exec|root replaced by a symlink|the same swap after the roots are opened and before any rule exists (strace delays landlock_add_rule)"
	"backend-ebpf-by-name|backend unavailable|--filter bpf-lsm / bpf-fmod, policy filter = bpf-fmod where eBPF cannot be used: 71, not run"
	"backend-bpf-lsm-inactive|backend unavailable|bpffs present, bpf missing from the LSM list: --filter bpf-lsm refused before loading (71)"
	"backend-ebpf-load-refused|eBPF load failure|bpffs present, the kernel refuses the programs: --filter bpf-fmod 71, auto falls back to Landlock, confined"
	"backend-ebpf-pins-bad|pinned objects|pin dir read-only, world-writable, foreign-owned, without programs or maps: 71, never reused"
	"backend-landlock-off|backend unavailable|landlock_create_ruleset answers EOPNOTSUPP / ENOSYS (seccomp stand-in for lsm= without landlock): 71"
	"backend-supervisor-unavailable|backend unavailable|kernel too old for the supervisor (setarch --uname-2.6): 71 unless accept-gaps"
	"backend-supervisor-no-proc|backend unavailable|no /proc for the supervisor: it fails before the step's exec returns, 71, not run"
	"sigkill-stepguard|stepguard killed with SIGKILL|SIGKILL stepguard mid-step: the step goes on confined, supervised calls and write intents fail closed (ENOSYS)"
	"step-killed|the step killed|SIGKILL the step: stepguard exits 137 and logs it; the step's orphan stays confined"
	"supervisor-stalled|slow log|stepguard stopped (as when its log write blocks) while the step's writes are routed to it: they wait, none lands unjudged; after SIGCONT inside lands, outside refused and logged"
	"log-full|full log|the log's file system is full: every refusal still refused, stepguard says how many records were lost, even with -q; the step's status is kept"
	"sigterm-ignored|step ignores SIGTERM|SIGTERM to stepguard is forwarded; the step ignores it and stays confined and supervised; no escalation"
	"rlimit-nproc|step exhausts pids|RLIMIT_NPROC: stepguard cannot fork (71); a step that forks to the limit is still confined"
	"rlimit-as|step exhausts memory|RLIMIT_AS: a step that allocates to the limit is still confined and supervised"
	"caps-drop-refused|capabilities cannot be dropped|capset answers EPERM: a root step is not run (71), never run with its capabilities; a user, who holds none, runs"
	"core-limit-refused|core limit cannot be set|prlimit64 answers EPERM: the step is not run (71), never run with core dumps on"
	"ipc-namespace-refused|no private IPC namespace|unshare answers EPERM: the step runs confined, and the start line and the log say the gap ipc"
	"rlimit-as-stepguard|step exhausts memory|RLIMIT_AS and RLIMIT_DATA swept over stepguard's own start: it refuses with a message or runs confined, never unconfined, never dies of a signal"
)

if [ "$LIST" = 1 ]; then
	for t in "${TESTS[@]}"; do
		IFS='|' read -r n row what <<<"$t"
		printf '%-28s %-30s %s\n' "$n" "[$row]" "$what"
	done
	exit 0
fi

SG=${STEPGUARD:?set STEPGUARD to the stepguard binary}
SG=$(realpath "$SG") || die "no $STEPGUARD"
[ -x "$SG" ] || die "$SG is not executable"

BASE=$(mktemp -d /var/tmp/sg-fc.XXXXXX) || die "mktemp"
chmod 755 "$BASE"
mkdir -p "$BASE/bin" "$BASE/out"
# A copy the unprivileged user can reach, and that a rebuild during the
# run cannot change.
if ! cp "$SG" "$BASE/bin/stepguard" || ! chmod 755 "$BASE/bin/stepguard"; then die "cannot copy $SG"; fi
SGU=$BASE/bin/stepguard

NPASS=0 NFAIL=0 NSKIP=0

# A stepguard built with ASan (make asan): RLIMIT_AS cannot apply to it
# (its shadow memory is terabytes of address space), and LeakSanitizer
# cannot run at exit without fork and /proc, so the runs that take those
# away turn its leak check off (the other suites check for leaks).
ASAN=0
grep -qa __asan_init "$SG" && ASAN=1
NOLEAK=()
[ "$ASAN" = 1 ] && NOLEAK=(ASAN_OPTIONS=detect_leaks=0)

# Kill what this run started and what is still alive: every process whose
# environment carries FC_RUN=$RUNID (stepguard, its steps, their orphans,
# strace), by pid.
sweep() {
	local f pid
	while IFS= read -r f; do
		pid=${f#/proc/}
		pid=${pid%/environ}
		[ "$pid" != "$$" ] && [ "$pid" != "$BASHPID" ] && kill -KILL "$pid" 2>/dev/null
	done < <(grep -lsaxzF "FC_RUN=$RUNID" /proc/[0-9]*/environ 2>/dev/null)
}
cleanup() {
	sweep
	if [ "$KEEP" = 1 ]; then echo "run.sh: kept $BASE"; else rm -rf "$BASE"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the helper ---------------------------------------------------------
HELPER=${FC_HELPER:-}
HELPER_WHY=''
if [ -n "$HELPER" ]; then
	HELPER=$(realpath "$HELPER" 2>/dev/null)
	if [ -z "$HELPER" ] || [ ! -x "$HELPER" ]; then
		HELPER_WHY="FC_HELPER $FC_HELPER is not executable"
		HELPER=''
	fi
else
	# shellcheck disable=SC2086 # pkg-config's flags are words
	if flags=$(pkg-config --cflags --libs libseccomp 2>/dev/null) &&
		${CC:-cc} -std=gnu11 -O2 -Wall -o "$BASE/bin/fchelper" "$HERE/fchelper.c" $flags \
			>"$BASE/out/helper.log" 2>&1; then
		HELPER=$BASE/bin/fchelper
	else
		HELPER_WHY="cannot build fchelper.c: $(tail -1 "$BASE/out/helper.log" 2>/dev/null || echo 'no libseccomp (pkg-config)')"
	fi
fi
[ -n "$HELPER" ] && chmod 755 "$HELPER"

# --- the step scripts (read by sh inside the step; readable by all) -------
S=$BASE/bin
# not-run probe: $1 work dir, $2 home.  Had it run unconfined, all three land.
PROBE_SH='echo ran > "$1/ran"; echo pwn > "$2/pwn"; chmod 600 "$2/.profile"'

# The steps wait for the harness's ./go (or SIGTERM) with a guard against
# a hang, not a timer: after 120 s without it they give up, say so in
# their report and exit 98, which fails the test; they never go on as if
# it had come.
#
# after.sh HOME: wait for ./go, then try the writes a step does after its
# guard is gone, each result to descriptor 3 (./rep) and the errors to 4
# (./err), both opened while the guard lived: with the supervisor gone
# every open that writes fails (ENOSYS), so a report opened afterwards
# could not be written.  Its first line, "waiting", says they are open:
# the harness kills nothing before it.
cat >"$S/after.sh" <<'EOF'
echo waiting >&3
i=0; while [ ! -e go ]; do [ $i -ge 4800 ] && { echo no-go >&3; exit 98; }; sleep 0.025; i=$((i + 1)); done
chmod 640 in.txt 2>&4; echo "chmod-in $?" >&3
chmod 600 "$1/.profile" 2>&4; echo "chmod-out $?" >&3
echo pwn 2>&4 > "$1/pwn"; echo "write-out $?" >&3
echo inside 2>&4 > after.txt; echo "write-in $?" >&3
read -r _ <in.txt 2>&4; echo "read-in $?" >&3
echo done >&3
EOF
# killguard.sh HOME: a supervised call while stepguard lives, then after.sh
cat >"$S/killguard.sh" <<'EOF'
chmod 600 in.txt 2>>err; echo "before-chmod-in $?" >>rep
echo inside > before.txt; echo "before-write-in $?" >>rep
echo started > started
exec /bin/sh "${0%/*}/after.sh" "$1" 3>>rep 4>>err
EOF
# stepkill.sh HOME: leave an orphan that runs after.sh, then wait to be killed
cat >"$S/stepkill.sh" <<'EOF'
setsid /bin/sh "${0%/*}/after.sh" "$1" </dev/null >/dev/null 2>&1 3>>rep 4>>err &
echo $! > orphan.pid
echo $$ > step.pid
echo started > started
exec sleep 30
EOF
# stalled.sh HOME: once ./go exists, "trying" (on a descriptor opened
# before: no judge needed), a write outside and one inside, then exit 0
cat >"$S/stalled.sh" <<'EOF'
exec 3>>rep 4>>err
echo $$ > step.pid
echo started > started
i=0; while [ ! -e go ]; do [ $i -ge 4800 ] && { echo no-go >&3; exit 98; }; sleep 0.025; i=$((i + 1)); done
echo trying >&3
echo pwn 2>&4 > "$1/pwn"; echo "write-out $?" >&3
echo inside 2>&4 > during.txt; echo "write-in $?" >&3
echo done >&3
EOF
# fulllog.sh HOME: three refused writes outside, one inside, exit 0
cat >"$S/fulllog.sh" <<'EOF'
mkdir "$1/d" 2>>err; echo "mkdir-out $?" >>rep
echo pwn 2>>err > "$1/pwn"; echo "write-out $?" >>rep
ln -s x "$1/l" 2>>err; echo "symlink-out $?" >>rep
echo inside > in2.txt; echo "write-in $?" >>rep
exit 0
EOF
# sigterm.sh HOME: record SIGTERM, ignore it, go on confined, exit 7 at ./go
cat >"$S/sigterm.sh" <<'EOF'
got=0
trap 'echo got-TERM >>rep; got=1' TERM
echo started > started
i=0; while [ $got = 0 ]; do [ $i -ge 4800 ] && { echo no-TERM >>rep; exit 98; }; sleep 0.025; i=$((i + 1)); done
chmod 600 "$1/.profile" 2>>err; echo "chmod-out $?" >>rep
echo pwn > "$1/pwn" 2>>err; echo "write-out $?" >>rep
chmod 640 in.txt 2>>err; echo "chmod-in $?" >>rep
echo "carried-on" >>rep
i=0; while [ ! -e go ]; do [ $i -ge 4800 ] && { echo no-go >>rep; exit 98; }; sleep 0.025; i=$((i + 1)); done
echo done >>rep
exit 7
EOF
# swap.sh PATH-OF-WORK-DIR: wait for ./go, then write through the old path
# of the work dir (now a symlink to $HOME), and relative to the cwd.
cat >"$S/swap.sh" <<'EOF'
echo started > started
i=0; while [ ! -e go ]; do [ $i -ge 4800 ] && { echo no-go >>rep; exit 98; }; sleep 0.025; i=$((i + 1)); done
echo pwn > "$1/pwn" 2>>err; echo "write-old-path $?" >>rep
chmod 600 "$1/.profile" 2>>err; echo "chmod-old-path $?" >>rep
echo rel > rel; echo "write-cwd $?" >>rep
echo done >>rep
EOF
# waitgo.sh TARGET: wait for ./go, then create TARGET
cat >"$S/waitgo.sh" <<'EOF'
echo started > started
i=0; while [ ! -e go ]; do [ $i -ge 4800 ] && { echo no-go >>rep; exit 98; }; sleep 0.025; i=$((i + 1)); done
echo pwn > "$1" 2>>err; echo "write $?" >>rep
shift; for f in "$@"; do echo ok > "$f"; echo "write-control $?" >>rep; done
echo done >>rep
EOF
chmod 644 "$S"/*.sh

# --- users ------------------------------------------------------------------
# As root, the unprivileged half of the matrix is never dropped unseen: a
# missing sgtest is made (as tests/host does); if it cannot be, each of its
# rows FAILs, unless SG_NO_SGTEST=REASON says why this machine runs
# without it, and then each SKIPs with that reason.
USERS=()
USERS_WHY=''
if [ "$MYUID" = 0 ]; then
	USERS=(root "$SUITE_USER")
	if ! id "$SUITE_USER" >/dev/null 2>&1; then
		if [ -n "${SG_NO_SGTEST:-}" ]; then
			USERS_WHY="no user $SUITE_USER, and SG_NO_SGTEST: $SG_NO_SGTEST"
		elif ! useradd -m "$SUITE_USER" >/dev/null 2>&1 || ! id "$SUITE_USER" >/dev/null 2>&1; then
			USERS_WHY="no user $SUITE_USER, and useradd -m $SUITE_USER failed (SG_NO_SGTEST=REASON runs without it)"
		fi
	fi
else
	USERS=("$ME")
fi

# --- the tree and running ---------------------------------------------------
NT=0
# fresh USER: a new tree $B (owned by USER) with $H (the step's HOME, with
# .profile 0644), $W (the work dir, with in.txt 0644), $L (logs, outside
# every root), and $OUT (the harness's capture of stepguard's output).
fresh() {
	local u=$1
	NT=$((NT + 1))
	B=$BASE/t$NT.$u
	H=$B/home W=$B/work L=$B/logs OUT=$BASE/out/t$NT.out
	mkdir -p "$H" "$W" "$L"
	printf 'profile\n' >"$H/.profile"
	printf 'inside\n' >"$W/in.txt"
	chmod 755 "$B" "$H" "$W" "$L"
	chmod 644 "$H/.profile" "$W/in.txt"
	[ "$u" = root ] || [ "$u" = "$ME" ] || chown -R "$u:$(id -g "$u")" "$B"
	WRAP=()
	PROBE=(/bin/sh -c "$PROBE_SH" sh "$W" "$H")
	: >"$OUT"
}
# own FILE...: make FILEs the test user's (they are written by the harness)
own() { [ "$TU" = root ] || [ "$TU" = "$ME" ] || chown "$TU:$(id -g "$TU")" "$@"; }

pre_for() {
	if [ "$1" = root ] || [ "$1" = "$ME" ]; then PRE=(); else
		PRE=(setpriv --reuid="$1" --regid="$1" --init-groups --); fi
}
stepenv() { ENVI=(env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$H" LANG=C.UTF-8 FC_RUN="$RUNID" "$@"); }

# sg_run [VAR=VALUE...] -- STEPGUARD-ARGS...: stepguard as the test user,
# in $W, through $WRAP; output to $OUT, status to $RC.
sg_run() {
	local -a ev=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do ev+=("$1"); shift; done
	shift
	pre_for "$TU"
	stepenv "${ev[@]}"
	# (braces: bash's notice of a death by signal goes to $OUT too)
	{ (cd "$W" && exec "${PRE[@]}" "${ENVI[@]}" timeout -k 2 60 "${WRAP[@]}" "$SGU" "$@") </dev/null; } \
		>"$OUT" 2>&1
	RC=$?
	logrun "${WRAP[*]:+${WRAP[*]} }stepguard $*"
}
# logrun WHAT: keep the last run's output in $OUT.all, for a FAIL's details
logrun() { { printf '$ %s -> %s\n' "$1" "$RC"; sed 's/^/  /' "$OUT"; } >>"$OUT.all"; }
# unconf CMD...: the same command without stepguard (the counterpart)
unconf() {
	pre_for "$TU"
	stepenv
	(cd "$W" && exec "${PRE[@]}" "${ENVI[@]}" timeout -k 2 60 "${WRAP[@]}" "$@") \
		>>"$BASE/out/t$NT.unconf" 2>&1 </dev/null
}
# bg_sg STEPGUARD-ARGS...: in the background; $BGPID is the process that
# becomes stepguard (or the first of $WRAP)
bg_sg() {
	pre_for "$TU"
	stepenv
	(cd "$W" && exec "${PRE[@]}" "${ENVI[@]}" "${WRAP[@]}" "$SGU" "$@") >"$OUT" 2>&1 </dev/null &
	BGPID=$!
}
# wait_for TEST [SECONDS]: poll until the shell test succeeds; the bound
# (default 60 s) guards against a hang, it judges no speed
wait_for() {
	local i n=$((${2:-60} * 40))
	for ((i = 0; i < n; i++)); do eval "$1" && return 0; sleep 0.025; done
	return 1
}
# bg_alive: the process bg_sg started still runs (a zombie has ended)
bg_alive() {
	local st
	st=$(sed 's/.*) //' "/proc/$BGPID/stat" 2>/dev/null | cut -d' ' -f1)
	[ -n "$st" ] && [ "$st" != Z ]
}
# wait_started [TEST]: until the step of bg_sg has made ./started (and
# TEST holds); fails at once when that process ends first
wait_started() {
	local t="[ -e \"\$W/started\" ]${1:+ && $1}"
	wait_for "$t || ! bg_alive"
	eval "$t"
}
# not_started: note it, end the test's background run, and give the verdict
# (the caller returns: nothing after the start can be judged)
not_started() {
	ERRS+=("the step did not start (no $W/started)")
	kill -KILL "$BGPID" 2>/dev/null
	{ wait "$BGPID"; } 2>/dev/null
	RC=$?
	logrun "stepguard in the background"
	verdict "$1"
}

# --- judging ----------------------------------------------------------------
ERRS=()
need() { # DESCRIPTION COMMAND...: note DESCRIPTION unless COMMAND succeeds
	local what=$1
	shift
	"$@" || ERRS+=("$what")
}
rc_is() { [ "$RC" = "$1" ]; }
out_has() { grep -Eq -- "$1" "$OUT"; }
out_has_i() { grep -Eiq -- "$1" "$OUT"; }
out_lacks() { ! grep -Eq -- "$1" "$OUT"; }
absent() { [ ! -e "$1" ] && [ ! -L "$1" ]; }
present() { [ -e "$1" ]; }
mode_is() { [ "$(stat -c %a "$1" 2>/dev/null)" = "$2" ]; }
rep_has() { grep -Eq -- "$2" "$1" 2>/dev/null; }
# want STATUS REGEX: stepguard's status and a line of its message
want() {
	need "exit status $RC, expected $1" rc_is "$1"
	[ -n "${2:-}" ] && need "no message matching /$2/" out_has "$2"
	return 0
}
# not_run: the probe (work/ran, ~/pwn, chmod ~/.profile) did nothing
not_run() {
	need "the step ran ($W/ran exists)${1:+ [$1]}" absent "$W/ran"
	need "a write outside landed ($H/pwn)${1:+ [$1]}" absent "$H/pwn"
	need "\$HOME/.profile changed mode ($(stat -c %a "$H/.profile"))${1:+ [$1]}" mode_is "$H/.profile" 644
}
# ran_confined: the probe ran and only its write inside landed
ran_confined() {
	need "the step did not run ($W/ran missing)${1:+ [$1]}" present "$W/ran"
	need "a write outside landed ($H/pwn)${1:+ [$1]}" absent "$H/pwn"
	need "\$HOME/.profile changed mode ($(stat -c %a "$H/.profile"))${1:+ [$1]}" mode_is "$H/.profile" 644
}
# reset_probe: undo a probe run, for the next run in the same tree
reset_probe() { rm -f "$W/ran" "$H/pwn"; chmod 644 "$H/.profile"; }
# control WHAT [VAR=VALUE...] -- STEPGUARD-ARGS... --: the run of a refusal
# above without its fault.  The probe must run, confined: what shows that
# the refused run would have run the step, so that a refusal of a step
# that never runs at all proves nothing.  The probe is undone after.
control() {
	local what=$1
	shift
	reset_probe
	: >"$OUT"
	sg_run "$@" "${PROBE[@]}"
	ran_confined "control: $what"
	reset_probe
}

result() { # PASS|FAIL|SKIP NAME REASON
	printf '%s %s — %s\n' "$1" "$2" "$3"
	case $1 in
	PASS) NPASS=$((NPASS + 1)) ;;
	FAIL) NFAIL=$((NFAIL + 1)) ;;
	SKIP) NSKIP=$((NSKIP + 1)) ;;
	esac
}
# verdict REASON: PASS with REASON, or FAIL with what was noted
verdict() {
	local e
	if [ ${#ERRS[@]} = 0 ]; then
		result PASS "$TN" "$1"
		[ "$VERBOSE" = 1 ] && [ -s "$OUT" ] && sed -n '1,12s/^/        | /p' "$OUT"
	else
		result FAIL "$TN" "$1"
		for e in "${ERRS[@]}"; do printf '        %s\n' "$e"; done
		printf '        the runs (last lines):\n'
		tail -n 30 "$OUT.all" 2>/dev/null | sed 's/^/        | /'
		printf '        the last output:\n'
		sed -n '1,15s/^/        | /p' "$OUT"
	fi
}
skip() { result SKIP "$TN" "$1"; }

# ===================================================================
# The tests.  Each is t_<name> and runs as $TU; $TN is "name.user".

# --- no policy file ------------------------------------------------------
t_policy_missing() {
	fresh "$TU"
	sg_run -- -q --filter landlock -p "$B/absent.ini" -w "$W" -- "${PROBE[@]}"
	want 64 "absent\.ini: cannot open: No such file or directory"
	not_run "-p"
	sg_run STEPGUARD_POLICY="$B/absent.ini" -- -q --filter landlock -w "$W" -- "${PROBE[@]}"
	want 64 "absent\.ini: cannot open: No such file or directory"
	not_run "STEPGUARD_POLICY"
	printf '[stepguard]\nmode = enforce\n' >"$B/present.ini"
	chmod 644 "$B/present.ini"
	own "$B/present.ini"
	control "STEPGUARD_POLICY naming a file" STEPGUARD_POLICY="$B/present.ini" -- -q --filter landlock -w "$W" --
	sg_run -- -q --filter landlock -p "$B/present.ini" --rules-dir "$B/absent.d" -w "$W" -- "${PROBE[@]}"
	want 64 "absent\.d: cannot open the drop-in directory: No such file or directory"
	not_run "--rules-dir"
	control "-p naming a file" -- -q --filter landlock -p "$B/present.ini" -w "$W" --
	mkdir "$B/absent.d"
	own "$B/absent.d"
	control "--rules-dir naming a directory" -- -q --filter landlock -p "$B/present.ini" --rules-dir "$B/absent.d" -w "$W" --
	verdict "a missing -p file, STEPGUARD_POLICY file or --rules-dir: exit 64 naming it, nothing ran; present, the step runs confined"
}

t_policy_default_absent() {
	if [ -e /etc/stepguard/stepguard.ini ] || [ -e /etc/stepguard/rules.d ]; then
		skip "/etc/stepguard holds a policy on this machine: the no-policy case cannot be produced without changing it"
		return
	fi
	fresh "$TU"
	sg_run -- --filter landlock -w "$W" --check -- true
	want 0 "/etc/stepguard/stepguard\.ini: absent"
	need "--check does not list the built-in policy as the source" out_has "built-in:10-defaults\.ini: built-in"
	: >"$OUT"
	sg_run -- -q --filter landlock -w "$W" -- "${PROBE[@]}"
	need "exit status $RC, expected 1 (the probe's last command, a refused chmod)" rc_is 1
	ran_confined
	verdict "no /etc/stepguard: documented fallback to the compiled-in policy, never to no policy; --check says absent; the step ran confined"
}

# --- unreadable policy -----------------------------------------------------
t_policy_unreadable() {
	fresh "$TU"
	local extra=''
	mkdir "$B/policy-dir"
	sg_run -- -q --filter landlock -p "$B/policy-dir" -w "$W" -- "${PROBE[@]}"
	want 64 "policy-dir: refused: not a regular file"
	not_run "a directory as policy"
	printf '[stepguard]\nmode = enforce\n' >"$B/file.ini"
	chmod 644 "$B/file.ini"
	own "$B/file.ini"
	control "a regular file as policy" -- -q --filter landlock -p "$B/file.ini" -w "$W" --
	if [ "$TU" = root ]; then
		extra="; as root every file is readable (CAP_DAC_OVERRIDE): EACCES is tested as $SUITE_USER"
	else
		# mode 000: even its owner cannot read it (only root could)
		printf '[stepguard]\nmode = enforce\n' >"$B/secret.ini"
		printf '[stepguard]\nmode = enforce\n' >"$B/ok.ini"
		mkdir "$B/rules.d" "$B/closed.d"
		printf '[writes]\nx = /tmp\n' >"$B/rules.d/10-secret.ini"
		own "$B/secret.ini" "$B/ok.ini" "$B/rules.d" "$B/closed.d" "$B/rules.d/10-secret.ini"
		chmod 644 "$B/ok.ini"
		chmod 000 "$B/secret.ini" "$B/rules.d/10-secret.ini" "$B/closed.d"
		sg_run -- -q --filter landlock -p "$B/secret.ini" -w "$W" -- "${PROBE[@]}"
		want 64 "secret\.ini: cannot open: Permission denied"
		not_run "unreadable -p"
		sg_run -- -q --filter landlock -p "$B/ok.ini" --rules-dir "$B/rules.d" -w "$W" -- "${PROBE[@]}"
		want 64 "rules\.d/10-secret\.ini: cannot open: Permission denied"
		not_run "unreadable drop-in"
		sg_run -- -q --filter landlock -p "$B/ok.ini" --rules-dir "$B/closed.d" -w "$W" -- "${PROBE[@]}"
		want 64 "closed\.d: cannot open the drop-in directory: Permission denied"
		not_run "unreadable drop-in dir"
		# made readable, each runs
		chmod 644 "$B/secret.ini" "$B/rules.d/10-secret.ini"
		chmod 755 "$B/closed.d"
		control "the policy made readable" -- -q --filter landlock -p "$B/secret.ini" -w "$W" --
		control "the drop-in made readable" -- -q --filter landlock -p "$B/ok.ini" --rules-dir "$B/rules.d" -w "$W" --
		control "the drop-in dir made readable" -- -q --filter landlock -p "$B/ok.ini" --rules-dir "$B/closed.d" -w "$W" --
		extra="; a policy, drop-in or drop-in dir this user cannot read (mode 000, EACCES): 64 naming it, not run; made readable, each runs confined"
	fi
	verdict "a directory given as the policy: 64 (not a regular file), not run; a file there runs confined$extra"
}

# --- syntax errors -----------------------------------------------------------
t_policy_syntax() {
	fresh "$TU"
	printf '[stepguard]\nmode = enforce\nthis line has no equals sign\n' >"$B/bad.ini"
	printf '[stepguard\nmode = enforce\n' >"$B/hdr.ini"
	printf '[stepguard]\nfilter = landlok\n' >"$B/value.ini"
	printf '[stepguard]\nmode = enforce\n' >"$B/ok.ini"
	mkdir "$B/rules.d"
	printf '[writes]\ncache = /tmp\nnot a key\n' >"$B/rules.d/20-bad.ini"
	chmod 644 "$B"/*.ini "$B/rules.d/20-bad.ini"
	own "$B"/*.ini "$B/rules.d" "$B/rules.d/20-bad.ini"
	sg_run -- -q --filter landlock -p "$B/bad.ini" -w "$W" -- "${PROBE[@]}"
	want 64 "bad\.ini:3: "
	not_run "line 3"
	sg_run -- -q --filter landlock -p "$B/hdr.ini" -w "$W" -- "${PROBE[@]}"
	want 64 "hdr\.ini:1: section header"
	not_run "header"
	sg_run -- -q -p "$B/value.ini" -w "$W" -- "${PROBE[@]}"
	want 64 "value\.ini:2: "
	not_run "bad value"
	sg_run -- -q --filter landlock -p "$B/ok.ini" --rules-dir "$B/rules.d" -w "$W" -- "${PROBE[@]}"
	want 64 "rules\.d/20-bad\.ini:3: "
	not_run "drop-in"
	# each mended, it runs
	printf '[stepguard]\nmode = enforce\n' >"$B/bad.ini"
	printf '[stepguard]\nmode = enforce\n' >"$B/hdr.ini"
	printf '[stepguard]\nfilter = landlock\n' >"$B/value.ini"
	printf '[writes]\ncache = /tmp\n' >"$B/rules.d/20-bad.ini"
	control "bad.ini mended" -- -q --filter landlock -p "$B/bad.ini" -w "$W" --
	control "hdr.ini mended" -- -q --filter landlock -p "$B/hdr.ini" -w "$W" --
	control "value.ini mended" -- -q -p "$B/value.ini" -w "$W" --
	control "the drop-in mended" -- -q --filter landlock -p "$B/ok.ini" --rules-dir "$B/rules.d" -w "$W" --
	verdict "a line without =, an unclosed header, a bad filter value, a bad drop-in line: 64 with file:line, nothing ran; mended, it runs"
}

# --- writable by others --------------------------------------------------------
t_policy_writable() {
	fresh "$TU"
	local f other
	for f in w666 w620 ok foreign; do printf '[stepguard]\nmode = enforce\n' >"$B/$f.ini"; done
	mkdir "$B/open.d" "$B/rules.d"
	printf '[stepguard]\nmode = enforce\n' >"$B/open.d/10-a.ini"
	printf '[stepguard]\nmode = enforce\n' >"$B/rules.d/10-a.ini"
	own "$B"/*.ini "$B/open.d" "$B/rules.d" "$B/open.d/10-a.ini" "$B/rules.d/10-a.ini"
	chmod 666 "$B/w666.ini"
	chmod 620 "$B/w620.ini"
	chmod 644 "$B/ok.ini" "$B/foreign.ini" "$B/open.d/10-a.ini"
	chmod 777 "$B/open.d"
	chmod 666 "$B/rules.d/10-a.ini"
	sg_run -- -q --filter landlock -p "$B/w666.ini" -w "$W" -- "${PROBE[@]}"
	want 64 "w666\.ini: refused: is writable by group or others"
	not_run "0666"
	sg_run -- -q --filter landlock -p "$B/w620.ini" -w "$W" -- "${PROBE[@]}"
	want 64 "w620\.ini: refused: is writable by group or others"
	not_run "0620"
	sg_run -- -q --filter landlock -p "$B/ok.ini" --rules-dir "$B/open.d" -w "$W" -- "${PROBE[@]}"
	want 64 "open\.d: refused: is writable by group or others"
	not_run "drop-in dir 0777"
	sg_run -- -q --filter landlock -p "$B/ok.ini" --rules-dir "$B/rules.d" -w "$W" -- "${PROBE[@]}"
	want 64 "rules\.d/10-a\.ini: refused: is writable by group or others"
	not_run "drop-in 0666"
	other=''
	if [ "$MYUID" = 0 ]; then
		if [ "$TU" = root ]; then other=$SUITE_USER; else other=nobody; fi
		chown "$other" "$B/foreign.ini"
		sg_run -- -q --filter landlock -p "$B/foreign.ini" -w "$W" -- "${PROBE[@]}"
		want 64 "foreign\.ini: refused: is owned by another user"
		not_run "owned by $other"
	fi
	# each without its fault, it runs
	chmod 644 "$B/w666.ini" "$B/rules.d/10-a.ini"
	chmod 640 "$B/w620.ini"
	chmod 755 "$B/open.d"
	control "w666.ini made 0644" -- -q --filter landlock -p "$B/w666.ini" -w "$W" --
	control "w620.ini made 0640" -- -q --filter landlock -p "$B/w620.ini" -w "$W" --
	control "open.d made 0755" -- -q --filter landlock -p "$B/ok.ini" --rules-dir "$B/open.d" -w "$W" --
	control "the drop-in made 0644" -- -q --filter landlock -p "$B/ok.ini" --rules-dir "$B/rules.d" -w "$W" --
	if [ -n "$other" ]; then
		chown "$TU" "$B/foreign.ini"
		control "foreign.ini given back to $TU" -- -q --filter landlock -p "$B/foreign.ini" -w "$W" --
	fi
	verdict "policy 0666 and 0620, drop-in dir 0777, drop-in 0666${other:+, policy owned by $other}: 64 naming the file, nothing ran; each mended (0644, 0640, 0755${other:+, owned}) runs confined"
}

# --- roots that do not exist ------------------------------------------------------
t_root_missing() {
	fresh "$TU"
	sg_run -- -q --filter landlock -w "$B/absent" -- "${PROBE[@]}"
	want 64 "work directory: cannot open \"$B/absent\": No such file or directory"
	not_run "-w"
	sg_run -- -q --filter landlock -w "$W" --allow-write "$B/absent" -- "${PROBE[@]}"
	want 64 "--allow-write: cannot open \"$B/absent\": No such file or directory"
	not_run "--allow-write"
	printf '[writes]\n# a cache\nextra = %s/absent\n' "$B" >"$B/p.ini"
	chmod 644 "$B/p.ini"
	own "$B/p.ini"
	sg_run -- -q --filter landlock -p "$B/p.ini" -w "$W" -- "${PROBE[@]}"
	want 64 "p\.ini:3: \[writes\] extra: cannot open \"$B/absent\": No such file or directory"
	not_run "[writes]"
	# the directory made, each form runs the probe, and the root is bound:
	# the probe's mark lands in it
	mkdir "$B/absent"
	own "$B/absent"
	sg_run -- -q --filter landlock -w "$B/absent" -- /bin/sh -c "$PROBE_SH" sh "$B/absent" "$H"
	need "control: -w made: the step did not run in it" present "$B/absent/ran"
	rm -f "$B/absent/ran"
	sg_run -- -q --filter landlock -w "$W" --allow-write "$B/absent" -- /bin/sh -c "$PROBE_SH" sh "$B/absent" "$H"
	need "control: --allow-write made: the step did not write into it" present "$B/absent/ran"
	rm -f "$B/absent/ran"
	sg_run -- -q --filter landlock -p "$B/p.ini" -w "$W" -- /bin/sh -c "$PROBE_SH" sh "$B/absent" "$H"
	need "control: the [writes] root made: the step did not write into it" present "$B/absent/ran"
	need "control: a write outside landed" absent "$H/pwn"
	need "control: \$HOME/.profile changed mode" mode_is "$H/.profile" 644
	verdict "-w, --allow-write and a [writes] entry naming nothing: 64 naming it (with file:line), nothing ran; the directory made, each runs confined and writes there"
}

t_root_missing_optional() {
	fresh "$TU"
	printf '[writes]\nlater = ?%s/later\n' "$B" >"$B/p.ini"
	chmod 644 "$B/p.ini"
	own "$B/p.ini"
	bg_sg -q --filter landlock -p "$B/p.ini" -w "$W" -- /bin/sh "$S/waitgo.sh" "$B/later/x" "$W/control"
	wait_started || { not_started "a ?-root created mid-step"; return; }
	mkdir "$B/later" && chmod 777 "$B/later" # anyone may write there, but it is no root
	touch "$W/go"
	wait "$BGPID"
	RC=$?
	need "exit status $RC, expected 0 (sh's status after its last write)" rc_is 0
	need "a write into the optional root created after the start landed" absent "$B/later/x"
	need "the control inside the work dir did not land" present "$W/control"
	# counterpart: the directory there at the start is a root
	rm -rf "$B/later" "$W"/{started,go,rep,err,control}
	mkdir "$B/later" && own "$B/later"
	bg_sg -q --filter landlock -p "$B/p.ini" -w "$W" -- /bin/sh "$S/waitgo.sh" "$B/later/x" "$W/control"
	wait_started && touch "$W/go"
	wait "$BGPID"
	need "counterpart: the optional root present at the start was not writable" present "$B/later/x"
	verdict "a ?-root absent at the start is skipped, not bound: created mid-step (mode 0777) it is still refused; present at the start, it is a root"
}

# --- roots that are symlinks ------------------------------------------------------
t_root_symlink() {
	fresh "$TU"
	ln -s "$W" "$B/wlink"
	ln -s "$H" "$B/hlink"
	ln -s / "$B/rlink"
	sg_run -- -v --filter landlock -w "$B/wlink" -- /bin/sh -c 'echo via > "$1/via"; echo pwn > "$2/pwn"' sh "$B/wlink" "$H"
	need "-w symlink: exit status $RC, expected 2" rc_is 2
	need "-w symlink: the root is not shown resolved ($W)" out_has "writable: $W \(work directory\)"
	need "-w symlink: the write through the link did not land in $W" present "$W/via"
	need "-w symlink: a write outside landed" absent "$H/pwn"
	: >"$OUT"
	sg_run -- -q --filter landlock -w "$B/hlink" -- "${PROBE[@]}"
	want 64 "work directory: \"$H\" contains the home directory"
	not_run "-w -> \$HOME"
	sg_run -- -q --filter landlock -w "$W" --allow-write "$B/rlink" -- "${PROBE[@]}"
	want 64 "--allow-write: \"$B/rlink\" resolves to \"/\""
	not_run "--allow-write -> /"
	printf '[writes]\nvia = %s/hlink\n' "$B" >"$B/p.ini"
	chmod 644 "$B/p.ini"
	own "$B/p.ini"
	sg_run -- -q --filter landlock -p "$B/p.ini" -w "$W" -- "${PROBE[@]}"
	want 64 "p\.ini:2: \[writes\] via: \"$H\" contains the home directory"
	not_run "[writes] -> \$HOME"
	# the same runs with a link to an ordinary directory (for -w, the first
	# run above): the step runs and writes through it
	mkdir "$B/extra"
	own "$B/extra"
	ln -s "$B/extra" "$B/xlink"
	sg_run -- -q --filter landlock -w "$W" --allow-write "$B/xlink" -- /bin/sh -c "$PROBE_SH" sh "$B/xlink" "$H"
	need "control: --allow-write a link to a directory: the step did not write there" present "$B/extra/ran"
	rm -f "$B/extra/ran"
	printf '[writes]\nvia = %s/xlink\n' "$B" >"$B/p.ini"
	sg_run -- -q --filter landlock -p "$B/p.ini" -w "$W" -- /bin/sh -c "$PROBE_SH" sh "$B/xlink" "$H"
	need "control: [writes] a link to a directory: the step did not write there" present "$B/extra/ran"
	need "control: a write outside landed" absent "$H/pwn"
	need "control: \$HOME/.profile changed mode" mode_is "$H/.profile" 644
	verdict "a symlink root is resolved once, at the start (-v shows the target); one to \$HOME or / is refused with 64, nothing ran; as -w, --allow-write or [writes], one to a directory runs confined and writes there"
}

t_root_symlink_retarget() {
	fresh "$TU"
	mkdir "$B/extra"
	own "$B/extra"
	ln -s "$B/extra" "$B/xlink"
	bg_sg -q --filter landlock -w "$W" --allow-write "$B/xlink" -- /bin/sh "$S/waitgo.sh" "$B/xlink/x" "$B/extra/y"
	wait_started || { not_started "an --allow-write symlink retargeted mid-step"; return; }
	ln -sfn "$H" "$B/xlink"
	touch "$W/go"
	wait "$BGPID"
	RC=$?
	need "the write through the retargeted link landed in \$HOME" absent "$H/x"
	need "the write into the original target did not land" present "$B/extra/y"
	need "exit status $RC, expected 0" rc_is 0
	# counterpart: unconfined, the same write lands in $HOME
	ln -sfn "$B/extra" "$B/xlink"
	rm -f "$W"/{started,go,rep,err}
	(unconf /bin/sh "$S/waitgo.sh" "$B/xlink/x") &
	wait_for '[ -e "$W/started" ]' && ln -sfn "$H" "$B/xlink" && touch "$W/go"
	wait $!
	need "counterpart: unconfined, the write did not reach \$HOME (the test cannot tell)" present "$H/x"
	verdict "--allow-write symlink retargeted to \$HOME mid-step: the root stays the first target (write landed there), nothing in \$HOME; unconfined it lands"
}

# the race, with the step already running
t_root_swapped_running() {
	fresh "$TU"
	bg_sg --filter landlock -w "$W" -- /bin/sh "$S/swap.sh" "$W"
	wait_started || { not_started "the work dir swapped mid-step"; return; }
	mv "$W" "$B/moved" && ln -s "$H" "$W" && touch "$B/moved/go"
	wait "$BGPID"
	RC=$?
	need "a write through the old work dir path landed in \$HOME" absent "$H/pwn"
	need "chmod through the old work dir path changed ~/.profile" mode_is "$H/.profile" 644
	need "the write relative to the cwd did not land in the renamed work dir" present "$B/moved/rel"
	need "the step did not finish (no done in its report)" rep_has "$B/moved/rep" '^done$'
	need "the supervisor did not report the chmod at its resolved target" out_has "refused chmod $H/\.profile"
	# counterpart: unconfined, the write lands in $HOME
	rm -rf "$W" && mv "$B/moved" "$W" && rm -f "$W"/{started,go,rep,err,rel}
	(unconf /bin/sh "$S/swap.sh" "$W") &
	wait_for '[ -e "$W/started" ]' && mv "$W" "$B/moved" && ln -s "$H" "$W" && touch "$B/moved/go"
	wait $!
	need "counterpart: unconfined, the write did not reach \$HOME (the test cannot tell)" present "$H/pwn"
	verdict "work dir renamed away and replaced by a symlink to \$HOME while the step runs: nothing lands in \$HOME, chmod refused at the resolved target, writes follow the renamed dir; unconfined it lands"
}

# the race, between the opening of the roots and the rules: strace holds
# stepguard in its first landlock_add_rule(2) while the work dir is swapped.
# The hold is 3 s; that the swap was made inside it is checked (stepguard
# still in that call after the swap), so a machine too slow for it fails
# the test instead of passing it untested.
t_root_swapped_before_exec() {
	if ! command -v strace >/dev/null; then
		skip "strace is not installed (apt-get install strace); root-swapped-running covers the swap after exec"
		return
	fi
	fresh "$TU"
	local sgpid='' sc='' i
	WRAP=(strace -f -qq -o /dev/null -e trace=landlock_add_rule -e inject=landlock_add_rule:delay_enter=3000000:when=1)
	printf '%s\n' 'echo pwn > "$1/pwn" 2>>err; echo "write-old-path $?" >>rep' \
		'chmod 600 "$1/.profile" 2>>err; echo "chmod-old-path $?" >>rep' \
		'echo rel > rel; echo "write-cwd $?" >>rep' 'echo done >>rep' >"$B/now.sh"
	chmod 644 "$B/now.sh"
	bg_sg --filter landlock -w "$W" -- /bin/sh "$B/now.sh" "$W"
	# stepguard is strace's child; wait until it sits in landlock_add_rule
	# (a guard of 60 s against a hang; over at once if strace ends)
	for ((i = 0; i < 6000; i++)); do
		bg_alive || break
		# shellcheck disable=SC2013 # the file is one line of pids
		for sgpid in $(cat "/proc/$BGPID/task/$BGPID/children" 2>/dev/null); do
			[ "$(tr '\0' ' ' 2>/dev/null <"/proc/$sgpid/cmdline" | cut -d' ' -f1)" = "$SGU" ] && break
			sgpid=''
		done
		[ -n "$sgpid" ] && sc=$(cut -d' ' -f1 "/proc/$sgpid/syscall" 2>/dev/null)
		[ "$sc" = 445 ] && break
		sleep 0.01
	done
	if [ "$sc" = 445 ]; then
		need "the work dir was not open (O_PATH) in stepguard at the swap" \
			eval 'ls -l "/proc/$sgpid/fd" 2>/dev/null | grep -qF -- "-> $W"'
		mv "$W" "$B/moved" && ln -s "$H" "$W"
		need "the swap was made after stepguard left its first landlock_add_rule: not tested" \
			[ "$(cut -d' ' -f1 "/proc/$sgpid/syscall" 2>/dev/null)" = 445 ]
	else
		ERRS+=("stepguard was never seen inside landlock_add_rule (x86_64 445; last: ${sc:-none}, pid ${sgpid:-none})")
	fi
	wait "$BGPID"
	RC=$?
	need "a write through the old work dir path landed in \$HOME" absent "$H/pwn"
	need "chmod through the old work dir path changed ~/.profile" mode_is "$H/.profile" 644
	need "the step did not run in the renamed work dir" rep_has "$B/moved/rep" '^done$'
	need "the write relative to the cwd did not land in the renamed work dir" present "$B/moved/rel"
	verdict "work dir swapped for a symlink to \$HOME after stepguard opened it and before any Landlock rule, fork or exec: the rules bind the opened dir, nothing lands in \$HOME"
}

# --- backends -------------------------------------------------------------------
t_backend_ebpf_by_name() {
	fresh "$TU"
	local f
	if [ "$TU" = root ] && bpffs_mounted; then
		skip "a bpf file system is mounted here, so root may be able to use eBPF (asking would load and pin it): tested as $SUITE_USER, and in the VM"
		return
	fi
	for f in bpf-lsm bpf-fmod; do
		sg_run -- -q --filter $f -w "$W" -- "${PROBE[@]}"
		want 71 "filter $f is unavailable"
		need "no 'the step was not run' for $f" out_has "the step was not run"
		not_run "--filter $f"
	done
	printf '[stepguard]\nfilter = bpf-fmod\n' >"$B/p.ini"
	chmod 644 "$B/p.ini"
	own "$B/p.ini"
	sg_run -- -q -p "$B/p.ini" -w "$W" -- "${PROBE[@]}"
	want 71 "filter bpf-fmod is unavailable"
	not_run "policy filter = bpf-fmod"
	[ "$TU" != root ] && need "as a user: the message does not say eBPF needs root" out_has "needs root"
	# Landlock by name, by option and by policy, runs
	control "--filter landlock" -- -q --filter landlock -w "$W" --
	printf '[stepguard]\nfilter = landlock\n' >"$B/p.ini"
	control "policy filter = landlock" -- -q -p "$B/p.ini" -w "$W" --
	verdict "bpf-lsm and bpf-fmod by name (option or policy) where they cannot be used: 71, the reason, 'the step was not run', never replaced by Landlock"
}

# bpffs_mounted: is a bpf file system mounted on /sys/fs/bpf (then root may
# be able to load eBPF, and asking for it would load and pin it for real)
bpffs_mounted() { [ "$(stat -f -c %T /sys/fs/bpf 2>/dev/null)" = bpf_fs ]; }

# A private mount namespace gives this host what it lacks for the eBPF
# checks: a bpf file system (and, for bpf-lsm, an LSM list without bpf).
# ns_run SCRIPT: run SCRIPT with bash in one; output appended to $OUT.
ns_ok() {
	[ "$MYUID" = 0 ] || { NS_WHY="needs root (mount namespace, bpffs)"; return 1; }
	[ "$TU" = root ] || { NS_WHY="eBPF is root's: the unprivileged refusal is backend-ebpf-by-name.$TU"; return 1; }
	command -v unshare >/dev/null || { NS_WHY="no unshare(1)"; return 1; }
	unshare -m --propagation private true 2>/dev/null || { NS_WHY="cannot make a mount namespace here"; return 1; }
	unshare -m --propagation private mount -t bpf bpf /sys/fs/bpf 2>/dev/null ||
		{ NS_WHY="cannot mount a bpf file system here"; return 1; }
	return 0
}
ns_run() {
	(cd "$W" && SGU=$SGU W=$W H=$H PROBE_SH=$PROBE_SH \
		unshare -m --propagation private bash -c 'mount -t bpf bpf /sys/fs/bpf || exit 90; '"$1") \
		>"$OUT" 2>&1 </dev/null
	RC=$?
	logrun "(mount namespace with bpffs) $1"
}

t_backend_bpf_lsm_inactive() {
	ns_ok || { skip "$NS_WHY"; return; }
	fresh "$TU"
	ns_run '
		mount -t tmpfs none /sys/kernel/security || exit 91
		printf "lockdown,capability,landlock\n" > /sys/kernel/security/lsm
		env -i PATH=/usr/bin:/bin HOME="$H" "$SGU" -q --filter bpf-lsm -w "$W" -- /bin/sh -c "$PROBE_SH" sh "$W" "$H"
		st=$?
		echo "pins: $(find /sys/fs/bpf/stepguard -mindepth 2 2>/dev/null | tr "\n" " ")"
		exit $st'
	want 71 "bpf is not an active LSM"
	need "no 'the step was not run'" out_has "the step was not run"
	need "programs were loaded or pinned" out_has "^pins: *$"
	not_run
	# the control: the same namespace, Landlock asked for, runs the probe
	ns_run '
		mount -t tmpfs none /sys/kernel/security || exit 91
		printf "lockdown,capability,landlock\n" > /sys/kernel/security/lsm
		env -i PATH=/usr/bin:/bin HOME="$H" "$SGU" -q --filter landlock -w "$W" -- /bin/sh -c "$PROBE_SH" sh "$W" "$H"'
	ran_confined "control: the same namespace, --filter landlock"
	verdict "bpffs mounted, LSM list without bpf: --filter bpf-lsm refused before loading anything (nothing pinned), 71, not run; --filter landlock there runs confined"
}

t_backend_ebpf_load_refused() {
	ns_ok || { skip "$NS_WHY"; return; }
	fresh "$TU"
	ns_run '
		env -i PATH=/usr/bin:/bin HOME="$H" "$SGU" --filter bpf-fmod -w "$W" -- /bin/sh -c "$PROBE_SH" sh "$W" "$H"
		echo "status: $?"
		echo "pins: $(find /sys/fs/bpf/stepguard -mindepth 2 2>/dev/null | tr "\n" " ")"
		env -i PATH=/usr/bin:/bin HOME="$H" "$SGU" -v -w "$W" -- /bin/sh -c "echo auto > \"\$1/auto\"; echo pwn > \"\$2/pwn\"; chmod 600 \"\$2/.profile\"" sh "$W" "$H"
		echo "auto status: $?"'
	if grep -q '^status: [0-9]*$' "$OUT" && ! grep -q '^status: 71$' "$OUT" &&
		grep -q 'write filter bpf-fmod (programs loaded and pinned' "$OUT"; then
		skip "this kernel loads the eBPF filter: its load refusal can be produced only where it cannot (see the README)"
		return
	fi
	need "--filter bpf-fmod: not exit 71" out_has '^status: 71$'
	need "--filter bpf-fmod: no 'the kernel refused the filter'" out_has "filter bpf-fmod is unavailable \(bpf-fmod: the kernel refused the filter"
	need "programs were pinned after the refusal" out_has "^pins: *$"
	not_run "--filter bpf-fmod"
	need "auto: exit status not 1 (the probe's last command, a refused chmod)" out_has '^auto status: 1$'
	need "auto did not fall back to landlock with the eBPF reason on the start line" \
		out_has "write filter landlock\+supervisor \(Landlock ABI [0-9]+\), seccomp \[eBPF: .*the kernel refused the filter"
	need "auto: the step did not run" present "$W/auto"
	need "auto: a write outside landed" absent "$H/pwn"
	need "auto: ~/.profile changed mode" mode_is "$H/.profile" 644
	verdict "the kernel refuses the programs: --filter bpf-fmod 71 with the loader's reason, nothing pinned; auto says why and runs on Landlock, confined"
}

t_backend_ebpf_pins_bad() {
	ns_ok || { skip "$NS_WHY"; return; }
	fresh "$TU"
	ns_run '
		run() { env -i PATH=/usr/bin:/bin HOME="$H" "$SGU" -q --filter bpf-fmod -w "$W" -- /bin/sh -c "$PROBE_SH" sh "$W" "$H"; echo "$1: status $?"; }
		mkdir -m 700 /sys/fs/bpf/stepguard
		mount -o remount,ro /sys/fs/bpf && run read-only'
	not_run "read-only"
	local v
	v=$(sed -n 's|.*mkdir /sys/fs/bpf/stepguard/\(v[^:]*\): Read-only file system.*|\1|p' "$OUT" | head -1)
	need "read-only bpffs: not 71, or the pin directory not named" out_has '^read-only: status 71$'
	if [ -z "$v" ]; then
		ERRS+=("cannot learn this build's pin directory name from the read-only refusal")
		not_run
		verdict "pins of this build that cannot be trusted or used: 71 each, not run"
		return
	fi
	ns_run '
		run() { env -i PATH=/usr/bin:/bin HOME="$H" "$SGU" -q --filter bpf-fmod -w "$W" -- /bin/sh -c "$PROBE_SH" sh "$W" "$H"; echo "$1: status $?"; }
		d=/sys/fs/bpf/stepguard
		mkdir -m 777 $d && chmod 777 $d && run world-writable
		chmod 700 $d && chown 65534 $d && run foreign-owned
		chown 0 $d && mkdir -p $d/'"$v"'/fmod && run no-programs
		mkdir $d/'"$v"'/fmod/x && run no-maps
		env -i PATH=/usr/bin:/bin HOME="$H" "$SGU" -v -w "$W" -- /bin/sh -c "echo auto > \"\$1/auto\"; echo pwn > \"\$2/pwn\"" sh "$W" "$H"
		echo "auto: status $?"'
	need "0777 pin root: not 71" out_has '^world-writable: status 71$'
	need "0777 pin root: no reason" out_has "/sys/fs/bpf/stepguard is not root's or is group/world-writable"
	need "pin root owned by uid 65534: not 71" out_has '^foreign-owned: status 71$'
	need "empty fmod/: not 71" out_has '^no-programs: status 71$'
	need "empty fmod/: no reason" out_has "$v/fmod holds no programs"
	need "fmod/ without maps: not 71" out_has '^no-maps: status 71$'
	need "fmod/ without maps: no reason" out_has "cannot open the pinned map /sys/fs/bpf/stepguard/$v/"
	need "auto with bad pins: not 2 (the probe's refused write)" out_has '^auto: status 2$'
	need "auto with bad pins: no start line naming a write filter" out_has 'write filter (landlock\+supervisor|bpf-lsm|bpf-fmod) '
	need "auto: the step did not run" present "$W/auto"
	not_run
	verdict "pins of this build ($v) that cannot be trusted or used — read-only, 0777 or foreign pin root, fmod/ without programs, without maps: 71 each, not run; auto uses Landlock"
}

LANDLOCK_OFF='landlock[^.]*(not (an )?(active|enabled|available|supported)|unavailable|disabled)|no landlock'
t_backend_landlock_off() {
	[ -n "$HELPER" ] || { skip "$HELPER_WHY"; return; }
	fresh "$TU"
	WRAP=("$HELPER" deny landlock_create_ruleset=EOPNOTSUPP --)
	sg_run -- -q --filter landlock -w "$W" -- "${PROBE[@]}"
	want 71
	need "the message does not say Landlock is missing (/$LANDLOCK_OFF/i, as tests/vm 10-stepguard)" out_has_i "$LANDLOCK_OFF"
	need "no 'the step was not run'" out_has "the step was not run"
	need "no hint naming lsm=" out_has 'lsm='
	not_run "EOPNOTSUPP, --filter landlock"
	if [ "$TU" != root ] || ! bpffs_mounted; then
		# auto, where no eBPF backend can be used (never by a user)
		sg_run -- -q -w "$W" -- "${PROBE[@]}"
		want 71
		need "auto: the message does not say Landlock is missing" out_has_i "$LANDLOCK_OFF"
		not_run "EOPNOTSUPP, auto"
	fi
	sg_run -- --filter landlock -w "$W" --check
	want 71 "the write filter cannot be set up: Landlock is built into this kernel but not enabled"
	WRAP=("$HELPER" deny landlock_create_ruleset=ENOSYS --)
	sg_run -- -q --filter landlock -w "$W" -- "${PROBE[@]}"
	want 71 "this kernel has no Landlock"
	not_run "ENOSYS"
	# counterpart: the same wrapper denying an unrelated call
	WRAP=("$HELPER" deny acct=EPERM --)
	sg_run -- -q --filter landlock -w "$W" -- "${PROBE[@]}"
	ran_confined "counterpart: fchelper denying acct(2) only"
	verdict "landlock_create_ruleset answering EOPNOTSUPP (lsm= without landlock) or ENOSYS (no Landlock): 71, message names Landlock and lsm=, not run (a stand-in: the real boot is tests/vm 10-stepguard refuse-*)"
}

t_backend_supervisor_unavailable() {
	command -v setarch >/dev/null || { skip "no setarch(8)"; return; }
	case $(setarch "$(uname -m)" --uname-2.6 uname -r 2>/dev/null) in
	2.6.*) ;;
	*) skip "setarch --uname-2.6 does not work here"; return ;;
	esac
	fresh "$TU"
	WRAP=(setarch "$(uname -m)" --uname-2.6)
	sg_run -- -q --filter landlock -w "$W" -- "${PROBE[@]}"
	want 71 "the write filter cannot refuse attributes .*truncate"
	need "no hint naming accept-gaps" out_has "accept-gaps"
	not_run
	# counterpart: the policy accepts the holes; the step runs, and the hole is real
	printf '[stepguard]\naccept-gaps = attributes truncate\n' >"$B/gaps.ini"
	chmod 644 "$B/gaps.ini"
	own "$B/gaps.ini"
	: >"$OUT"
	sg_run -- --filter landlock -p "$B/gaps.ini" -w "$W" -- "${PROBE[@]}"
	need "accept-gaps: the start line does not say backend landlock and accepted" \
		out_has "write filter landlock \(Landlock ABI [0-9]+\).*\(accepted by policy: attributes"
	need "accept-gaps: the step did not run" present "$W/ran"
	need "accept-gaps: a write outside landed (Landlock should still refuse it)" absent "$H/pwn"
	need "accept-gaps: the chmod outside did not land: the refusal above would then prove nothing" mode_is "$H/.profile" 600
	verdict "a kernel too old for the supervisor: 71 naming the uncovered calls and accept-gaps, not run; accepted by policy it runs as 'landlock' and chmod outside does land (the documented hole)"
}

t_backend_supervisor_no_proc() {
	[ "$MYUID" = 0 ] || { skip "needs root (a mount namespace without /proc)"; return; }
	[ "$TU" = root ] || { skip "the mount namespace is root's; the refusal does not depend on the user"; return; }
	command -v unshare >/dev/null || { skip "no unshare(1)"; return; }
	[ "$ASAN" = 0 ] || { skip "stepguard is built with ASan, which reads its options and runs LeakSanitizer through /proc: run it on a plain build"; return; }
	# A container or a chroot may refuse a mount namespace, or the change
	# of propagation in it: the setup of the test, not stepguard, fails.
	unshare -m --propagation private true 2>/dev/null ||
		{ skip "cannot make a mount namespace here (unshare -m --propagation private)"; return; }
	fresh "$TU"
	(cd "$W" && SGU=$SGU W=$W H=$H PROBE_SH=$PROBE_SH unshare -m --propagation private bash -c '
		umount -l /proc || exit 90
		env -i PATH=/usr/bin:/bin HOME="$H" "$SGU" --filter landlock -w "$W" -- /bin/sh -c "$PROBE_SH" sh "$W" "$H"') \
		>"$OUT" 2>&1 </dev/null
	RC=$?
	logrun "(mount namespace without /proc) stepguard --filter landlock -- probe"
	# Supervision starts before the step's execve returns (a ruling step's
	# exec is itself supervised): without /proc it fails there, so the
	# step never runs.
	want 71 "cannot supervise the step .*; the step was not run"
	not_run
	# the control: the same mount namespace with /proc runs the probe
	(cd "$W" && SGU=$SGU W=$W H=$H PROBE_SH=$PROBE_SH unshare -m --propagation private bash -c '
		env -i PATH=/usr/bin:/bin HOME="$H" "$SGU" -q --filter landlock -w "$W" -- /bin/sh -c "$PROBE_SH" sh "$W" "$H"') \
		>"$OUT" 2>&1 </dev/null
	RC=$?
	logrun "(mount namespace with /proc) stepguard --filter landlock -- probe"
	ran_confined "control: a mount namespace with /proc"
	verdict "no /proc for the supervisor: supervision fails before the step's exec returns, stepguard exits 71 and the step never ran; with /proc the same runs confined"
}

# --- killed -------------------------------------------------------------------------
t_sigkill_stepguard() {
	fresh "$TU"
	local st
	bg_sg --filter landlock -w "$W" --log "$L/log.json" -- /bin/sh "$S/killguard.sh" "$H"
	wait_started 'rep_has "$W/rep" "^waiting$"' || { not_started "stepguard SIGKILLed mid-step"; return; }
	st=$(stat -c %a "$W/in.txt")
	kill -KILL "$BGPID"
	{ wait "$BGPID"; } 2>/dev/null
	RC=$?
	touch "$W/go"
	wait_for 'rep_has "$W/rep" "^done$"' || ERRS+=("the step did not carry on after the kill")
	need "exit status $RC, expected 137 (stepguard killed)" rc_is 137
	need "the chmod inside before the kill did not work (supervisor alive)" rep_has "$W/rep" '^before-chmod-in 0$'
	need "chmod inside after the kill was not refused" rep_has "$W/rep" '^chmod-in [1-9]'
	need "in.txt changed mode after the kill ($st -> $(stat -c %a "$W/in.txt"))" mode_is "$W/in.txt" 600
	need "the refusal was not ENOSYS (no listener: fail closed)" rep_has "$W/err" 'in\.txt.*Function not implemented'
	need "chmod outside after the kill was not refused" rep_has "$W/rep" '^chmod-out [1-9]'
	need "\$HOME/.profile changed mode" mode_is "$H/.profile" 644
	need "a write outside after the kill landed" absent "$H/pwn"
	need "the write inside before the kill did not land" present "$W/before.txt"
	need "the write inside after the kill was not refused" rep_has "$W/rep" '^write-in [1-9]'
	need "the write inside after the kill landed (its open is routed to the gone supervisor)" absent "$W/after.txt"
	need "the write inside was not refused ENOSYS (no listener: fail closed)" rep_has "$W/err" 'after\.txt.*Function not implemented'
	need "a read inside after the kill failed (only what the supervisor judged must fail)" rep_has "$W/rep" '^read-in 0$'
	need "the log has no start record" rep_has "$L/log.json" '"event":"start"'
	need "the log has an end record from a killed stepguard" eval '! rep_has "$L/log.json" "\"event\":\"end\""'
	# counterpart: unconfined, the same step changes ~/.profile and writes ~/pwn
	rm -f "$W"/{rep,err,after.txt,before.txt}
	chmod 644 "$W/in.txt"
	unconf /bin/sh "$S/killguard.sh" "$H"
	need "counterpart: unconfined, the writes outside did not land (the test cannot tell)" present "$H/pwn"
	verdict "stepguard SIGKILLed mid-step (137): the step goes on under Landlock and every supervised call, write intents inside included, fails with ENOSYS (reads work, nothing lands outside); start record, no end record"
}

# stepguard waits for its step, not for what the step leaves behind: it
# must end while the orphan still waits for ./go (an event, not a time;
# the orphan waits up to 120 s, the harness up to 60 s).
t_step_killed() {
	fresh "$TU"
	local opid orphan_waiting=no
	bg_sg --filter landlock -w "$W" --log "$L/log.json" -- /bin/sh "$S/stepkill.sh" "$H"
	wait_started '[ -s "$W/step.pid" ] && [ -s "$W/orphan.pid" ] && rep_has "$W/rep" "^waiting$"' ||
		{ not_started "the step SIGKILLed"; return; }
	opid=$(cat "$W/orphan.pid")
	kill -KILL "$(cat "$W/step.pid")"
	if ! wait_for '! bg_alive'; then
		ERRS+=("stepguard did not exit within 60 s of its step's death (killed now)")
		kill -KILL "$BGPID"
	fi
	kill -0 "$opid" 2>/dev/null && ! rep_has "$W/rep" '^done$' && orphan_waiting=yes
	{ wait "$BGPID"; } 2>/dev/null
	RC=$?
	touch "$W/go"
	wait_for 'rep_has "$W/rep" "^done$"' || ERRS+=("the orphan did not carry on after the step was killed")
	need "exit status $RC, expected 137 (the step's SIGKILL)" rc_is 137
	need "stepguard exited only after the step's orphan had gone on (it waited for the orphan)" [ "$orphan_waiting" = yes ]
	need "no end record with signal 9 and exit 137" rep_has "$L/log.json" '"event":"end".*"signal":9,"exit":137'
	need "the orphan's chmod inside was not refused" rep_has "$W/rep" '^chmod-in [1-9]'
	need "in.txt changed mode" mode_is "$W/in.txt" 644
	need "the orphan's chmod outside was not refused" rep_has "$W/rep" '^chmod-out [1-9]'
	need "\$HOME/.profile changed mode" mode_is "$H/.profile" 644
	need "the orphan's write outside landed" absent "$H/pwn"
	need "the orphan's write inside landed (routed to the gone supervisor: ENOSYS)" absent "$W/after.txt"
	need "the orphan's write inside was not refused" rep_has "$W/rep" '^write-in [1-9]'
	[ -n "$opid" ] && kill -KILL "$opid" 2>/dev/null
	verdict "the step SIGKILLed: stepguard exits 137 while the step's orphan still waits, end record signal 9; the orphan stays confined (outside refused, supervised calls and write intents ENOSYS)"
}

# A stalled supervisor: what a log write that blocks (a slow or hung file
# system) does to it.  The step's routed calls wait for an answer; none
# may run unjudged meanwhile.  Judged by events, not by a window: the step
# says "trying" and is then seen waiting for the supervisor's answer (its
# wchan), with nothing landed.
t_supervisor_stalled() {
	fresh "$TU"
	local spid
	bg_sg --filter landlock -w "$W" --log "$L/log.json" -- /bin/sh "$S/stalled.sh" "$H"
	wait_started '[ -s "$W/step.pid" ]' || { not_started "stepguard stopped mid-step"; return; }
	spid=$(cat "$W/step.pid")
	kill -STOP "$BGPID"
	touch "$W/go"
	wait_for 'rep_has "$W/rep" "^trying$" && grep -q "^seccomp" "/proc/$spid/wchan" 2>/dev/null' ||
		ERRS+=("the step was never seen waiting for the stopped supervisor (report: $(tr '\n' ' ' <"$W/rep"), wchan: $(cat "/proc/$spid/wchan" 2>/dev/null))")
	need "a write outside landed while stepguard was stopped" absent "$H/pwn"
	need "a write inside landed while stepguard was stopped (unjudged)" absent "$W/during.txt"
	need "the step went on while stepguard was stopped" eval '! rep_has "$W/rep" "^write-out"'
	kill -CONT "$BGPID"
	{ wait "$BGPID"; } 2>/dev/null
	RC=$?
	need "exit status $RC, expected the step's 0" rc_is 0
	need "the write inside did not land once stepguard went on" present "$W/during.txt"
	need "the write outside was not refused" rep_has "$W/rep" '^write-out [1-9]'
	need "the step did not finish" rep_has "$W/rep" '^done$'
	need "a write outside landed" absent "$H/pwn"
	need "the refused write outside has no record" rep_has "$L/log.json" '"event":"denial".*"op":"create","path":"[^"]*/home/pwn"'
	unconf /bin/sh -c 'touch go; exec /bin/sh "$1" "$2"' sh "$S/stalled.sh" "$H"
	need "counterpart: unconfined, the write outside did not land (the test cannot tell)" present "$H/pwn"
	verdict "stepguard stopped mid-step (a stalled log): the step's routed writes wait, none lands unjudged; after SIGCONT the inside write lands and the outside one is refused and logged"
}

# A log on a full file system: the refusals stand, and the lost records
# are said on stderr (with -q too: it is the failure the log exists for).
t_log_full() {
	[ "$MYUID" = 0 ] || { skip "needs root: a full file system for the log is a tmpfs mounted in a mount namespace"; return; }
	unshare -m --propagation private true 2>/dev/null ||
		{ skip "cannot make a mount namespace here (unshare -m)"; return; }
	fresh "$TU"
	pre_for "$TU"
	stepenv
	{ (cd "$W" && exec unshare -m --propagation private /bin/sh -c '
		mount -t tmpfs -o size=64k,mode=0777 sg-full "$1" || exit 90
		dd if=/dev/zero of="$1/fill" bs=4k 2>/dev/null
		shift
		exec "$@"' sh "$L" "${PRE[@]}" "${ENVI[@]}" timeout -k 2 60 "$SGU" -q --filter landlock \
		-w "$W" --log "$L/log.json" -- /bin/sh "$S/fulllog.sh" "$H") </dev/null; } >"$OUT" 2>&1
	RC=$?
	[ "$RC" = 90 ] && { skip "cannot mount a tmpfs here"; return; }
	need "exit status $RC, expected the step's 0" rc_is 0
	need "the step did not run" rep_has "$W/rep" '^write-in 0$'
	need "a refused write was not refused" eval '! rep_has "$W/rep" "out 0$"'
	need "a write outside landed" absent "$H/pwn"
	need "a mkdir outside landed" absent "$H/d"
	need "the write inside did not land" present "$W/in2.txt"
	need "stepguard did not say the records were lost" out_has "stepguard: 3 of 3 refusal records could not be written to $L/log.json: No space left on device"
	need "stepguard did not say the end record was lost" out_has "stepguard: the end record could not be written to $L/log.json"
	unconf /bin/sh "$S/fulllog.sh" "$H"
	need "counterpart: unconfined, the write outside did not land (the test cannot tell)" present "$H/pwn"
	verdict "the log's file system full: the three refusals stand, stepguard says 3 of 3 records and the end record were lost (with -q), exit status is the step's"
}

t_sigterm_ignored() {
	fresh "$TU"
	local alive
	bg_sg --filter landlock -w "$W" --log "$L/log.json" -- /bin/sh "$S/sigterm.sh" "$H"
	wait_started || { not_started "SIGTERM to stepguard"; return; }
	kill -TERM "$BGPID"
	wait_for 'rep_has "$W/rep" "^carried-on$"' || ERRS+=("the step did not carry on after SIGTERM")
	# A window to watch, not a bound: a slow machine cannot fail it, only
	# an escalation to SIGKILL within it can.
	sleep 2
	# alive: running, not a zombie waiting to be reaped
	alive=0
	case $(sed 's/.*) //' "/proc/$BGPID/stat" 2>/dev/null | cut -d' ' -f1) in
	R | S | D) alive=1 ;;
	esac
	touch "$W/go"
	wait "$BGPID"
	RC=$?
	need "SIGTERM did not reach the step" rep_has "$W/rep" '^got-TERM$'
	need "stepguard did not outlive SIGTERM while its step ran" [ "$alive" = 1 ]
	need "the step did not finish on its own (killed?)" rep_has "$W/rep" '^done$'
	need "exit status $RC, expected the step's own 7" rc_is 7
	need "chmod outside after SIGTERM was not refused" rep_has "$W/rep" '^chmod-out [1-9]'
	need "the chmod outside was not refused by the supervisor (EPERM): is it still serving?" rep_has "$W/err" 'profile.*Operation not permitted'
	need "\$HOME/.profile changed mode" mode_is "$H/.profile" 644
	need "a write outside after SIGTERM landed" absent "$H/pwn"
	need "chmod inside after SIGTERM failed: the supervisor stopped serving" rep_has "$W/rep" '^chmod-in 0$'
	need "in.txt was not changed by the allowed chmod" mode_is "$W/in.txt" 640
	need "no end record with status 7" rep_has "$L/log.json" '"event":"end".*"status":7,"exit":7'
	verdict "SIGTERM to stepguard is forwarded; the step ignores it and stays confined and supervised; stepguard waits, exit 7 is the step's; no SIGKILL in 2 s (stepguard has no escalation: launcher/run.c forwards only — the canceller's SIGKILL is sigkill-stepguard)"
}

# --- rlimits ------------------------------------------------------------------------
t_rlimit_nproc() {
	[ -n "$HELPER" ] || { skip "$HELPER_WHY"; return; }
	if [ "$TU" = root ]; then
		skip "RLIMIT_NPROC does not bind root (CAP_SYS_RESOURCE, CAP_SYS_ADMIN): tested as $SUITE_USER"
		return
	fi
	fresh "$TU"
	local n
	WRAP=(prlimit --nproc=1:1)
	sg_run "${NOLEAK[@]}" -- -q --filter landlock -w "$W" -- "${PROBE[@]}"
	want 71 "cannot fork: Resource temporarily unavailable; the step was not run"
	not_run "nproc 1"
	n=$(($(ps -u "$TU" --no-headers 2>/dev/null | wc -l) + 8))
	WRAP=(prlimit "--nproc=$n:$n")
	: >"$OUT"
	sg_run -- --filter landlock -w "$W" -- "$HELPER" try --forkfill create:"$H/x" create:"$W/new" \
		chmod:"$H/.profile":600 chmod:"$W/in.txt":600 fork
	need "the step did not exhaust its processes" out_has "forkfill: [0-9]+ children, then fork: Resource temporarily unavailable"
	need "the fork after the exhaustion worked" out_has "fork -: refused"
	need "exit status $RC, expected 2 (the two writes inside)" rc_is 2
	need "a file outside landed" absent "$H/x"
	need "\$HOME/.profile changed mode" mode_is "$H/.profile" 644
	need "the supervisor did not refuse chmod outside (EPERM)" out_has "chmod $H/\.profile: refused \(Operation not permitted\)"
	need "the write inside did not land" present "$W/new"
	need "chmod inside (performed by the supervisor) did not land" mode_is "$W/in.txt" 600
	# counterpart: unconfined, the same exhausted step writes outside
	unconf "$HELPER" try --forkfill create:"$H/x"
	need "counterpart: unconfined, the write outside did not land (the test cannot tell)" present "$H/x"
	verdict "RLIMIT_NPROC 1: stepguard cannot fork, says so, 71, not run; RLIMIT_NPROC $n: the step forks to EAGAIN and stays confined (outside refused, supervisor serving)"
}

ASAN_WHY="stepguard is built with ASan, whose shadow memory no RLIMIT_AS can hold: run it on a plain build"
t_rlimit_as() {
	[ -n "$HELPER" ] || { skip "$HELPER_WHY"; return; }
	[ "$ASAN" = 0 ] || { skip "$ASAN_WHY"; return; }
	fresh "$TU"
	WRAP=(prlimit --as=$((128 << 20)))
	sg_run -- --filter landlock -w "$W" -- "$HELPER" try --hog create:"$H/x" create:"$W/new" \
		chmod:"$H/.profile":600 chmod:"$W/in.txt":600
	need "the step did not exhaust its address space" out_has "hog: [0-9]+ MiB held, then malloc: Cannot allocate memory"
	need "exit status $RC, expected 2 (the two writes inside)" rc_is 2
	need "a file outside landed" absent "$H/x"
	need "\$HOME/.profile changed mode" mode_is "$H/.profile" 644
	need "the supervisor did not refuse chmod outside (EPERM)" out_has "chmod $H/\.profile: refused \(Operation not permitted\)"
	need "stepguard did not report the refused chmod" out_has "stepguard: refused chmod $H/\.profile"
	need "the write inside did not land" present "$W/new"
	need "chmod inside (performed by the supervisor) did not land" mode_is "$W/in.txt" 600
	unconf "$HELPER" try --hog create:"$H/x"
	need "counterpart: unconfined, the write outside did not land (the test cannot tell)" present "$H/x"
	verdict "RLIMIT_AS 128 MiB: the step allocates to ENOMEM and stays confined (outside refused, the supervisor serves and reports); unconfined it lands"
}

# sweep_limit KIND LO HI: prlimit --KIND from LO to HI KiB in 16 KiB steps
# on stepguard itself.  At each size stepguard cannot start at all (execve
# or ld.so fails before main, and --version fails the same way), refuses
# with 64 or 71 and a message, or runs the step confined.  Anything else
# is a failure, a death by signal in its own setup included: libseccomp
# crashed there when malloc failed (README, finding 3), in a window about
# 128 KiB wide that 16 KiB steps cannot miss.  Counts in ran, refused and
# nostart; the failing sizes in bad.
sweep_limit() {
	local kind=$1 lo=$2 hi=$3 k v
	ran=0 refused=0 nostart=0 bad=''
	for ((k = lo; k <= hi; k += 16)); do
		rm -f "$H/x"
		WRAP=(prlimit "--$kind=$((k << 10))")
		: >"$OUT"
		sg_run -- -q --filter landlock -w "$W" -- "$HELPER" try create:"$H/x" create:"$W/ctl.$kind.$k" chmod:"$H/.profile":600
		need "$kind $k KiB: a file outside landed" absent "$H/x"
		need "$kind $k KiB: ~/.profile changed mode" mode_is "$H/.profile" 644
		if [ -e "$W/ctl.$kind.$k" ]; then
			ran=$((ran + 1))
			need "$kind $k KiB: the step ran, status $RC (expected 1)" rc_is 1
		elif [ "$RC" = 64 ] || [ "$RC" = 71 ]; then
			refused=$((refused + 1))
			need "$kind $k KiB: refused ($RC) without a message" out_has '^stepguard: '
		else
			# 127 or a signal: before main (--version fails alike), or after?
			v=$({ (exec "${WRAP[@]}" "$SGU" --version) >/dev/null 2>&1; } 2>/dev/null; echo $?)
			if [ "$v" = "$RC" ]; then nostart=$((nostart + 1)); else bad+=" ${k}K:$RC"; fi
		fi
	done
	need "RLIMIT_${kind^^}: sizes (size:status) where stepguard started but neither refused with 64 or 71 nor ran the step (above 128: it died of a signal):$bad" [ -z "$bad" ]
	need "RLIMIT_${kind^^}: stepguard never ran the step, even at $hi KiB" [ "$ran" -gt 0 ]
}

t_rlimit_as_stepguard() {
	[ -n "$HELPER" ] || { skip "$HELPER_WHY"; return; }
	[ "$ASAN" = 0 ] || { skip "$ASAN_WHY"; return; }
	fresh "$TU"
	local ran refused nostart bad as_sum
	sweep_limit as 1024 8192
	as_sum="$nostart could not start (execve or ld.so), $refused refused with a message, $ran ran confined"
	sweep_limit data 0 4096
	verdict "RLIMIT_AS 1-8 MiB and RLIMIT_DATA 0-4 MiB on stepguard, 16 KiB steps: AS $as_sum; DATA $nostart could not start, $refused refused with a message, $ran ran confined; never a signal in stepguard's setup, never anything outside"
}

# --- what a step runs without (issue 16) ---------------------------------
# Each refusal of the kernel is a stand-in (fchelper answers one call with
# EPERM, as a container's seccomp profile would); the counterpart is the
# same wrapper denying an unrelated call.
t_caps_drop_refused() {
	[ -n "$HELPER" ] || { skip "$HELPER_WHY"; return; }
	fresh "$TU"
	WRAP=("$HELPER" deny capset=EPERM --)
	sg_run -- -q -w "$W" -- "${PROBE[@]}"
	if [ "$TU" = root ]; then
		want 71 "the step was not run"
		not_run "capset EPERM"
	else
		# a user holds no capability: nothing to drop, capset never asked
		ran_confined "capset EPERM, a user with no capability to drop"
	fi
	reset_probe
	WRAP=("$HELPER" deny acct=EPERM --)
	sg_run -- -q -w "$W" -- "${PROBE[@]}"
	ran_confined "counterpart: fchelper denying acct(2) only"
	verdict "capset refused: root 71, the step never ran with the capabilities it was to run without; a user holds none and runs confined"
}

t_core_limit_refused() {
	[ -n "$HELPER" ] || { skip "$HELPER_WHY"; return; }
	# ASan's runtime reads the limits before main and stops when it cannot
	[ "$ASAN" = 0 ] || { skip "stepguard is built with ASan, whose runtime needs getrlimit before main: run it on a plain build"; return; }
	fresh "$TU"
	WRAP=("$HELPER" deny prlimit64=EPERM --)
	sg_run -- -q -w "$W" -- "${PROBE[@]}"
	want 71 "RLIMIT_CORE"
	not_run "prlimit64 EPERM"
	reset_probe
	WRAP=("$HELPER" deny acct=EPERM --)
	sg_run -- -q -w "$W" -- "${PROBE[@]}"
	ran_confined "counterpart: fchelper denying acct(2) only"
	verdict "the core limit cannot be set: 71 naming RLIMIT_CORE, not run"
}

t_ipc_namespace_refused() {
	[ -n "$HELPER" ] || { skip "$HELPER_WHY"; return; }
	[ "$TU" = root ] || { skip "only root makes the namespace; a user's start line says the gap ipc always (cli)"; return; }
	fresh "$TU"
	WRAP=("$HELPER" deny unshare=EPERM --)
	sg_run -- -w "$W" -- "${PROBE[@]}"
	need "the start line does not say the gap ipc" out_has "not covered: .*ipc \\(other processes' System V IPC\\)"
	ran_confined "unshare EPERM"
	reset_probe
	WRAP=("$HELPER" deny acct=EPERM --)
	sg_run -- -w "$W" -- "${PROBE[@]}"
	need "counterpart: the gap ipc said with a namespace made" out_lacks "ipc \\(other"
	ran_confined "counterpart: fchelper denying acct(2) only"
	verdict "the IPC namespace refused: the step runs confined and the start line says the gap ipc (it is said, not silent)"
}

# ===================================================================
echo "== fail-closed matrix on $(uname -r), as ${USERS[*]}${USERS_WHY:+ ($USERS_WHY)}; stepguard $SG"
[ -n "$HELPER_WHY" ] && echo "   helper: $HELPER_WHY"
for t in "${TESTS[@]}"; do
	IFS='|' read -r name _ _ <<<"$t"
	for TU in "${USERS[@]}"; do
		TN=$name.$TU
		if [ -n "$ONLY" ] && ! [[ $TN =~ $ONLY ]]; then continue; fi
		ERRS=()
		if [ "$TU" = "$SUITE_USER" ] && [ -n "$USERS_WHY" ]; then
			if [ -n "${SG_NO_SGTEST:-}" ]; then skip "$USERS_WHY"; else result FAIL "$TN" "$USERS_WHY"; fi
			continue
		fi
		"t_${name//-/_}"
		sweep
	done
done
echo "failclosed: $NPASS passed, $NFAIL failed, $NSKIP skipped"
[ "$NFAIL" = 0 ]
