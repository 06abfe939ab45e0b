#!/bin/bash
# Command-line tests of the built stepguard: statuses and messages, judged
# from outside.  Usage: STEPGUARD=build/stepguard bash tests/cli/run.sh [-v]
# (-v: a PASS line for each case too).
#
# A refusal is judged with the evidence that the step would have run: a
# marker the step wrote in its work dir before its attempt, or a control
# run of the same step without the fault that does write it.  Every check
# that an output lacks something also checks that the output is the real
# one (a line that must be there is there): a stepguard that prints
# nothing, or runs nothing, fails them.
set -u
SG=${STEPGUARD:?set STEPGUARD to the binary under test}
VERBOSE=0
[ "${1:-}" = -v ] && VERBOSE=1
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0
T=$(mktemp -d /tmp/sg-cli.XXXXXX)
H=$(mktemp -d /tmp/sg-cli-home.XXXXXX) # beside, not inside, the work tree
trap 'rm -rf "$T" "$H"' EXIT
cd "$T" || exit 1
mkdir work

ok() {
	pass=$((pass + 1))
	[ "$VERBOSE" = 1 ] && echo "PASS $1"
	return 0
}
ko() {
	fail=$((fail + 1))
	printf 'FAIL %s\n' "$*"
}
# expect STATUS NEEDLE NAME -- COMMAND...: the command exits with STATUS and
# its stdout+stderr contains NEEDLE.
expect() {
	local want=$1 needle=$2 name=$3
	shift 4
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && grep -qF -- "$needle" <<<"$out"; then
		ok "$name"
	else
		ko "$name: status $rc (want $want), output:"
		head -20 <<<"$out"
	fi
}
# refute STATUS SHOWN HIDDEN NAME -- COMMAND...: the command exits with
# STATUS, its output contains SHOWN (so it is the real output) and never
# HIDDEN.
refute() {
	local want=$1 shown=$2 hidden=$3 name=$4
	shift 5
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" != "$want" ] || ! grep -qF -- "$shown" <<<"$out"; then
		ko "$name: status $rc (want $want), or no line with $shown: the output judged is not stepguard's:"
		head -20 <<<"$out"
	elif grep -qF -- "$hidden" <<<"$out"; then
		ko "$name: output contains $hidden"
	else
		ok "$name"
	fi
}

# The unprivileged user the steps of caps.sh, summary.sh, landlock-log.sh
# and tmpdir-sudo-user run as.  As root it is made when missing, as
# tests/host and tests/failclosed do, so that a machine without it fails
# here instead of skipping those cases unseen.  SG_NO_SGTEST=REASON runs
# without it: each case that needs it then says SKIP.
if [ "$(id -u)" = 0 ] && ! id sgtest >/dev/null 2>&1; then
	if [ -n "${SG_NO_SGTEST:-}" ]; then
		echo "SKIP the user sgtest: not created (SG_NO_SGTEST: $SG_NO_SGTEST); the cases that need it skip"
	elif ! useradd -m sgtest >/dev/null 2>&1 || ! id sgtest >/dev/null 2>&1; then
		ko "sgtest: no user sgtest, and useradd -m sgtest failed (SG_NO_SGTEST=REASON runs without it)"
	fi
fi

E=(env -i PATH=/usr/bin:/bin HOME="$H")

# --- the acceptance cases of the rulings --------------------------------
expect 77 CLAUDE_CODE_SUBPROCESS_ENV_SCRUB scrub-no-tools -- \
	"${E[@]}" CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=1 "$SG" --check -- claude -p hi
expect 77 '--tools ""' scrub-no-tools-names-fix -- \
	"${E[@]}" CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=1 "$SG" --check -- claude -p hi
expect 0 'decision: run' scrub-empty-tools -- \
	"${E[@]}" CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=1 "$SG" --check -- claude -p hi --tools ""
expect 0 'decision: run' scrub-tools-equals -- \
	"${E[@]}" CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=1 "$SG" --check -- claude -p hi --tools=
expect 77 ANTHROPIC_API_KEY cred-tools-bash -- \
	"${E[@]}" ANTHROPIC_API_KEY=sk-ant-test "$SG" --check -- claude -p hi --tools Bash
expect 77 ANTHROPIC_API_KEY cred-no-tools -- \
	"${E[@]}" ANTHROPIC_API_KEY=sk-ant-test "$SG" --check -- claude -p hi
expect 77 'not the model CLI' cred-sh-wrapper -- \
	"${E[@]}" ANTHROPIC_API_KEY=sk-ant-test "$SG" --check -- sh -c 'claude -p hi --tools ""'
expect 77 '--allowedTools' cred-tool-flag -- \
	"${E[@]}" ANTHROPIC_API_KEY=sk-ant-test "$SG" --check -- claude -p hi --tools "" --allowedTools Bash
expect 0 'decision: run' cred-empty-tools -- \
	"${E[@]}" ANTHROPIC_API_KEY=sk-ant-test "$SG" --check -- claude -p hi --tools ""
expect 0 'decision: run' scrub-zero -- \
	"${E[@]}" CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=0 "$SG" --check -- sh -c true
# the refusal happens on a real run too, before anything starts; the
# control, the scrub variable 0, shows the same command does make work/ran
out=$("${E[@]}" CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=0 "$SG" -q -w work -- sh -c 'touch work/ran' 2>&1); rc=$?
if [ "$rc" = 0 ] && [ -e work/ran ]; then
	rm -f work/ran
	expect 77 'ruling 1' run-refused -- \
		"${E[@]}" CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=1 "$SG" -w work -- sh -c 'touch work/ran'
	[ ! -e work/ran ] && ok run-refused-not-run || ko "run-refused-not-run: the command ran"
else
	ko "run-refused: the control (the scrub variable 0) did not run the step: status $rc: $out"
fi
rm -f work/ran
# a credential's value is never printed, in --check or in a refusal; what
# is printed in its place is
HID='(an argument holding the value of ANTHROPIC_API_KEY or part of it, not shown)'
refute 77 "--tools grants the tool $HID" sk-ant-SECRET cred-value-hidden-check -- \
	"${E[@]}" ANTHROPIC_API_KEY=sk-ant-SECRET "$SG" --check -- claude --tools sk-ant-SECRET
refute 77 "the option $HID grants tools" sk-ant-SECRET cred-value-hidden-run -- \
	"${E[@]}" ANTHROPIC_API_KEY=sk-ant-SECRET "$SG" -- claude --allowedTools=sk-ant-SECRET
refute 77 'the command env is not the model CLI' sk-ant-SECRET cred-value-hidden-verbose -- \
	"${E[@]}" ANTHROPIC_API_KEY=sk-ant-SECRET "$SG" -v --check -- env

# --- policy errors name file and line ------------------------------------
printf '[stepguard]\nmode = enforce\nalow = yes\n' > bad.ini
expect 64 'bad.ini:3: unknown key "alow"' unknown-key-line-3 -- "${E[@]}" "$SG" -p bad.ini --check
# A FIFO named as the policy is refused at once, not read until a writer comes.
mkfifo -m 644 fifo.ini
expect 64 'fifo.ini: refused: not a regular file' policy-fifo -- timeout 5 "${E[@]}" "$SG" -p fifo.ini --check
printf '[stepguard]\nmode = enforce\n[nope]\n' > sec.ini
expect 64 'sec.ini:3: unknown section [nope]' unknown-section -- "${E[@]}" "$SG" -p sec.ini --check
printf '[stepguard]\nmode = enforce\nmode = audit\n' > dup.ini
expect 64 'dup.ini:3: duplicate key' duplicate-key -- "${E[@]}" "$SG" -p dup.ini --check
printf '[writes]\ncache = ${env:SG_UNSET_VAR}/cache\n' > unset.ini
expect 64 'unset.ini:2: [writes] cache: ${env:SG_UNSET_VAR} is used but SG_UNSET_VAR is not set' \
	unset-variable -- "${E[@]}" "$SG" -p unset.ini --check
printf '[stepguard]\nmode = audit\n' > gw.ini
chmod 0666 gw.ini
expect 64 'writable by group or others' group-writable -- "${E[@]}" "$SG" -p gw.ini --check
expect 64 'No such file' missing-explicit -- "${E[@]}" "$SG" -p absent.ini --check
expect 64 'No such file' missing-env-policy -- "${E[@]}" STEPGUARD_POLICY=absent.ini "$SG" --check
printf '[stepguard]\nmode = audit\n\n[step:lint]\nmode = enforce\nwrite.cache = ${WORKDIR}/../cache\n' > step.ini
mkdir -p cache
expect 0 '# mode: audit' step-default -- "${E[@]}" "$SG" -p step.ini -w work --check
# audit mode on Landlock: nothing refused, the supervisor records, and says it is no boundary
expect 0 'audit: nothing refused, the supervisor records what would be, not a boundary' \
	audit-on-landlock -- "${E[@]}" "$SG" -p step.ini -w work --filter landlock --check
expect 71 'filter bpf-lsm is unavailable' bpf-lsm-unavailable -- \
	"${E[@]}" "$SG" -w work --filter bpf-lsm --check -- true
expect 0 '# mode: enforce' step-override -- "${E[@]}" "$SG" -p step.ini -w work -s lint --check
expect 0 "[step:lint] write.cache: $T/work/../cache -> $T/cache" step-write-resolved -- \
	"${E[@]}" "$SG" -p step.ini -w work --step lint --check
expect 0 '# mode: enforce' env-step -- "${E[@]}" STEPGUARD_STEP=lint "$SG" -p step.ini -w work --check

printf '[writes]\nconf = ${HOME}/.config/x\n' > home.ini

printf '[seccomp]\n# comment\nallow = getpid\n' > allow.ini
expect 64 'allow.ini:3: [seccomp] allow: "getpid" is not on the default deny list' seccomp-allow-unlisted -- \
	"${E[@]}" "$SG" -p allow.ini -w work --check
printf '[seccomp]\nallow = clone3\n' > clone3.ini
expect 64 'clone3 cannot be allowed' seccomp-allow-clone3 -- "${E[@]}" "$SG" -p clone3.ini -w work --check
printf '[seccomp]\ndeny = ptrase\n' > typo.ini
expect 64 'typo.ini:2: [seccomp] deny: "ptrase" is not a system call name' seccomp-deny-typo -- \
	"${E[@]}" "$SG" -p typo.ini -w work --check
printf '[seccomp]\ndeny = acct\nallow = ptrace\n' > ok.ini
expect 0 'decision: policy valid' seccomp-add-remove-ok -- "${E[@]}" "$SG" -p ok.ini -w work --check

# --- roots -----------------------------------------------------------------
expect 64 'would allow every write' workdir-root -- "${E[@]}" "$SG" -w / --check
expect 64 'contains the home directory' workdir-home -- "${E[@]}" "$SG" -w "$H" --check
expect 64 'contains the home directory' allow-write-above-home -- \
	"${E[@]}" "$SG" -w work --allow-write "$(dirname "$H")" --check
expect 64 'HOME is not set' home-unset-expansion -- \
	env -i PATH=/usr/bin:/bin "$SG" -p home.ini -w work --check
PWHOME=$(getent passwd "$(id -u)" | cut -d: -f6)
if [ -d "$PWHOME" ]; then
	expect 64 'contains the home directory' workdir-home-env-unset -- \
		env -i PATH=/usr/bin:/bin "$SG" -w "$PWHOME" --check
fi
expect 64 'No such file' workdir-missing -- "${E[@]}" "$SG" -w "$T/absent" --check
expect 64 'is not a directory' workdir-file -- "${E[@]}" "$SG" -w bad.ini --check

# --- the log -----------------------------------------------------------------
expect 64 'inside the writable root' log-inside-root-check -- \
	"${E[@]}" "$SG" -w work --log work/x.log --check
# on a real run: refused before the log is made; the control, the same
# run with the log outside the root, makes it
out=$("${E[@]}" "$SG" -q -w work --log "$T/x.log" -- true 2>&1); rc=$?
if [ "$rc" = 0 ] && [ -s "$T/x.log" ]; then
	expect 64 'inside the writable root' log-inside-root-run -- "${E[@]}" "$SG" -w work --log work/x.log -- true
	[ ! -e work/x.log ] && ok log-inside-root-not-created || ko "log-inside-root-not-created: created"
else
	ko "log-inside-root-run: the control (the log outside the root) made no log: status $rc: $out"
fi
expect 64 'its directory' log-missing-dir -- "${E[@]}" "$SG" -w work --log "$T/absent/x.log" --check
printf '[stepguard]\nkeep-fds = 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19\n' > fds.ini
expect 64 'fds.ini:2: [stepguard] keep-fds: 17 descriptors, at most 16' keep-fds-limit -- \
	"${E[@]}" "$SG" -p fds.ini -w work --check

# --- inherited descriptors: closed above 2 unless the policy keeps them -------
# The step marks its work dir before it writes to 7: sh's own error and
# status 2 are the refusal, the marker that it was tried.
exec 7>"$T/fd7.txt"
out=$("${E[@]}" "$SG" -q -w work -- sh -c 'echo tried >work/fd7.tried; echo via7 >&7' 2>&1); rc=$?
if [ "$rc" = 2 ] && [ -e work/fd7.tried ] && grep -q '7: Bad file descriptor' <<<"$out" &&
	[ ! -s "$T/fd7.txt" ]; then ok fd-closed; else
	ko "fd-closed: status $rc (want sh's 2), tried: $([ -e work/fd7.tried ] && echo yes || echo no), fd 7 wrote: $(cat "$T/fd7.txt") $out"; fi
rm -f work/fd7.tried
printf '[stepguard]\nkeep-fds = 7\n' > keep.ini
out=$("${E[@]}" "$SG" -q -p keep.ini -w work -- sh -c 'echo via7 >&7' 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -q via7 "$T/fd7.txt"; then ok fd-kept; else
	ko "fd-kept: status $rc: $out"; fi
exec 7>&-

# --- a credential, or a piece of it, in argv: named, never shown or logged ----
K=sk-ant-api03-Zq8vN3xKpL2mRt7wYb4cHd9fJs6gTa1eUo5iWk0nXr
mkdir -p bin && printf '#!/bin/sh\nexit 0\n' >bin/claude && chmod 755 bin/claude
out=$("${E[@]}" ANTHROPIC_API_KEY=$K "$SG" -q -w work --log "$T/cred.log" -- \
	"$T/bin/claude" --tools "" -- "review ${K:0:24}" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -qF '(redacted: contains the value of ANTHROPIC_API_KEY or part of it)' "$T/cred.log" &&
	! grep -qF "${K:13:4}" "$T/cred.log"; then ok credential-piece-logged; else
	ko "credential-piece-logged: status $rc: $out $(cat "$T/cred.log")"; fi
# Three bytes of the key after a byte the log escapes as \x1e: the escape's
# "1e" and "Uo" spell "1eUo" of the key, which the argument does not hold.
out=$("${E[@]}" ANTHROPIC_API_KEY=$K "$SG" -q -w work --log "$T/cred2.log" -- \
	"$T/bin/claude" --tools "" -- "review $(printf '\036')Uo5" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -qF '(redacted: contains the value of ANTHROPIC_API_KEY or part of it)' "$T/cred2.log" &&
	! grep -qF "1eUo" "$T/cred2.log"; then ok credential-piece-spelled-by-escape; else
	ko "credential-piece-spelled-by-escape: status $rc: $out $(cat "$T/cred2.log")"; fi
expect 77 'the tool (an argument holding the value of ANTHROPIC_API_KEY or part of it, not shown)' \
	credential-piece-explained -- "${E[@]}" ANTHROPIC_API_KEY=$K "$SG" -w work -- claude --tools "${K:0:20}"
refute 77 "the command $HID is not the model CLI" "${K:22:4}" credential-piece-not-shown -- \
	"${E[@]}" ANTHROPIC_API_KEY=$K "$SG" -w work -- "${K:20:10}" --tools ""
# a command that passes the ruling but cannot be run is named in the error
expect 127 '(the command, holding the value of ANTHROPIC_API_KEY or part of it, not shown): No such file' \
	credential-piece-not-found -- "${E[@]}" ANTHROPIC_API_KEY=$K "$SG" -q -w work -- "$T/no-${K:30:8}/claude" --tools ""
refute 127 '(the command, holding the value of ANTHROPIC_API_KEY or part of it, not shown): No such file' \
	"${K:30:8}" credential-piece-not-found-not-shown -- \
	"${E[@]}" ANTHROPIC_API_KEY=$K "$SG" -q -w work -- "$T/no-${K:30:8}/claude" --tools ""

# --- the step's private temporary directory (issue 14) -----------------------
# On by default: TMPDIR and its kin name a new 0700 directory of the step's
# user, a writable root, removed at the end; /tmp itself stays refused.
seq 1 60000 >big
out=$("${E[@]}" "$SG" -v -w work --log "$T/tmp.log" -- sh -c '
	echo "tmp=$TMPDIR|$TMP|$TEMP|$TEMPDIR"; stat -c "mode=%a owner=%u" "$TMPDIR"
	d=$(mktemp -d) && echo "made=$d" && sort -S 64K big >work/sorted && echo sorted
	echo x >/tmp/sg-cli-tmp-probe.$$ && echo "tmp-landed"; echo done' 2>&1); rc=$?
td=$(sed -n 's/^tmp=\([^|]*\)|.*/\1/p' <<<"$out")
case $td in /tmp/stepguard-step-*) ok=1 ;; *) ok=0 ;; esac
if [ "$rc" -eq 0 ] && [ "$ok" = 1 ] && grep -qx "tmp=$td|$td|$td|$td" <<<"$out" &&
	grep -qx "mode=700 owner=$(id -u)" <<<"$out" && grep -q "^made=$td/tmp\." <<<"$out" &&
	grep -qx sorted <<<"$out" && grep -qx done <<<"$out" && ! grep -q tmp-landed <<<"$out" &&
	grep -q 'cannot create /tmp/sg-cli-tmp-probe\.[0-9]*: Permission denied' <<<"$out" &&
	cmp -s work/sorted <(sort big) && grep -qF "writable: $td (temporary directory)" <<<"$out" &&
	[ ! -e "$td" ]; then ok tmpdir-default; else
	ko "tmpdir-default: status $rc, dir '$td' (exists: $([ -e "$td" ] && echo yes || echo no)): $out"; fi
rm -f /tmp/sg-cli-tmp-probe.*
# the start record names it; the end record says it was removed
if grep -q '"event":"start".*"tmpdir":"'"$td"'"' "$T/tmp.log" &&
	grep -q '"event":"end".*"tmpdir_removed":true' "$T/tmp.log"; then ok tmpdir-log; else
	ko "tmpdir-log: $(cat "$T/tmp.log")"; fi
# two steps at once get two directories
"${E[@]}" "$SG" -q -w work -- sh -c 'echo "$TMPDIR" >"$TMPDIR/me"; sleep 1; cat "$TMPDIR/me"' >c1.out 2>&1 &
c1=$!
"${E[@]}" "$SG" -q -w work -- sh -c 'echo "$TMPDIR" >"$TMPDIR/me"; sleep 1; cat "$TMPDIR/me"' >c2.out 2>&1
wait $c1
if [ -s c1.out ] && [ -s c2.out ] && ! cmp -s c1.out c2.out && grep -q '^/tmp/stepguard-step-' c1.out; then
	ok tmpdir-concurrent; else ko "tmpdir-concurrent: $(cat c1.out c2.out)"; fi
# $RUNNER_TEMP is the base when set; the step's name is in the directory's name
mkdir -m 0755 rt
out=$("${E[@]}" RUNNER_TEMP="$T/rt" "$SG" -q -w work -s build -- sh -c 'echo "$TMPDIR"; touch "$TMPDIR/x"' 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -q "^$T/rt/stepguard-build-" <<<"$out" && [ -z "$(ls rt)" ]; then
	ok tmpdir-runner-temp; else ko "tmpdir-runner-temp: status $rc: $out; left: $(ls rt)"; fi
expect 64 'its base '"$T"'/absent ($RUNNER_TEMP): No such file' tmpdir-runner-temp-missing -- \
	"${E[@]}" RUNNER_TEMP="$T/absent" "$SG" -w work -- true
mkdir -m 0777 shared && chmod 0777 shared
printf '[stepguard]\ntmpdir-base = %s/shared\n' "$T" >shared.ini
expect 64 'shared.ini:2: the step'"'"'s temporary directory: its base '"$T"'/shared (tmpdir-base, shared.ini:2) is writable by others and not sticky' \
	tmpdir-base-shared -- "${E[@]}" "$SG" -p shared.ini -w work -- true
# off per step: TMPDIR is passed as given; kept: named at the end, left in place
printf '[step:plain]\ntmpdir = no\n[step:keep]\nkeep-tmpdir = yes\n' >tmpd.ini
expect 0 'TMPDIR=/nowhere' tmpdir-off -- \
	"${E[@]}" TMPDIR=/nowhere "$SG" -q -p tmpd.ini -s plain -w work -- sh -c 'echo "TMPDIR=$TMPDIR"'
expect 0 '# temporary directory: none (tmpd.ini:2)' tmpdir-off-check -- \
	"${E[@]}" "$SG" -p tmpd.ini -s plain -w work --check -- true
out=$("${E[@]}" "$SG" -p tmpd.ini -s keep -w work -- sh -c 'echo kept >"$TMPDIR/f"' 2>&1); rc=$?
kd=$(sed -n "s/^stepguard: the step's temporary directory is kept: //p" <<<"$out")
if [ "$rc" -eq 0 ] && [ -n "$kd" ] && [ "$(cat "$kd/f" 2>/dev/null)" = kept ]; then ok tmpdir-kept; else
	ko "tmpdir-kept: status $rc: $out"; fi
# another step's directory is not this step's root
out=$("${E[@]}" "$SG" -q -w work -- sh -c 'echo ran; echo x >"$0/g"' "$kd" 2>&1); rc=$?
if [ -n "$kd" ] && [ "$rc" -ne 0 ] && grep -qx ran <<<"$out" && [ ! -e "$kd/g" ]; then
	ok tmpdir-other-step-refused; else ko "tmpdir-other-step-refused: status $rc: $out"; fi
[ -n "$kd" ] && rm -rf "$kd"
expect 0 '#   temporary directory: a new one under /tmp (base: the default)' tmpdir-check -- \
	"${E[@]}" "$SG" -w work --check -- true
# --check makes nothing, in a base of its own where the control, a real
# run, does make the step's directory
mkdir -m 0755 rtc
out=$("${E[@]}" RUNNER_TEMP="$T/rtc" "$SG" -w work --check -- true 2>&1); rc=$?
made=$(ls rtc)
out2=$("${E[@]}" RUNNER_TEMP="$T/rtc" "$SG" -q -w work -- sh -c 'echo "$TMPDIR"' 2>&1)
if [ "$rc" = 0 ] && [ -z "$made" ] && grep -q '^decision: run' <<<"$out" &&
	grep -qF "temporary directory: a new one under $T/rtc" <<<"$out" && grep -q "^$T/rtc/stepguard-step-" <<<"$out2"; then
	ok tmpdir-check-makes-nothing; else
	ko "tmpdir-check-makes-nothing: status $rc, made '$made': $out; the control run: $out2"; fi
# root dropping to the user (sudo): the directory is the user's
if [ "$(id -u)" = 0 ] && id sgtest >/dev/null 2>&1; then
	chmod 0777 work
	out=$("${E[@]}" SUDO_UID="$(id -u sgtest)" SUDO_GID="$(id -g sgtest)" "$SG" -q -w work -- \
		sh -c 'id -u; stat -c "%u %a" "$TMPDIR"; mktemp -p "$TMPDIR" >/dev/null && echo made' 2>&1); rc=$?
	chmod 0755 work
	if [ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$out" | tr '\n' ' ')" = "$(id -u sgtest) $(id -u sgtest) 700 made " ]; then
		ok tmpdir-sudo-user; else ko "tmpdir-sudo-user: status $rc: $out"; fi
else
	echo "SKIP tmpdir-sudo-user: needs root and the user sgtest"
fi
# an error in a step's write.X names that key where it is
printf '[step:s]\nwrite.tmp = ${env:SG_UNSET_VAR}\n' >stepw.ini
expect 64 'stepw.ini:2: [step:s] write.tmp: ${env:SG_UNSET_VAR} is used' step-write-error-named -- \
	"${E[@]}" "$SG" -p stepw.ini -s s -w work --check

# --- usage and statuses ----------------------------------------------------
expect 0 'stepguard 0.' version -- "$SG" --version
expect 0 '--allow-write' help -- "$SG" --help
# The eBPF pins are this build's only: their directory is named by a
# digest of the embedded object (FNV-1a, folded to 32 bits), recomputed
# here from the object the build embedded.
obj=${SG_BPF_OBJECT:-$(dirname "$SG")/bpf/stepguard.bpf.o}
[ -f "$obj" ] || obj=$here/../../build/bpf/stepguard.bpf.o
if ! digest=$(perl -e 'use integer; open(my $f, "<:raw", $ARGV[0]) or die "$ARGV[0]: $!\n";
	local $/; my $h = 0xcbf29ce484222325;
	for my $b (unpack("C*", <$f>)) { $h ^= $b; $h *= 0x100000001b3; }
	printf("%08x\n", ($h ^ ($h >> 32)) & 0xffffffff);' "$obj" 2>&1); then
	ko "pins-digest: cannot read the embedded object ($digest); SG_BPF_OBJECT names it"
else
	expect 0 "# eBPF pins of this build: /sys/fs/bpf/stepguard/v$(sed -n 's/^VERSION *:= *//p' "$here/../../Makefile" | tr . _)-$digest" \
		pins-digest -- "${E[@]}" "$SG" --check -w work -- true
fi
expect 64 'no command given' no-command -- "${E[@]}" "$SG"
expect 64 'unknown option --frobnicate (see' unknown-option -- "${E[@]}" "$SG" --frobnicate -- true
# inside a cluster getopt has not moved on: the letter and its cluster, not argv[0]
expect 64 'unknown option -x in "-xv"' unknown-option-cluster-first -- "${E[@]}" "$SG" -xv -- true
expect 64 'unknown option -x in "-vx"' unknown-option-cluster-last -- "${E[@]}" "$SG" -vx -- true
refute 64 'unknown option -x in "-xv" (see stepguard --help)' 'stepguard --help): ' \
	unknown-option-cluster-not-argv0 -- "${E[@]}" "$SG" -xv -- true
expect 64 'option -p needs a value in "-vp"' needs-value-cluster -- "${E[@]}" "$SG" -vp
expect 64 '--filter takes' bad-filter -- "${E[@]}" "$SG" --filter seccomp -- true
expect 0 'decision: policy valid, write filter available' check-no-command -- "${E[@]}" "$SG" -w work --check
expect 0 'filter: landlock (--filter)' check-shows-cli-filter -- \
	"${E[@]}" "$SG" -w work --filter landlock --check

# --- the model CLI's argv model, credentials and tool variables (issue 12) ---
# The harmless options of 2.1.332 run under a ruling; each tool-granting
# one is refused with 77 and named.  --check only: nothing runs.
C=(env -i PATH=/usr/bin:/bin HOME="$H" ANTHROPIC_API_KEY=dummy "$SG" -w work --check --)
for a in --bare --safe-mode --restricted "--effort low" "-n review" "--name review" \
	"--autocompact auto" --no-chrome --exclude-dynamic-system-prompt-sections \
	"--system-prompt-snapshot off" "--debug-file $T/debug.log" --include-hook-events \
	--forward-subagent-text --prompt-suggestions "--permission-prompts none" --ax-screen-reader; do
	# shellcheck disable=SC2086 # an option and its value, split on purpose
	expect 0 'decision: run' "harmless ${a%% *}" -- "${C[@]}" claude -p --tools "" $a -- hi
done
for a in "--input-format stream-json" "--plugin-url https://example.invalid/p.zip" \
	"--plugin-dir p" "--plugin-dir-no-mcp p" "--managed-settings {}" "--agent reviewer" \
	"--agents {}" --remote-control "--remote-control-session-name-prefix ci" --teleport --bg \
	--background --cloud --desktop "--environment env_1" "--file file_1:a.txt" -w --worktree \
	--tmux --chrome --ide "--from-pr 12" "--resume abc" -r --continue -c "--settings {}" \
	"--mcp-config m.json" "--permission-mode bypassPermissions" --dangerously-skip-permissions \
	--allow-dangerously-skip-permissions "--allowedTools Bash" "--allowed-tools Bash" \
	"--permission-prompt-tool mcp__x__y"; do
	# shellcheck disable=SC2086
	expect 77 "the option ${a%% *} grants tools" "tool-flag ${a%% *}" -- \
		"${C[@]}" claude -p --tools "" $a -- hi
done
# words after the CLI's "--" are a prompt in print mode; without -p the
# CLI still dispatches the first one (2.1.332 runs "claude -- doctor")
expect 0 'decision: run' dash-dash-doctor-print -- "${C[@]}" claude -p --tools "" -- doctor
expect 77 'doctor is a subcommand' dash-dash-doctor-no-print -- "${C[@]}" claude --tools "" -- doctor
expect 77 'mcp is a subcommand' variadic-equals-then-subcommand -- \
	"${C[@]}" claude --tools "" --add-dir=/tmp mcp list
# a ruling option with another value is refused, naming what stepguard adds
expect 77 'the ruling option --setting-sources=user' ruling-option-other-value -- \
	"${C[@]}" claude -p --tools "" --setting-sources project -- hi
expect 77 'the ruling option --setting-sources=user' ruling-option-other-value-equals -- \
	"${C[@]}" claude -p --tools "" --setting-sources=user,project -- hi
expect 0 'decision: run' ruling-option-same-value -- \
	"${C[@]}" claude -p --tools "" --setting-sources user --strict-mcp-config -- hi
# an option nobody classified: said to be unknown, not an invitation to list it
expect 77 "unknown to this stepguard's model" unknown-cli-option -- \
	"${C[@]}" claude -p --tools "" --frobnicate -- hi
refute 77 "unknown to this stepguard's model" 'flag-options or value-options' unknown-cli-option-no-invitation -- \
	"${C[@]}" claude -p --tools "" --frobnicate -- hi
# each credential variable, and each channel that carries a key, makes ruling 2 apply
for v in ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN CLAUDE_CODE_OAUTH_TOKEN AWS_BEARER_TOKEN_BEDROCK \
	ANTHROPIC_FOUNDRY_API_KEY ANTHROPIC_FOUNDRY_AUTH_TOKEN ANTHROPIC_AWS_API_KEY \
	CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR CLAUDE_CODE_OAUTH_TOKEN_FILE_DESCRIPTOR \
	ANTHROPIC_CUSTOM_HEADERS ANTHROPIC_IDENTITY_TOKEN ANTHROPIC_IDENTITY_TOKEN_FILE; do
	expect 77 "ruling 2 (no tools while holding the model credential): $v is set" "credential $v" -- \
		"${E[@]}" "$v=3" "$SG" -w work --check -- sh -c 'claude -p hi'
	expect 0 "ruling 2, $v is set" "credential $v cli" -- \
		"${E[@]}" "$v=3" "$SG" -w work --check -- claude -p --tools "" -- hi
done
# a variable that adds plugins, settings or code refuses a ruling step, named
for v in CLAUDE_CODE_PLUGIN_DIRS CLAUDE_CONFIG_DIR BUN_OPTIONS LD_PRELOAD; do
	expect 77 "$v is set: it adds plugins" "tool-variable $v" -- \
		"${E[@]}" ANTHROPIC_API_KEY=dummy "$v=$T/x" "$SG" -w work --check -- claude -p --tools "" -- hi
	expect 0 'decision: run' "tool-variable $v without a ruling" -- \
		"${E[@]}" "$v=$T/x" "$SG" -w work --check -- sh -c true
done
# every option and subcommand of the real CLI's --help is classified
STEPGUARD=$SG bash "$here/model-cli.sh"
case $? in
0) ok model-cli ;;
77) ;; # skipped, and said why; never counted as passed
*) ko "model-cli: see above" ;;
esac

# tar x and lchmod through /proc/self/fd, and another process's fd refused
STEPGUARD=$SG bash "$here/procfd.sh"
case $? in
0) ok procfd ;;
77) ;; # skipped, and said why; never counted as passed
*) ko "procfd: see above" ;;
esac

# every refusal on Landlock recorded, audit mode on Landlock, the failing step's summary
STEPGUARD=$SG bash "$here/landlock-log.sh"
case $? in
0) ok landlock-log ;;
77) ;; # skipped, and said why; never counted as passed
*) ko "landlock-log: see above" ;;
esac

# a failing step ends with the summary of its refusals and their fix (issue 15)
STEPGUARD=$SG bash "$here/summary.sh"
case $? in
0) ok summary ;;
77) ;; # skipped, and said why; never counted as passed
*) ko "summary: see above" ;;
esac

# what a step runs without: a root step's capabilities, core dumps, IPC (issue 16)
STEPGUARD=$SG bash "$here/caps.sh"
case $? in
0) ok caps ;;
77) ;; # skipped, and said why; never counted as passed
*) ko "caps: see above" ;;
esac

# the gap ptys said exactly when a writable root is a devpts directory
STEPGUARD=$SG bash "$here/ptys-gap.sh"
case $? in
0) ok ptys-gap ;;
77) ;; # skipped, and said why; never counted as passed
*) ko "ptys-gap: see above" ;;
esac

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
