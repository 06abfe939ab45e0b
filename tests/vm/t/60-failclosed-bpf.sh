# 60-failclosed-bpf.sh — rows of the fail-closed matrix that only an eBPF
# backend can give (tests/failclosed/README.md; the host runs the Landlock
# side): a step that ignores the cancellation, then loses its stepguard to
# SIGKILL, stays confined; a step whose user runs out of processes stays
# confined for what still runs.  Each row first shows that the same write
# lands without stepguard, so it can fail.

if ! command -v stepguard > /dev/null; then
	skip failclosed-bpf "stepguard is not in the image (not built)"
	return 0
fi
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
# say how far it got without writing anything new.
step='trap "" TERM; echo started; sleep 3; echo x > /root/fc-term.txt; echo finished'
rm -f /root/fc-term.txt
sh -c "$step" > /run/fc-term.bare 2>&1
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

# --- the step's user out of processes ----------------------------------------
# RLIMIT_NPROC binds a user, not root: stepguard, started by root with
# SUDO_UID, drops the step to sgtest (uid 1000).  Forks fail; what runs
# stays confined, and so do the children that were created.
# A failed fork ends a non-interactive shell, so the storm runs in a
# subshell; what follows needs no fork (builtins, then exec).  Each child
# the storm got writes at once with a builtin and then becomes a sleep
# (exec, no fork) that holds its slot: a child that had to fork again
# would die at the limit before it wrote, and an unconfined run could
# then show nothing landing.
step='ulimit -u 12; ( i=0; while [ $i -lt 30 ]; do { echo z >> /tmp/fc-nproc-child.txt; exec sleep 2; } & i=$((i + 1)); done ) 2> /dev/null; echo y > /tmp/fc-nproc.txt; echo finished; exec sleep 2'
rm -f /tmp/fc-nproc.txt /tmp/fc-nproc-child.txt
as_user sh -c "$step" > /run/fc-nproc.bare 2>&1
if [ ! -e /tmp/fc-nproc.txt ] || [ ! -e /tmp/fc-nproc-child.txt ]; then
	fail fc-$m-nproc "the write does not land even without stepguard: $(cat /run/fc-nproc.bare)"
else
	rm -f /tmp/fc-nproc.txt /tmp/fc-nproc-child.txt
	sleep 1 # the unconfined run's children count against the same limit
	SUDO_UID=1000 SUDO_GID=1000 SUDO_USER=sgtest stepguard -q --filter "$m" -w "$W" -- \
		sh -c "$step" > /run/fc-nproc.out 2>&1
	st=$?
	if ! grep -q finished /run/fc-nproc.out; then
		fail fc-$m-nproc "the step did not run to its end (exit $st): $(head -c 300 /run/fc-nproc.out)"
	elif [ -e /tmp/fc-nproc.txt ] || [ -e /tmp/fc-nproc-child.txt ]; then
		fail fc-$m-nproc "a write outside landed with the process limit reached"
	else
		pass fc-$m-nproc "RLIMIT_NPROC 12 reached: the step and its children stayed confined (exit $st)"
	fi
	vm_show < /run/fc-nproc.out
fi
cd /
