# 60-failclosed-bpf.sh — rows of the fail-closed matrix that only an eBPF
# backend can give (tests/failclosed/README.md; the host runs the Landlock
# side), through the launcher, in the attach mode of this boot:
#   - a step that ignores the cancellation, then loses its stepguard to
#     SIGKILL, stays confined;
#   - a step whose user runs out of processes, or that runs out of address
#     space, stays confined for what still runs;
#   - the step SIGKILLed: stepguard reports it, and an orphan it left is
#     refused every write once the scope is gone;
#   - a storm of refusals while stepguard cannot read the ring buffer: the
#     lost events are counted, nothing outside lands, no control write
#     fails, and the log and `audit` account for every refusal;
#   - the kernel refusing to attach: nothing run, nothing left pinned;
#   - another build's working pins next to this build's: each confines its
#     own steps, and --unload removes only its own.
# Each row first shows that the same write lands without stepguard, or
# checks a counterpart, so it can fail.
#
# needs: stepguard fchelper adversary bpfdrive

# sigterm, nproc, step-killed, memory, ring-overflow, attach-control,
# attach-refused, attach-refused-auto, other-build
vm_plan 9
if vm_lsm_active bpf; then m=bpf-lsm; else m=bpf-fmod; fi
W=/tmp/fc-$m
rm -rf "$W"
mkdir -p "$W"
chown 1000:1000 "$W"
cd "$W" || return 0

# wait_for SCRIPT SECONDS: until eval SCRIPT succeeds
wait_for() {
	_i=0
	while ! eval "$1"; do
		[ $_i -ge $(($2 * 10)) ] && return 1
		sleep 0.1
		_i=$((_i + 1))
	done
	return 0
}

# --- SIGTERM ignored by the step, then stepguard SIGKILLed -----------------
# stepguard forwards the SIGTERM and keeps waiting (docs/design.md,
# "Cancellation"); the canceller's SIGKILL then leaves the step running,
# still confined.  Its stdout is a file opened before it started, so it can
# say how far it got without writing anything new.  The step makes its
# write only when told (/run/fc-term-go), after stepguard is dead, and
# says "finished" after it: the attempt happened, and after the SIGKILL.
step='trap "" TERM; echo started; while [ ! -e /run/fc-term-go ]; do sleep 0.1; done; echo x > /root/fc-term.txt; echo finished'
rm -f /root/fc-term.txt
touch /run/fc-term-go
sh -c "$step" > /run/fc-term.bare 2>&1
rm -f /run/fc-term-go
if [ ! -e /root/fc-term.txt ]; then
	fail fc-$m-sigterm "the write does not land even without stepguard: $(cat /run/fc-term.bare)"
else
	rm -f /root/fc-term.txt
	stepguard -q --filter "$m" -w "$W" -- sh -c "$step" > /run/fc-term.out 2>&1 &
	sg=$!
	if ! wait_for 'grep -q started /run/fc-term.out' 20; then
		fail fc-$m-sigterm "the step did not start: $(cat /run/fc-term.out)"
	else
		kill -TERM "$sg"
		sleep 1
		if ! kill -0 "$sg" 2> /dev/null; then
			fail fc-$m-sigterm "stepguard exited on a SIGTERM the step ignored"
		else
			kill -KILL "$sg"
			wait "$sg" 2> /dev/null
			touch /run/fc-term-go
			if ! wait_for 'grep -q finished /run/fc-term.out' 20; then
				fail fc-$m-sigterm "the step never finished: $(cat /run/fc-term.out)"
			elif [ -e /root/fc-term.txt ]; then
				fail fc-$m-sigterm "after stepguard's SIGKILL the step wrote /root/fc-term.txt"
			else
				pass fc-$m-sigterm "SIGTERM forwarded and ignored, stepguard kept waiting; after its SIGKILL the step's write outside was refused"
			fi
		fi
	fi
fi
vm_show < /run/fc-term.out
rm -f /run/fc-term-go

# --- the step's user out of processes ----------------------------------------
# RLIMIT_NPROC binds a user, not root: stepguard, started by root with
# SUDO_UID, drops the step to sgtest (uid 1000).  Forks fail; what runs
# stays confined, and so do the children that were created.
# A failed fork ends a non-interactive shell, so the storm runs in a
# subshell; what follows needs no fork (builtins, then exec).  Each child
# the storm got writes at once with a builtin and then becomes a sleep
# (exec, no fork) that holds its slot: a child that had to fork again
# would die at the limit before it wrote, and an unconfined run could
# then show nothing landing.  Each child first notes its attempt in the
# work dir, so that "nothing landed" cannot mean "no child got to try".
step='ulimit -u 12; ( i=0; while [ $i -lt 30 ]; do { echo t >> '"$W"'/fc-nproc-tries; echo z >> /tmp/fc-nproc-child.txt; exec sleep 2; } & i=$((i + 1)); done ) 2> /dev/null; echo y > /tmp/fc-nproc.txt; echo finished; exec sleep 2'
# n_user: how many processes sgtest has (they count against its limit)
n_user() { grep -l '^Uid:[[:space:]]*1000[[:space:]]' /proc/[0-9]*/status 2> /dev/null | grep -c .; }
rm -f /tmp/fc-nproc.txt /tmp/fc-nproc-child.txt "$W/fc-nproc-tries"
as_user sh -c "$step" > /run/fc-nproc.bare 2>&1
if [ ! -e /tmp/fc-nproc.txt ] || [ ! -e /tmp/fc-nproc-child.txt ]; then
	fail fc-$m-nproc "the write does not land even without stepguard: $(cat /run/fc-nproc.bare)"
else
	rm -f /tmp/fc-nproc.txt /tmp/fc-nproc-child.txt "$W/fc-nproc-tries"
	# the unconfined run's children count against the same limit
	wait_for '[ "$(n_user)" = 0 ]' 10
	SUDO_UID=1000 SUDO_GID=1000 SUDO_USER=sgtest stepguard -q --filter "$m" -w "$W" -- \
		sh -c "$step" > /run/fc-nproc.out 2>&1
	st=$?
	tries=$(grep -c . "$W/fc-nproc-tries" 2> /dev/null)
	if ! grep -q finished /run/fc-nproc.out; then
		fail fc-$m-nproc "the step did not run to its end (exit $st): $(head -c 300 /run/fc-nproc.out)"
	elif [ "${tries:-0}" = 0 ]; then
		fail fc-$m-nproc "no child of the step got to its write: the children were not tested"
	elif [ -e /tmp/fc-nproc.txt ] || [ -e /tmp/fc-nproc-child.txt ]; then
		fail fc-$m-nproc "a write outside landed with the process limit reached"
	else
		pass fc-$m-nproc "RLIMIT_NPROC 12 reached: the step and its $tries children that tried stayed confined (exit $st)"
	fi
	vm_show < /run/fc-nproc.out
fi

LOG=/var/log/sg-fc.json
mkdir -p /var/log
rm -f "$LOG"
export HOME=/root

# field KEY: KEY's value in the JSON record on stdin (a plain string
# without escapes, a number or a boolean), as in 30-launcher-bpf.sh
field() {
	sed -n -e 's/.*[{,]"'"$1"'":"\([^"\\]*\)"[,}].*/\1/p' -e t \
		-e 's/.*[{,]"'"$1"'":\([-0-9a-z.]*\)[,}].*/\1/p'
}
# rec STEP EVENT: STEP's records of kind EVENT in $LOG
rec() {
	grep "^{\"time\":\"[^\"]*\",\"event\":\"$2\",\"step\":\"$1\"," "$LOG"
}
exists() { [ -e "$1" ] || [ -L "$1" ]; }

# --- the step SIGKILLed --------------------------------------------------
# The step double-forks an orphan, then is killed.  stepguard must report
# the signal (exit 137, the end record) and remove the scope; the orphan
# then holds a dead scope, and bpf/README.md says every write it makes is
# refused, inside the work dir too.  Its only output is the stdout it
# inherited (a descriptor, not an open).
rm -f /run/fc-go /root/fc-orphan-out "$W"/orphan-*
orphan='echo x > "$1/orphan-early" && echo "early: landed"
	while [ ! -e /run/fc-go ]; do sleep 0.1; done
	if echo x > "$1/orphan-late"; then echo "late inside: landed"; else echo "late inside: refused"; fi
	if echo x > /root/fc-orphan-out; then echo "late outside: landed"; else echo "late outside: refused"; fi
	echo "orphan finished"'
stepguard --filter "$m" --log "$LOG" --step fc-killed -w "$W" -- sh -c '
	( setsid sh -c "$1" sh "$2" & )
	echo "step $$"; exec sleep 60' sh "$orphan" "$W" > /run/fc-killed.out 2>&1 &
sg=$!
if ! wait_for 'grep -q "early: landed" /run/fc-killed.out && grep -q "^step [0-9]" /run/fc-killed.out' 20; then
	fail fc-$m-step-killed "the step or its orphan did not start: $(cat /run/fc-killed.out)"
	kill -KILL "$sg" 2> /dev/null
else
	step_pid=$(sed -n 's/^step \([0-9]*\)$/\1/p' /run/fc-killed.out)
	kill -KILL "$step_pid"
	# A guard against a hang, not a time limit: stepguard must notice
	# the death at all (under TCG and ASan that can take seconds).
	t=0
	while kill -0 "$sg" 2> /dev/null && [ $t -lt 600 ]; do sleep 0.1; t=$((t + 1)); done
	if kill -0 "$sg" 2> /dev/null; then
		fail fc-$m-step-killed "stepguard still runs 60 s after its step was SIGKILLed"
		kill -KILL "$sg"
		wait "$sg" 2> /dev/null
	else
		wait "$sg"
		st=$?
		end=$(rec fc-killed end)
		touch /run/fc-go
		wait_for 'grep -q "orphan finished" /run/fc-killed.out' 20
		if [ "$st" != 137 ]; then
			fail fc-$m-step-killed "stepguard exited $st, expected 137 (128 + SIGKILL)"
		elif [ "$(echo "$end" | field signal)" != 9 ] || [ "$(echo "$end" | field exit)" != 137 ]; then
			fail fc-$m-step-killed "the end record does not say signal 9, exit 137: $end"
		elif ! grep -q "orphan finished" /run/fc-killed.out; then
			fail fc-$m-step-killed "the orphan never finished"
		elif exists /root/fc-orphan-out || exists "$W/orphan-late"; then
			fail fc-$m-step-killed "after the scope was removed, the orphan's writes landed"
		elif ! grep -q "late inside: refused" /run/fc-killed.out || ! grep -q "late outside: refused" /run/fc-killed.out; then
			fail fc-$m-step-killed "the orphan did not report both late writes refused"
		else
			pass fc-$m-step-killed "exit 137 within $((t * 100)) ms, end record signal 9; the orphan wrote inside while the scope lived, and was refused inside and outside after"
		fi
	fi
fi
vm_show < /run/fc-killed.out

# --- out of address space --------------------------------------------------
# RLIMIT_AS on stepguard and the step (on the step alone when stepguard is
# built with ASan): fchelper allocates and touches 1 MiB
# blocks to ENOMEM, keeps them, and only then writes inside and outside.
# Nothing in the filter allocates in the step's address space.
ops="create:$W/mem-in create:/root/fc-mem-out chmod:/root/fc-mem-chmod:600"
rm -f "$W/mem-in" /root/fc-mem-out
echo x > /root/fc-mem-chmod
chmod 644 /root/fc-mem-chmod
# shellcheck disable=SC2086
sh -c 'ulimit -v 262144; exec fchelper try --hog "$@"' sh $ops > /run/fc-mem.bare 2>&1
if ! exists /root/fc-mem-out || [ "$(stat -c %a /root/fc-mem-chmod)" != 600 ] ||
	! grep -q 'ENOMEM\|Cannot allocate' /run/fc-mem.bare; then
	fail fc-$m-memory "without stepguard the allocation did not reach ENOMEM or the writes did not land: $(cat /run/fc-mem.bare)"
else
	rm -f "$W/mem-in" /root/fc-mem-out
	chmod 644 /root/fc-mem-chmod
	# A stepguard built with ASan (make asan) cannot run under any
	# RLIMIT_AS (its shadow memory): then only the step is limited.
	if grep -qa __asan_init "$(command -v stepguard)"; then
		on="the step (stepguard is built with ASan)"
		# shellcheck disable=SC2016,SC2086
		stepguard -q --filter "$m" -w "$W" -- sh -c 'ulimit -v 262144; exec fchelper try --hog "$@"' \
			sh $ops > /run/fc-mem.out 2>&1
	else
		on="stepguard and the step"
		# shellcheck disable=SC2016,SC2086
		sh -c 'ulimit -v 262144; exec stepguard -q --filter "$1" -w "$2" -- fchelper try --hog "$3" "$4" "$5"' \
			sh "$m" "$W" $ops > /run/fc-mem.out 2>&1
	fi
	st=$?
	if ! grep -q 'ENOMEM\|Cannot allocate' /run/fc-mem.out; then
		fail fc-$m-memory "the step did not run out of memory (exit $st)"
	elif ! exists "$W/mem-in"; then
		fail fc-$m-memory "the write inside the work dir did not land (exit $st)"
	elif exists /root/fc-mem-out || [ "$(stat -c %a /root/fc-mem-chmod)" != 644 ]; then
		fail fc-$m-memory "out of memory, a write or chmod outside landed"
	elif ! grep -q '^create /root/fc-mem-out: refused' /run/fc-mem.out ||
		! grep -q '^chmod /root/fc-mem-chmod: refused' /run/fc-mem.out; then
		fail fc-$m-memory "fchelper did not report both outside attempts refused"
	else
		pass fc-$m-memory "RLIMIT_AS 256 MiB on $on, reached: inside landed, outside create and chmod refused (exit $st)"
	fi
fi
vm_show < /run/fc-mem.out
rm -f /root/fc-mem-chmod

# --- a storm of refusals while the ring buffer is not read -------------------
# stepguard is stopped (SIGSTOP) while four processes of the step each make
# 6000 creates outside, which must all be refused, and a control create
# inside every 100, which must all land.  The 1 MiB ring fills; the rest of
# the events are lost, and counted.  After SIGCONT stepguard drains the
# ring: the denial records plus the lost count must equal the refusals
# the step counted, on stderr, in the end record and in `stepguard audit`.
n=6000
F=/root/fc-flood
rm -rf "$F" "$W"/c* "$W"/flood.* "$W"/ready "$W"/go "$W"/done
mkdir -p "$F"
stepguard --filter "$m" --log "$LOG" --step fc-flood -w "$W" -- sh -c '
	echo > "$1/ready"
	while [ ! -e "$1/go" ]; do sleep 0.1; done
	for i in 1 2 3 4; do adversary flood "$2" "$1" "$3" > "$1/flood.$i" & done
	wait
	echo > "$1/done"' sh "$W" "$F" "$n" > /run/fc-flood.out 2>&1 &
sg=$!
if ! wait_for '[ -e "$W/ready" ]' 20; then
	fail fc-$m-ring-overflow "the step did not start: $(cat /run/fc-flood.out)"
	kill -KILL "$sg"
else
	kill -STOP "$sg"
	echo > "$W/go"
	wait_for '[ -e "$W/done" ]' 300
	kill -CONT "$sg"
	wait "$sg"
	st=$?
	cat "$W"/flood.* | vm_show
	tried=0 refused=0 landed=0 ctl_ok=0 ctl_failed=0
	for f in "$W"/flood.*; do
		# shellcheck disable=SC2046 # the five numbers, split on purpose
		set -- $(sed -n 's/^flood: tried \([0-9]*\) refused \([0-9]*\) landed \([0-9]*\) control_ok \([0-9]*\) control_failed \([0-9]*\)$/\1 \2 \3 \4 \5/p' "$f")
		[ $# = 5 ] || set -- 0 0 0 0 0
		tried=$((tried + $1)) refused=$((refused + $2)) landed=$((landed + $3))
		ctl_ok=$((ctl_ok + $4)) ctl_failed=$((ctl_failed + $5))
	done
	ctl_files=$(find "$W" -maxdepth 1 -name 'c*-*' | grep -c .)
	outside=$(find "$F" -mindepth 1 | grep -c .)
	end=$(rec fc-flood end)
	lost=$(echo "$end" | field lost)
	denials=$(echo "$end" | field denials)
	logged=$(rec fc-flood denial | grep -c .)
	said=$(sed -n 's/^stepguard: \([0-9]*\) refusals could not be logged (ring buffer full)$/\1/p' /run/fc-flood.out)
	stepguard audit --json "$LOG" > /run/fc-flood.audit 2>&1
	# the step's "lost" in the pretty-printed JSON, read line by line:
	# a regex over the whole report (10 000 paths) is far too slow in
	# busybox when it does not match
	audit_lost=$(awk '/"step": "fc-flood"/ { f = 1 } f && /"lost":/ { gsub(/[^0-9]/, ""); print; exit }' /run/fc-flood.audit)
	stepguard audit "$LOG" | grep -A1 '^  fc-flood:' | vm_show
	echo "  tried $tried refused $refused landed $landed control $ctl_ok ok $ctl_failed failed ($ctl_files files); end: denials $denials lost $lost; $logged denial records; stderr said ${said:-nothing}; audit lost ${audit_lost:-?}"
	if [ "$st" != 0 ]; then
		fail fc-$m-ring-overflow "stepguard exited $st: $(head -c 300 /run/fc-flood.out)"
	elif [ "$tried" != $((4 * n)) ]; then
		fail fc-$m-ring-overflow "the flood did not run whole: $tried of $((4 * n)) creates tried"
	elif [ "$landed" != 0 ] || [ "$outside" != 0 ] || [ "$refused" != "$tried" ]; then
		fail fc-$m-ring-overflow "creates outside landed: $landed reported, $outside files in $F"
	elif [ "$ctl_failed" != 0 ] || [ "$ctl_ok" != $((4 * n / 100)) ] || [ "$ctl_files" != "$ctl_ok" ]; then
		fail fc-$m-ring-overflow "control writes inside failed: $ctl_failed failed, $ctl_ok ok, $ctl_files files"
	elif [ -z "$lost" ] || [ "$lost" -le 0 ]; then
		fail fc-$m-ring-overflow "the end record says lost=${lost:-nothing} with $denials of $refused refusals logged: the loss went uncounted, or the ring did not overflow and the row was not tested"
	elif [ "$said" != "$lost" ]; then
		fail fc-$m-ring-overflow "stderr said '${said:-nothing}', the end record lost=$lost"
	elif [ "$denials" != "$logged" ] || [ $((denials + lost)) != "$refused" ]; then
		fail fc-$m-ring-overflow "denials $denials (records $logged) + lost $lost != $refused refusals"
	elif [ "$audit_lost" != "$lost" ]; then
		fail fc-$m-ring-overflow "stepguard audit --json says lost ${audit_lost:-nothing}, the end record $lost"
	else
		pass fc-$m-ring-overflow "$refused refusals while stepguard was stopped: $denials logged + $lost lost (stderr, end record, audit); nothing outside, $ctl_ok control writes landed"
	fi
fi
head -n 5 /run/fc-flood.out | vm_show
rm -rf "$F" "$W"/c*-*

# --- the kernel refuses to attach ----------------------------------------------
# With the pins gone, stepguard must load and attach.  fchelper makes
# bpf(BPF_LINK_CREATE) and bpf(BPF_RAW_TRACEPOINT_OPEN) (commands 28 and
# 17: libbpf attaches tracing and LSM programs with one or the other) fail
# with EPERM.  By name: 71, the attach named, the step not run, no set
# published and no temporary directory left, no program left behind.
# auto: the reason on the start line and the step on Landlock, confined;
# without Landlock, refused.  The step writes attach-ran in the work dir
# first: the control, from a cold start without fchelper, shows that it
# does when the attach works.
unload_all() { bpfdrive --unload --force > /dev/null 2>&1; }
unload_all
rm -f "$W/attach-ran" /root/fc-attach-out
stepguard --filter "$m" -w "$W" -- \
	sh -c 'echo x > "$1/attach-ran"; echo x > /root/fc-attach-out; exit 0' sh "$W" > /run/fc-attach-control.out 2>&1
st=$?
vm_show < /run/fc-attach-control.out
if [ "$st" != 0 ] || ! exists "$W/attach-ran"; then
	fail fc-$m-attach-control "without fchelper: exit $st, the step $(exists "$W/attach-ran" && echo ran || echo 'did not run')"
elif exists /root/fc-attach-out; then
	fail fc-$m-attach-control "without fchelper, the step's write outside landed"
else
	pass fc-$m-attach-control "without fchelper: attached, the step ran (attach-ran) and was refused outside"
fi
unload_all
# (a number, or empty, which fails the row: not "nothing left loaded")
max_prog_id() { bpfdrive --max-prog-id 2> /dev/null | sed -n 's/^max-prog-id: \([0-9][0-9]*\)$/\1/p'; }
before=$(max_prog_id)
rm -f "$W/attach-ran" /root/fc-attach-out
fchelper deny bpf/28=EPERM bpf/17=EPERM -- stepguard --filter "$m" -w "$W" -- \
	sh -c 'echo x > "$1/attach-ran"; echo x > /root/fc-attach-out' sh "$W" > /run/fc-attach.out 2>&1
st=$?
after=$(max_prog_id)
leftover=$(find /sys/fs/bpf/stepguard -mindepth 2 -maxdepth 2 -type d 2> /dev/null | tr '\n' ' ')
links=$(find /sys/fs/bpf/stepguard -mindepth 3 2> /dev/null | grep -c .)
vm_show < /run/fc-attach.out
echo "  programs: ${before:-?} -> ${after:-?}; directories left: ${leftover:-none}; links pinned: $links"
if [ "$st" != 71 ]; then
	fail fc-$m-attach-refused "exit $st, expected 71"
elif ! grep -q 'cannot attach .*Operation not permitted' /run/fc-attach.out ||
	! grep -q 'the step was not run' /run/fc-attach.out; then
	fail fc-$m-attach-refused "the message does not name the attach and say the step was not run"
elif exists "$W/attach-ran" || exists /root/fc-attach-out; then
	fail fc-$m-attach-refused "the step ran"
elif [ -n "$leftover" ] || [ "$links" != 0 ]; then
	fail fc-$m-attach-refused "left in the pin directory: $leftover ($links links)"
elif [ -z "$before" ] || [ -z "$after" ]; then
	fail fc-$m-attach-refused "no program ids to compare: bpfdrive --max-prog-id gave '$before' and '$after'"
elif [ "$after" -gt "$before" ]; then
	# --max-prog-id walks the programs that exist: a program that
	# outlived the failure would raise it
	fail fc-$m-attach-refused "programs left loaded: highest id $before -> $after"
else
	pass fc-$m-attach-refused "71, 'cannot attach … Operation not permitted', not run, no set, temporary directory or program left (highest program id $before -> $after)"
fi

rm -f "$W/attach-ran" /root/fc-attach-out
# (-v: auto gives its eBPF reasons on the start line only when asked,
# and always in --check; the line always names the backend it chose)
fchelper deny bpf/28=EPERM bpf/17=EPERM -- stepguard -v -w "$W" -- \
	sh -c 'echo x > "$1/attach-ran"; echo x > /root/fc-attach-out; exit 0' sh "$W" > /run/fc-attach-auto.out 2>&1
st=$?
vm_show < /run/fc-attach-auto.out
if vm_lsm_active landlock; then
	if [ "$st" != 0 ] || ! grep -q 'write filter landlock' /run/fc-attach-auto.out ||
		! grep -q 'cannot attach' /run/fc-attach-auto.out; then
		fail fc-$m-attach-refused-auto "exit $st; expected 0, Landlock on the start line and the attach failure named"
	elif ! exists "$W/attach-ran" || exists /root/fc-attach-out; then
		fail fc-$m-attach-refused-auto "on Landlock the step was not confined as expected (inside $(exists "$W/attach-ran" && echo landed || echo missing), outside $(exists /root/fc-attach-out && echo landed || echo refused))"
	else
		pass fc-$m-attach-refused-auto "auto: the attach failure on the start line, the step ran on Landlock, confined"
	fi
else
	if [ "$st" != 71 ] || exists "$W/attach-ran" || exists /root/fc-attach-out; then
		fail fc-$m-attach-refused-auto "without Landlock: exit $st, expected 71 with the step not run"
	else
		pass fc-$m-attach-refused-auto "auto without Landlock: 71, not run"
	fi
fi
rm -f "$W/attach-ran" /root/fc-attach-out

# --- another build's working pins next to this build's -----------------------
# A step of this build runs, and its set's directory is then renamed to
# another build's name: a set that works, with a live scope, as an older
# stepguard's would be.  The next step must load its own set, name the
# other as left alone, and be confined by its own while the first stays
# confined by the renamed one.  --unload removes only this build's set.
other=v0_0_9-0ddba11
rm -rf "$W/a" "$W/b"
mkdir -p "$W/a" "$W/b"
rm -f /root/fc-other-a /root/fc-other-b /root/.fc-other-b /tmp/fc-other-b "$W/fc-other-b"
unload_all
stepguard --filter "$m" --log "$LOG" --step fc-other-a -w "$W/a" -- sh -c '
	echo x > "$1/before" && echo "a: before landed"
	while [ ! -e "$1/go" ]; do sleep 0.1; done
	if echo x > /root/fc-other-a; then echo "a: outside landed"; else echo "a: outside refused"; fi
	echo x > "$1/after" && echo "a: after landed"' sh "$W/a" > /run/fc-other-a.out 2>&1 &
sga=$!
if ! wait_for '[ -e "$W/a/before" ]' 30; then
	fail fc-$m-other-build "the first step did not start: $(cat /run/fc-other-a.out)"
	kill -KILL "$sga"
	wait "$sga" 2> /dev/null
else
	ours=$(ls /sys/fs/bpf/stepguard)
	mv "/sys/fs/bpf/stepguard/$ours" "/sys/fs/bpf/stepguard/$other"
	(cd "$W/b" && stepguard --filter "$m" --log "$LOG" --step fc-other-b -w "$W/b" -- sh -c '
		for f in "$HOME/fc-other-b" "$HOME/.fc-other-b" /tmp/fc-other-b "$PWD/../fc-other-b"; do
			echo x > "$f" && echo "b: landed $f"
		done
		echo control > control && echo "b: control landed"') > /run/fc-other-b.out 2>&1
	stb=$?
	echo > "$W/a/go"
	wait "$sga"
	sta=$?
	stepguard --unload > /run/fc-other-unload.out 2>&1
	stu=$?
	vm_show < /run/fc-other-a.out
	vm_show < /run/fc-other-b.out
	vm_show < /run/fc-other-unload.out
	landed=''
	for f in /root/fc-other-b /root/.fc-other-b /tmp/fc-other-b "$W/fc-other-b"; do
		exists "$f" && landed="$landed $f"
	done
	if [ "$stb" != 0 ] || ! grep -q "write filter $m (programs loaded and pinned" /run/fc-other-b.out; then
		fail fc-$m-other-build "the second step (exit $stb) did not load its own set"
	elif ! grep -q "eBPF pins of other builds, left alone: $other" /run/fc-other-b.out; then
		fail fc-$m-other-build "the second step did not name $other as left alone"
	elif [ -n "$landed" ] || [ "$(cat "$W/b/control" 2> /dev/null)" != control ]; then
		fail fc-$m-other-build "with both sets attached: landed outside:${landed:- none}; control $(cat "$W/b/control" 2> /dev/null || echo missing)"
	elif [ "$sta" != 0 ] || exists /root/fc-other-a || ! grep -q "a: after landed" /run/fc-other-a.out; then
		fail fc-$m-other-build "the first step, under the renamed set: exit $sta, outside $(exists /root/fc-other-a && echo landed || echo refused), inside after $(grep -q 'a: after landed' /run/fc-other-a.out && echo landed || echo 'did not land')"
	elif [ "$stu" != 0 ] || [ ! -d "/sys/fs/bpf/stepguard/$other" ] || [ -d "/sys/fs/bpf/stepguard/$ours" ]; then
		fail fc-$m-other-build "--unload (exit $stu) left: $(ls /sys/fs/bpf/stepguard | tr '\n' ' ')"
	else
		pass fc-$m-other-build "this build's set loaded next to $other: the four P-51 writes refused, control landed; the other set kept its step confined; --unload removed only $ours"
	fi
	# The renamed set goes the way an older stepguard's --unload would:
	# its directory removed, which detaches its links.
	rm -rf "/sys/fs/bpf/stepguard/$other"
fi
cd /
