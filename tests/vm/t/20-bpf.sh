# 20-bpf.sh — the eBPF write filter (bpf/), driven by bpfdrive without the
# launcher: in each attach mode this boot allows, the four P-51 writes are
# refused and the control lands (judged from outside), every other kind of
# write is refused outside the roots and allowed inside, the guards hold,
# the step cannot reach outside through other processes (their scheduling
# and limits, their /proc files, daemons' sockets, descriptors handed in:
# reach()), a daemon that outlives its step (or a killed driver) stays confined,
# scopes do not see each other's roots, audit mode lets writes through and
# says so, and a second run reuses the pinned programs.  Without bpf in
# lsm=, the lsm mode must be refused by the probe, never attached.
#
# Needs bpfdrive (tests/bpf/bpfdrive.c); the adversary (tests/host/
# adversary.c) for the rows that need one exact syscall; ext4 and attr's
# tools for xattrs.
#
# needs: bpfdrive adversary mkfs.ext4 setfattr getfattr losetup

echo "  bpfdrive pins: $(bpfdrive --version)"

# --- Which modes this boot allows --------------------------------------

# The plan: each mode's suite reports 63 results (p51, p51-events,
# p51-user, stale, reuse; adversarial 29: 19 refused, 7 allowed, xattr,
# removexattr, chattr; guards 5; reach 15; lost, scopes, audit; daemons
# 3; unload-busy, unload, unload-pins); before them, bpf-fmod-probe and
# two bpf-lsm-probe rows, or five rows of the lsm mode refused.
if vm_lsm_active bpf; then
	modes="lsm fmod"
	vm_plan $((3 + 2 * 72)) "2 probes, the LSM list read, 72 a mode"
	vm_expect bpf-lsm-probe 0 'probe bpf-lsm: ok' bpfdrive --mode lsm --probe
	# The decision behind bpf-lsm-probe-refused, which only a boot
	# without bpf in lsm= runs, judged in this one too: the loader reads
	# the active LSMs from securityfs, and with a list that lacks bpf
	# bound over it the probe must refuse by name, although lsm/
	# programs would load here and run.
	echo "lockdown,capability,landlock,yama" > /run/sg-lsm-unlisted
	if mount --bind /run/sg-lsm-unlisted /sys/kernel/security/lsm 2> /dev/null; then
		vm_expect bpf-lsm-probe-unlisted 3 'bpf is not an active LSM' bpfdrive --mode lsm --probe
		umount /sys/kernel/security/lsm
	else
		skip bpf-lsm-probe-unlisted "cannot bind a file over /sys/kernel/security/lsm"
	fi
else
	modes="fmod"
	vm_plan $((6 + 72)) "the lsm mode refused (5), the fmod probe, 72 for fmod"
	# A lsm/ program would attach here and enforce nothing: the probe
	# must say so, and open must refuse before loading anything.
	vm_expect bpf-lsm-probe-refused 3 'bpf is not an active LSM' bpfdrive --mode lsm --probe
	# Start clean: pins a stepguard left (its fmod set shares the maps and
	# runs the hooks) would make the forced lsm set below look enforcing.
	bpfdrive --unload --force > /dev/null 2>&1
	# The refused runs' step writes a marker inside its root first thing:
	# refused, it must never run (the control below shows it would).
	mark=/tmp/bpf-lsm-step-ran
	before=$(bpfdrive --max-prog-id)
	vm_refused bpf-lsm-open-refused 3 'not an active LSM' $mark \
		bpfdrive --mode lsm --root /tmp -- sh -c "echo ran > $mark"
	after=$(bpfdrive --max-prog-id)
	# No new program id (ids only grow; one freed late, after the unload
	# above, may lower the maximum, never raise it).
	if [ "${after##* }" -le "${before##* }" ] && [ ! -e /sys/fs/bpf/stepguard/"$(bpfdrive --version)"/lsm ]; then
		pass bpf-lsm-nothing-loaded "no program loaded, no lsm pins ($after)"
	else
		fail bpf-lsm-nothing-loaded "programs or pins appeared: $before -> $after"
	fi
	# The fact behind the probe, and the second line of defence: forced
	# past the probe, the lsm/ set attaches without an error, and
	# adding a scope sees that the hooks never run.
	vm_refused bpf-lsm-attached-not-enforcing 4 'add scope: Operation not supported' $mark \
		bpfdrive --mode lsm --force-attach --root /tmp -- sh -c "echo ran > $mark"
	bpfdrive --unload --force > /dev/null 2>&1
	vm_ran bpf-lsm-refused-control 0 '' $mark bpfdrive --mode fmod --root /tmp -- sh -c "echo ran > $mark"
	rm -f $mark
	bpfdrive --unload --force > /dev/null 2>&1
fi

# Pins of another version are reported and left alone.
stale=v0_0_9-5ca1ab1e
mkdir -p /sys/fs/bpf/stepguard/$stale
vm_expect bpf-fmod-probe 0 'probe bpf-fmod: ok' bpfdrive --mode fmod --probe

# --- Helpers ------------------------------------------------------------

# drv ARGS...: bpfdrive in this suite's mode.  /dev/null is a root, as in
# the launcher's default policy: "2> /dev/null" must not fail in a step.
drv() { bpfdrive --mode "$m" --root /dev/null "$@"; }

# exists PATH: 0 when PATH exists (not following a final symlink)
exists() { [ -e "$1" ] || [ -L "$1" ]; }

# state PATH: what a write would change, for judging from outside (the
# content of a regular file only: reading a fifo that a step was wrongly
# let create would block the whole boot)
state() {
	if exists "$1"; then
		echo "$(stat -c '%F %a %u %g %s %Y %h' "$1") $([ -f "$1" ] && md5sum < "$1" 2> /dev/null | cut -c1-32)"
	else
		echo absent
	fi
}

# events NAME: the EVENT lines of NAME's output, each from "EVENT" on.  The
# step's stderr shares the file, and busybox writes "sh: " and the rest of
# its message in two writes: an event printed between them starts mid-line.
events() { sed -n 's/^.*\(EVENT op=\)/\1/p' "$VMTEST_STATE/$1.out"; }

# has_event NAME REGEX: one EVENT line of NAME's output matches (grep -E)
has_event() { events "$1" | grep -Eq -- "$2"; }

# --- One mode -------------------------------------------------------------

suite() {
	m=$1
	t=bpf-$m
	ws=/var/tmp/ws-$m
	w=$ws/work
	rm -rf "$ws"
	mkdir -p "$w"
	echo "== $t (work dir $w)"

	# Cold or warm, the first run of this mode: the P-51 probe.  The
	# step runs as root with HOME=/root; a shell redirect is
	# open(O_WRONLY|O_CREAT|O_TRUNC), which creates through path_mknod.
	rm -f /root/p51-file-$m /root/.p51-dot-$m /tmp/p51-tmp-$m $ws/p51-parent-$m
	vm_run $t-p51 env HOME=/root bpfdrive --mode $m --root "$w" --root /dev/null -- sh -c '
		for f in "$HOME/p51-file-'$m'" "$HOME/.p51-dot-'$m'" /tmp/p51-tmp-'$m' \
			"'$w'/../p51-parent-'$m'"; do
			echo probe > "$f" || echo "refused: $f"
		done
		echo control > "'$w'/control" && echo landed: control
		echo "dev-null" > /dev/null && echo landed: /dev/null'
	landed=
	for f in /root/p51-file-$m /root/.p51-dot-$m /tmp/p51-tmp-$m $ws/p51-parent-$m; do
		exists "$f" && landed="$landed $f"
	done
	if [ "$vm_status" != 0 ]; then
		fail $t-p51 "bpfdrive exited $vm_status"
	elif [ -n "$landed" ]; then
		fail $t-p51 "outside writes landed:$landed"
	elif [ "$(cat "$w/control" 2> /dev/null)" != control ]; then
		fail $t-p51 "the control write inside the work dir did not land"
	else
		pass $t-p51 "four P-51 writes refused, control landed (judged from outside)"
	fi
	n=$(events $t-p51 | wc -l)
	missing=
	for p in /root/p51-file-$m /root/.p51-dot-$m /tmp/p51-tmp-$m $ws/p51-parent-$m; do
		has_event $t-p51 "^EVENT op=create decision=denied errno=13 .* path=$p\$" || missing="$missing $p"
	done
	if [ "$n" = 4 ] && [ -z "$missing" ]; then
		pass $t-p51-events "exactly four create/denied events with the right paths"
	else
		fail $t-p51-events "$n events; missing:${missing:- none}"
	fi
	# The same probe after the step drops to an unprivileged user (as
	# the launcher does): the mark survives the uid change, and $HOME is
	# the user's own, writable without the filter.
	uw=/home/sgtest/ws-$m/work
	mkdir -p "$uw"
	chown -R 1000:1000 /home/sgtest/ws-$m
	rm -f /home/sgtest/p51-file-$m /home/sgtest/.p51-dot-$m /tmp/p51-user-$m
	vm_run $t-p51-user bpfdrive --mode $m --root "$uw" --root /dev/null -- \
		su -s /bin/sh sgtest -c '
		for f in "$HOME/p51-file-'$m'" "$HOME/.p51-dot-'$m'" /tmp/p51-user-'$m' \
			"'$uw'/../p51-parent-'$m'"; do
			echo probe > "$f" || echo "refused: $f"
		done
		echo control > "'$uw'/control" && echo landed: control'
	landed=
	for f in /home/sgtest/p51-file-$m /home/sgtest/.p51-dot-$m /tmp/p51-user-$m \
		/home/sgtest/ws-$m/p51-parent-$m; do
		exists "$f" && landed="$landed $f"
	done
	if [ -n "$landed" ]; then
		fail $t-p51-user "outside writes landed:$landed"
	elif [ "$(cat "$uw/control" 2> /dev/null)" != control ] ||
		[ "$(stat -c %u "$uw/control")" != 1000 ]; then
		fail $t-p51-user "the control write (as uid 1000) did not land"
	elif [ "$(events $t-p51-user | grep -c ' uid=1000 ')" != 4 ]; then
		fail $t-p51-user "expected four events with uid=1000"
	else
		pass $t-p51-user "as uid 1000: four refused (four events), control landed"
	fi

	if grep -q "open bpf-$m: loaded" "$VMTEST_STATE/$t-p51.out"; then
		echo "  cold: $(grep "open bpf-$m" "$VMTEST_STATE/$t-p51.out")"
	fi
	if grep -q "other versions' pins, left alone: .*$stale" "$VMTEST_STATE/$t-p51.out" &&
		[ -d /sys/fs/bpf/stepguard/$stale ]; then
		pass $t-stale "another version's pins reported and left alone"
	else
		fail $t-stale "$stale not reported, or removed"
	fi

	# The pins: a second run must not load or verify anything.
	bpfdrive --mode $m --prog-ids > "$VMTEST_STATE/$t-ids1" 2>&1
	ids1=$(grep '^prog-ids:' "$VMTEST_STATE/$t-ids1")
	max1=$(bpfdrive --max-prog-id)
	vm_run $t-reuse drv --root "$w" -- sh -c 'echo again > "'$w'/again"'
	ids2=$(bpfdrive --mode $m --prog-ids | grep '^prog-ids:')
	max2=$(bpfdrive --max-prog-id)
	if ! grep -q "open bpf-$m: reused [0-9]* pinned programs" "$VMTEST_STATE/$t-reuse.out"; then
		fail $t-reuse "the second run did not reuse the pins"
	elif [ "$ids1" != "$ids2" ] || [ "$max1" != "$max2" ] || [ "${ids1#prog-ids: }" = "$ids1" ]; then
		fail $t-reuse "program ids changed: $ids1 / $max1 -> $ids2 / $max2"
	elif [ "$(cat "$w/again" 2> /dev/null)" != again ]; then
		fail $t-reuse "the step of the second run did not run"
	else
		pass $t-reuse "reused: same programs ($(echo "${ids1#prog-ids: }" | wc -w)), $max2, nothing new loaded"
	fi
	grep -E '^(verified-insns|recursion-misses)' "$VMTEST_STATE/$t-ids1" | vm_show

	# Every other way to write, each refused outside and allowed inside.
	adversarial "$m" "$ws" "$w"
	guards "$m" "$ws" "$w"
	reach "$m" "$ws" "$w"
	lost "$m" "$ws" "$w"
	scopes "$m" "$ws" "$w"
	audit "$m" "$ws" "$w"
	daemons "$m" "$ws" "$w"

	# Unload: refused while a step runs, then the pins go.  The step
	# runs until told to end, after the attempt.
	rm -f "$w/busy-started" /run/busy-go-$m
	drv --root "$w" -- sh -c "$vm_await"'
		echo > "$1/busy-started"
		await /run/busy-go-'$m' "unload tried"' sh "$w" > "$VMTEST_STATE/$t-busy.out" 2>&1 &
	busy=$!
	i=0
	while [ ! -e "$w/busy-started" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ ! -e "$w/busy-started" ]; then
		vm_show < "$VMTEST_STATE/$t-busy.out"
		fail $t-unload-busy "the step that keeps the scope did not start"
	else
		vm_expect $t-unload-busy 1 'still confined' bpfdrive --unload
	fi
	touch /run/busy-go-$m
	wait $busy
	vm_expect $t-unload 0 'unloaded' bpfdrive --unload --force
	if [ -e /sys/fs/bpf/stepguard/"$(bpfdrive --version)" ]; then
		fail $t-unload-pins "pins remain: $(ls /sys/fs/bpf/stepguard/"$(bpfdrive --version)")"
	else
		pass $t-unload-pins "no pins left"
	fi
}

# adv_refused NAME OP-REGEX TARGET... -- ADVERSARY-ARGS: run one adversary
# command confined; PASS when TARGET (all given) did not change and an
# event OP-REGEX was sent.
adv_refused() {
	name=$1 re=$2
	shift 2
	targets=
	while [ "$1" != -- ]; do
		targets="$targets $1"
		shift
	done
	shift
	before=
	for f in $targets; do before="$before|$(state "$f")"; done
	vm_run $name drv --root "$w" -- adversary "$@"
	after=
	for f in $targets; do after="$after|$(state "$f")"; done
	if [ "$before" != "$after" ]; then
		fail $name "changed:$targets ($before -> $after)"
	elif ! has_event $name "$re"; then
		fail $name "unchanged, but no event /$re/"
	else
		pass $name "unchanged, event /$re/"
	fi
}

# adv_allowed NAME CHECK -- ADVERSARY-ARGS: the same operation inside
# the roots works (CHECK is a shell test run afterwards, outside).
adv_allowed() {
	name=$1 check=$2
	shift 3
	vm_run $name drv --root "$w" -- adversary "$@"
	if eval "$check" && ! events $name | grep -q .; then
		pass $name "landed inside, no event"
	else
		fail $name "inside: check [$check] failed or events sent: $(events $name | head -n 2)"
	fi
}

adversarial() {
	m=$1 ws=$2 w=$3
	t=bpf-$m
	o=$ws/outside
	mkdir -p "$o/dir"
	echo outside > "$o/file"
	echo inside > "$w/file"
	touch -d 2001-01-01 "$o/file"

	adv_refused $t-otrunc '^EVENT op=open .*path='"$o/file" "$o/file" -- otrunc "$o/file"
	adv_refused $t-truncate '^EVENT op=truncate .*path='"$o/file" "$o/file" -- truncate "$o/file" 0
	adv_refused $t-append '^EVENT op=open .*path='"$o/file" "$o/file" -- append "$o/file" x
	adv_refused $t-chmod '^EVENT op=chmod .*path='"$o/file" "$o/file" -- chmod "$o/file" 0600
	adv_refused $t-chown '^EVENT op=chown .*path='"$o/file" "$o/file" -- chown "$o/file" 1000 1000
	adv_refused $t-utimes '^EVENT op=utimes .*path='"$o/file" "$o/file" -- utimensat "$o/file"
	adv_refused $t-futimens '^EVENT op=utimes .*path='"$o/file" "$o/file" -- futimens-ro "$o/file"
	adv_refused $t-mkdir '^EVENT op=mkdir .*path='"$o/new" "$o/new" -- mkdir "$o/new"
	adv_refused $t-rmdir '^EVENT op=rmdir .*path='"$o/dir" "$o/dir" -- rmdir "$o/dir"
	adv_refused $t-unlink '^EVENT op=unlink .*path='"$o/file" "$o/file" -- unlink "$o/file"
	adv_refused $t-mkfifo '^EVENT op=mknod .*path='"$o/fifo" "$o/fifo" -- mkfifo "$o/fifo"
	adv_refused $t-symlink '^EVENT op=symlink .*path='"$o/sym" "$o/sym" -- symlink /etc/passwd "$o/sym"
	adv_refused $t-rename-out '^EVENT op=rename .*path='"$w/file"' path2='"$o/moved" \
		"$w/file" "$o/moved" -- rename "$w/file" "$o/moved"
	adv_refused $t-rename-in '^EVENT op=rename .*path='"$o/file"' path2='"$w/moved" \
		"$o/file" "$w/moved" -- rename "$o/file" "$w/moved"
	adv_refused $t-exchange '^EVENT op=rename .*path='"$w/file"' path2='"$o/file" \
		"$w/file" "$o/file" -- exchange "$w/file" "$o/file"
	adv_refused $t-link-source '^EVENT op=link .*path='"$o/file"' path2='"$w/hard" \
		"$o/file" "$w/hard" -- link-write "$o/file" "$w/hard"
	# O_TMPFILE: refused at the open already (the file would be in $o)
	adv_refused $t-tmpfile '^EVENT op=(open|link) .*path='"$o/" \
		"$o/tmplink" -- tmpfile "$o" "$o/tmplink"
	adv_refused $t-procfd '^EVENT op=open .*path='"$o/file" "$o/file" -- procfd-reopen "$o/file" opath
	adv_refused $t-io-uring '^EVENT op=create .*path='"$o/uring" "$o/uring" -- io-uring "$o/uring"

	# The same operations inside land, and say nothing.
	adv_allowed $t-in-otrunc '[ ! -s "$w/file" ]' -- otrunc "$w/file"
	adv_allowed $t-in-chmod '[ "$(stat -c %a "$w/file")" = 600 ]' -- chmod "$w/file" 0600
	adv_allowed $t-in-utimes '[ "$(stat -c %Y "$w/file")" -lt 1000000000 ]' -- utimensat "$w/file"
	adv_allowed $t-in-rename '[ -e "$w/renamed" ]' -- rename "$w/file" "$w/renamed"
	adv_allowed $t-in-link '[ "$(stat -c %h "$w/renamed")" = 2 ]' -- link "$w/renamed" "$w/hard2"
	adv_allowed $t-in-mkfifo '[ -p "$w/fifo" ]' -- mkfifo "$w/fifo"
	adv_allowed $t-in-io-uring '[ -e "$w/uring" ]' -- io-uring "$w/uring"

	# xattrs need a real file system: ext4 on a loop device.
	xattrs "$m" "$ws"
}

xattrs() {
	m=$1 ws=$2
	t=bpf-$m
	img=/tmp/xattr-$m.img
	mnt=/mnt/x-$m
	rm -f "$img"
	mkdir -p "$mnt"
	if ! { truncate -s 16M "$img" && mkfs.ext4 -q -F "$img" > /dev/null 2>&1 &&
		dev=$(losetup -f) && losetup "$dev" "$img" && mount -t ext4 "$dev" "$mnt"; }; then
		fail $t-xattr "could not mount an ext4 image"
		return
	fi
	mkdir -p "$mnt/work"
	echo a > "$mnt/out"
	echo b > "$mnt/work/in"
	vm_run $t-xattr drv --root "$mnt/work" -- sh -c '
		setfattr -n user.sg -v 1 '"$mnt"'/out; echo "out: $?"
		setfattr -n user.sg -v 1 '"$mnt"'/work/in; echo "in: $?"'
	o=$(getfattr -n user.sg --only-values "$mnt/out" 2> /dev/null)
	i=$(getfattr -n user.sg --only-values "$mnt/work/in" 2> /dev/null)
	if [ -z "$o" ] && [ "$i" = 1 ] && has_event $t-xattr "^EVENT op=setxattr .*path=$mnt/out\$"; then
		pass $t-xattr "setxattr refused outside (event), landed inside, on ext4"
	else
		fail $t-xattr "outside=[$o] inside=[$i]"
	fi
	setfattr -n user.rm -v 1 "$mnt/out"
	vm_run $t-removexattr drv --root "$mnt/work" -- setfattr -x user.rm "$mnt/out"
	if [ "$(getfattr -n user.rm --only-values "$mnt/out" 2> /dev/null)" = 1 ] &&
		has_event $t-removexattr '^EVENT op=removexattr '; then
		pass $t-removexattr "removexattr refused outside (event)"
	else
		fail $t-removexattr "the xattr was removed, or no event"
	fi
	# Inode flags through an ioctl on a read-only descriptor (chattr +d).
	before=$(adversary snapshot "$mnt/out" | sed 's/ ctime=[^ ]*//')
	vm_run $t-chattr drv --root "$mnt/work" -- adversary setflags "$mnt/out"
	after=$(adversary snapshot "$mnt/out" | sed 's/ ctime=[^ ]*//')
	vm_run $t-in-chattr drv --root "$mnt/work" -- adversary setflags "$mnt/work/in"
	if [ "$before" != "$after" ]; then
		fail $t-chattr "the flags changed: $before -> $after"
	elif ! has_event $t-chattr "^EVENT op=chattr .*path=$mnt/out\$"; then
		fail $t-chattr "unchanged, but no event"
	elif [ "$vm_status" != 0 ] || events $t-in-chattr | grep -q .; then
		fail $t-in-chattr "the same ioctl inside was refused (exit $vm_status)"
	else
		pass $t-chattr "FS_IOC_SETFLAGS refused outside (event), allowed inside"
	fi
	umount "$mnt"
	losetup -d "$dev"
	rm -f "$img"
}

# The filter guards itself and its driver.
guards() {
	m=$1 ws=$2 w=$3
	t=bpf-$m
	# A signal to the (unconfined) driver is refused; one inside the
	# step's own scope is not.
	vm_run $t-kill drv --root "$w" -- sh -c '
		kill -TERM $PPID && echo "killed the driver"
		sleep 5 & kill $! && echo "killed own child"'
	if grep -q '^bpfdrive: end ' "$VMTEST_STATE/$t-kill.out" &&
		grep -q 'killed own child' "$VMTEST_STATE/$t-kill.out" &&
		! grep -q 'killed the driver' "$VMTEST_STATE/$t-kill.out" &&
		has_event $t-kill '^EVENT op=kill decision=denied errno=1 '; then
		pass $t-kill "signal to the driver refused (it lived on), own child killed"
	else
		fail $t-kill "see the output above"
	fi
	# Reading /proc/<driver>/exe's link asks ptrace_may_access() (so do
	# /fd and, at open, /environ and /mem: those opens are refused first
	# by file_open's /proc rule, see reach()).
	vm_run $t-ptrace drv --root "$w" -- sh -c '
		readlink /proc/$PPID/exe > /dev/null && echo "read the driver exe link"
		readlink /proc/$$/exe > /dev/null && echo "read own exe link"'
	if ! grep -q 'read the driver exe link' "$VMTEST_STATE/$t-ptrace.out" &&
		grep -q 'read own exe link' "$VMTEST_STATE/$t-ptrace.out" &&
		has_event $t-ptrace '^EVENT op=ptrace decision=denied '; then
		pass $t-ptrace "the driver's /proc/PID/exe link refused, own allowed"
	else
		fail $t-ptrace "see the output above"
	fi
	# bpf(2): the step cannot open the filter's maps.
	vm_expect $t-bpf 4 'Operation not permitted' drv --root "$w" -- \
		bpfdrive --mode $m --prog-ids
	# A mount would change what paths name.
	mkdir -p "$w/mnt"
	vm_run $t-mount drv --root "$w" -- mount -t tmpfs none "$w/mnt"
	if grep -q " $w/mnt " /proc/mounts; then
		fail $t-mount "the step mounted a tmpfs"
		umount "$w/mnt"
	elif has_event $t-mount '^EVENT op=mount '; then
		pass $t-mount "mount refused (event)"
	else
		fail $t-mount "not mounted, but no event"
	fi
	# Reading is never refused; a pipe reopened through /dev/stdout is
	# not a file in the tree.
	vm_run $t-reads drv --root "$w" -- sh -c '
		cat /etc/passwd > /dev/null && echo "read ok"
		(echo "via stdout" > /proc/self/fd/1) | cat'
	if grep -q 'read ok' "$VMTEST_STATE/$t-reads.out" && grep -q 'via stdout' "$VMTEST_STATE/$t-reads.out" &&
		! events $t-reads | grep -q .; then
		pass $t-reads "reads and a reopened pipe are not writes to the tree"
	else
		fail $t-reads "see the output above"
	fi
}

# --- Other processes (issue 16) ----------------------------------------

# tries NAME WANT: the "try" lines of NAME's output that do not say WANT
# (ok, or refused with errno N); empty when all do.
tries() { grep '^try ' "$VMTEST_STATE/$1.out" | grep -v -- "$2\$"; }

# ntries NAME: how many "try" lines NAME's output has
ntries() { grep -c '^try ' "$VMTEST_STATE/$1.out"; }

# sched_state PID: nice, policy, soft RLIMIT_NOFILE, judged from outside
sched_state() {
	echo "$(cut -d' ' -f19,41 "/proc/$1/stat") $(awk '/^Max open files/ { print $4 }' "/proc/$1/limits")"
}

# The step cannot reach outside itself through other processes: their
# scheduling and limits, their /proc files, daemons' pathname sockets, and
# writable descriptors handed in.  Each attack lands unconfined (the
# control), is refused confined with one event, and its legitimate form
# works confined.
reach() {
	m=$1 ws=$2 w=$3
	t=bpf-$m
	sleep 300 & a=$!
	sleep 300 & v=$!
	srv= pty_pids=

	# 1. Scheduling and limits.  The control changes A, unconfined.
	sa=$(sched_state $a)
	vm_run $t-sched-control sh -c "for op in 'nice $a 5' 'ioprio $a' 'affinity $a' 'scheduler $a' 'prlimit $a'; do bpfdrive --try \$op; done"
	if [ "$(ntries $t-sched-control)" = 5 ] && [ -z "$(tries $t-sched-control ': ok')" ] &&
		[ "$(sched_state $a)" = "5 3 100" ]; then
		pass $t-sched-control "unconfined: all five land ($sa -> $(sched_state $a): nice, policy, NOFILE)"
	else
		fail $t-sched-control "unconfined: $(tries $t-sched-control ': ok'); $sa -> $(sched_state $a)"
	fi
	sv=$(sched_state $v)
	vm_run $t-sched drv --root "$w" -- sh -c "
		for op in 'nice $v 5' 'ioprio $v' 'affinity $v' 'scheduler $v' 'prlimit $v'; do bpfdrive --try \$op; done"
	missing=
	for what in 1 2 3 3 4; do
		arg=$(printf '0x%x%08x' $v $what)
		[ "$(events $t-sched | grep -c "^EVENT op=sched decision=denied errno=1 .* arg=$arg ")" -ge 1 ] ||
			missing="$missing $arg"
	done
	if [ "$(ntries $t-sched)" != 5 ] || [ -n "$(tries $t-sched 'refused: Operation not permitted (errno 1)')" ]; then
		fail $t-sched "not all five refused EPERM: $(tries $t-sched 'refused: Operation not permitted (errno 1)')"
	elif [ "$(sched_state $v)" != "$sv" ]; then
		fail $t-sched "the target changed: $sv -> $(sched_state $v)"
	elif [ -n "$missing" ] || [ "$(events $t-sched | wc -l)" != 5 ]; then
		fail $t-sched "$(events $t-sched | wc -l) events; missing op=sched arg:$missing"
	else
		pass $t-sched "confined: nice, ioprio, affinity, scheduler, prlimit of another process refused EPERM, unchanged ($sv), five op=sched events"
	fi
	vm_run $t-sched-own drv --root "$w" -- sh -c '
		sleep 30 & c=$!
		for op in "nice $c 5" "ioprio $c" "affinity $c" "scheduler $c" "prlimit $c" "nice $$ 1" "prlimit $$"; do bpfdrive --try $op; done
		kill $c'
	if [ "$(ntries $t-sched-own)" = 7 ] && [ -z "$(tries $t-sched-own ': ok')" ] && ! events $t-sched-own | grep -q .; then
		pass $t-sched-own "confined: the same five on its own child, nice and prlimit on itself, all work, no event"
	else
		fail $t-sched-own "$(tries $t-sched-own ': ok') $(events $t-sched-own | head -n 2)"
	fi

	# 2. Another process's /proc files.
	vm_run $t-proc-control bpfdrive --try open /proc/$v/cmdline
	if [ "$vm_status" = 0 ]; then
		pass $t-proc-control "unconfined: /proc/$v/cmdline read"
	else
		fail $t-proc-control "unconfined: /proc/$v/cmdline not read"
	fi
	refused="cmdline environ maps smaps mem auxv syscall io task/$v/cmdline"
	vm_run $t-proc drv --root "$w" -- sh -c "
		for f in $refused; do bpfdrive --try open /proc/$v/\$f; done"
	missing=
	for f in $refused; do
		has_event $t-proc "^EVENT op=proc decision=denied errno=13 .* arg=$(printf '0x%x%08x' $v 0) .*path=/proc/$v/$f\$" ||
			missing="$missing $f"
	done
	if [ "$(ntries $t-proc)" != 9 ] || [ -n "$(tries $t-proc 'refused: Permission denied (errno 13)')" ]; then
		fail $t-proc "not all refused EACCES: $(tries $t-proc 'refused: Permission denied (errno 13)')"
	elif [ -n "$missing" ] || [ "$(events $t-proc | wc -l)" != 9 ]; then
		fail $t-proc "$(events $t-proc | wc -l) events; missing op=proc for:$missing"
	else
		pass $t-proc "confined: $refused of another process refused EACCES, nine op=proc events"
	fi
	vm_run $t-proc-public drv --root "$w" -- sh -c "
		for f in '' stat status statm comm task task/$v task/$v/stat task/$v/comm; do bpfdrive --try open /proc/$v/\$f; done
		ls /proc/$v /proc/$v/task > /dev/null && echo listed"
	if [ "$(ntries $t-proc-public)" = 9 ] && [ -z "$(tries $t-proc-public ': ok')" ] &&
		grep -q '^listed' "$VMTEST_STATE/$t-proc-public.out" && ! events $t-proc-public | grep -q .; then
		pass $t-proc-public "confined: what ps and top read of another process (the directory, stat, status, statm, comm, task/) works, no event"
	else
		fail $t-proc-public "$(tries $t-proc-public ': ok') $(events $t-proc-public | head -n 2)"
	fi
	vm_run $t-proc-own drv --root "$w" -- sh -c '
		sleep 30 & c=$!
		for f in /proc/self/environ /proc/self/maps /proc/$$/cmdline /proc/$$/environ /proc/$c/cmdline /proc/$c/maps; do bpfdrive --try open $f; done
		kill $c'
	if [ "$(ntries $t-proc-own)" = 6 ] && [ -z "$(tries $t-proc-own ': ok')" ] && ! events $t-proc-own | grep -q .; then
		pass $t-proc-own "confined: its own /proc/self/environ and maps, its shell's and child's cmdline, environ, maps work, no event"
	else
		fail $t-proc-own "$(tries $t-proc-own ': ok') $(events $t-proc-own | head -n 2)"
	fi

	# 3. Pathname UNIX sockets: daemons outside the roots, one allowed,
	# sockets beneath the root; abstract ones: outside any step, and in
	# another step (its server confined by a scope of its own).
	rm -f /run/sg-*-$m.sock
	for s in "stream /run/sg-out-$m.sock" "dgram /run/sg-outd-$m.sock" \
		"stream /run/sg-allow-$m.sock" "stream $w/in.sock" "dgram $w/ind.sock" "stream @sg-abs-$m"; do
		bpfdrive --serve $s 120 > /dev/null 2>&1 &
		srv="$srv $!"
	done
	: > /tmp/sg-oth-$m.out
	drv --root "$w" -- bpfdrive --serve stream @sg-oth-$m 120 > /tmp/sg-oth-$m.out 2>&1 &
	srv="$srv $!"
	i=0
	while [ $i -lt 50 ] && ! { [ -S /run/sg-out-$m.sock ] && [ -S /run/sg-outd-$m.sock ] &&
		[ -S /run/sg-allow-$m.sock ] && [ -S "$w/in.sock" ] && [ -S "$w/ind.sock" ] &&
		grep -q 'serve: ready' /tmp/sg-oth-$m.out; }; do
		sleep 0.1
		i=$((i + 1))
	done
	vm_run $t-connect-control sh -c "bpfdrive --try connect /run/sg-out-$m.sock; bpfdrive --try send /run/sg-outd-$m.sock"
	if [ "$(ntries $t-connect-control)" = 2 ] && [ -z "$(tries $t-connect-control ': ok')" ]; then
		pass $t-connect-control "unconfined: a stream connect and a datagram to sockets in /run land"
	else
		fail $t-connect-control "$(tries $t-connect-control ': ok')"
	fi
	vm_run $t-connect drv --root "$w" --socket /run/sg-allow-$m.sock -- sh -c "
		bpfdrive --try connect /run/sg-out-$m.sock; bpfdrive --try send /run/sg-outd-$m.sock"
	if [ "$(ntries $t-connect)" != 2 ] || [ -n "$(tries $t-connect 'refused: Permission denied (errno 13)')" ]; then
		fail $t-connect "not refused EACCES: $(tries $t-connect 'refused: Permission denied (errno 13)')"
	elif ! has_event $t-connect "^EVENT op=connect decision=denied errno=13 .* arg=0x1 .*path=/run/sg-out-$m.sock\$" ||
		! has_event $t-connect "^EVENT op=connect decision=denied errno=13 .* arg=0x2 .*path=/run/sg-outd-$m.sock\$" ||
		[ "$(events $t-connect | wc -l)" != 2 ]; then
		fail $t-connect "expected two op=connect events (arg 1 and 2) with the sockets' paths"
	else
		pass $t-connect "confined: connect and send to sockets outside the roots refused EACCES, two op=connect events"
	fi
	vm_run $t-connect-allowed drv --root "$w" --socket /run/sg-allow-$m.sock -- sh -c "
		bpfdrive --try connect /run/sg-allow-$m.sock; bpfdrive --try connect $w/in.sock
		bpfdrive --try send $w/ind.sock"
	if ! grep -q 'sockets allowed: 1 files, 1 identities' "$VMTEST_STATE/$t-connect-allowed.out"; then
		fail $t-connect-allowed "the allowed socket was not registered"
	elif [ "$(ntries $t-connect-allowed)" = 3 ] && [ -z "$(tries $t-connect-allowed ': ok')" ] &&
		! events $t-connect-allowed | grep -q .; then
		pass $t-connect-allowed "confined: the allowed socket, a stream and a datagram socket beneath the root: all reached, no event"
	else
		fail $t-connect-allowed "$(tries $t-connect-allowed ': ok') $(events $t-connect-allowed | head -n 2)"
	fi
	# Without the list, the same socket is outside like any other.
	vm_run $t-connect-unlisted drv --root "$w" -- bpfdrive --try connect /run/sg-allow-$m.sock
	if [ "$vm_status" = 1 ] && has_event $t-connect-unlisted "^EVENT op=connect .*path=/run/sg-allow-$m.sock\$"; then
		pass $t-connect-unlisted "confined without --socket: the same socket refused (event)"
	else
		fail $t-connect-unlisted "reached without being listed, or no event"
	fi

	# Abstract stream sockets: no file, so the listener's scope decides
	# (the scope of the task that called listen()).
	vm_run $t-connect-abstract-control bpfdrive --try connect @sg-abs-$m
	if [ "$vm_status" = 0 ] && [ "$(ntries $t-connect-abstract-control)" = 1 ]; then
		pass $t-connect-abstract-control "unconfined: a stream connect to @sg-abs-$m lands"
	else
		fail $t-connect-abstract-control "$(tries $t-connect-abstract-control ': ok')"
	fi
	vm_run $t-connect-abstract drv --root "$w" -- bpfdrive --try connect @sg-abs-$m
	if [ "$(ntries $t-connect-abstract)" != 1 ] || [ -n "$(tries $t-connect-abstract 'refused: Permission denied (errno 13)')" ]; then
		fail $t-connect-abstract "not refused EACCES: $(tries $t-connect-abstract 'refused: Permission denied (errno 13)')"
	elif ! has_event $t-connect-abstract "^EVENT op=connect decision=denied errno=13 .* arg=0x3 " ||
		[ "$(events $t-connect-abstract | wc -l)" != 1 ]; then
		fail $t-connect-abstract "no single op=connect event with arg 3: $(events $t-connect-abstract | head -n 2)"
	else
		pass $t-connect-abstract "confined: a stream connect to an abstract socket outside refused EACCES, one op=connect event (arg 3)"
	fi
	vm_run $t-connect-abstract-other-scope drv --root "$w" -- bpfdrive --try connect @sg-oth-$m
	# The other step's server must be this run's: one left by an earlier
	# run of this file (a mutant boot runs it again and again) would hold
	# the name, and a connect refused there proves nothing of the rule.
	if ! grep -q 'serve: ready' /tmp/sg-oth-$m.out; then
		fail $t-connect-abstract-other-scope "the server in another scope did not start: $(head -n 2 /tmp/sg-oth-$m.out)"
	elif [ "$(ntries $t-connect-abstract-other-scope)" = 1 ] &&
		[ -z "$(tries $t-connect-abstract-other-scope 'refused: Permission denied (errno 13)')" ] &&
		has_event $t-connect-abstract-other-scope "^EVENT op=connect decision=denied errno=13 .* arg=0x3 "; then
		pass $t-connect-abstract-other-scope "confined: an abstract socket another step listens on refused EACCES, op=connect event"
	else
		fail $t-connect-abstract-other-scope "$(tries $t-connect-abstract-other-scope 'refused: Permission denied (errno 13)') $(events $t-connect-abstract-other-scope | head -n 2)"
	fi
	vm_run $t-connect-abstract-own drv --root "$w" -- sh -c "
		bpfdrive --serve stream @sg-own-$m 30 > $w/own-serve 2>&1 & s=\$!
		i=0
		while [ \$i -lt 50 ] && ! grep -q 'serve: ready' $w/own-serve; do sleep 0.1; i=\$((i + 1)); done
		bpfdrive --try connect @sg-own-$m
		kill \$s"
	if [ "$(ntries $t-connect-abstract-own)" = 1 ] && [ -z "$(tries $t-connect-abstract-own ': ok')" ] &&
		! events $t-connect-abstract-own | grep -q .; then
		pass $t-connect-abstract-own "confined: its own abstract stream server reached, no event"
	else
		fail $t-connect-abstract-own "$(tries $t-connect-abstract-own ': ok') $(events $t-connect-abstract-own | head -n 2)"
	fi

	# 4. Writable descriptors handed in (SCM_RIGHTS) by an unconfined
	# helper, over a socket beneath the root.
	: > /tmp/recv-out-$m
	: > "$w/recv-in"
	bpfdrive --serve fd:/tmp/recv-out-$m "$w/fd-out.sock" 120 > /dev/null 2>&1 &
	srv="$srv $!"
	bpfdrive --serve fd:"$w/recv-in" "$w/fd-in.sock" 120 > /dev/null 2>&1 &
	srv="$srv $!"
	i=0
	while [ $i -lt 50 ] && ! { [ -S "$w/fd-out.sock" ] && [ -S "$w/fd-in.sock" ]; }; do
		sleep 0.1
		i=$((i + 1))
	done
	vm_run $t-receive-control bpfdrive --try recv-fd "$w/fd-out.sock"
	if [ "$vm_status" = 0 ] && [ "$(cat /tmp/recv-out-$m)" = received ]; then
		pass $t-receive-control "unconfined: a writable descriptor of /tmp/recv-out-$m received and written"
	else
		fail $t-receive-control "unconfined: not received or not written"
	fi
	: > /tmp/recv-out-$m
	vm_run $t-receive drv --root "$w" -- bpfdrive --try recv-fd "$w/fd-out.sock"
	if [ "$vm_status" != 1 ] || [ -s /tmp/recv-out-$m ]; then
		fail $t-receive "the descriptor was received (exit $vm_status), or the file written: $(cat /tmp/recv-out-$m)"
	elif ! has_event $t-receive "^EVENT op=receive decision=denied errno=13 .*path=/tmp/recv-out-$m\$" ||
		[ "$(events $t-receive | wc -l)" != 1 ]; then
		fail $t-receive "no single op=receive event with the file's path"
	else
		pass $t-receive "confined: a writable descriptor of a file outside refused (no descriptor, MSG_CTRUNC), file untouched, one op=receive event"
	fi
	vm_run $t-receive-inside drv --root "$w" -- bpfdrive --try recv-fd "$w/fd-in.sock"
	if [ "$vm_status" = 0 ] && [ "$(cat "$w/recv-in")" = received ] && ! events $t-receive-inside | grep -q .; then
		pass $t-receive-inside "confined: a writable descriptor of a file inside the root received and written, no event"
	else
		fail $t-receive-inside "exit $vm_status, file: $(cat "$w/recv-in"), $(events $t-receive-inside | head -n 1)"
	fi

	# 5. Other terminals.  /dev/pts is a root here, as the shipped
	# dev-pts makes it, so the write path lets every pty through and the
	# pty rule alone decides.  H holds a pty outside any step (a user's
	# terminal); O holds one inside another step (a concurrent step's).
	pty_holder H ""
	pty=$pty_path
	pty_holder O "drv --root $w --root /dev/ptmx --root /dev/pts --"
	opty=$pty_path
	if [ -z "$pty" ] || [ -z "$opty" ]; then
		for r in pty-control pty pty-other-scope pty-own pty-ctty; do
			fail $t-$r "no pty holder: $(cat /tmp/pty-H.out /tmp/pty-O.out 2> /dev/null | head -n 4)"
		done
	else
		vm_run $t-pty-control bpfdrive --try pty $pty
		if [ "$vm_status" = 0 ] && [ "$(ntries $t-pty-control)" = 1 ]; then
			pass $t-pty-control "unconfined: another terminal ($pty) opened for writing"
		else
			fail $t-pty-control "unconfined: $(tries $t-pty-control ': ok')"
		fi
		vm_run $t-pty drv --root "$w" --root /dev/ptmx --root /dev/pts -- bpfdrive --try pty $pty
		if [ "$(ntries $t-pty)" != 1 ] || [ -n "$(tries $t-pty 'refused: Permission denied (errno 13)')" ]; then
			fail $t-pty "not refused EACCES: $(tries $t-pty 'refused: Permission denied (errno 13)')"
		elif ! has_event $t-pty "^EVENT op=pty decision=denied errno=13 .*path=$pty\$" ||
			[ "$(events $t-pty | wc -l)" != 1 ]; then
			fail $t-pty "no single op=pty event with the terminal's path: $(events $t-pty | head -n 2)"
		else
			pass $t-pty "confined: another terminal ($pty) refused EACCES although /dev/pts is a root, one op=pty event"
		fi
		vm_run $t-pty-other-scope drv --root "$w" --root /dev/ptmx --root /dev/pts -- bpfdrive --try pty $opty
		if [ "$(ntries $t-pty-other-scope)" = 1 ] && [ -z "$(tries $t-pty-other-scope 'refused: Permission denied (errno 13)')" ] &&
			has_event $t-pty-other-scope "^EVENT op=pty decision=denied errno=13 .*path=$opty\$"; then
			pass $t-pty-other-scope "confined: a pty another step made ($opty) refused EACCES, op=pty event"
		else
			fail $t-pty-other-scope "$(tries $t-pty-other-scope 'refused: Permission denied (errno 13)') $(events $t-pty-other-scope | head -n 2)"
		fi
		vm_run $t-pty-own drv --root "$w" --root /dev/ptmx --root /dev/pts -- sh -c 'bpfdrive --try pty-own name; bpfdrive --try pty-own peer'
		if [ "$(ntries $t-pty-own)" = 2 ] && [ -z "$(tries $t-pty-own ': ok')" ] && ! events $t-pty-own | grep -q .; then
			pass $t-pty-own "confined: its own ptys, the slave opened by name and by TIOCGPTPEER, written and read back, no event"
		else
			fail $t-pty-own "$(tries $t-pty-own ': ok') $(events $t-pty-own | head -n 2)"
		fi
		# The terminal the step runs on, reopened by its name.
		vm_run $t-pty-ctty adversary pty-run bpfdrive --mode "$m" --root "$w" --root /dev/ptmx --root /dev/pts -- \
			sh -c 'bpfdrive --try pty "$(readlink /proc/self/fd/0)"'
		tr -d '\r' < "$VMTEST_STATE/$t-pty-ctty.out" > "$VMTEST_STATE/$t-pty-ctty.txt" &&
			mv "$VMTEST_STATE/$t-pty-ctty.txt" "$VMTEST_STATE/$t-pty-ctty.out"
		if [ "$(ntries $t-pty-ctty)" = 1 ] && grep -q '^try pty /dev/pts/[0-9]*: ok$' "$VMTEST_STATE/$t-pty-ctty.out" &&
			! events $t-pty-ctty | grep -q .; then
			pass $t-pty-ctty "confined: its controlling terminal, made outside, reopened by name, no event"
		else
			fail $t-pty-ctty "exit $vm_status: $(grep '^try' "$VMTEST_STATE/$t-pty-ctty.out") $(events $t-pty-ctty | head -n 2)"
		fi
	fi

	# Audit mode: each of the five lets the attempt through and says
	# audited, with the op it would have refused as.
	: > /tmp/recv-out-$m
	vm_run $t-reach-audit drv --audit --root "$w" --root /dev/ptmx --root /dev/pts -- sh -c "
		bpfdrive --try nice $v 1; bpfdrive --try open /proc/$v/cmdline
		bpfdrive --try connect /run/sg-out-$m.sock; bpfdrive --try recv-fd $w/fd-out.sock
		bpfdrive --try pty ${pty:-/dev/pts/none}"
	missing=
	for op in sched proc connect receive pty; do
		has_event $t-reach-audit "^EVENT op=$op decision=audited errno=0 " || missing="$missing $op"
	done
	if [ "$(ntries $t-reach-audit)" != 5 ] || [ -n "$(tries $t-reach-audit ': ok')" ] ||
		[ "$(cat /tmp/recv-out-$m)" != received ]; then
		fail $t-reach-audit "audit mode refused: $(tries $t-reach-audit ': ok')"
	elif [ -n "$missing" ] || has_event $t-reach-audit 'decision=denied'; then
		fail $t-reach-audit "no audited event for:$missing, or a denied one"
	else
		pass $t-reach-audit "audit mode: nice, /proc cmdline, connect, receive, another terminal let through, each one audited event"
	fi

	# (the confined holder's adversary, and the server in another scope,
	# outlive a killed bpfdrive: the step it started is not killed with it)
	for f in /proc/[0-9]*/cmdline; do
		case "$(tr '\0' ' ' < "$f" 2> /dev/null)" in
		"adversary pty-hold"* | "bpfdrive --serve stream @sg-oth-$m "*)
			f=${f#/proc/}; kill "${f%/cmdline}" 2> /dev/null ;;
		esac
	done
	kill $a $v $srv $pty_pids 2> /dev/null
	wait $a $v $srv $pty_pids 2> /dev/null
	rm -f /run/sg-*-$m.sock /tmp/recv-out-$m /tmp/pty-H.out /tmp/pty-O.out /tmp/sg-oth-$m.out
	return 0
}

# pty_holder NAME WRAP: start `adversary pty-hold` (under WRAP, a command
# prefix, or none) in the background, adding it to pty_pids; pty_path is
# the slave's path once it is held (empty after 10 s without).
pty_holder() {
	rm -f /tmp/pty-$1.out
	$2 adversary pty-hold > /tmp/pty-$1.out 2>&1 < /dev/null &
	pty_pids="$pty_pids $!"
	i=0
	while [ $i -lt 100 ] && ! grep -q 'ready /dev/pts/' /tmp/pty-$1.out; do
		sleep 0.1
		i=$((i + 1))
	done
	pty_path=$(sed -n 's/^.*ready \(\/dev\/pts\/[0-9]*\)$/\1/p' /tmp/pty-$1.out | head -n 1)
}

# A step that refuses faster than anyone reads: its ring fills, and the
# counters account for every refusal, sent or lost.
lost() {
	m=$1 ws=$2 w=$3
	t=bpf-$m
	n=20000
	drv --no-read --root "$w" -- bpfdrive --flood $n /tmp/flood-$m > "$VMTEST_STATE/$t-lost.out" 2>&1
	grep -v '^EVENT' "$VMTEST_STATE/$t-lost.out" | vm_show
	sent=$(events $t-lost | grep -c '^EVENT op=create decision=denied .*path=/tmp/flood-'$m'$')
	denied=$(sed -n 's/^bpfdrive: end .* denied=\([0-9]*\) .*/\1/p' "$VMTEST_STATE/$t-lost.out")
	nlost=$(sed -n 's/^bpfdrive: end .* lost=\([0-9]*\).*/\1/p' "$VMTEST_STATE/$t-lost.out")
	if ! grep -q "^flood: $n tried, $n refused" "$VMTEST_STATE/$t-lost.out" || exists /tmp/flood-$m; then
		fail $t-lost "the flood's creates were not all refused"
	elif [ "$denied" != $n ] || [ "${nlost:-0}" -lt 1 ] || [ $((sent + nlost)) != $n ]; then
		fail $t-lost "denied=$denied, $sent events sent + ${nlost:-?} lost, expected $n"
	else
		pass $t-lost "$n refusals: $sent events sent, $nlost lost and counted"
	fi
}

# Two scopes at once do not see each other's roots.  They overlap by a
# handshake ($vm_await), each signalling in its own root: A tries B's
# root once B runs; B, having written its own, waits until A has tried;
# A ends after B.  The row fails unless both saw the other running.
scopes() {
	m=$1 ws=$2
	t=bpf-$m
	mkdir -p "$ws/a" "$ws/b"
	rm -f "$ws/a/started" "$ws/a/tried" "$ws/b/started" "$ws/b/done" "$ws/b/from-a" "$ws/b/from-b"
	drv --root "$ws/a" -- sh -c "$vm_await"'
		echo > "$1/a/started"
		await "$1/b/started" "A: B running"
		echo x > "$1/b/from-a"
		echo > "$1/a/tried"
		await "$1/b/done" "A: B finished"' sh "$ws" \
		> "$VMTEST_STATE/$t-scope-a.out" 2>&1 &
	a=$!
	vm_run $t-scope-b drv --root "$ws/b" -- sh -c "$vm_await"'
		echo > "$1/b/started"
		echo y > "$1/b/from-b"
		await "$1/a/tried" "B: A tried, still running"
		echo > "$1/b/done"' sh "$ws"
	wait $a
	vm_show < "$VMTEST_STATE/$t-scope-a.out"
	sa=$(sed -n 's/^bpfdrive: scope \([0-9]*\).*/\1/p' "$VMTEST_STATE/$t-scope-a.out")
	sb=$(sed -n 's/^bpfdrive: scope \([0-9]*\).*/\1/p' "$VMTEST_STATE/$t-scope-b.out")
	seen="$(grep -c '^saw: A: B running$' "$VMTEST_STATE/$t-scope-a.out")$(grep -c '^saw: A: B finished$' "$VMTEST_STATE/$t-scope-a.out")$(grep -c '^saw: B: A tried, still running$' "$VMTEST_STATE/$t-scope-b.out")"
	if [ "$seen" != 111 ]; then
		fail $t-scopes "the scopes did not overlap as arranged (A saw B running, B saw A's attempt, A saw B finish: $seen)"
	elif exists "$ws/b/from-a"; then
		fail $t-scopes "scope A wrote into scope B's root"
	elif ! exists "$ws/b/from-b"; then
		fail $t-scopes "scope B could not write into its own root"
	elif [ -z "$sa" ] || [ "$sa" = "$sb" ]; then
		fail $t-scopes "the two runs did not get two scopes ($sa, $sb)"
	elif ! grep -q "^EVENT op=create .*scope=$sa .*path=$ws/b/from-a" "$VMTEST_STATE/$t-scope-a.out"; then
		fail $t-scopes "no event for A's refusal on A's ring"
	elif grep -q 'from-a' "$VMTEST_STATE/$t-scope-b.out"; then
		fail $t-scopes "A's refusal reached B's ring"
	else
		pass $t-scopes "concurrent scopes $sa and $sb (each saw the other running): A refused in B's root, B allowed"
	fi
}

audit() {
	m=$1 ws=$2 w=$3
	t=bpf-$m
	rm -f /tmp/audit-$m
	vm_run $t-audit drv --audit --root "$w" -- sh -c 'echo x > /tmp/audit-'$m
	if [ "$(cat /tmp/audit-$m 2> /dev/null)" = x ] &&
		has_event $t-audit "^EVENT op=create decision=audited errno=0 .*path=/tmp/audit-$m\$" &&
		! has_event $t-audit 'decision=denied' &&
		grep -q 'denied=0 audited=[1-9]' "$VMTEST_STATE/$t-audit.out"; then
		pass $t-audit "the write landed and was reported as audited"
	else
		fail $t-audit "see the output above"
	fi
	rm -f /tmp/audit-$m
}

# A double-forked daemon outlives its step: refused outside all along,
# refused everywhere once its scope is gone; the same when the driver is
# killed with SIGKILL (its scope stays, so inside still works, until the
# next driver collects it).
daemon_cmd() {  # TAG: the step that leaves a daemon writing every 0.2 s
	echo '( setsid sh -c '\''i=0; echo "pid $$" >&3
		while [ $i -lt 100 ]; do i=$((i + 1))
			if echo x > /tmp/daemon-'$1'-$i 2> /dev/null; then echo "$i out-landed" >&3; else echo "$i out-refused" >&3; fi
			if echo x > '$w'/daemon-'$1'-$i 2> /dev/null; then echo "$i in-landed" >&3; else echo "$i in-refused" >&3; fi
			sleep 0.2; done'\'' & )
		while ! grep -q "in-" /run/'$1'.log; do sleep 0.1; done'
}

daemons() {
	m=$1 ws=$2 w=$3
	t=bpf-$m
	tag=d-$m
	: > /run/$tag.log
	rm -f /tmp/daemon-$tag-*
	vm_run $t-daemon sh -c 'bpfdrive --mode '$m' --root /dev/null --root "'$w'" -- sh -c "$1" 3>> /run/'$tag'.log' sh "$(daemon_cmd $tag)"
	at_exit=$(wc -l < /run/$tag.log)
	sleep 2
	pid=$(sed -n 's/^pid //p' /run/$tag.log)
	later=$(wc -l < /run/$tag.log)
	outs=$(ls /tmp/daemon-$tag-* 2> /dev/null | wc -l)
	last_in=$(grep ' in-' /run/$tag.log | tail -n 1)
	if [ -z "$pid" ] || ! kill -0 "$pid" 2> /dev/null; then
		fail $t-daemon "the daemon is not running (pid ${pid:-unknown})"
	elif [ "$later" -le "$at_exit" ]; then
		fail $t-daemon "the daemon made no attempts after the driver exited"
	elif [ "$outs" != 0 ] || grep -q 'out-landed' /run/$tag.log; then
		fail $t-daemon "$outs outside writes landed"
	elif ! grep -q 'in-landed' /run/$tag.log || [ "${last_in#* }" != in-refused ]; then
		fail $t-daemon "inside: landed while the scope lived, refused after? last: $last_in"
	else
		pass $t-daemon "daemon $pid outlived the driver: $((later - at_exit)) more attempts, none landed outside; inside refused once the scope was removed"
	fi
	[ -n "$pid" ] && kill "$pid" 2> /dev/null

	# SIGKILL the driver while its step's daemon keeps writing.
	tag=k-$m
	: > /run/$tag.log
	rm -f /tmp/daemon-$tag-*
	# (bpfdrive itself in the background, not drv: $! must be the driver)
	bpfdrive --mode $m --root /dev/null --root "$w" -- \
		sh -c "$(daemon_cmd $tag); echo \"step \$\$\" >&3; exec sleep 60" \
		3>> /run/$tag.log > "$VMTEST_STATE/$t-killed.out" 2>&1 &
	drv=$!
	i=0
	while ! grep -q 'in-' /run/$tag.log && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -KILL $drv
	wait $drv 2> /dev/null
	at_kill=$(wc -l < /run/$tag.log)
	sleep 2
	pid=$(sed -n 's/^pid //p' /run/$tag.log)
	later=$(wc -l < /run/$tag.log)
	outs=$(ls /tmp/daemon-$tag-* 2> /dev/null | wc -l)
	last_in=$(grep ' in-' /run/$tag.log | tail -n 1)
	if grep -q '^bpfdrive: end' "$VMTEST_STATE/$t-killed.out" || kill -0 $drv 2> /dev/null; then
		fail $t-killed "the driver was not killed"
	elif [ "$later" -le "$at_kill" ] || ! kill -0 "$pid" 2> /dev/null; then
		fail $t-killed "the daemon stopped trying after the driver was killed"
	elif [ "$outs" != 0 ] || grep -q 'out-landed' /run/$tag.log; then
		fail $t-killed "$outs outside writes landed after SIGKILL of the driver"
	elif [ "${last_in#* }" != in-landed ]; then
		fail $t-killed "the scope of the killed driver should still allow inside: $last_in"
	else
		pass $t-killed "driver killed: $((later - at_kill)) more attempts, none landed outside, inside still allowed"
	fi
	# The next driver collects the dead scope: the daemon is then
	# refused everywhere.
	vm_run $t-gc drv --root "$w" -- true
	n=$(wc -l < /run/$tag.log)
	i=0
	while [ "$(wc -l < /run/$tag.log)" -lt $((n + 4)) ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	last_in=$(grep ' in-' /run/$tag.log | tail -n 1)
	if [ "${last_in#* }" = in-refused ] && ! grep -q 'out-landed' /run/$tag.log; then
		pass $t-gc "the killed driver's scope was collected: its daemon is refused inside too"
	else
		fail $t-gc "last inside attempt: $last_in"
	fi
	[ -n "$pid" ] && kill "$pid" 2> /dev/null
	spid=$(sed -n 's/^step //p' /run/$tag.log)
	[ -n "$spid" ] && kill "$spid" 2> /dev/null
	return 0
}

for mode in $modes; do
	suite "$mode"
done
rmdir /sys/fs/bpf/stepguard/$stale
