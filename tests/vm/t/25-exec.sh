# 25-exec.sh — the eBPF exec restriction of a ruling step
# (sg_bpf_scope_exec_allow(), the bprm_check_security hook), driven by
# bpfdrive --exec in each attach mode this boot allows.  A scope restricted
# to {busybox} runs busybox under any of its names (applet symlinks, a hard
# link, registered through /bin/sh), but not a copy of it (same bytes,
# another file), not a file that replaced a registered one at the same
# path, not a file alike in all but its device, or in all but its
# generation; not a script whose interpreter is not allowed, nor an allowed
# interpreter's script that is not.  Every refusal leaves the process able
# to go on, and is exactly one event op=exec reason=not-allowed with the
# file's path.  Audit mode lets it through as "audited"; a scope without
# --exec executes anything, its daemons too after the scope is gone, while
# a restricted scope's daemon executes nothing then.  Files on a read-only
# mount can be registered.
#
# Each row writes a marker (or, for the step's own first exec, bpfdrive
# says "bpfdrive: exec CMD") before the attempt, so a refusal is told from
# an attempt that never happened, and runs an allowed exec as its control.
#
# Needs bpfdrive (tests/bpf/bpfdrive.c); mkfs.ext4 and losetup for the
# device and generation rows (ext4 without metadata_csum, so that bpfdrive
# --set-generation can set an inode's generation).
#
# needs: bpfdrive mkfs.ext4 losetup

if vm_lsm_active bpf; then
	modes="lsm fmod"
else
	modes="fmod" # 20-bpf.sh shows that lsm/ is refused here
fi
# Each mode: allowed, copy, first, none, script-interp, script,
# script-ok, names, replaced, unrestricted, audit, not-file; device,
# generation, readonly; daemon-restricted, daemon-unrestricted.
vm_plan $((17 * $(echo $modes | wc -w))) "17 a mode: $modes"
drive=$(command -v bpfdrive)

# drv ARGS...: bpfdrive in this suite's mode, /dev/null a root as in the
# launcher's default policy
drv() { bpfdrive --mode "$m" --root /dev/null "$@"; }

# events NAME: the EVENT lines of NAME's output, each from "EVENT" on (a
# line of the step's stderr can be cut by one, see 20-bpf.sh)
events() { sed -n 's/^.*\(EVENT op=\)/\1/p' "$VMTEST_STATE/$1.out"; }
nevents() { events "$1" | grep -c .; }
has() { grep -q -- "$2" "$VMTEST_STATE/$1.out"; }
# one_exec_event NAME DECISION PATH: NAME sent exactly one event, and it
# is that exec refusal (or audit) of PATH
one_exec_event() {
	case $2 in
	denied) _e=13 ;;
	*) _e=0 ;;
	esac
	[ "$(nevents "$1")" = 1 ] &&
		events "$1" | grep -Eq "^EVENT op=exec decision=$2 errno=$_e reason=not-allowed .* path=$3\$"
}
# refused NAME WHAT PATH MARKER WON'T: the row's verdict for an exec of
# PATH that must be refused: the marker was written (the attempt
# happened), the output does not show WON'T (the program did not run),
# the shell went on after it ("went on: 126", busybox sh's status for a
# file it may not execute), and exactly one exec event names PATH
refused() {
	if [ ! -e "$4" ]; then
		fail "$1" "no marker $4: the attempt never happened"
	elif has "$1" "$5"; then
		fail "$1" "$2 ran: '$5' in its output"
	elif ! has "$1" '^went on: 126$'; then
		fail "$1" "the step did not go on after the refusal with status 126"
	elif ! one_exec_event "$1" denied "$3"; then
		fail "$1" "expected one event op=exec denied path=$3, got $(nevents "$1"): $(events "$1" | head -n 2)"
	else
		pass "$1" "$2 refused (EACCES), the step went on, one exec event path=$3"
	fi
}

# --- ext4 images for the device and generation rows ----------------------

# ext4_mount NAME: a fresh 16 MiB ext4 (no metadata_csum: its checksums
# seed from the generation, so ext4 refuses FS_IOC_SETVERSION with them)
# on /mnt/NAME; 0 when mounted
ext4_mount() {
	rm -f "/tmp/$1.img"
	mkdir -p "/mnt/$1"
	truncate -s 16M "/tmp/$1.img" &&
		mkfs.ext4 -q -F -O ^metadata_csum "/tmp/$1.img" > /dev/null 2>&1 &&
		_dev=$(losetup -f) && losetup "$_dev" "/tmp/$1.img" &&
		mount -t ext4 "$_dev" "/mnt/$1" && echo "$_dev" > "/run/$1.dev"
}
ext4_umount() {
	umount "/mnt/$1" 2> /dev/null
	[ -e "/run/$1.dev" ] && losetup -d "$(cat "/run/$1.dev")" 2> /dev/null
	rm -f "/tmp/$1.img" "/run/$1.dev"
}
gen_of() { bpfdrive --generation "$1" 2> /dev/null | sed 's/.*: //'; }

# --- One mode ---------------------------------------------------------------

suite() {
	m=$1
	t=exec-$m
	ws=/var/tmp/ex-$m
	w=$ws/work
	rm -rf "$ws"
	mkdir -p "$w/bin" "$w/tool" "$w/mk"
	echo "== $t (work dir $w)"
	# Same bytes, another file.  Named busybox, so that it runs the
	# applet it is asked for when it does run (the unrestricted row).
	cp /bin/busybox "$w/bin/busybox"
	# A script whose interpreter is the copy, and one whose interpreter
	# is busybox (/bin/sh is an applet link).
	printf '#!%s sh\necho bad-script-ran\n' "$w/bin/busybox" > "$w/bad.sh"
	printf '#!/bin/sh\necho good-script-ran\n' > "$w/good.sh"
	chmod 755 "$w/bad.sh" "$w/good.sh"
	mk=$w/mk

	# Allowed: busybox by its own name and by applet links (symlinks
	# to the same file), through bpfdrive's exec of sh and the shell's
	# execs.  Absolute paths: busybox sh runs a bare applet name
	# without any exec.
	vm_run $t-allowed drv --root "$w" --exec /bin/busybox -- sh -c '
		echo attempt > "$1/allowed"
		/bin/busybox echo busybox-ran
		/bin/echo echo-ran
		/bin/cat "$1/allowed"' sh "$mk"
	if [ "$vm_status" != 0 ] || ! has $t-allowed '^busybox-ran$' || ! has $t-allowed '^echo-ran$' ||
		! has $t-allowed '^attempt$'; then
		fail $t-allowed "exit $vm_status: busybox or an applet link did not run"
	elif ! has $t-allowed 'exec-restricted: 1 files, 1 identities'; then
		fail $t-allowed "the scope did not say it is restricted to one file"
	elif [ "$(nevents $t-allowed)" != 0 ]; then
		fail $t-allowed "events for allowed execs: $(events $t-allowed | head -n 2)"
	else
		pass $t-allowed "restricted to {busybox}: sh, /bin/busybox, /bin/echo and /bin/cat (links) ran, no event"
	fi

	# A copy of busybox in the work dir: refused, the shell goes on.
	vm_run $t-copy drv --root "$w" --exec /bin/busybox -- sh -c '
		echo attempt > "$2/copy"
		"$1/bin/busybox" echo copy-ran
		echo "went on: $?"' sh "$w" "$mk"
	refused $t-copy "a copy of busybox" "$w/bin/busybox" "$mk/copy" '^copy-ran$'

	# The step's own first exec, by bpfdrive's child: refused, and the
	# child is still there to report EACCES.
	vm_run $t-first drv --root "$w" --exec /bin/busybox -- "$w/bin/busybox" echo first-ran
	if [ "$vm_status" != 127 ] || ! has $t-first "^bpfdrive: exec $w/bin/busybox\$" ||
		! has $t-first "^bpfdrive: exec $w/bin/busybox: Permission denied (errno 13)\$"; then
		fail $t-first "exit $vm_status: the driver did not try, or did not report EACCES"
	elif has $t-first '^first-ran$' || ! one_exec_event $t-first denied "$w/bin/busybox"; then
		fail $t-first "the copy ran, or not exactly one exec event"
	else
		pass $t-first "the step's first exec refused: the driver tried, reported EACCES, one event"
	fi

	# Restricted to nothing: even busybox is refused.
	vm_run $t-none drv --root "$w" --exec-none -- /bin/busybox echo none-ran
	if [ "$vm_status" = 127 ] && has $t-none 'exec-restricted: 0 files, 0 identities' &&
		has $t-none '^bpfdrive: exec /bin/busybox: Permission denied (errno 13)$' &&
		! has $t-none '^none-ran$' && one_exec_event $t-none denied /bin/busybox; then
		pass $t-none "restricted to nothing: busybox refused (EACCES), one event"
	else
		fail $t-none "exit $vm_status, see the output above"
	fi

	# Scripts: the script and its interpreter must both be allowed.
	vm_run $t-script-interp drv --root "$w" --exec /bin/busybox --exec "$w/bad.sh" -- sh -c '
		echo attempt > "$2/bad"
		"$1/bad.sh"
		echo "went on: $?"' sh "$w" "$mk"
	refused $t-script-interp "an allowed script's interpreter (the copy)" "$w/bin/busybox" "$mk/bad" \
		'^bad-script-ran$'
	vm_run $t-script drv --root "$w" --exec /bin/busybox -- sh -c '
		echo attempt > "$2/good"
		"$1/good.sh"
		echo "went on: $?"' sh "$w" "$mk"
	refused $t-script "a script not allowed, whose interpreter (/bin/sh) is" "$w/good.sh" \
		"$mk/good" '^good-script-ran$'
	vm_run $t-script-ok drv --root "$w" --exec /bin/busybox --exec "$w/good.sh" -- "$w/good.sh"
	if [ "$vm_status" = 0 ] && has $t-script-ok '^good-script-ran$' && [ "$(nevents $t-script-ok)" = 0 ]; then
		pass $t-script-ok "script and interpreter allowed: it ran, no event"
	else
		fail $t-script-ok "exit $vm_status, see the output above"
	fi

	# The same file by other names: registered through the symlink
	# /bin/sh, executed through a hard link in another directory.
	mkdir -p "/root/hl-$m"
	rm -f "/root/hl-$m/busybox"
	ln /bin/busybox "/root/hl-$m/busybox"
	vm_run $t-names drv --root "$w" --exec /bin/sh -- sh -c '
		"$1/busybox" echo hardlink-ran
		/bin/busybox echo name-ran' sh "/root/hl-$m"
	if [ "$vm_status" = 0 ] && has $t-names '^hardlink-ran$' && has $t-names '^name-ran$' &&
		[ "$(nevents $t-names)" = 0 ]; then
		pass $t-names "registered as /bin/sh, ran as a hard link and as /bin/busybox: one file"
	else
		fail $t-names "exit $vm_status, see the output above"
	fi
	rm -f "/root/hl-$m/busybox"

	# Another file at the same path: the registered one runs, the file
	# that replaced it does not.
	cp /bin/busybox "$w/tool/busybox"
	vm_run $t-replaced drv --root "$w" --exec /bin/busybox --exec "$w/tool/busybox" -- sh -c '
		"$1/tool/busybox" echo first-ran
		rm "$1/tool/busybox" && cp /bin/busybox "$1/tool/busybox"
		echo attempt > "$2/replaced"
		"$1/tool/busybox" echo replaced-ran
		echo "went on: $?"' sh "$w" "$mk"
	if ! has $t-replaced '^first-ran$'; then
		fail $t-replaced "the registered file did not run before it was replaced"
	else
		refused $t-replaced "the file that replaced a registered one" "$w/tool/busybox" \
			"$mk/replaced" '^replaced-ran$'
	fi

	# Unrestricted: the same copy and scripts run (so the refusals
	# above are the filter's), and say nothing.
	vm_run $t-unrestricted drv --root "$w" -- sh -c '
		"$1/bin/busybox" echo copy-ran
		"$1/bad.sh"
		"$1/good.sh"' sh "$w"
	if [ "$vm_status" = 0 ] && has $t-unrestricted '^copy-ran$' && has $t-unrestricted '^bad-script-ran$' &&
		has $t-unrestricted '^good-script-ran$' && [ "$(nevents $t-unrestricted)" = 0 ]; then
		pass $t-unrestricted "a scope without --exec ran the copy and both scripts, no event"
	else
		fail $t-unrestricted "exit $vm_status, see the output above"
	fi

	# Audit mode: let through, reported as audited.
	vm_run $t-audit drv --audit --root "$w" --exec /bin/busybox -- sh -c '
		"$1/bin/busybox" echo copy-ran' sh "$w"
	if [ "$vm_status" = 0 ] && has $t-audit '^copy-ran$' &&
		one_exec_event $t-audit audited "$w/bin/busybox" && has $t-audit 'denied=0 audited=1 '; then
		pass $t-audit "audit: the copy ran, one event op=exec decision=audited"
	else
		fail $t-audit "exit $vm_status, see the output above"
	fi

	# Not a regular file: refused before the step, which never runs (its
	# marker, like the allowed row's, would land in the root).
	vm_refused $t-not-file 4 'exec allow: Invalid argument' "$mk/not-file" \
		drv --root "$w" --exec /bin -- sh -c "echo attempt > $mk/not-file"

	identity "$m" "$w" "$mk"
	daemons "$m" "$w"

	bpfdrive --unload --force > /dev/null 2>&1
}

# Files alike but for their device, or but for their generation: two fresh
# ext4 file systems give their first file the same inode number, and
# bpfdrive --set-generation makes the generations equal.
identity() {
	m=$1 w=$2 mk=$3
	t=exec-$m
	a=exa-$m b=exb-$m
	if ! ext4_mount $a || ! ext4_mount $b; then
		fail $t-device "could not mount two ext4 images"
		ext4_umount $a
		ext4_umount $b
		return 0
	fi
	A=/mnt/$a B=/mnt/$b
	cp /bin/busybox "$A/busybox"
	cp /bin/busybox "$B/busybox"
	bpfdrive --set-generation 7 "$A/busybox" > /dev/null
	bpfdrive --set-generation 7 "$B/busybox" > /dev/null
	echo "  $A/busybox: dev $(stat -c %d "$A/busybox") ino $(stat -c %i "$A/busybox") gen $(gen_of "$A/busybox")"
	echo "  $B/busybox: dev $(stat -c %d "$B/busybox") ino $(stat -c %i "$B/busybox") gen $(gen_of "$B/busybox")"
	if [ "$(stat -c %i "$A/busybox")" != "$(stat -c %i "$B/busybox")" ] ||
		[ "$(gen_of "$A/busybox")" != 7 ] || [ "$(gen_of "$B/busybox")" != 7 ] ||
		[ "$(stat -c %d "$A/busybox")" = "$(stat -c %d "$B/busybox")" ]; then
		fail $t-device "setup: the two files are not alike in inode number and generation"
	else
		vm_run $t-device drv --root "$w" --exec /bin/busybox --exec "$A/busybox" -- sh -c '
			"$1/busybox" echo a-ran
			echo attempt > "$3/device"
			"$2/busybox" echo b-ran
			echo "went on: $?"' sh "$A" "$B" "$mk"
		if ! has $t-device '^a-ran$'; then
			fail $t-device "the registered file did not run"
		else
			refused $t-device "the same inode number and generation on another device" \
				"$B/busybox" "$mk/device" '^b-ran$'
		fi
	fi

	# The same device and inode number, another generation: what a
	# freed inode number given to a new file looks like.  The step
	# changes it (the file is inside its root, and bpfdrive is allowed:
	# a dynamically linked program, whose ld.so is not checked).
	vm_run $t-generation drv --root "$w" --root "$A" --exec /bin/busybox --exec "$drive" \
		--exec "$A/busybox" -- sh -c '
		"$1/busybox" echo before-ran
		bpfdrive --set-generation 8 "$1/busybox"
		echo attempt > "$2/generation"
		"$1/busybox" echo after-ran
		echo "went on: $?"' sh "$A" "$mk"
	if ! has $t-generation '^before-ran$' || ! has $t-generation "^generation $A/busybox: 8\$"; then
		fail $t-generation "the registered file did not run, or its generation was not changed"
	else
		refused $t-generation "the same device and inode number with another generation" \
			"$A/busybox" "$mk/generation" '^after-ran$'
	fi

	# Registered on a read-only mount: fchownat() would fail with EROFS
	# there before any hook; the fcntl registration does not.
	if mount -o remount,ro "$A"; then
		vm_run $t-readonly drv --root "$w" --exec /bin/busybox --exec "$A/busybox" -- \
			"$A/busybox" echo ro-ran
		if [ "$vm_status" = 0 ] && has $t-readonly '^ro-ran$' && [ "$(nevents $t-readonly)" = 0 ]; then
			pass $t-readonly "a file on a read-only mount registered and ran"
		else
			fail $t-readonly "exit $vm_status, see the output above"
		fi
	else
		fail $t-readonly "could not remount $A read-only"
	fi
	ext4_umount $a
	ext4_umount $b
}

# A double-forked daemon outlives its step.  Restricted: it executes
# busybox while the scope lives, nothing once the scope is removed (its
# list went with it).  Unrestricted: it goes on executing.  The daemon
# logs each attempt to fd 3; its sleep is an exec too, refused at the end
# like the others, so it then makes its last attempts quickly and ends.
daemon_step() {  # LOG: the step that leaves such a daemon behind
	echo '( setsid sh -c '\''echo "pid $$" >&3; i=0
		while [ $i -lt 60 ]; do i=$((i + 1))
			if /bin/busybox true; then echo "$i exec-ran" >&3; else echo "$i exec-refused" >&3; fi
			/bin/sleep 0.2; done'\'' & )
		while ! grep -q exec-ran '"$1"'; do /bin/sleep 0.1; done'
}

daemons() {
	m=$1 w=$2
	t=exec-$m
	for kind in restricted unrestricted; do
		log=/run/exec-daemon-$m-$kind.log
		: > "$log"
		if [ $kind = restricted ]; then
			set -- --exec /bin/busybox
		else
			set --
		fi
		vm_run $t-daemon-$kind drv --root "$w" "$@" -- sh -c "$(daemon_step "$log")" 3>> "$log"
		# The driver has removed the scope: three more attempts.
		n=$(grep -c exec- "$log")
		i=0
		while [ "$(grep -c exec- "$log")" -lt $((n + 3)) ] && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		last=$(grep exec- "$log" | tail -n 1)
		pid=$(sed -n 's/^pid //p' "$log")
		echo "  daemon $pid: $(grep -c exec-ran "$log") ran, $(grep -c exec-refused "$log") refused, last: $last"
		if [ "$vm_status" != 0 ] || ! grep -q exec-ran "$log"; then
			fail $t-daemon-$kind "the step or its daemon did not start (exit $vm_status)"
		elif [ $kind = restricted ] && [ "${last#* }" != exec-refused ]; then
			fail $t-daemon-$kind "once the scope was removed, the daemon still executes: $last"
		elif [ $kind = unrestricted ] && [ "${last#* }" != exec-ran ]; then
			fail $t-daemon-$kind "an unrestricted scope's daemon was refused an exec: $last"
		elif [ $kind = restricted ]; then
			pass $t-daemon-$kind "the daemon executed while its scope lived, nothing once it was removed"
		else
			pass $t-daemon-$kind "an unrestricted scope's daemon goes on executing after the scope is removed"
		fi
		[ -n "$pid" ] && kill "$pid" 2> /dev/null
	done
	return 0
}

for mode in $modes; do
	suite "$mode"
done
