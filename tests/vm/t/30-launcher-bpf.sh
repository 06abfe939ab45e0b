# 30-launcher-bpf.sh — the launcher on its eBPF backends, judged from
# outside (the file system, and the JSON log read with grep and sed): in
# each attach mode this boot allows, the four P-51 writes give exactly four
# denial records and land nowhere while the control lands; --mode audit
# lets them land and logs them as audited; a double-forked daemon stays
# confined after stepguard is SIGKILLed (and is refused everywhere once a
# later stepguard collects the dead scope); a second step reuses the pins
# the first loaded; two concurrent steps cannot write each other's work
# dir; a rename out is refused and logged with both ends.  And an
# unprivileged stepguard never uses eBPF.
#
# needs: stepguard bpfdrive

# Each mode's suite: pin-cold, pin-reuse, scopes; p51, p51-log, audit,
# audit-log; rename; without-root, without-user; killed, killed-gc.
# Then sg-log-lines, and the unprivileged rows sg-user-auto,
# sg-user-auto-log, sg-user-bpf-fmod, sg-user-bpf-fmod-ran.
if vm_lsm_active bpf; then
	vm_plan $((2 * 12 + 5)) "bpf-lsm and bpf-fmod, 12 each; 5 more"
else
	vm_plan $((12 + 5)) "bpf-fmod, 12; 5 more"
fi

LOG=/var/log/sg.json
mkdir -p /var/log
rm -f "$LOG"
export HOME=/root

# --- Reading the log ----------------------------------------------------
#
# Records are one JSON object a line, and log.c writes the fixed fields
# first: {"time":"...","event":"E","step":"S","run":"...",...}.  Every
# step here has its own --step name, so its records are the lines that
# start that way.  Field values are matched with their quotes and the
# comma or brace around them: a quote inside a string value is written \",
# so "key":"value" can only match a real key.  The values compared are
# plain ASCII (no escapes).

# recs STEP EVENT: STEP's records of kind EVENT (start, denial, end)
recs() {
	grep "^{\"time\":\"[^\"]*\",\"event\":\"$2\",\"step\":\"$1\"," "$LOG"
}
# nrecs STEP EVENT: how many
nrecs() { recs "$1" "$2" | grep -c .; }
# field KEY: KEY's value in the record on stdin: a string without escapes,
# a number or a boolean
field() {
	sed -n -e 's/.*[{,]"'"$1"'":"\([^"\\]*\)"[,}].*/\1/p' -e t \
		-e 's/.*[{,]"'"$1"'":\([-0-9a-z.]*\)[,}].*/\1/p'
}
# denials STEP OP PATH DECISION BACKEND: how many of STEP's denial records
# say exactly this
denials() {
	recs "$1" denial | grep -F "\"op\":\"$2\"," | grep -F "\"path\":\"$3\"," |
		grep -F "\"decision\":\"$4\"," | grep -F "\"backend\":\"$5\"" | grep -c .
}
# showlog STEP: STEP's records, for people
showlog() { grep "\"step\":\"$1\"," "$LOG" | vm_show; }

exists() { [ -e "$1" ] || [ -L "$1" ]; }

# uptime_ms: for the timing lines
uptime_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

# wait_for SCRIPT: up to 10 s (100 x 0.1 s) until eval SCRIPT succeeds
wait_for() {
	_i=0
	while ! eval "$1"; do
		[ $_i -ge 100 ] && return 1
		sleep 0.1
		_i=$((_i + 1))
	done
	return 0
}

# max_prog_id: the highest id of the programs the kernel holds, a number;
# empty when bpfdrive did not give one, and the rows that compare ids
# fail then: "unchanged" must be two equal numbers, not two empty strings
max_prog_id() {
	bpfdrive --max-prog-id 2> /dev/null | sed -n 's/^max-prog-id: \([0-9][0-9]*\)$/\1/p'
}

# --- One mode ---------------------------------------------------------------

# pins M: a cold start, then a second step while the first runs (it must
# reuse the pins: nothing loaded or verified again), and the two steps,
# each with its own work dir, cannot write into each other's.
#
# The steps overlap by a handshake, not by timing: each signals with a
# file in its own dir (the other's is refused to it, and reads are not)
# and waits for the other's.  A tries B's dir once B is running; B tries
# A's once A has tried and is still waiting for B to finish.  Each says
# what it saw; a wait that runs out says so and ends its step with 3, and
# the scopes row fails unless both saw the other running ($vm_await).
pins() {
	m=$1 ws=$2
	a=$ws/a b=$ws/b
	mkdir -p "$a" "$b"
	rm -f "$a"/* "$b"/*
	# A: writes its own dir, waits for B's, tries B's dir, says it has
	# tried (in its own dir) and waits for B to finish.
	stepguard --filter $m --log "$LOG" --step pin1-$m -w "$a" -- sh -c "$vm_await"'
		echo a > "$1/own"
		await "$2/own" "A: B running"
		echo x > "$2/from-a" && echo "A wrote into B"
		echo done > "$1/done"
		await "$2/done" "A: B finished"' \
		sh "$a" "$b" > "$VMTEST_STATE/pin1-$m.out" 2>&1 &
	first=$!
	if ! wait_for '[ "$(nrecs pin1-$m start)" = 1 ]'; then
		kill $first 2> /dev/null
		wait $first
		vm_show < "$VMTEST_STATE/pin1-$m.out"
		fail sg-$m-pin-cold "the first step did not start within 10 s"
		return 0
	fi
	max1=$(max_prog_id)
	vm_run pin2-$m stepguard --filter $m --log "$LOG" --step pin2-$m -w "$b" -- sh -c "$vm_await"'
		echo b > "$2/own"
		await "$1/done" "B: A tried, still running"
		echo y > "$1/from-b" && echo "B wrote into A"
		echo done > "$2/done"' sh "$a" "$b"
	st2=$vm_status
	max2=$(max_prog_id)
	wait $first
	st1=$?
	echo "  \$ (first step, in the background) -> $st1"
	vm_show < "$VMTEST_STATE/pin1-$m.out"
	showlog pin1-$m
	showlog pin2-$m

	r1=$(recs pin1-$m start | field bpf_reused)
	n1=$(recs pin1-$m start | field bpf_programs)
	k1=$(recs pin1-$m start | field backend)
	r2=$(recs pin2-$m start | field bpf_reused)
	n2=$(recs pin2-$m start | field bpf_programs)
	k2=$(recs pin2-$m start | field backend)
	if [ "$k1" != $m ] || [ "$r1" != false ] || [ "${n1:-0}" -lt 1 ]; then
		fail sg-$m-pin-cold "first step after unload: backend=$k1 bpf_reused=$r1 bpf_programs=$n1, expected $m, false, > 0"
	elif ! grep -q "write filter $m (programs loaded and pinned" "$VMTEST_STATE/pin1-$m.out"; then
		fail sg-$m-pin-cold "the start line does not say the programs were loaded"
	else
		pass sg-$m-pin-cold "cold start: bpf_reused false, $n1 programs loaded and pinned"
	fi
	if [ "$k2" != $m ] || [ "$r2" != true ] || [ "$n2" != "$n1" ]; then
		fail sg-$m-pin-reuse "second step: backend=$k2 bpf_reused=$r2 bpf_programs=$n2, expected $m, true, $n1"
	elif ! grep -q "write filter $m (pinned programs reused" "$VMTEST_STATE/pin2-$m.out"; then
		fail sg-$m-pin-reuse "the start line does not say the programs were reused"
	elif [ -z "$max1" ] || [ -z "$max2" ]; then
		fail sg-$m-pin-reuse "no program ids to compare: bpfdrive --max-prog-id gave '$max1' and '$max2'"
	elif [ "$max1" != "$max2" ]; then
		fail sg-$m-pin-reuse "the kernel gave out new program ids during the second step: $max1 -> $max2"
	else
		pass sg-$m-pin-reuse "second step while the first ran: bpf_reused true, $n2 programs, highest program id $max2 unchanged"
	fi

	# Each could write its own dir, neither the other's; each refusal
	# is in its own step's records, and only there.
	seen="$(grep -c '^saw: A: B running$' "$VMTEST_STATE/pin1-$m.out")$(grep -c '^saw: A: B finished$' "$VMTEST_STATE/pin1-$m.out")$(grep -c '^saw: B: A tried, still running$' "$VMTEST_STATE/pin2-$m.out")"
	if [ "$seen" != 111 ]; then
		fail sg-$m-scopes "the steps did not overlap as arranged (A saw B running, B saw A's attempt, A saw B finish: $seen); exits $st1 and $st2"
	elif [ "$st1" != 0 ] || [ "$st2" != 0 ]; then
		fail sg-$m-scopes "the steps exited $st1 and $st2"
	elif [ "$(cat "$a/own" 2> /dev/null)" != a ] || [ "$(cat "$b/own" 2> /dev/null)" != b ]; then
		fail sg-$m-scopes "a step could not write its own work dir"
	elif exists "$b/from-a" || exists "$a/from-b"; then
		fail sg-$m-scopes "a step wrote into the other's work dir: $(ls "$a" "$b" | tr '\n' ' ')"
	elif [ "$(denials pin1-$m create "$b/from-a" denied $m)" != 1 ] ||
		[ "$(denials pin2-$m create "$a/from-b" denied $m)" != 1 ] ||
		[ "$(nrecs pin1-$m denial)" != 1 ] || [ "$(nrecs pin2-$m denial)" != 1 ]; then
		fail sg-$m-scopes "expected one denial record each, for the other's dir"
	elif [ "$(recs pin1-$m end | field denials)" != 1 ] || [ "$(recs pin2-$m end | field denials)" != 1 ]; then
		fail sg-$m-scopes "the end records do not count one denial each"
	else
		pass sg-$m-scopes "concurrent steps (each saw the other running when it tried): each wrote its own dir, was refused the other's, one denial record each"
	fi
}

# p51 M WS W MODE: the four P-51 writes and a control, in enforce or audit
# mode, judged from the file system and the log.
p51() {
	m=$1 ws=$2 w=$3 mode=$4
	name=sg-$m-p51
	[ "$mode" = audit ] && name=sg-$m-audit
	targets="/root/p51-sg-$m /root/.p51-sg-$m /tmp/p51-sg-$m $ws/p51-sg-$m"
	rm -f $targets "$w/control"
	vm_run $name stepguard --filter $m --mode $mode --log "$LOG" --step $name -w "$w" -- sh -c '
		for f in "$HOME/p51-sg-'$m'" "$HOME/.p51-sg-'$m'" /tmp/p51-sg-'$m' "$PWD/../p51-sg-'$m'"; do
			echo probe > "$f" && echo "landed: $f"
		done
		echo control > control && echo "landed: control"' sh
	showlog $name
	landed='' absent='' missing=''
	for f in $targets; do
		if exists "$f"; then landed="$landed $f"; else absent="$absent $f"; fi
	done
	if [ "$mode" = audit ]; then
		want=audited
	else
		want=denied
	fi
	for f in $targets; do
		[ "$(denials $name create "$f" $want $m)" = 1 ] || missing="$missing $f"
	done
	n=$(nrecs $name denial)
	start=$(recs $name start)
	end=$(recs $name end)
	# every record also names the process (pid, uid 0, comm sh), has an
	# empty path2 (docs/log-format.md: "" but for rename and link), the
	# reason and the errno the shell got (13, or 0 when audited)
	if [ "$mode" = enforce ]; then errno=13; else errno=0; fi
	bad=''
	for re in '"pid":[1-9][0-9]*,' '"uid":0,' '"comm":"sh",' '"path2":"",' '"reason":"outside",' "\"errno\":$errno,"; do
		recs $name denial | grep -vq -- "$re" && bad="$bad $re"
	done

	if [ "$vm_status" != 0 ]; then
		fail $name "stepguard exited $vm_status"
	elif [ "$(cat "$w/control" 2> /dev/null)" != control ]; then
		fail $name "the control write inside the work dir did not land"
	elif [ "$mode" = enforce ] && [ -n "$landed" ]; then
		fail $name "outside writes landed:$landed"
	elif [ "$mode" = audit ] && [ -n "$absent" ]; then
		fail $name "audit mode, but these writes did not land:$absent"
	else
		pass $name "control landed; the four P-51 writes $([ $mode = audit ] && echo landed || echo 'did not land') (file system)"
	fi
	if [ "$n" != 4 ] || [ -n "$missing" ]; then
		fail $name-log "$n denial records (expected 4: create, $want, backend $m); missing:${missing:- none}"
	elif [ -n "$bad" ]; then
		fail $name-log "denial records lacking:$bad"
	elif [ "$(echo "$start" | grep -c .)" != 1 ] || [ "$(echo "$start" | field backend)" != $m ] ||
		[ "$(echo "$start" | field mode)" != $mode ]; then
		fail $name-log "no start record, or not backend $m mode $mode: $start"
	elif [ "$(echo "$end" | grep -c .)" != 1 ] || [ "$(echo "$end" | field denials)" != 4 ] ||
		[ "$(echo "$end" | field lost)" != 0 ] || [ "$(echo "$end" | field status)" != 0 ]; then
		fail $name-log "no end record, or not denials 4, lost 0, status 0: $end"
	else
		pass $name-log "exactly four denial records (create, $want, $m) with the right paths; start and end (denials 4, lost 0)"
	fi
	rm -f $targets "$w/control"
}

# try_rename M WS W: a rename out of the work dir, refused; its record names
# both ends (path: the old name, path2: the new one).
try_rename() {
	m=$1 ws=$2 w=$3
	name=sg-$m-rename
	echo keep > "$w/keep"
	rm -f "$ws/moved"
	vm_run $name stepguard --filter $m --log "$LOG" --step $name -w "$w" -- \
		mv "$w/keep" "$ws/moved"
	showlog $name
	rec=$(recs $name denial)
	if [ "$(cat "$w/keep" 2> /dev/null)" != keep ] || exists "$ws/moved"; then
		fail $name "the file was moved out of the work dir"
	elif [ "$vm_status" = 0 ]; then
		fail $name "mv succeeded"
	elif [ "$(nrecs $name denial)" != 1 ] || [ "$(echo "$rec" | field op)" != rename ] ||
		[ "$(echo "$rec" | field path)" != "$w/keep" ] || [ "$(echo "$rec" | field path2)" != "$ws/moved" ]; then
		fail $name "refused, but the record is not one rename with path $w/keep, path2 $ws/moved: $rec"
	else
		pass $name "rename out refused (file system); one record: rename, path and path2 right"
	fi
	rm -f "$w/keep"
}

# killed M W: SIGKILL stepguard while its step's double-forked daemon
# writes outside (a file in /tmp) and inside (a file in W) every 0.1 s.
# Outside never lands.  Inside: stepguard could not remove its scope, so
# the daemon keeps its policy (inside lands) until a later stepguard
# collects the scope of the dead one (scope.c, sg_bpf_gc(); tested the
# same way with bpfdrive in 20-bpf.sh); from then on the daemon is refused
# every write (bpf/README.md: a task whose scope has no policy).
killed() {
	m=$1 w=$2
	name=sg-$m-killed
	out=/tmp/sgk-$m in=$w/daemon-in rep=/run/sgk-$m.report
	rm -f "$out" "$in"
	: > "$rep"
	# The report goes to the step's stdout (kept at exec; descriptors
	# above 2 are not), a file the test opened for appending.
	stepguard --filter $m --log "$LOG" --step $name -w "$w" -- sh -c '
		( setsid sh -c '\''echo "pid $$"; i=0
			while [ $i -lt 40 ]; do i=$((i + 1))
				if echo $i >> "$1"; then echo "$i out-landed"; else echo "$i out-refused"; fi
				if echo $i >> "$2"; then echo "$i in-landed"; else echo "$i in-refused"; fi
				sleep 0.1
			done'\'' sh "$1" "$2" 2> /dev/null & )
		exec sleep 30' sh "$out" "$in" >> "$rep" 2> "$VMTEST_STATE/$name.err" &
	sg=$!
	# The start record is written once the step's exec succeeded, while
	# the step already runs: kill only after it, or a slow stepguard
	# (ASan) dies before writing it and the log check below fails.
	if ! wait_for 'grep -q " in-" "$rep"' || ! wait_for '[ "$(nrecs $name start)" = 1 ]'; then
		kill -KILL $sg
		wait $sg
		vm_show < "$VMTEST_STATE/$name.err"
		fail $name "the daemon did not start, or stepguard wrote no start record, within 10 s"
		return 0
	fi
	kill -KILL $sg
	wait $sg 2> /dev/null
	st=$?
	n_kill=$(grep -c ' in-' "$rep")
	in_kill=$(wc -l 2> /dev/null < "$in")
	# a few more attempts under the orphaned scope
	wait_for '[ "$(grep -c " in-" "$rep")" -ge $((n_kill + 3)) ]'
	in_mid=$(wc -l 2> /dev/null < "$in")
	n_mid=$(grep -c ' in-' "$rep")
	# A later step collects the dead scope.
	vm_run $name-gc stepguard --filter $m --log "$LOG" --step $name-gc -w "$w" -- true
	gc_status=$vm_status
	n_gc=$(grep -c ' in-' "$rep")
	# one attempt may have passed its check before the collection
	wait_for '[ "$(grep -c " in-" "$rep")" -ge $((n_gc + 2)) ]'
	in_gc=$(wc -l 2> /dev/null < "$in")
	wait_for '[ "$(grep -c " in-" "$rep")" -ge $((n_gc + 4)) ]'
	in_end=$(wc -l 2> /dev/null < "$in")
	# the daemon goes on writing its report: judge one snapshot of it
	snap=$(cat "$rep")
	n_end=$(echo "$snap" | grep -c ' in-')
	# attempts after the collection (one may have been under way) that landed
	late=$(echo "$snap" | awk -v g=$((n_gc + 1)) '$2 == "in-landed" && $1 > g { printf " %s", $1 }')
	pid=$(sed -n 's/^pid //p' "$rep")
	spid=$(recs $name start | field pid)
	[ -n "$pid" ] && kill "$pid" 2> /dev/null
	[ -n "$spid" ] && kill "$spid" 2> /dev/null
	echo "  daemon $pid: attempts at kill $n_kill, before gc $n_mid, after gc $n_gc, at the end $n_end;" \
		"lines in $in: $in_kill, $in_mid, $in_gc, $in_end"
	tr '\n' ' ' < "$rep" | fold -w 150 | vm_show
	vm_show < "$VMTEST_STATE/$name.err"
	showlog $name

	if [ "$st" != 137 ]; then
		fail $name "stepguard was not killed by SIGKILL (status $st)"
	elif exists "$out" || grep -q out-landed "$rep"; then
		fail $name "the daemon wrote outside the work dir after stepguard was killed: $(ls -l "$out" 2> /dev/null)"
	elif [ "$n_mid" -le "$n_kill" ]; then
		fail $name "the daemon made no attempts after stepguard was killed"
	elif [ "$(nrecs $name start)" != 1 ] || [ "$(nrecs $name end)" != 0 ]; then
		fail $name "expected a start record and no end record from the killed stepguard"
	elif [ "${in_mid:-0}" -le "${in_kill:-0}" ]; then
		fail $name "inside writes stopped landing at the kill, before any collection ($in_kill -> $in_mid lines)"
	else
		pass $name "stepguard SIGKILLed: $((n_mid - n_kill)) more attempts, none landed outside, inside still allowed (orphaned scope kept)"
	fi
	if [ "$gc_status" != 0 ]; then
		fail $name-gc "the later step exited $gc_status"
	elif [ "$n_end" -lt $((n_gc + 4)) ]; then
		fail $name-gc "the daemon stopped trying after the later step ($n_gc -> $n_end attempts)"
	elif [ "$in_end" != "$in_gc" ] || [ -n "$late" ]; then
		fail $name-gc "inside writes still land after the later step collected the dead scope ($in_gc -> $in_end lines; attempts that landed:${late:- none})"
	elif exists "$out"; then
		fail $name-gc "the outside file appeared"
	else
		pass $name-gc "a later step collected the dead scope: the daemon is refused inside too, outside never landed"
	fi
	rm -f "$in" "$rep"
}

# without M W: what a root step runs without on backend M (issue 16): the
# child drops the capabilities after its mark (every set, bounding too),
# RLIMIT_CORE is 1/1, and the step has an IPC namespace of its own; the
# same for a step root drops to sgtest.  Each step also prints "ran".
has_cap() { [ $(((0x$1 >> $2) & 1)) = 1 ]; }
capfield() { sed -n "s/^$1:[[:space:]]*//p" "$2" | head -n 1; }
without() {
	m=$1 w=$2
	host_ipc=$(readlink /proc/self/ns/ipc)
	probe='grep -E "^Cap(Prm|Eff|Bnd|Amb):" /proc/self/status; grep "core file size" /proc/self/limits; readlink /proc/self/ns/ipc; id -u; echo ran'
	out=$VMTEST_STATE/without-$m.out
	(cd "$w" && stepguard --filter $m -q -w "$w" -- sh -c "$probe") > "$out" 2>&1
	vm_show < "$out"
	why=""
	grep -qx ran "$out" || why="$why the step did not run;"
	for set in CapPrm CapEff CapBnd; do
		v=$(capfield $set "$out")
		[ -n "$v" ] || { why="$why no $set;"; continue; }
		# 21 CAP_SYS_ADMIN, 38 CAP_PERFMON, 19 CAP_SYS_PTRACE, 24 CAP_SYS_RESOURCE: gone
		for c in 21 38 19 24; do has_cap "$v" $c && why="$why $set has $c;"; done
		# 0 CAP_CHOWN, 1 CAP_DAC_OVERRIDE: kept
		for c in 0 1; do has_cap "$v" $c || why="$why $set lacks $c;"; done
	done
	[ "$(capfield CapAmb "$out")" = 0000000000000000 ] || why="$why ambient set not empty;"
	grep -Eq 'core file size +1 +1 +bytes' "$out" || why="$why RLIMIT_CORE is not 1/1;"
	grep -qxF "$host_ipc" "$out" && why="$why the step shares the IPC namespace $host_ipc;"
	if [ -n "$why" ]; then fail sg-$m-without-root "$why"; else
		pass sg-$m-without-root "root step: no SYS_ADMIN, PERFMON, SYS_PTRACE, SYS_RESOURCE in any set, CHOWN kept; core 1/1; its own IPC namespace"
	fi
	# sudo stepguard: the step as sgtest, stepguard root
	uw=/home/sgtest/sgl-without-$m
	mkdir -p "$uw" && chown 1000:1000 "$uw"
	(cd "$uw" && SUDO_UID=1000 SUDO_GID=1000 stepguard --filter $m -q -w "$uw" -- sh -c "$probe") > "$out" 2>&1
	vm_show < "$out"
	why=""
	grep -qx ran "$out" || why="$why the step did not run;"
	grep -qx 1000 "$out" || why="$why not uid 1000;"
	[ "$(capfield CapEff "$out")" = 0000000000000000 ] || why="$why effective set not empty;"
	v=$(capfield CapBnd "$out")
	[ -n "$v" ] && has_cap "$v" 21 && why="$why CapBnd has SYS_ADMIN;"
	grep -Eq 'core file size +1 +1 +bytes' "$out" || why="$why RLIMIT_CORE is not 1/1;"
	grep -qxF "$host_ipc" "$out" && why="$why the step shares the IPC namespace;"
	if [ -n "$why" ]; then fail sg-$m-without-user "$why"; else
		pass sg-$m-without-user "root dropping to sgtest: no capability, bounding set without SYS_ADMIN, core 1/1, its own IPC namespace"
	fi
}

suite() {
	m=$1
	ws=/var/tmp/sgl-$m
	w=$ws/work
	rm -rf "$ws"
	mkdir -p "$w"
	echo "== $m (work dir $w)"
	t0=$(uptime_ms)
	# Nothing pinned: the first step below starts cold.  And on a boot
	# with both modes, the other mode's set must go, or it would attach
	# next to this one and do its refusing for it.
	bpfdrive --unload --force > /dev/null 2>&1
	tu=$(uptime_ms)
	pins $m "$ws"
	t1=$(uptime_ms)
	(cd "$w" && p51 $m "$ws" "$w" enforce)
	(cd "$w" && p51 $m "$ws" "$w" audit)
	try_rename $m "$ws" "$w"
	without $m "$w"
	t2=$(uptime_ms)
	killed $m "$w"
	t3=$(uptime_ms)
	echo "  $m: unload $((tu - t0)) ms, pins+scopes $((t1 - tu)) ms, p51+audit+rename $((t2 - t1)) ms, killed $((t3 - t2)) ms"
}

t_start=$(uptime_ms)
if vm_lsm_active bpf; then
	suite bpf-lsm
else
	# refused by name where bpf is not an active LSM (10-stepguard.sh)
	echo "  bpf is not an active LSM: bpf-fmod only"
fi
suite bpf-fmod

# Concurrent steps shared one log: every line must be one whole record.
if [ ! -s "$LOG" ]; then
	fail sg-log-lines "no log written"
elif grep -vq '^{"time":"[^"]*","event":"[a-z]*",.*}$' "$LOG"; then
	grep -vn '^{"time":"[^"]*","event":"[a-z]*",.*}$' "$LOG" | head -n 5 | vm_show
	fail sg-log-lines "torn or interleaved lines in $LOG (above)"
else
	pass sg-log-lines "$(grep -c . "$LOG") records, each one whole line"
fi

# --- Unprivileged: never eBPF ----------------------------------------------
#
# The pins are loaded (root's, in a 0700 bpffs directory), bpf-fmod works
# for root on every boot: a user's stepguard must still use Landlock, or
# refuse where Landlock is off.
t_user=$(uptime_ms)
uw=/home/sgtest/sgl-work
ulog=/tmp/sg-user.json
mkdir -p "$uw"
chown 1000:1000 "$uw"
rm -f "$ulog" "$uw/user-ok"
max1=$(max_prog_id)
# (as_user's su takes options anywhere in its arguments: one string)
ustep="exec stepguard --log $ulog --step user -w $uw -- sh -c 'echo ok > $uw/user-ok'"
if vm_lsm_active landlock; then
	vm_expect sg-user-auto 0 'write filter landlock' as_user sh -c "$ustep"
	rec=$(grep '"event":"start"' "$ulog" 2> /dev/null)
	echo "$rec" | vm_show
	case $(echo "$rec" | field backend) in
	landlock | landlock+supervisor)
		if echo "$rec" | grep -q '"bpf_'; then
			fail sg-user-auto-log "a Landlock start record with bpf fields: $rec"
		elif [ "$(cat "$uw/user-ok" 2> /dev/null)" != ok ]; then
			fail sg-user-auto-log "the step did not write its work dir"
		else
			pass sg-user-auto-log "uid 1000: backend $(echo "$rec" | field backend) in the start record, control landed"
		fi
		;;
	*) fail sg-user-auto-log "uid 1000: start record backend '$(echo "$rec" | field backend)': $rec" ;;
	esac
else
	# The control, with no stepguard able to run it here: the same step
	# as sgtest, bare, writes user-ok; so its absence below is the
	# refusal's, and the marker of the bpf-fmod row too.
	as_user sh -c "echo ok > $uw/user-ok"
	ctl=$(cat "$uw/user-ok" 2> /dev/null)
	rm -f "$uw/user-ok"
	vm_refused sg-user-auto 71 'landlock' "$uw/user-ok" as_user sh -c "$ustep"
	if [ "$ctl" != ok ]; then
		fail sg-user-auto-log "control: the step as sgtest without stepguard did not write $uw/user-ok"
	elif exists "$uw/user-ok" || grep -q '"event":"start"' "$ulog" 2> /dev/null; then
		fail sg-user-auto-log "refused, but the step ran"
	else
		pass sg-user-auto-log "uid 1000 without Landlock: refused, the step never ran (no user-ok, no start record; bare, it writes user-ok)"
	fi
fi
# eBPF asked for by name: refused, never a fallback.
vm_refused sg-user-bpf-fmod 71 'root' "$uw/user-ok" \
	as_user sh -c "exec stepguard --filter bpf-fmod -w $uw -- sh -c 'echo ok > $uw/user-ok'"
max2=$(max_prog_id)
if exists "$uw/user-ok"; then
	fail sg-user-bpf-fmod-ran "the step ran"
elif [ -z "$max1" ] || [ -z "$max2" ]; then
	fail sg-user-bpf-fmod-ran "no program ids to compare: bpfdrive --max-prog-id gave '$max1' and '$max2'"
elif [ "$max1" != "$max2" ]; then
	fail sg-user-bpf-fmod-ran "programs were loaded: $max1 -> $max2"
else
	pass sg-user-bpf-fmod-ran "the step did not run, nothing loaded (highest program id $max2 before and after)"
fi

# The filter stays pinned: unloading costs about 3 s on 6.1 under TCG, and
# the files that need a cold start unload first.
echo "  30-launcher-bpf: $(($(uptime_ms) - t_start)) ms (user $(($(uptime_ms) - t_user)) ms)"
