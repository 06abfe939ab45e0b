#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # single-quoted scripts get their arguments as "$@"
#
# tests/host/run.sh — stepguard's adversarial suite, judged from outside.
#
#   STEPGUARD=build/stepguard ADVERSARY=build/tests/adversary \
#       bash tests/host/run.sh [--as USER] [--filter BACKEND] [--only REGEX] [--list]
#           [--no-sanity] [-v]
#
# Every case runs a step under stepguard (`stepguard -q -w WORK -- ...`)
# and is judged only by the file system afterwards: the paths that must
# not exist, the snapshots (mode, owner, size, times, content hash, xattrs,
# inode flags, inode number) of files that must not change, and a snapshot
# of the whole tree around the work directory, which must not change at
# all.  Never by the attack's exit status.
#
# A case is first run WITHOUT stepguard (under `adversary victim`, an
# unconfined stand-in parent), on a fresh tree: a denial case whose attack
# does not land even then proves nothing here and is SKIPPED with the
# reason (a missing kernel feature, a privilege this user lacks); a
# positive control that does not work unconfined is skipped the same way.
# Then the tree is rebuilt and the case runs confined.
#
# As root without --as, the suite runs three times, each on a tree of
# its own: as root; as sudo:sgtest (stepguard started by root with
# SUDO_UID, dropping the step and itself to sgtest); and as the
# unprivileged user sgtest (created with useradd -m if missing).
# --as root|sgtest|sudo:sgtest runs one of them.  --filter BACKEND passes
# `--filter BACKEND` to every confined run (the VM tests use it to run the
# suite through bpf-lsm, bpf-fmod and landlock); a backend the machine
# cannot provide makes stepguard refuse, and every case fails.  The last
# line is exactly
#   adversarial: N passed, M failed, K skipped
# and the exit status is non-zero when M > 0.
set -u
umask 022

SUITE_USER_DEFAULT=sgtest
ALT_GROUP=sgtest-alt

die() { echo "run.sh: $*" >&2; exit 2; }

AS=
FILTER=
ONLY=
LIST=0
SANITY=1
VERBOSE=0
while [ $# -gt 0 ]; do
	case $1 in
	--as) AS=${2:?--as needs a user}; shift 2 ;;
	--filter) FILTER=${2:?--filter needs a backend}; shift 2 ;;
	--only) ONLY=${2:?--only needs a regex}; shift 2 ;;
	--list) LIST=1; shift ;;
	--no-sanity) SANITY=0; shift ;;
	-v) VERBOSE=1; shift ;;
	-h|--help) sed -n '5,35p' "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done

SG=${STEPGUARD:?set STEPGUARD to the stepguard binary}
ADV=${ADVERSARY:?set ADVERSARY to the adversary binary}
SG=$(realpath "$SG") || die "no $STEPGUARD"
ADV=$(realpath "$ADV") || die "no $ADVERSARY"
[ -x "$SG" ] || die "$SG is not executable"
[ -x "$ADV" ] || die "$ADV is not executable"
SELF=$(realpath "$0")

ME=$(id -un)
MYUID=$(id -u)

# ---------------------------------------------------------------------
# The wrapper: as root, run the suite as root and as the unprivileged user.

# Everything the unprivileged run needs that only root can provide.
prepare_user() {
	local u=$1
	if ! id "$u" >/dev/null 2>&1; then
		[ "$u" = "$SUITE_USER_DEFAULT" ] || die "user $u does not exist"
		useradd -m "$u" || die "useradd $u failed"
	fi
	# A second group, so that chown (chgrp) by the owner is an attack that
	# can land without stepguard.
	if getent group "$ALT_GROUP" >/dev/null || groupadd "$ALT_GROUP"; then
		id -nG "$u" | tr ' ' '\n' | grep -qx "$ALT_GROUP" || usermod -aG "$ALT_GROUP" "$u"
	fi
	HELPER_DIR=$(mktemp -d /var/tmp/sg-adv-root.XXXXXX) || die "mktemp"
	chmod 755 "$HELPER_DIR"
	# A set-user-ID root copy of the adversary: no_new_privs must make the
	# bit inert inside a step.
	cp "$ADV" "$HELPER_DIR/adversary-suid" && chown root:root "$HELPER_DIR/adversary-suid" &&
		chmod 4755 "$HELPER_DIR/adversary-suid"
	# The binaries and this script, where the user can reach them.
	U_SG=$SG U_ADV=$ADV U_SELF=$SELF
	if ! as_user "$u" test -x "$SG" -a -x "$ADV" -a -r "$SELF"; then
		cp "$SG" "$HELPER_DIR/stepguard" # the name matters: attacks look for it
		cp "$ADV" "$HELPER_DIR/adversary"
		cp "$SELF" "$HELPER_DIR/run.sh"
		U_SG=$HELPER_DIR/stepguard U_ADV=$HELPER_DIR/adversary U_SELF=$HELPER_DIR/run.sh
	fi
}

# as_user USER CMD...: run CMD as USER with USER's groups (the alt group
# included).  setpriv, not runuser: it needs no PAM, so the same line
# works on a workstation and in the VM's initramfs.
as_user() {
	local u=$1
	shift
	setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --init-groups -- "$@"
}

# One run of the suite, in a process of its own: as root, as USER
# (through setpriv), or as sudo:USER (stepguard started by root with
# SUDO_UID, so that it drops the step, and itself, to USER).
run_inner_as() {
	local u=$1 res rp rf rs
	res=$(mktemp /var/tmp/sg-adv-result.XXXXXX) || die "mktemp"
	chmod 666 "$res"
	local -a opts=()
	[ -n "$ONLY" ] && opts+=(--only "$ONLY")
	[ -n "$FILTER" ] && opts+=(--filter "$FILTER")
	[ "$SANITY" = 0 ] && opts+=(--no-sanity)
	[ "$VERBOSE" = 1 ] && opts+=(-v)
	case $u in
	root)
		env -u SUDO_UID -u SUDO_GID -u SUDO_USER SG_ADV_RESULT="$res" SG_ADV_INNER=1 \
			"$BASH" "$SELF" "${opts[@]}" ;;
	sudo:*)
		prepare_user "${u#sudo:}"
		env -u SUDO_UID -u SUDO_GID -u SUDO_USER STEPGUARD="$U_SG" ADVERSARY="$U_ADV" \
			SG_ADV_SUID="$HELPER_DIR/adversary-suid" SG_ADV_SUDO="${u#sudo:}" \
			SG_ADV_RESULT="$res" SG_ADV_INNER=1 "$BASH" "$SELF" "${opts[@]}"
		rm -rf "$HELPER_DIR" ;;
	*)
		prepare_user "$u"
		# env -i drops SUDO_* and everything else of root's; the
		# harness keeps its PATH (the steps get STEP_ENV's).
		(cd / && as_user "$u" env -i PATH="$PATH" LANG=C.UTF-8 \
			STEPGUARD="$U_SG" ADVERSARY="$U_ADV" SG_ADV_SUID="$HELPER_DIR/adversary-suid" \
			${SG_ADV_SANITY_CACHE:+SG_ADV_SANITY_CACHE="$SG_ADV_SANITY_CACHE"} \
			SG_ADV_RESULT="$res" SG_ADV_INNER=1 "$BASH" "$U_SELF" "${opts[@]}")
		rm -rf "$HELPER_DIR" ;;
	esac
	read -r rp rf rs <"$res" || { rp=0 rf=1 rs=0; echo "run.sh: the run as $u reported nothing"; }
	rm -f "$res"
	TOTAL_P=$((TOTAL_P + rp)) TOTAL_F=$((TOTAL_F + rf)) TOTAL_S=$((TOTAL_S + rs))
}

if [ "$LIST" = 0 ] && [ -z "${SG_ADV_INNER:-}" ]; then
	if [ "$MYUID" = 0 ] && [ "$AS" != root ]; then
		TOTAL_P=0 TOTAL_F=0 TOTAL_S=0
		if [ -z "$AS" ]; then
			run_inner_as root
			run_inner_as "sudo:$SUITE_USER_DEFAULT"
			run_inner_as "$SUITE_USER_DEFAULT"
		else
			run_inner_as "$AS"
		fi
		echo "adversarial: $TOTAL_P passed, $TOTAL_F failed, $TOTAL_S skipped"
		[ "$TOTAL_F" = 0 ]
		exit
	fi
	[ -z "$AS" ] || [ "$AS" = "$ME" ] || die "only root can run the suite as another user (--as $AS)"
fi

# ---------------------------------------------------------------------
# The suite, as the current user.

RUNID=$$.$RANDOM
if [ "$LIST" = 1 ]; then
	BASE=/var/tmp/sg-adv.XXXXXX LOGD=/var/tmp/sg-adv-log.XXXXXX
else
	BASE=$(mktemp -d /var/tmp/sg-adv.XXXXXX) || die "mktemp" # not /tmp: /tmp is a target
	LOGD=$(mktemp -d /var/tmp/sg-adv-log.XXXXXX) || die "mktemp"
	trap cleanup EXIT
	trap 'exit 130' INT TERM
fi
W=$BASE/work      # the work directory
S=$BASE/work-evil # a sibling whose name starts with the work dir's
H=$BASE/home      # the step's $HOME
X=$BASE/extra     # a root only with --allow-write
P=$BASE           # the work directory's parent
T=/tmp/sg-adv.$MYUID.$$ # prefix of the targets in /tmp
SHM=sg-adv.$MYUID.$$    # prefix of the names in /dev/shm
OUT=$LOGD/out
# The attack's own lines (adversary.c, reach()): "start" when it starts,
# "reached" before each call a case judges.  In the work dir, where the
# step may write; the tree judges leave it out.
REACHED=$W/.sg-adv-reached
# How long a case's completion marker (done:PATH) is waited for after
# stepguard returns: its attack may run on, as a daemon or an orphan.
DONE_WAIT=30

# Who the step runs as.  Under sudo:USER the harness is root, stepguard is
# started by root with SUDO_UID, and everything unconfined that stands for
# the user (the sanity runs, the helpers) runs as USER through setpriv.
SUDO_TO=${SG_ADV_SUDO:-}
if [ -n "$SUDO_TO" ]; then
	[ "$MYUID" = 0 ] || die "sudo:$SUDO_TO needs root"
	STEP_USER=$SUDO_TO STEP_UID=$(id -u "$SUDO_TO") STEP_GID=$(id -g "$SUDO_TO")
	AS_STEP=(setpriv --reuid="$STEP_UID" --regid="$STEP_GID" --init-groups)
	SUDO_ENV=(SUDO_UID="$STEP_UID" SUDO_GID="$STEP_GID" SUDO_USER="$SUDO_TO")
	# stepguard gives the step the user's own HOME, as su(1) does: the
	# acceptance command's ~ is that home, not the fake one.
	AH=$(getent passwd "$SUDO_TO" | cut -d: -f6)
	LABEL="$SUDO_TO via sudo (stepguard started by root with SUDO_UID=$STEP_UID)"
	[ "$LIST" = 1 ] || chmod 755 "$LOGD"
else
	STEP_USER=$ME STEP_UID=$MYUID STEP_GID=$(id -g)
	AS_STEP=() SUDO_ENV=() AH=$H LABEL=$ME
fi
ALTGID=
for g in $(id -G "$STEP_USER"); do [ "$g" != "$STEP_GID" ] && { ALTGID=$g; break; }; done
if [ "$STEP_UID" = 0 ]; then CHOWN_TO=(4242 4242); else CHOWN_TO=(-1 "${ALTGID:--1}"); fi

# SG_ADV_SANITY_CACHE=DIR: keep each case's unconfined verdict in
# DIR/<user>, and take it from there when present.  It depends on the
# kernel and the user, not on the backend, so passes of one boot through
# several backends (tests/vm/t/50-adversarial.sh) run each case unconfined
# once.  Never share DIR across kernels or machines.
SANITY_CACHE=
if [ -n "${SG_ADV_SANITY_CACHE:-}" ] && [ "$LIST" = 0 ]; then
	SANITY_CACHE=$SG_ADV_SANITY_CACHE/${SUDO_TO:+sudo-}$STEP_USER
fi

STEP_ENV=(PATH=/usr/local/bin:/usr/bin:/bin HOME="$AH" USER="$STEP_USER" LOGNAME="$STEP_USER"
	LANG=C.UTF-8 TERM=dumb SG_ADV_RUN="$RUNID" SG_ADV_REACHED="$REACHED")

NPASS=0 NFAIL=0 NSKIP=0
LOOPDEV='' DEPUTY_PID='' DEPUTY_SOCK='' FSLOOP='' FSMNT=''
# A command prefix both runs of a case go through, set by its setup
# (start_uts: the UTS namespace the procsys case runs in).
STEP_WRAP=()
MQ=/sg-adv.$MYUID.$$ # prefix of this run's POSIX message queue names

# Kill whatever this run started that is still alive: every process whose
# environment carries this run's SG_ADV_RUN (daemons, orphans, deputies).
sweep() {
	local f pid
	while IFS= read -r f; do
		pid=${f#/proc/}
		pid=${pid%/environ}
		[ "$pid" != "$$" ] && [ "$pid" != "$BASHPID" ] && kill -KILL "$pid" 2>/dev/null
	done < <(grep -lsaxzF "SG_ADV_RUN=$RUNID" /proc/[0-9]*/environ 2>/dev/null)
}

cleanup() {
	sweep
	[ -n "$DEPUTY_PID" ] && kill -KILL "$DEPUTY_PID" 2>/dev/null
	[ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV" 2>/dev/null
	rm_scratch_fs 2>/dev/null
	[ -n "$DEPUTY_SOCK" ] && rm -f "$DEPUTY_SOCK"
	[ -s "$LOGD/ipc.ids" ] && "$ADV" ipc-rm "$LOGD/ipc.ids" 2>/dev/null
	rm_mq 2>/dev/null
	rm -rf "$BASE" "$LOGD"
	rm -f "$T".* /dev/shm/"$SHM".* 2>/dev/null
}

# The fresh tree every run of every case starts from.
# (finish() swept the processes of the run before.)  The suite runs in
# software-emulated VMs too, where every exec costs: `adversary tree`
# removes and rebuilds it in one process.  1580609922 is
# 2020-02-02 02:18:42 UTC, an mtime no step leaves behind by chance.
reset_tree() {
	local -a old=("${BASE:?}"/* "${BASE:?}"/.[!.]* "$T".* /dev/shm/"$SHM".*)
	"$ADV" tree "${old[@]/#/rm:}" \
		d:"$W/sub" d:"$W/mnt" d:"$S" d:"$H/emptydir" d:"$H/dir" d:"$X" \
		f:"$W/in.txt=inside" f:"$W/b.txt=bee" f:"$W/f=f" f:"$H/.profile=profile" \
		f:"$H/.bashrc=bashrc" f:"$H/dir/f=dirfile" f:"$S/f.txt=sibling" f:"$P/p.txt=parent" \
		t:"$H/.profile=1580609922" t:"$H/.bashrc=1580609922" t:"$S/f.txt=1580609922" \
		x:"$H/.profile=user.keep=yes" x:"$W/in.txt=user.keep=yes"
}

snap() {
	local l
	l=$("$ADV" snapshot "$1")
	printf '%s\n' "${l#*$'\t'}"
}
snaptree() { "$ADV" snaptree "$BASE" "$W" "$X"; }
# What the run left in /tmp and /dev/shm; a pathname deputy's own socket
# ($T.deputy, while it serves) is the harness's, not the step's.
leftovers() { compgen -G "$T.*" | grep -vxF "${DEPUTY_SOCK:-/}"; compgen -G "/dev/shm/$SHM.*"; }

# "field: old -> new" for the fields of two snapshot lines that differ.
snapdiff() {
	local -a a b
	local i out=
	read -r -a a <<<"$1"
	read -r -a b <<<"$2"
	for ((i = 0; i < ${#a[@]} || i < ${#b[@]}; i++)); do
		[ "${a[i]:-}" != "${b[i]:-}" ] && out+=" ${a[i]:-∅} -> ${b[i]:-∅};"
	done
	printf '%s' "${out:- (differs)}"
}

# ---------------------------------------------------------------------
# Case options (see the README for the list of cases):
#   absent:PATH      deny: PATH must not exist afterwards
#   same:PATH        deny: PATH's snapshot must not change
#   file:PATH=TEXT   allow: PATH holds exactly TEXT (trailing newline ignored)
#   holds:PATH=TEXT  allow: PATH contains TEXT (binary files too: /proc/PID/environ)
#   type:PATH=f|d|l|p|s   allow: PATH is of that type
#   gone:PATH        allow: PATH was removed
#   mode:PATH=NNNN  owner:PATH=U:G  mtime:PATH=EPOCH  size:PATH=N
#   xattr:PATH=NAME=VALUE  noxattr:PATH=NAME  nodump:PATH
#   status:nonzero   stepguard's exit status must be non-zero
#   setup:FN teardown:FN check:FN   (check prints what landed, returns 1)
#   done:PATH        the attack's completion marker ("landed N", written at
#                    its end): waited for, up to DONE_WAIT s, before judging
#                    (daemons, orphans); a denial without it fails
#   fd3:DIR fd5:FILE fd9:FILE     descriptors open before stepguard starts
#   sgopt:ARG        an extra stepguard option
#   mode-raw         `stepguard -- CMD` (no -q, no -w; cwd is the work dir)
#   kill-parent      once the step says it is armed, SIGKILL its parent
#                    (stepguard); a denial whose parent was not killed fails
#   mode-pty         on a new terminal, whose next reader runs what was typed
#   needs:root needs:user needs:chgrp needs:suid
#   needs:scoping   (skipped where stepguard reports the gap scoping: abstract
#                   stream sockets not covered)
#   needs:GAP       (GAP one of stepguard's gap names, GAP_WORDS: skipped exactly
#                   where `stepguard --check` reports GAP not covered, with its words)

parse_opts() {
	O_ABSENT=() O_SAME=() O_EXPECT=() O_SGOPT=()
	O_SETUP='' O_TEARDOWN='' O_CHECK='' O_DONE='' O_FD3='' O_FD5='' O_FD9=''
	O_MODE=normal O_NEEDS=() O_STATUS='' O_KILLPARENT=0
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case $1 in
		absent:*) O_ABSENT+=("${1#absent:}") ;;
		same:*) O_SAME+=("${1#same:}") ;;
		file:* | holds:* | type:* | gone:* | mode:* | owner:* | mtime:* | size:* | xattr:* | noxattr:* | nodump:*)
			O_EXPECT+=("$1") ;;
		status:*) O_STATUS=${1#status:} ;;
		setup:*) O_SETUP=${1#setup:} ;;
		teardown:*) O_TEARDOWN=${1#teardown:} ;;
		check:*) O_CHECK=${1#check:} ;;
		done:*) O_DONE=${1#done:} ;;
		fd3:*) O_FD3=${1#fd3:} ;;
		fd5:*) O_FD5=${1#fd5:} ;;
		fd9:*) O_FD9=${1#fd9:} ;;
		sgopt:*) O_SGOPT+=("${1#sgopt:}") ;;
		mode-raw) O_MODE=raw ;;
		mode-pty) O_MODE=pty ;;
		kill-parent) O_KILLPARENT=1 ;;
		needs:*) O_NEEDS+=("${1#needs:}") ;;
		*) echo "run.sh: bad case option $1" >&2; exit 2 ;;
		esac
		shift
	done
	[ "${1:-}" = -- ] || { echo "run.sh: case without -- COMMAND" >&2; exit 2; }
	shift
	O_CMD=("$@")
}

# stepguard's gap names (policy/gaps.c; [stepguard] accept-gaps in
# stepguard.ini(5)): the words a needs:GAP may use.  A need that is none of
# them is a typo, refused, not a case that is silently always judged.
GAP_WORDS="attributes truncate ioctl-dev scoping abstract-sockets exec proc unix-sockets sched ipc ptys"

# gap_reported GAP: print stepguard's own item for GAP, "proc (other
# processes' /proc/PID/cmdline)", if --check reports it not covered; the
# items are "NAME (WHAT)" joined by ", ", and a WHAT may hold commas.
# shellcheck disable=SC2001 # the split needs sed's back-reference
gap_reported() {
	local item
	while IFS= read -r item; do
		[ "${item%% (*}" = "$1" ] && { printf '%s' "$item"; return 0; }
	done < <(sed 's/), \([a-z-]* (\)/)\n\1/g' <<<"$NOT_COVERED")
	return 1
}

# Why this case cannot run as this user, or nothing.
unmet_needs() {
	local n
	for n in "${O_NEEDS[@]}"; do
		case $n in
		root) [ "$STEP_UID" = 0 ] || { echo "needs a root step"; return; } ;;
		user) [ "$STEP_UID" != 0 ] || { echo "only meaningful for an unprivileged step"; return; } ;;
		chgrp) [ "$STEP_UID" = 0 ] || [ -n "$ALTGID" ] ||
			{ echo "this user has no second group to chgrp to"; return; } ;;
		scoping)
			# An abstract stream deputy: Landlock's scope keeps it out
			# (the gap scoping below ABI 6); the eBPF filter judges a
			# stream connect itself, whatever the ABI (its gap
			# abstract-sockets is about datagrams).
			item=$(gap_reported scoping) &&
				{ echo "stepguard reports that it cannot keep a step from abstract sockets outside on this kernel: $item"; return; } ;;
		suid) if [ -z "${SG_ADV_SUID:-}" ] || [ ! -u "$SG_ADV_SUID" ]; then
			echo "no set-user-ID copy of the adversary (run the suite as root)"
			return
		fi ;;
		*)
			# A gap name: skipped exactly where stepguard says it leaves
			# that gap open, in its own words; judged everywhere else, so
			# the case starts to count the day a backend closes the gap.
			[[ " $GAP_WORDS " == *" $n "* ]] || { echo "unknown need $n"; return; }
			local item
			item=$(gap_reported "$n") &&
				{ echo "stepguard --check reports it not covered: $item"; return; } ;;
		esac
	done
}

with_fds() {
	[ -n "$O_FD3" ] && exec 3<"$O_FD3"
	[ -n "$O_FD5" ] && exec 5>>"$O_FD5"
	[ -n "$O_FD9" ] && exec 9>>"$O_FD9"
	"$@"
}

# run_step confined|unconfined: run the case's command; sets RC, and
# NOT_KILLED (why not) when a kill-parent case's parent was not killed.
run_step() {
	local how=$1
	local -a pre
	local -a as=() senv=("${STEP_ENV[@]}")
	NOT_KILLED=''
	if [ "$how" = confined ]; then
		pre=("$SG")
		[ -n "$FILTER" ] && pre+=(--filter "$FILTER")
		[ "$O_MODE" = raw ] || pre+=(-q -w "$W" "${O_SGOPT[@]}")
		pre+=(--)
		senv+=("${SUDO_ENV[@]}")
	else
		pre=("$ADV" victim)
		as=("${AS_STEP[@]}")
	fi
	if [ "$O_MODE" = pty ]; then
		# The step types into its terminal; after it, an unconfined shell
		# reads one line from that terminal and runs it, as a user's
		# interactive shell would.
		(cd "$W" && "${STEP_WRAP[@]}" "${as[@]}" env -i "${senv[@]}" timeout -k 5 60 "$ADV" pty-run \
			"$BASH" -c '"$@"; read -t 1 -r line && eval "$line"' bash "${pre[@]}" "${O_CMD[@]}") \
			>"$OUT" 2>&1 </dev/null
	elif [ "$O_KILLPARENT" = 1 ]; then
		# As a CI timeout would: SIGKILL stepguard (or the stand-in) once
		# the step has started, and leave the step running.
		# The job's redirection happens in the job, later: until then $OUT
		# would still hold the last run's start line, and its parent.
		: >"$OUT"
		(cd "$W" && exec "${STEP_WRAP[@]}" "${as[@]}" env -i "${senv[@]}" "${pre[@]}" "${O_CMD[@]}") \
			>"$OUT" 2>&1 </dev/null &
		local job=$! ppid='' armed='' n
		# Killed once the step is armed (its completion marker open, its
		# own start markers written): killed earlier, on Landlock those
		# creates would meet a supervisor already gone (ENOSYS).
		for ((n = 0; n < 200; n++)); do
			ppid=$(sed -n 's/^adversary [^:]*: start, pid [0-9]*, ppid \([0-9]*\),.*/\1/p' "$OUT" | head -1)
			armed=$(grep -m 1 '^adversary [^:]*: armed' "$OUT")
			[ -n "$ppid" ] && [ -n "$armed" ] && break
			sleep 0.02
		done
		# What the case judges happens only once stepguard is dead: a
		# parent that was not killed leaves the attack waiting for a death
		# that never comes, and nothing lands.
		if [ -z "$ppid" ]; then
			NOT_KILLED="no step started within 4 s, so no stepguard to kill"
		elif [ -z "$armed" ]; then
			NOT_KILLED="the step started but did not say it was armed within 4 s"
		elif [ "$ppid" != "$job" ]; then
			NOT_KILLED="the step's parent ($ppid) is not the process started ($job), which was not killed"
		elif ! kill -KILL "$ppid" 2>/dev/null; then
			NOT_KILLED="kill -KILL $ppid failed"
		fi
		[ -n "$NOT_KILLED" ] && echo "run.sh: $NOT_KILLED" >>"$OUT"
		{ wait "$job"; } 2>/dev/null # no "Killed" notice from bash
	else
		(cd "$W" && with_fds "${STEP_WRAP[@]}" "${as[@]}" env -i "${senv[@]}" timeout -k 5 60 \
			"${pre[@]}" "${O_CMD[@]}") >"$OUT" 2>&1 </dev/null
	fi
	RC=$?
	# A daemon or an orphan may still be at work: its own completion
	# marker says when it is done, not a guess at how long it takes.  A
	# step that never started has nothing to wait for.
	local i
	if [ -n "$O_DONE" ] && [ -e "$REACHED" ]; then
		for ((i = 0; i < DONE_WAIT * 20; i++)); do [ -s "$O_DONE" ] && break; sleep 0.05; done
	fi
	return 0
}

# Before a run: the fresh tree, the case's setup, the snapshots.
prepare() {
	reset_tree || { WHY="cannot build the tree"; return 1; }
	# In this shell, not a subshell: setups keep state for their teardown.
	if [ -n "$O_SETUP" ] && ! "$O_SETUP" >"$LOGD/setup" 2>&1; then
		WHY="setup: $(tail -1 "$LOGD/setup")"
		return 1
	fi
	# Under sudo the tree belongs to the step's user, as a checkout would.
	[ -n "$SUDO_TO" ] && chown -R "$STEP_UID:$STEP_GID" "$BASE"
	SAME_BEFORE=()
	local p
	for p in "${O_SAME[@]}"; do SAME_BEFORE+=("$(snap "$p")"); done
	TREE_BEFORE=$(snaptree)
	return 0
}

finish() {
	[ -n "$O_TEARDOWN" ] && "$O_TEARDOWN" >/dev/null 2>&1
	sweep
}

# What landed outside, into MSGS (empty: nothing).
judge_outside() {
	local p i now tree
	for p in "${O_ABSENT[@]}"; do
		{ [ -e "$p" ] || [ -L "$p" ]; } && MSGS+=("$p exists: $(snap "$p")")
	done
	for i in "${!O_SAME[@]}"; do
		now=$(snap "${O_SAME[i]}")
		[ "$now" = "${SAME_BEFORE[i]}" ] ||
			MSGS+=("${O_SAME[i]} changed:$(snapdiff "${SAME_BEFORE[i]}" "$now")")
	done
	tree=$(snaptree)
	if [ "$tree" != "$TREE_BEFORE" ]; then
		MSGS+=("the tree around the work dir changed:")
		while IFS= read -r p; do MSGS+=("    $p"); done < <(diff <(echo "$TREE_BEFORE") \
			<(echo "$tree") | grep '^[<>]' | head -8)
	fi
	p=$(leftovers)
	[ -n "$p" ] && MSGS+=("left in /tmp or /dev/shm: $p")
	if [ -n "$O_CHECK" ]; then
		p=$("$O_CHECK" 2>&1) || MSGS+=("${p:-$O_CHECK failed}")
	fi
}

# What the positive control did not achieve, into MSGS.
judge_expect() {
	local e path val got
	for e in "${O_EXPECT[@]}"; do
		local kind=${e%%:*} rest=${e#*:}
		path=${rest%%=*} val=${rest#*=}
		case $kind in
		file) got=$(cat "$path" 2>&1); [ "$got" = "$val" ] || MSGS+=("$path holds '$got', not '$val'") ;;
		holds) grep -qaF -- "$val" "$path" 2>/dev/null ||
			MSGS+=("$path does not contain '$val': $(head -c 200 "$path" 2>&1 | tr '\0' ' ')") ;;
		type)
			case $val in
			f) [ -f "$path" ] && [ ! -L "$path" ] ;;
			d) [ -d "$path" ] && [ ! -L "$path" ] ;;
			l) [ -L "$path" ] ;;
			p) [ -p "$path" ] ;;
			s) [ -S "$path" ] ;;
			*) false ;;
			esac || MSGS+=("$path is not of type $val: $(snap "$path")") ;;
		gone) { [ -e "$path" ] || [ -L "$path" ]; } && MSGS+=("$path still exists") ;;
		mode) got=$(stat -c %04a "$path" 2>&1); [ "$got" = "$val" ] || MSGS+=("$path mode $got, not $val") ;;
		owner) got=$(stat -c %u:%g "$path" 2>&1); [ "$got" = "$val" ] || MSGS+=("$path owner $got, not $val") ;;
		mtime) got=$(stat -c %Y "$path" 2>&1); [ "$got" = "$val" ] || MSGS+=("$path mtime $got, not $val") ;;
		size) got=$(stat -c %s "$path" 2>&1); [ "$got" = "$val" ] || MSGS+=("$path size $got, not $val") ;;
		xattr)
			got=$("$ADV" getxattr "$path" "${val%%=*}" 2>&1)
			[ "$got" = "${val#*=}" ] || MSGS+=("$path xattr ${val%%=*}: '$got', not '${val#*=}'") ;;
		noxattr)
			"$ADV" getxattr "$path" "$val" >/dev/null 2>&1 && MSGS+=("$path still has xattr $val") ;;
		nodump)
			got=$(snap "$path" | grep -o 'flags=0x[0-9a-f]*')
			(((${got#flags=} & 0x40) != 0)) 2>/dev/null || MSGS+=("$path has no nodump flag ($got)") ;;
		*) MSGS+=("bad expectation $e") ;;
		esac
	done
}

# Whether the attack started, as the user whose unconfined run proved it
# lands, reached the call the case judges and, where it has one,
# finished: into MSGS.  Without this a denial would pass against a
# stepguard that runs nothing, or stops the step before its attack for
# any reason, or runs it as a user the attack does not land as (root, for
# a sudo:USER step not dropped to USER), since nothing would change outside.
judge_reached() {
	local other
	other=$(grep -s '^start ' "$REACHED" | grep -v ", uid $STEP_UID\$" | head -1)
	if ! grep -qs '^start ' "$REACHED"; then
		MSGS+=("the step never ran: no start line in $REACHED (stepguard exit status $RC)")
	elif [ -n "$other" ]; then
		MSGS+=("the step did not run as $STEP_USER (uid $STEP_UID): $other")
	elif ! grep -qs '^reached ' "$REACHED"; then
		MSGS+=("the attack started but never reached the call this case judges ($REACHED: $(tail -1 "$REACHED"))")
	fi
	if [ -n "$O_DONE" ] && ! [ -s "$O_DONE" ]; then
		MSGS+=("the attack did not finish: no completion marker $O_DONE within $DONE_WAIT s")
	fi
	[ -n "$NOT_KILLED" ] && MSGS+=("stepguard was not killed: $NOT_KILLED")
}

show_output() {
	sed -n '1,25s/^/        | /p' "$OUT"
}

# The last "refused" line of the unconfined run: why an attack did not land.
why_not() {
	local l
	l=$(grep -E 'refused|usage' "$OUT" | tail -1)
	printf '%s' "${l:-$(tail -1 "$OUT")}"
}

result() { # STATUS KIND NAME WHAT [DETAIL]
	printf '%-4s %-5s %-28s %s\n' "$1" "$2" "$3" "$4"
	case $1 in
	PASS) NPASS=$((NPASS + 1)) ;;
	FAIL) NFAIL=$((NFAIL + 1)) ;;
	SKIP) NSKIP=$((NSKIP + 1)) ;;
	esac
}

run_case() { # KIND NAME WHAT OPTIONS... -- COMMAND...
	local kind=$1 name=$2 what=$3 m
	shift 3
	if [ -n "$ONLY" ] && ! [[ $name =~ $ONLY ]]; then return; fi
	parse_opts "$@"
	if [ "$LIST" = 1 ]; then
		printf '%-5s %-28s %s\n' "$kind" "$name" "$what"
		return
	fi
	local need
	need=$(unmet_needs)
	if [ -n "$need" ]; then
		result SKIP "$kind" "$name" "$what — skipped: $need"
		return
	fi

	local cached=
	[ -n "$SANITY_CACHE" ] && cached=$(sed -n "s/^$name\t//p" "$SANITY_CACHE" 2>/dev/null)
	if [ "$SANITY" = 1 ] && [ -n "$cached" ]; then
		# This user's unconfined run of the case, on this kernel, in an
		# earlier pass: it does not depend on the backend.
		if [ "$cached" != OK ]; then
			result SKIP "$kind" "$name" "$what — skipped: ${cached#SKIP$'\t'} (unconfined run of an earlier pass)"
			return
		fi
	elif [ "$SANITY" = 1 ]; then
		if ! prepare; then
			finish
			result SKIP "$kind" "$name" "$what — skipped: $WHY"
			return
		fi
		run_step unconfined
		MSGS=()
		if [ "$kind" = deny ]; then judge_outside; else judge_expect; fi
		finish
		local why=
		if [ "$kind" = deny ] && [ ${#MSGS[@]} = 0 ]; then
			why="lands nowhere even without stepguard as $STEP_USER: $(why_not | tr '\n' ' ')"
		elif [ "$kind" = allow ] && [ ${#MSGS[@]} != 0 ]; then
			why="does not work even without stepguard as $STEP_USER: ${MSGS[0]}; $(why_not)"
		fi
		[ -n "$SANITY_CACHE" ] && printf '%s\t%s\n' "$name" "${why:+SKIP$'\t'}${why:-OK}" >>"$SANITY_CACHE"
		if [ -n "$why" ]; then
			result SKIP "$kind" "$name" "$what — skipped: $why"
			return
		fi
	fi

	if ! prepare; then
		finish
		result FAIL "$kind" "$name" "$what — setup failed: $WHY"
		return
	fi
	run_step confined
	MSGS=()
	judge_outside
	[ "$kind" = allow ] && judge_expect
	if [ "$O_STATUS" = nonzero ] && [ "$RC" = 0 ]; then
		MSGS+=("stepguard exited 0")
	fi
	# In every mode: a denial proves something only if its attack ran.
	[ "$kind" = deny ] && judge_reached
	grep -q '^adversary [^:]*: usage:' "$OUT" && MSGS+=("the attack was malformed (a usage error)")
	finish
	if [ ${#MSGS[@]} = 0 ]; then
		result PASS "$kind" "$name" "$what"
		[ "$VERBOSE" = 1 ] && show_output
	else
		result FAIL "$kind" "$name" "$what"
		for m in "${MSGS[@]}"; do printf '        %s\n' "$m"; done
		printf '        stepguard exit status %s; the step said:\n' "$RC"
		show_output
	fi
}

deny() { run_case deny "$@"; }
allow() { run_case allow "$@"; }

# --- setups and checks ------------------------------------------------

mk_handle() { "$ADV" get-handle "$H/.bashrc" "$W/handle" >/dev/null; }

mk_loop() {
	command -v losetup >/dev/null || { echo "no losetup"; return 1; }
	head -c 1048576 /dev/zero >"$P/disk.img"
	LOOPDEV=$(losetup -f --show "$P/disk.img" 2>&1) || { echo "losetup: $LOOPDEV"; LOOPDEV=; return 1; }
	LOOP_MAJ=$((16#$(stat -c %t "$LOOPDEV"))) LOOP_MIN=$((16#$(stat -c %T "$LOOPDEV")))
	ln -s "$LOOPDEV" "$LOGD/loopdev" # for the case's command, which is fixed before setup
	printf '%s %s\n' "$LOOP_MAJ" "$LOOP_MIN" >"$LOGD/loopnums"
}
rm_loop() {
	[ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV"
	LOOPDEV=
	rm -f "$LOGD/loopdev" "$LOGD/loopnums"
}

# procsys writes /proc/sys/kernel/domainname, and a test must not change
# the host's.  Both its runs go into a UTS namespace of the harness's
# (adversary uts-hold), whose domainname is sg-adv-before: the file, its
# permission check and the step's confinement are the host's, and what
# the unconfined run writes there is gone with the namespace.
start_uts() {
	rm -f "$LOGD/uts"
	env SG_ADV_RUN="$RUNID" "$ADV" uts-hold sg-adv-before >"$LOGD/uts" 2>&1 </dev/null &
	UTS_PID=$!
	wait_ready "$LOGD/uts" "the UTS namespace holder" || return 1
	HOST_DOMAIN=$(cat /proc/sys/kernel/domainname)
	STEP_WRAP=("$ADV" uts-enter "$UTS_PID")
}
stop_uts() {
	[ -n "${UTS_PID:-}" ] && kill -KILL "$UTS_PID" 2>/dev/null && wait "$UTS_PID" 2>/dev/null
	UTS_PID='' STEP_WRAP=()
}
check_uts() {
	local now host
	now=$("$ADV" uts-enter "$UTS_PID" cat /proc/sys/kernel/domainname 2>&1)
	host=$(cat /proc/sys/kernel/domainname)
	[ "$now" = sg-adv-before ] || { echo "the namespace's domainname is now '$now' (was sg-adv-before)"; return 1; }
	[ "$host" = "$HOST_DOMAIN" ] || { echo "the host's domainname is now '$host' (was '$HOST_DOMAIN')"; return 1; }
}

# serve_deputy @NAME|PATH: an unconfined process of the step's user that
# creates any path a client sends it (a user's service, an agent).
serve_deputy() {
	rm -f "$LOGD/deputy" # the job's redirection happens in the job, later
	"${AS_STEP[@]}" env SG_ADV_RUN="$RUNID" "$ADV" deputy-serve "$1" >"$LOGD/deputy" 2>&1 &
	DEPUTY_PID=$!
	local i
	for ((i = 0; i < 100; i++)); do grep -q ready "$LOGD/deputy" 2>/dev/null && return 0; sleep 0.02; done
	echo "the deputy did not start: $(cat "$LOGD/deputy")"
	return 1
}
start_deputy() { serve_deputy "@sg-adv-$RUNID"; }
# On a pathname socket outside every root: under the run's /tmp prefix.
start_path_deputy() {
	DEPUTY_SOCK=$T.deputy
	serve_deputy "$DEPUTY_SOCK"
}
# On a socket in the work dir (under sudo the dir must be the user's
# before the user's deputy can bind there; prepare() chowns the rest).
start_work_deputy() {
	[ -z "$SUDO_TO" ] || chown "$STEP_UID:$STEP_GID" "$W"
	serve_deputy "$W/deputy.sock"
}
stop_deputy() {
	[ -n "$DEPUTY_PID" ] && kill -KILL "$DEPUTY_PID" 2>/dev/null && wait "$DEPUTY_PID" 2>/dev/null
	[ -n "$DEPUTY_SOCK" ] && rm -f "$DEPUTY_SOCK"
	DEPUTY_PID='' DEPUTY_SOCK=''
}

# wait_ready FILE WHAT: until the helper writing FILE says "ready".
wait_ready() {
	local i
	for ((i = 0; i < 200; i++)); do grep -q ': ready' "$1" 2>/dev/null && return 0; sleep 0.02; done
	echo "$2 did not start: $(tail -1 "$1" 2>/dev/null)"
	return 1
}

# An outside process of the step's user holding three secrets, one per
# channel, new for every run: in its environment (environ), in its
# command line (cmdline), and as a memfd's name in its memory map (maps).
# The step is given only its pid; the secrets are in no file it can read.
start_holder() {
	HOLD_ENV=sg-adv-env-$RANDOM$RANDOM$RANDOM HOLD_ARG=sg-adv-arg-$RANDOM$RANDOM$RANDOM
	HOLD_MEM=sg-adv-mem-$RANDOM$RANDOM$RANDOM
	rm -f "$LOGD/holder" # no "ready" of the last run's holder
	"${AS_STEP[@]}" env SG_ADV_RUN="$RUNID" SG_ADV_SECRET="$HOLD_ENV" \
		"$ADV" hold "$HOLD_ARG" "$HOLD_MEM" >"$LOGD/holder" 2>&1 </dev/null &
	HOLDER_PID=$!
	wait_ready "$LOGD/holder" "the holder" || return 1
	echo "$HOLDER_PID" >"$LOGD/holder.pid"
}
stop_holder() {
	[ -n "${HOLDER_PID:-}" ] && kill -KILL "$HOLDER_PID" 2>/dev/null && wait "$HOLDER_PID" 2>/dev/null
	HOLDER_PID=
	rm -f "$LOGD/holder.pid"
}
# check_stolen CHANNEL SECRET: what the step copied out of the holder's
# /proc/PID/CHANNEL into work/stolen.  Anything read lands; the secret
# says it was the holder's (the proof the unconfined run gives).
check_stolen() {
	[ -s "$W/stolen" ] || return 0
	if grep -qaF -- "$2" "$W/stolen"; then
		echo "the outside process's $1 was read: $W/stolen holds its secret"
	else
		echo "$(stat -c %s "$W/stolen") bytes of an outside process's $1 were read (not the holder's secret)"
	fi
	return 1
}
check_stolen_environ() { check_stolen environ "$HOLD_ENV"; }
check_stolen_maps() { check_stolen maps "$HOLD_MEM"; }
check_stolen_cmdline() { check_stolen cmdline "$HOLD_ARG"; }
# auxv holds no text: the secret is the holder's own auxv, read from outside.
check_stolen_auxv() {
	[ -s "$W/stolen" ] || return 0
	if cmp -s "$W/stolen" "/proc/$HOLDER_PID/auxv"; then
		echo "the outside process's auxv was read: $W/stolen is its auxv"
	else
		echo "$(stat -c %s "$W/stolen") bytes of an outside process's auxv were read"
	fi
	return 1
}

# An outside process's nice value, CPUs and RLIMIT_FSIZE, read from outside.
sched_state() {
	local p=$SLEEPER_PID
	printf 'nice %s, cpus %s, RLIMIT_FSIZE %s' "$(awk '{ print $19 }' "/proc/$p/stat")" \
		"$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$p/status")" \
		"$(awk '/^Max file size/ { print $4 "/" $5 }' "/proc/$p/limits")"
}
start_sched_target() {
	start_sleeper || return 1
	SCHED_BEFORE=$(sched_state)
}
check_sched() {
	local now
	now=$(sched_state)
	[ "$now" = "$SCHED_BEFORE" ] || { echo "the outside process now has $now (was $SCHED_BEFORE)"; return 1; }
}

# The answers to the memory-placement calls on the sleeper, the only trace
# they leave: all three made, none landed.
check_mm() {
	local n
	n=$(grep -cE '^(landed|refused) ' "$W/mm.out" 2>/dev/null)
	[ "${n:-0}" = 3 ] || { echo "not three answers in $W/mm.out: '$(tr '\n' ';' <"$W/mm.out" 2>&1)'"; return 1; }
	if grep -q '^landed' "$W/mm.out"; then
		echo "landed on the outside process: $(grep '^landed' "$W/mm.out" | tr '\n' ' ')"
		return 1
	fi
}

# The step's own process, left behind by core-raise: its RLIMIT_CORE, read
# from outside, must be the 1/1 stepguard set (no core file, no pipe helper).
check_core() {
	local pid lim
	pid=$(cat "$W/core.pid" 2>/dev/null)
	if [ -z "$pid" ] || [ ! -r "/proc/$pid/limits" ]; then
		echo "no process of the step left to read RLIMIT_CORE from ($W/core.pid: '$pid')"
		return 1
	fi
	lim=$(awk '/^Max core file size/ { print $5 "/" $6 }' "/proc/$pid/limits")
	[ "$lim" = 1/1 ] || { echo "the step's process holds RLIMIT_CORE $lim (soft/hard), not 1/1"; return 1; }
}

# An outside process's System V queue (empty) and segment ("intact").
start_ipc_holder() {
	rm -f "$LOGD/ipc.hold"
	"${AS_STEP[@]}" env SG_ADV_RUN="$RUNID" "$ADV" ipc-hold >"$LOGD/ipc.hold" 2>&1 </dev/null &
	IPC_HOLDER_PID=$!
	wait_ready "$LOGD/ipc.hold" "the IPC holder" || return 1
	sed -n 's/^adversary ipc-hold: //p' "$LOGD/ipc.hold" >"$LOGD/ipc.ids"
	IPC_BEFORE=$("$ADV" ipc-look "$LOGD/ipc.ids")
	[ "$IPC_BEFORE" = "qnum=0 shm=intact" ] || { echo "the IPC holder shows '$IPC_BEFORE'"; return 1; }
}
stop_ipc_holder() {
	[ -n "${IPC_HOLDER_PID:-}" ] && kill -KILL "$IPC_HOLDER_PID" 2>/dev/null && wait "$IPC_HOLDER_PID" 2>/dev/null
	IPC_HOLDER_PID=
	# They outlive their maker.
	[ -s "$LOGD/ipc.ids" ] && "$ADV" ipc-rm "$LOGD/ipc.ids"
	rm -f "$LOGD/ipc.ids"
}
check_ipc() {
	local now
	now=$("$ADV" ipc-look "$LOGD/ipc.ids" 2>&1)
	[ "$now" = "$IPC_BEFORE" ] || { echo "the outside process now sees '$now' (was '$IPC_BEFORE')"; return 1; }
}

# POSIX message queues, seen from outside: through /dev/mqueue where it is
# mounted, else by mq_open in the harness (the initial IPC namespace).
mq_exists() {
	if [ "$(stat -f -c %T /dev/mqueue 2>/dev/null)" = mqueue ]; then
		[ -e "/dev/mqueue/${1#/}" ]
	else
		"$ADV" mq exists "$1" >/dev/null
	fi
}
mk_mq() { "${AS_STEP[@]}" "$ADV" mq create "$MQ.q"; }
rm_mq() { "$ADV" mq unlink "$MQ.q"; "$ADV" mq unlink "$MQ.new"; }
check_mq_kept() { mq_exists "$MQ.q" || { echo "the outside queue $MQ.q is gone"; return 1; }; }
check_mq_none() { ! mq_exists "$MQ.new" || { echo "a queue $MQ.new now exists"; return 1; }; }

# An outside process holding a pty's slave, copying what its master reads.
start_pty_holder() {
	rm -f "$LOGD/pty.hold"
	"${AS_STEP[@]}" env SG_ADV_RUN="$RUNID" "$ADV" pty-hold >"$LOGD/pty.hold" 2>&1 </dev/null &
	PTY_HOLDER_PID=$!
	wait_ready "$LOGD/pty.hold" "the pty holder" || return 1
	sed -n 's/^adversary pty-hold: ready //p' "$LOGD/pty.hold" >"$LOGD/pty.path"
	[ -c "$(cat "$LOGD/pty.path")" ] || { echo "no pty: $(cat "$LOGD/pty.hold")"; return 1; }
}
stop_pty_holder() {
	[ -n "${PTY_HOLDER_PID:-}" ] && kill -KILL "$PTY_HOLDER_PID" 2>/dev/null && wait "$PTY_HOLDER_PID" 2>/dev/null
	PTY_HOLDER_PID=
	rm -f "$LOGD/pty.path"
}
check_pty() {
	sleep 0.1 # the holder copies what its master reads
	! grep -qaF SG-ADV-PTY-PWNED "$LOGD/pty.hold" ||
		{ echo "the outside terminal's master read what the step wrote"; return 1; }
}

# A scratch ext4 on a loop device, mounted on work/mnt: the only file
# system the file-system-wide ioctls may touch.  Its image lives in the
# log dir, so that its writes change nothing the judges look at; its label
# is what fs-ioctl and fs-state check before they act, so no run can
# relabel or freeze a file system of the host.
mk_scratch_fs() {
	command -v mkfs.ext4 >/dev/null || { echo "no mkfs.ext4"; return 1; }
	command -v losetup >/dev/null || { echo "no losetup"; return 1; }
	[ -e /dev/loop-control ] || { echo "no loop devices (/dev/loop-control)"; return 1; }
	truncate -s 16M "$LOGD/scratch.img" || return 1
	mkfs.ext4 -q -F -L sg-adv-scratch "$LOGD/scratch.img" >/dev/null 2>&1 || { echo "mkfs.ext4 failed"; return 1; }
	FSLOOP=$(losetup -f --show "$LOGD/scratch.img" 2>&1) || { echo "losetup: $FSLOOP"; FSLOOP=; return 1; }
	mount -t ext4 -o nosuid,nodev "$FSLOOP" "$W/mnt" 2>&1 || { echo "cannot mount ext4 from $FSLOOP"; return 1; }
	FSMNT=$W/mnt
	[ "$("$ADV" fs-state label "$FSMNT")" = sg-adv-scratch ] || { echo "$FSMNT is not the scratch file system"; return 1; }
}
mk_frozen_fs() { mk_scratch_fs && "$ADV" fs-state freeze "$FSMNT"; }
rm_scratch_fs() {
	if [ -n "$FSMNT" ]; then
		"$ADV" fs-state thaw "$FSMNT" >/dev/null 2>&1
		umount "$FSMNT"
	fi
	[ -n "$FSLOOP" ] && losetup -d "$FSLOOP"
	FSMNT='' FSLOOP=''
	rm -f "$LOGD/scratch.img"
}
check_fs_label() {
	local l
	l=$("$ADV" fs-state label "$FSMNT" 2>&1)
	[ "$l" = sg-adv-scratch ] || { echo "the scratch file system's label is now '$l'"; return 1; }
}
# FITHAW from outside succeeds only on a frozen file system (and thaws it).
check_fs_thawed() {
	! "$ADV" fs-state thaw "$FSMNT" >/dev/null 2>&1 ||
		{ echo "the step froze the scratch file system (FITHAW from outside succeeded)"; return 1; }
}
check_fs_frozen() {
	"$ADV" fs-state thaw "$FSMNT" >/dev/null 2>&1 ||
		{ echo "the step thawed the scratch file system frozen from outside"; return 1; }
}

# An unconfined process of the same user: cwd in $HOME, ~/.bashrc open for
# appending on its fd 3 (an editor, a shell, a build server).
start_sleeper() {
	(cd "$H" && exec 3>>"$H/.bashrc" && exec "${AS_STEP[@]}" env SG_ADV_RUN="$RUNID" sleep 60) \
		>/dev/null 2>&1 </dev/null &
	SLEEPER_PID=$!
	echo "$SLEEPER_PID" >"$LOGD/sleeper.pid"
	local i
	for ((i = 0; i < 100; i++)); do
		[ "$(readlink "/proc/$SLEEPER_PID/fd/3" 2>/dev/null)" = "$H/.bashrc" ] && return 0
		sleep 0.01
	done
	echo "the sleeper did not start"
	return 1
}
stop_sleeper() {
	[ -n "${SLEEPER_PID:-}" ] && kill -KILL "$SLEEPER_PID" 2>/dev/null && wait "$SLEEPER_PID" 2>/dev/null
	SLEEPER_PID=
	rm -f "$LOGD/sleeper.pid"
}

# Under sudo the acceptance command's ~ is the user's real home: make sure
# ~/.profile exists and ~/x does not, and put both back as found after.
REAL_HOME_MADE=
setup_real_home() {
	[ -n "$SUDO_TO" ] || return 0
	[ -d "$AH" ] || { echo "$STEP_USER has no home directory $AH"; return 1; }
	{ [ -e "$AH/x" ] || [ -L "$AH/x" ]; } && { echo "$AH/x exists already; not touching it"; return 1; }
	if [ ! -e "$AH/.profile" ]; then
		"${AS_STEP[@]}" sh -c 'printf "# made by stepguard tests\n" >"$1"' sh "$AH/.profile" || return 1
		REAL_HOME_MADE=1
	fi
	REAL_HOME_WAS=$(stat -c '%a %Y' "$AH/.profile")
}
restore_real_home() {
	[ -n "$SUDO_TO" ] || return 0
	rm -f "$AH/x"
	if [ -n "$REAL_HOME_MADE" ]; then
		rm -f "$AH/.profile"
	elif [ -n "${REAL_HOME_WAS:-}" ]; then
		chmod "${REAL_HOME_WAS% *}" "$AH/.profile"
		touch -d "@${REAL_HOME_WAS#* }" "$AH/.profile"
	fi
	REAL_HOME_MADE='' REAL_HOME_WAS=''
}

setup_rmdir() { mkdir "$W/rmme"; }
setup_symlink_in() { ln -s "$W/in.txt" "$W/inlink"; }
setup_work_profile() { printf 'work profile\n' >"$W/.profile"; }

# A block device node in the work dir needs the device numbers of the loop
# device made by the setup; the command reads them when it runs.
mknod_cmd='read -r maj min <"$1"; exec "$2" mknod-write "$3" "$maj" "$min" PWNED-BLOCK'

# ---------------------------------------------------------------------

cases() {
	local A=$ADV
	local C=("${CHOWN_TO[@]}")

	# The trial's four writes (P-51), then the acceptance command.
	deny p51-home-file "a file in \$HOME" absent:"$H/p51.txt" -- "$A" create "$H/p51.txt"
	deny p51-home-dotfile "a dotfile in \$HOME" absent:"$H/.p51rc" -- "$A" create "$H/.p51rc"
	deny p51-tmp "a file in /tmp" absent:"$T.p51" -- "$A" create "$T.p51"
	deny p51-parent "a file in the work dir's parent" absent:"$P/p51.txt" -- "$A" create "$P/p51.txt"
	deny acceptance "stepguard -- sh -c 'echo x > ~/x; chmod 600 ~/.profile; touch -d 2001-01-01 ~/.profile'" \
		mode-raw status:nonzero setup:setup_real_home teardown:restore_real_home \
		absent:"$AH/x" same:"$AH/.profile" -- \
		sh -c 'm() { echo "$1" >>"$SG_ADV_REACHED"; }; m "start acceptance: pid $$, uid $(id -u)"
			m "reached acceptance: echo x > ~/x"; echo x > ~/x
			m "reached acceptance: chmod 600 ~/.profile"; chmod 600 ~/.profile
			m "reached acceptance: touch -d 2001-01-01 ~/.profile"; touch -d 2001-01-01 ~/.profile'

	# Writing, truncating, making and removing nodes outside.
	deny overwrite-outside "open O_TRUNC and write ~/.bashrc" same:"$H/.bashrc" -- "$A" create "$H/.bashrc"
	deny append-outside "append to ~/.bashrc" same:"$H/.bashrc" -- "$A" append "$H/.bashrc"
	deny truncate-outside "truncate(2) ~/.bashrc" same:"$H/.bashrc" -- "$A" truncate "$H/.bashrc" 0
	deny otrunc-outside "open(O_RDONLY|O_TRUNC) ~/.bashrc" same:"$H/.bashrc" -- "$A" otrunc "$H/.bashrc"
	deny mkdir-outside "mkdir in \$HOME" absent:"$H/newdir" -- "$A" mkdir "$H/newdir"
	deny rmdir-outside "rmdir an empty dir in \$HOME" same:"$H/emptydir" -- "$A" rmdir "$H/emptydir"
	deny unlink-outside "unlink ~/.bashrc" same:"$H/.bashrc" -- "$A" unlink "$H/.bashrc"
	deny mknod-reg-outside "mknod S_IFREG in \$HOME" absent:"$H/node" -- "$A" mknod-reg "$H/node"
	deny mkfifo-outside "mkfifo in \$HOME" absent:"$H/fifo" -- "$A" mkfifo "$H/fifo"
	deny bind-unix-outside "bind an AF_UNIX socket in \$HOME" absent:"$H/sock" -- "$A" bind-unix "$H/sock"
	deny shm "create a file in /dev/shm" absent:"/dev/shm/$SHM.x" -- "$A" shm "$SHM.x"
	deny not-allowed-extra "a dir that is a root only with --allow-write" absent:"$X/new.txt" -- \
		"$A" create "$X/new.txt"

	# Renames and links across the boundary.
	deny rename-out "rename a work file out to \$HOME" absent:"$H/moved" -- "$A" rename "$W/f" "$H/moved"
	deny rename-over "rename a work file over ~/.bashrc" same:"$H/.bashrc" -- "$A" rename "$W/f" "$H/.bashrc"
	deny rename-in "rename ~/.bashrc into the work dir" same:"$H/.bashrc" -- "$A" rename "$H/.bashrc" "$W/stolen"
	deny rename-workdir "rename the work dir itself away" absent:"$P/moved-work" -- \
		"$A" rename "$W" "$P/moved-work"
	deny exchange-file "RENAME_EXCHANGE a work file with ~/.bashrc" same:"$H/.bashrc" -- \
		"$A" exchange "$W/in.txt" "$H/.bashrc"
	deny exchange-dir "RENAME_EXCHANGE a work dir with ~/dir" same:"$H/dir" same:"$H/dir/f" -- \
		"$A" exchange "$W/sub" "$H/dir"
	deny link-out "hard link a work file into \$HOME" absent:"$H/hl" -- "$A" link "$W/in.txt" "$H/hl"
	deny link-in-write "hard link ~/.bashrc in, write through it" same:"$H/.bashrc" -- \
		"$A" link-write "$H/.bashrc" "$W/hl"
	deny linkat-emptypath "linkat(AT_EMPTY_PATH) ~/.bashrc in, write" same:"$H/.bashrc" -- \
		"$A" link-emptypath "$H/.bashrc" "$W/hl"
	deny tmpfile-link-out "O_TMPFILE in the work dir, linkat to \$HOME" absent:"$H/tmpf" -- \
		"$A" tmpfile "$W" "$H/tmpf"
	deny tmpfile-outside "O_TMPFILE in \$HOME, linkat there" absent:"$H/tmpf" -- "$A" tmpfile "$H" "$H/tmpf"

	# Symlinks planted inside and followed; path tricks.
	deny symlink-file "plant work/sl -> ~/.bashrc, open it for writing" same:"$H/.bashrc" -- \
		"$A" symlink-write "$H/.bashrc" "$W/sl"
	deny symlink-dir "plant work/sd -> \$HOME, create work/sd/x" absent:"$H/x.txt" -- \
		"$A" symlink-dir-create "$H" "$W/sd" x.txt
	deny symlink-dotdot "plant work/up -> .., create work/up/x" absent:"$P/x.txt" -- \
		"$A" symlink-dir-create .. "$W/up" x.txt
	deny dotdot "create work/sub/../../x" absent:"$P/dd.txt" -- "$A" create "$W/sub/../../dd.txt"
	deny sibling-create "create in work-evil (the work dir's name + suffix)" absent:"$S/evil.txt" -- \
		"$A" create "$S/evil.txt"
	deny sibling-overwrite "overwrite work-evil/f.txt" same:"$S/f.txt" -- "$A" create "$S/f.txt"
	deny sibling-mkdir "mkdir WORKx (a new name starting with the work dir's)" absent:"${W}x" -- \
		"$A" mkdir "${W}x"
	deny procroot "create /proc/self/root/\$HOME/x" absent:"$H/pr.txt" -- "$A" procroot "$H/pr.txt"
	deny proccwd "chdir work, create /proc/self/cwd/../x" absent:"$P/pc.txt" -- "$A" proccwd "$W" ../pc.txt
	deny procfd-opath "reopen an O_PATH fd of ~/.bashrc via /proc/self/fd O_WRONLY" same:"$H/.bashrc" -- \
		"$A" procfd-reopen "$H/.bashrc" opath
	deny procfd-rdonly "reopen an O_RDONLY fd of ~/.bashrc via /proc/self/fd O_WRONLY" same:"$H/.bashrc" -- \
		"$A" procfd-reopen "$H/.bashrc" rdonly
	deny chdir-dotdot "chdir work, create ../x" absent:"$P/cd.txt" -- "$A" chdir-create "$W" ../cd.txt
	deny chdir-outside "chdir \$HOME, create x" absent:"$H/cd.txt" -- "$A" chdir-create "$H" cd.txt
	deny dirfd-rdonly "openat(O_CREAT) on a dirfd of \$HOME" absent:"$H/df.txt" -- \
		"$A" dirfd-create "dir:$H" df.txt
	deny dirfd-opath "openat(O_CREAT) on an O_PATH dirfd of \$HOME" absent:"$H/df.txt" -- \
		"$A" dirfd-create "opath:$H" df.txt
	deny dirfd-inherited "openat(O_CREAT) on a dirfd of \$HOME opened before stepguard" fd3:"$H" \
		absent:"$H/df.txt" -- "$A" dirfd-create fd:3 df.txt
	deny fd-inherited "write to ~/.bashrc through an fd opened before stepguard" fd9:"$H/.bashrc" \
		same:"$H/.bashrc" -- "$A" fd-write 9

	# Mode, owner, times, xattrs, flags: what Landlock does not mediate.
	deny chmod "chmod 600 ~/.profile" same:"$H/.profile" -- "$A" chmod "$H/.profile" 0600
	deny chmod-via-symlink "chmod through a symlink planted in the work dir" same:"$H/.profile" -- \
		sh -c '"$1" symlink "$2" "$3" && exec "$1" chmod "$3" 0600' sh "$A" "$H/.profile" "$W/pl"
	deny chmod-dotdot "chmod work/../home/.profile" same:"$H/.profile" -- \
		"$A" chmod "$W/../home/.profile" 0600
	deny chmod-sibling "chmod work-evil/f.txt" same:"$S/f.txt" -- "$A" chmod "$S/f.txt" 0600
	deny chmod-procfd "chmod /proc/self/fd/N of an O_PATH fd" same:"$H/.profile" -- \
		"$A" chmod-procfd "$H/.profile" 0600
	deny fchmod-ro "fchmod on an O_RDONLY fd of ~/.profile" same:"$H/.profile" -- \
		"$A" fchmod-ro "$H/.profile" 0600
	deny fchmodat2 "fchmodat2(2) ~/.profile" same:"$H/.profile" -- "$A" fchmodat2 "$H/.profile" 0600
	deny chown "chown ~/.profile to ${C[0]}:${C[1]}" same:"$H/.profile" -- \
		"$A" chown "$H/.profile" "${C[@]}"
	deny fchown-ro "fchown on an O_RDONLY fd of ~/.profile" same:"$H/.profile" -- \
		"$A" fchown-ro "$H/.profile" "${C[@]}"
	deny chown-emptypath "fchownat(AT_EMPTY_PATH) on an O_PATH fd" same:"$H/.profile" -- \
		"$A" chown-emptypath "$H/.profile" "${C[@]}"
	deny utimensat "utimensat ~/.profile to 2001" same:"$H/.profile" -- "$A" utimensat "$H/.profile"
	deny utimensat-via-symlink "utimensat through a planted symlink" same:"$H/.profile" -- \
		sh -c '"$1" symlink "$2" "$3" && exec "$1" utimensat "$3"' sh "$A" "$H/.profile" "$W/pl"
	deny futimens-ro "futimens on an O_RDONLY fd" same:"$H/.profile" -- "$A" futimens-ro "$H/.profile"
	deny utime "utime(2) ~/.profile" same:"$H/.profile" -- "$A" utime-legacy utime "$H/.profile"
	deny utimes "utimes(2) ~/.profile" same:"$H/.profile" -- "$A" utime-legacy utimes "$H/.profile"
	deny futimesat "futimesat(2) ~/.profile" same:"$H/.profile" -- "$A" utime-legacy futimesat "$H/.profile"
	deny setxattr "setxattr user.x on ~/.profile" same:"$H/.profile" -- \
		"$A" setxattr "$H/.profile" user.sgadv pwned
	deny fsetxattr-ro "fsetxattr on an O_RDONLY fd" same:"$H/.profile" -- \
		"$A" fsetxattr-ro "$H/.profile" user.sgadv pwned
	deny setxattr-procfd "setxattr /proc/self/fd/N of an O_PATH fd" same:"$H/.profile" -- \
		"$A" setxattr-procfd "$H/.profile" user.sgadv pwned
	deny setxattrat "setxattrat(2) (6.13) ~/.profile" same:"$H/.profile" -- \
		"$A" setxattrat "$H/.profile" user.sgadv pwned
	deny removexattr "removexattr user.keep from ~/.profile" same:"$H/.profile" -- \
		"$A" removexattr "$H/.profile" user.keep
	deny fremovexattr-ro "fremovexattr on an O_RDONLY fd" same:"$H/.profile" -- \
		"$A" fremovexattr-ro "$H/.profile" user.keep
	deny removexattrat "removexattrat(2) (6.13) ~/.profile" same:"$H/.profile" -- \
		"$A" removexattrat "$H/.profile" user.keep
	deny setflags "FS_IOC_SETFLAGS (chattr +d) on an O_RDONLY fd" same:"$H/.profile" -- \
		"$A" setflags "$H/.profile"
	deny setversion "FS_IOC_SETVERSION (inode generation) on an O_RDONLY fd" same:"$H/.profile" -- \
		"$A" setversion "$H/.profile"
	deny fssetxattr "FS_IOC_FSSETXATTR (+nodump) on an O_RDONLY fd" same:"$H/.profile" -- \
		"$A" fssetxattr "$H/.profile"
	deny file-setattr "file_setattr(2) (6.17) +nodump on ~/.profile" same:"$H/.profile" -- \
		"$A" file-setattr "$H/.profile"
	deny fchmodat2-emptypath "fchmodat2(O_PATH fd, \"\", AT_EMPTY_PATH)" same:"$H/.profile" -- \
		"$A" emptypath fchmodat2 "$H/.profile"
	deny utimensat-emptypath "utimensat(O_PATH fd, \"\", AT_EMPTY_PATH)" same:"$H/.profile" -- \
		"$A" emptypath utimensat "$H/.profile"
	deny setuid-chown "a set-user-ID root program chowns ~/.profile (no_new_privs)" needs:user needs:suid \
		same:"$H/.profile" -- "${SG_ADV_SUID:-/nonexistent}" chown "$H/.profile" 0 0

	# The supervisor: its listener, nested filters, races, other ABIs.
	deny notify-hijack "answer stepguard's listener (leaked or pidfd_getfd), chmod" same:"$H/.profile" -- \
		"$A" notify-hijack "$H/.profile"
	deny nested-notify "own seccomp notify filter answering CONTINUE, then chmod/utimes/xattr/truncate" \
		same:"$H/.profile" -- "$A" nested-notify "$H/.profile"
	deny race-symlink "flip a work-dir symlink to ~/.profile during chmod/utimes/xattr (2 s)" \
		same:"$H/.profile" -- "$A" race-symlink "$W/rl" "$W/in.txt" "$H/.profile" 2
	deny race-mem "flip the path string in memory during chmod/utimes/xattr (2 s)" \
		same:"$H/.profile" -- "$A" race-mem "$W/in.txt" "$H/.profile" 2
	deny race-fd "flip dirfd/fd numbers between work and \$HOME during fchmodat/fchmod/... (2 s)" \
		setup:setup_work_profile same:"$H/.profile" -- "$A" race-fd "$W" "$H" .profile 2
	deny race-cwd "flip the cwd between work and \$HOME during chmod .profile (2 s)" \
		setup:setup_work_profile same:"$H/.profile" -- "$A" race-cwd "$W" "$H" .profile 2
	deny abi-i386-chmod "chmod through int 0x80 (i386 ABI)" same:"$H/.profile" -- \
		"$A" abi i386 chmod "$H/.profile" 0600
	deny abi-i386-creat "creat through int 0x80 (i386 ABI)" absent:"$H/i386.txt" -- \
		"$A" abi i386 creat "$H/i386.txt"
	deny abi-x32-chmod "chmod through the x32 ABI" same:"$H/.profile" -- "$A" abi x32 chmod "$H/.profile" 0600

	# Escape routes the seccomp filter removes.
	deny open-by-handle "open_by_handle_at with a handle minted outside" setup:mk_handle \
		same:"$H/.bashrc" -- "$A" open-by-handle "$H/.bashrc" "$W" "$W/handle"
	deny open-by-handle-mint "name_to_handle_at + open_by_handle_at" same:"$H/.bashrc" -- \
		"$A" open-by-handle "$H/.bashrc" "$W"
	deny userns-bind "unshare(NEWUSER|NEWNS), bind \$HOME over work/mnt, write" absent:"$H/nb.txt" -- \
		"$A" ns-bind unshare-user "$H" "$W/mnt" nb.txt
	deny clone-userns-bind "clone(NEWUSER|NEWNS), bind \$HOME over work/mnt, write" absent:"$H/nb.txt" -- \
		"$A" ns-bind clone-user "$H" "$W/mnt" nb.txt
	deny opentree-userns "open_tree + move_mount \$HOME over work/mnt, write" absent:"$H/nb.txt" -- \
		"$A" ns-bind opentree-user "$H" "$W/mnt" nb.txt
	deny mountns-bind "unshare(NEWNS) as root, bind \$HOME over work/mnt, write" needs:root \
		absent:"$H/nb.txt" -- "$A" ns-bind unshare-plain "$H" "$W/mnt" nb.txt
	deny io-uring "IORING_OP_OPENAT(O_CREAT) in \$HOME" absent:"$H/iou.txt" -- "$A" io-uring "$H/iou.txt"
	deny tiocsti "TIOCSTI a command into the terminal's next reader" mode-pty absent:"$H/sti.txt" -- \
		"$A" tiocsti "touch $H/sti.txt"$'\n'
	deny tiocsti-hi "TIOCSTI with bit 32 of the request set" mode-pty absent:"$H/sti.txt" -- \
		"$A" tiocsti "touch $H/sti.txt"$'\n' hi
	deny abstract-deputy "ask an unconfined helper on an abstract socket to write" needs:scoping \
		setup:start_deputy teardown:stop_deputy absent:"$H/deputy.txt" -- \
		"$A" deputy-ask "@sg-adv-$RUNID" "$H/deputy.txt"

	# Outliving, killing and tracing stepguard.
	deny daemon-after-exit "double-forked daemon writes 2 s after stepguard exits" done:"$W/daemon.pid.done" \
		absent:"$H/daemon.txt" same:"$H/.profile" -- \
		"$A" daemon-write 2 "$W/daemon.pid" "$H/daemon.txt" "$H/.profile"
	deny kill-guard-then-write "SIGKILL stepguard, then write and chmod/utimes/xattr" done:"$W/kill.done" \
		absent:"$H/killed.txt" same:"$H/.profile" -- \
		"$A" kill-parent-then-write "$H/killed.txt" "$H/.profile" "$W/kill.done"
	deny guard-killed "stepguard SIGKILLed from outside; the step then writes and chmods" kill-parent \
		done:"$W/orphan.done" absent:"$H/orphan.txt" same:"$H/.profile" -- \
		"$A" orphan-then-write "$H/orphan.txt" "$H/.profile" "$W/orphan.done"
	deny proc-other-cwd "create via /proc/PID/cwd of an unconfined process in \$HOME" \
		setup:start_sleeper teardown:stop_sleeper absent:"$H/pc.txt" -- \
		sh -c 'exec "$1" create "/proc/$(cat "$2")/cwd/pc.txt"' sh "$A" "$LOGD/sleeper.pid"
	deny proc-other-fd "reopen /proc/PID/fd/3 (~/.bashrc, O_APPEND) of an unconfined process" \
		setup:start_sleeper teardown:stop_sleeper same:"$H/.bashrc" -- \
		sh -c 'exec "$1" append "/proc/$(cat "$2")/fd/3"' sh "$A" "$LOGD/sleeper.pid"
	deny steal-fd "pidfd_getfd an unconfined process's fd on ~/.bashrc, write" \
		setup:start_sleeper teardown:stop_sleeper same:"$H/.bashrc" -- \
		sh -c 'exec "$1" steal-fd "$(cat "$2")" 3 PWNED-STOLEN' sh "$A" "$LOGD/sleeper.pid"
	deny ptrace-guard "ptrace stepguard, make it mkdir in \$HOME" absent:"$H/ptraced" -- \
		"$A" ptrace-parent "$H/ptraced"
	deny guard-fd-reopen "write to stepguard's descriptors via /proc/PID/fd" fd5:"$H/.bashrc" \
		same:"$H/.bashrc" -- "$A" guard-fd-reopen PWNED-GUARD-FD
	deny mknod-block "as root, mknod a block node of a loop device in work, write" needs:root \
		setup:mk_loop teardown:rm_loop same:"$P/disk.img" -- \
		sh -c "$mknod_cmd" sh "$LOGD/loopnums" "$A" "$W/blk"
	deny device-direct "as root, write a loop device node outside the roots" needs:root \
		setup:mk_loop teardown:rm_loop same:"$P/disk.img" -- "$A" overwrite "$LOGD/loopdev" PWNED-DEV
	deny procsys "as root, write /proc/sys/kernel/domainname (in a UTS namespace of the harness's)" \
		needs:root setup:start_uts teardown:stop_uts check:check_uts -- \
		"$A" overwrite /proc/sys/kernel/domainname sg-adv-pwned

	# Reaching outside through other processes (issue 16).  The outside
	# processes are the harness's, of the step's user, started before the
	# step and unconfined; a case that needs:GAP is skipped where
	# stepguard --check reports that gap, and judged everywhere else.
	local HP=@$LOGD/holder.pid
	deny proc-environ "read /proc/PID/environ of an outside process of the same user" \
		setup:start_holder teardown:stop_holder check:check_stolen_environ -- \
		"$A" proc-read "$HP" environ "$W/stolen"
	deny proc-maps "read /proc/PID/maps of that process" \
		setup:start_holder teardown:stop_holder check:check_stolen_maps -- \
		"$A" proc-read "$HP" maps "$W/stolen"
	deny proc-auxv "read /proc/PID/auxv of that process" \
		setup:start_holder teardown:stop_holder check:check_stolen_auxv -- \
		"$A" proc-read "$HP" auxv "$W/stolen"
	deny proc-cmdline "read /proc/PID/cmdline of that process" needs:proc \
		setup:start_holder teardown:stop_holder check:check_stolen_cmdline -- \
		"$A" proc-read "$HP" cmdline "$W/stolen"
	deny fs-label "as root, FS_IOC_SETFSLABEL on a scratch ext4 mounted in the work dir, O_RDONLY fd" \
		needs:root setup:mk_scratch_fs teardown:rm_scratch_fs check:check_fs_label -- \
		"$A" fs-ioctl setlabel "$W/mnt" sg-adv-pwned
	deny fs-freeze "as root, FIFREEZE that scratch ext4 through an O_RDONLY fd" \
		needs:root setup:mk_scratch_fs teardown:rm_scratch_fs check:check_fs_thawed -- \
		"$A" fs-ioctl freeze "$W/mnt"
	deny fs-thaw "as root, FITHAW that scratch ext4, frozen from outside" \
		needs:root setup:mk_frozen_fs teardown:rm_scratch_fs check:check_fs_frozen -- \
		"$A" fs-ioctl thaw "$W/mnt"
	deny unix-deputy "ask an unconfined daemon on a pathname socket in /tmp to write" needs:unix-sockets \
		setup:start_path_deputy teardown:stop_deputy absent:"$H/udeputy.txt" -- \
		"$A" deputy-ask "$T.deputy" "$H/udeputy.txt"
	deny sysv-ipc-other "msgsnd to an outside process's System V queue, write its shared memory" needs:ipc \
		setup:start_ipc_holder teardown:stop_ipc_holder check:check_ipc -- "$A" ipc-attack "$LOGD/ipc.ids"
	deny mq-unlink-other "mq_unlink an outside POSIX message queue of the same user" \
		setup:mk_mq teardown:rm_mq check:check_mq_kept -- "$A" mq-unlink "$MQ.q"
	deny mq-create "mq_open(O_CREAT) a new POSIX message queue" teardown:rm_mq check:check_mq_none -- \
		"$A" mq-create "$MQ.new"
	deny sched-other "setpriority, sched_setaffinity, prlimit(RLIMIT_FSIZE) on an outside process" needs:sched \
		setup:start_sched_target teardown:stop_sleeper check:check_sched -- \
		"$A" sched-set "@$LOGD/sleeper.pid"
	deny mm-other "migrate_pages, move_pages, process_madvise on an outside process" \
		setup:start_sleeper teardown:stop_sleeper check:check_mm -- \
		"$A" mm-pages "@$LOGD/sleeper.pid" "$W/mm.out"
	deny pty-other "write to a terminal whose slave an outside process holds" needs:ptys \
		setup:start_pty_holder teardown:stop_pty_holder check:check_pty -- \
		"$A" pty-write "@$LOGD/pty.path" SG-ADV-PTY-PWNED
	deny core-limit "RLIMIT_CORE is 1/1 in the step; raise it, leave a process holding it" \
		check:check_core -- "$A" core-raise "$W/core.pid"

	# Positive controls: the same kinds of operation inside the work dir.
	allow create "create a file" file:"$W/new.txt=adversary" -- "$A" create "$W/new.txt"
	allow mm-self "migrate_pages, move_pages, process_madvise on the step itself" \
		file:"$W/mm.out=mm-ok" -- "$A" mm-pages self "$W/mm.out"
	allow append "append" file:"$W/in.txt=inside
PWNED-APPEND" -- "$A" append "$W/in.txt"
	allow truncate "truncate(2)" size:"$W/in.txt=2" -- "$A" truncate "$W/in.txt" 2
	allow otrunc "open(O_RDONLY|O_TRUNC)" size:"$W/in.txt=0" -- "$A" otrunc "$W/in.txt"
	allow ftruncate "ftruncate on an O_WRONLY fd" size:"$W/in.txt=0" -- "$A" ftrunc "$W/in.txt"
	allow mkdir-nested "mkdir -p a/b/c/d" type:"$W/a/b/c/d=d" -- "$A" mkdir-p "$W/a/b/c/d"
	allow rmdir "rmdir" setup:setup_rmdir gone:"$W/rmme" -- "$A" rmdir "$W/rmme"
	allow unlink "unlink" gone:"$W/in.txt" -- "$A" unlink "$W/in.txt"
	allow rename "rename into a subdir" file:"$W/sub/moved=inside" gone:"$W/in.txt" -- \
		"$A" rename "$W/in.txt" "$W/sub/moved"
	allow rename-dir "rename a directory" type:"$W/sub2=d" gone:"$W/sub" -- "$A" rename "$W/sub" "$W/sub2"
	allow exchange "RENAME_EXCHANGE two files" file:"$W/in.txt=bee" file:"$W/b.txt=inside" -- \
		"$A" exchange "$W/in.txt" "$W/b.txt"
	allow link "hard link into a subdir" file:"$W/sub/hl=inside" -- "$A" link "$W/in.txt" "$W/sub/hl"
	allow symlink-write "symlink, write through it" file:"$W/in.txt=inside
PWNED-SYMLINK" type:"$W/sl=l" -- "$A" symlink-write "$W/in.txt" "$W/sl"
	allow symlink-dir "symlink to a subdir, create beneath it" type:"$W/sub/x.txt=f" -- \
		"$A" symlink-dir-create "$W/sub" "$W/sd" x.txt
	allow tmpfile "O_TMPFILE + linkat" file:"$W/tmpf=PWNED-TMPFILE" -- "$A" tmpfile "$W" "$W/tmpf"
	allow procfd-reopen "reopen an O_PATH fd via /proc/self/fd O_WRONLY" file:"$W/in.txt=inside
PWNED-PROCFD" -- "$A" procfd-reopen "$W/in.txt" opath
	allow procroot "create via /proc/self/root" type:"$W/pr.txt=f" -- "$A" procroot "$W/pr.txt"
	allow dirfd "openat(O_CREAT) on a dirfd" type:"$W/df.txt=f" -- "$A" dirfd-create "dir:$W" df.txt
	allow chdir "chdir, create a relative name" type:"$W/sub/cd.txt=f" -- "$A" chdir-create "$W/sub" cd.txt
	allow mkfifo "mkfifo" type:"$W/fifo=p" -- "$A" mkfifo "$W/fifo"
	allow bind-unix "bind an AF_UNIX socket" type:"$W/sock=s" -- "$A" bind-unix "$W/sock"
	allow chmod-x "chmod +x (0755)" mode:"$W/in.txt=0755" -- "$A" chmod "$W/in.txt" 0755
	allow chmod-via-symlink "chmod through a symlink to a work file" setup:setup_symlink_in \
		mode:"$W/in.txt=0600" -- "$A" chmod "$W/inlink" 0600
	allow fchmod-ro "fchmod on an O_RDONLY fd" mode:"$W/in.txt=0600" -- "$A" fchmod-ro "$W/in.txt" 0600
	allow fchmodat2 "fchmodat2(2)" mode:"$W/in.txt=0700" -- "$A" fchmodat2 "$W/in.txt" 0700
	allow chown "chown to ${C[0]}:${C[1]}" needs:chgrp \
		owner:"$W/in.txt=$([ "$STEP_UID" = 0 ] && echo 4242:4242 || echo "$STEP_UID:$ALTGID")" -- \
		"$A" chown "$W/in.txt" "${C[@]}"
	allow utimensat "utimensat (touch -d 2001-01-01)" mtime:"$W/in.txt=978307200" -- "$A" utimensat "$W/in.txt"
	allow utimes "utimes(2)" mtime:"$W/in.txt=978307200" -- "$A" utime-legacy utimes "$W/in.txt"
	allow setxattr "setxattr user.x" xattr:"$W/in.txt=user.sgadv=ok" -- "$A" setxattr "$W/in.txt" user.sgadv ok
	allow removexattr "removexattr user.keep" noxattr:"$W/in.txt=user.keep" -- \
		"$A" removexattr "$W/in.txt" user.keep
	allow deep-tree "a 40-deep tree and a leaf" \
		file:"$W/tree/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/leaf=leaf" -- \
		sh -c 'mkdir tree && exec "$1" deep-tree tree 40' sh "$A"
	allow pipeline "printf x | tr x y > out" file:"$W/out=y" -- sh -c 'printf x | tr x y > out'
	allow dev-null "write /dev/null" file:"$W/devnull.ok=ok" -- \
		sh -c '"$1" append /dev/null && echo ok > devnull.ok' sh "$A"
	allow allow-write "--allow-write DIR, create in it" sgopt:--allow-write sgopt:"$X" \
		file:"$X/new.txt=adversary" -- "$A" create "$X/new.txt"

	# Positive controls for the cases on other processes: the step's own.
	allow proc-self-environ "read /proc/self/environ" holds:"$W/own=SG_ADV_RUN=$RUNID" -- \
		"$A" proc-read self environ "$W/own"
	allow proc-child-environ "read /proc/PID/environ of the step's own child" \
		holds:"$W/own=SG_ADV_CHILD=own-child" -- "$A" proc-read child environ "$W/own"
	allow unix-socket-inside "a daemon's socket in the work dir: connect, have it write there" \
		setup:start_work_deputy teardown:stop_deputy file:"$W/udeputy.txt=PWNED-DEPUTY" -- \
		"$A" deputy-ask "$W/deputy.sock" "$W/udeputy.txt"
	allow sysv-ipc-own "the step's own msgget/msgsnd/msgrcv and shmget/shmat" file:"$W/ipc.ok=ipc-ok" -- \
		"$A" ipc-own "$W/ipc.ok"
	allow sched-child "setpriority, sched_setaffinity, prlimit(RLIMIT_FSIZE) on the step's own child" \
		file:"$W/sched.ok=sched-ok" -- "$A" sched-set child "$W/sched.ok"
	allow pty-own "the step's own pty pair: write the slave, read the master" file:"$W/pty.ok=pty-ok" -- \
		"$A" pty-own "$W/pty.ok"
	allow script "script -qc true /dev/null exits 0" file:"$W/script.ok=ok" -- \
		sh -c 'script -qc true /dev/null && echo ok > script.ok'
}

if [ "$LIST" = 1 ]; then
	cases
	exit 0
fi

# What stepguard itself reports it cannot cover here (--check), as this
# pass's user and with its --filter: a case that needs:scoping is skipped,
# with this as the reason, where Landlock has no scopes (ABI < 6) to keep
# a step from abstract sockets outside; one that needs:GAP where GAP is
# among these.
NOT_COVERED=$(cd "$BASE" && env "${SUDO_ENV[@]}" "$SG" ${FILTER:+--filter "$FILTER"} -w "$BASE" --check -- true 2>&1 |
	sed -n 's/^# write filter: .*; not covered: //p')
echo "== adversarial suite as $LABEL (uid $STEP_UID, groups $(id -G "$STEP_USER")), kernel $(uname -r)"
echo "   stepguard: $SG${FILTER:+ --filter $FILTER}; not covered: ${NOT_COVERED:-(--check did not say)}"
echo "   tree: $BASE (work dir $W)"
cases
if [ -n "${SG_ADV_INNER:-}" ]; then
	echo "adversarial (as $LABEL): $NPASS passed, $NFAIL failed, $NSKIP skipped"
	[ -n "${SG_ADV_RESULT:-}" ] && echo "$NPASS $NFAIL $NSKIP" >"$SG_ADV_RESULT"
else
	echo "adversarial: $NPASS passed, $NFAIL failed, $NSKIP skipped"
fi
[ "$NFAIL" = 0 ]
