#!/bin/bash
# Command-line tests of the built stepguard: statuses and messages, judged
# from outside.  Usage: STEPGUARD=build/stepguard bash tests/cli/run.sh
set -u
SG=${STEPGUARD:?set STEPGUARD to the binary under test}
here=$(cd "$(dirname "$0")" && pwd)
pass=0 fail=0
T=$(mktemp -d /tmp/sg-cli.XXXXXX)
H=$(mktemp -d /tmp/sg-cli-home.XXXXXX) # beside, not inside, the work tree
trap 'rm -rf "$T" "$H"' EXIT
cd "$T" || exit 1
mkdir work

# expect STATUS NEEDLE -- COMMAND...: the command exits with STATUS and its
# stdout+stderr contains NEEDLE (empty: anything).
expect() {
	local want=$1 needle=$2 name=$3
	shift 4
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && { [ -z "$needle" ] || grep -qF -- "$needle" <<<"$out"; }; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		printf 'FAIL %s: status %s (want %s), output:\n%s\n' "$name" "$rc" "$want" "$out" | head -20
	fi
}
# refute NEEDLE -- COMMAND...: the output must not contain NEEDLE.
refute() {
	local needle=$1 name=$2
	shift 3
	if "$@" 2>&1 | grep -qF -- "$needle"; then
		fail=$((fail + 1))
		printf 'FAIL %s: output contains %s\n' "$name" "$needle"
	else
		pass=$((pass + 1))
	fi
}

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
# the refusal happens on a real run too, before anything starts
expect 77 'ruling 1' run-refused -- \
	"${E[@]}" CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=1 "$SG" -- sh -c 'touch ran'
[ ! -e ran ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL run-refused: the command ran"; }
# a credential's value is never printed, in --check or in a refusal
refute sk-ant-SECRET cred-value-hidden-check -- \
	"${E[@]}" ANTHROPIC_API_KEY=sk-ant-SECRET "$SG" --check -- claude --tools sk-ant-SECRET
refute sk-ant-SECRET cred-value-hidden-run -- \
	"${E[@]}" ANTHROPIC_API_KEY=sk-ant-SECRET "$SG" -- claude --allowedTools=sk-ant-SECRET
refute sk-ant-SECRET cred-value-hidden-verbose -- \
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
expect 64 'inside the writable root' log-inside-root-run -- "${E[@]}" "$SG" -w work --log work/x.log -- true
[ ! -e work/x.log ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL log-inside-root: created"; }
expect 64 'its directory' log-missing-dir -- "${E[@]}" "$SG" -w work --log "$T/absent/x.log" --check
printf '[stepguard]\nkeep-fds = 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19\n' > fds.ini
expect 64 'fds.ini:2: [stepguard] keep-fds: 17 descriptors, at most 16' keep-fds-limit -- \
	"${E[@]}" "$SG" -p fds.ini -w work --check

# --- inherited descriptors: closed above 2 unless the policy keeps them -------
exec 7>"$T/fd7.txt"
out=$("${E[@]}" "$SG" -q -w work -- sh -c 'echo via7 >&7' 2>&1); rc=$?
if [ "$rc" -ne 0 ] && [ ! -s "$T/fd7.txt" ]; then pass=$((pass + 1)); else
	fail=$((fail + 1)); echo "FAIL fd-closed: status $rc, fd 7 wrote: $(cat "$T/fd7.txt") $out"; fi
printf '[stepguard]\nkeep-fds = 7\n' > keep.ini
out=$("${E[@]}" "$SG" -q -p keep.ini -w work -- sh -c 'echo via7 >&7' 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -q via7 "$T/fd7.txt"; then pass=$((pass + 1)); else
	fail=$((fail + 1)); echo "FAIL fd-kept: status $rc: $out"; fi
exec 7>&-

# --- a credential, or a piece of it, in argv: named, never shown or logged ----
K=sk-ant-api03-Zq8vN3xKpL2mRt7wYb4cHd9fJs6gTa1eUo5iWk0nXr
mkdir -p bin && printf '#!/bin/sh\nexit 0\n' >bin/claude && chmod 755 bin/claude
out=$("${E[@]}" ANTHROPIC_API_KEY=$K "$SG" -q -w work --log "$T/cred.log" -- \
	"$T/bin/claude" --tools "" -- "review ${K:0:24}" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -qF '(redacted: contains the value of ANTHROPIC_API_KEY or part of it)' "$T/cred.log" &&
	! grep -qF "${K:13:4}" "$T/cred.log"; then pass=$((pass + 1)); else
	fail=$((fail + 1)); echo "FAIL credential-piece-logged: status $rc: $out $(cat "$T/cred.log")"; fi
expect 77 'the tool (an argument holding the value of ANTHROPIC_API_KEY or part of it, not shown)' \
	credential-piece-explained -- "${E[@]}" ANTHROPIC_API_KEY=$K "$SG" -w work -- claude --tools "${K:0:20}"
refute "${K:22:4}" credential-piece-not-shown -- \
	"${E[@]}" ANTHROPIC_API_KEY=$K "$SG" -w work -- "${K:20:10}" --tools ""
# a command that passes the ruling but cannot be run is named in the error
expect 127 '(the command, holding the value of ANTHROPIC_API_KEY or part of it, not shown): No such file' \
	credential-piece-not-found -- "${E[@]}" ANTHROPIC_API_KEY=$K "$SG" -q -w work -- "$T/no-${K:30:8}/claude" --tools ""
refute "${K:30:8}" credential-piece-not-found-not-shown -- \
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
	cmp -s work/sorted <(sort big) && grep -qF "writable: $td (temporary directory)" <<<"$out" &&
	[ ! -e "$td" ]; then pass=$((pass + 1)); else
	fail=$((fail + 1)); echo "FAIL tmpdir-default: status $rc, dir '$td' (exists: $([ -e "$td" ] && echo yes || echo no)): $out"; fi
rm -f /tmp/sg-cli-tmp-probe.*
# the start record names it; the end record says it was removed
if grep -q '"event":"start".*"tmpdir":"'"$td"'"' "$T/tmp.log" &&
	grep -q '"event":"end".*"tmpdir_removed":true' "$T/tmp.log"; then pass=$((pass + 1)); else
	fail=$((fail + 1)); echo "FAIL tmpdir-log: $(cat "$T/tmp.log")"; fi
# two steps at once get two directories
"${E[@]}" "$SG" -q -w work -- sh -c 'echo "$TMPDIR" >"$TMPDIR/me"; sleep 1; cat "$TMPDIR/me"' >c1.out 2>&1 &
c1=$!
"${E[@]}" "$SG" -q -w work -- sh -c 'echo "$TMPDIR" >"$TMPDIR/me"; sleep 1; cat "$TMPDIR/me"' >c2.out 2>&1
wait $c1
if [ -s c1.out ] && [ -s c2.out ] && ! cmp -s c1.out c2.out && grep -q '^/tmp/stepguard-step-' c1.out; then
	pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL tmpdir-concurrent: $(cat c1.out c2.out)"; fi
# $RUNNER_TEMP is the base when set; the step's name is in the directory's name
mkdir -m 0755 rt
out=$("${E[@]}" RUNNER_TEMP="$T/rt" "$SG" -q -w work -s build -- sh -c 'echo "$TMPDIR"; touch "$TMPDIR/x"' 2>&1); rc=$?
if [ "$rc" -eq 0 ] && grep -q "^$T/rt/stepguard-build-" <<<"$out" && [ -z "$(ls rt)" ]; then
	pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL tmpdir-runner-temp: status $rc: $out; left: $(ls rt)"; fi
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
if [ "$rc" -eq 0 ] && [ -n "$kd" ] && [ "$(cat "$kd/f" 2>/dev/null)" = kept ]; then pass=$((pass + 1)); else
	fail=$((fail + 1)); echo "FAIL tmpdir-kept: status $rc: $out"; fi
# another step's directory is not this step's root
out=$("${E[@]}" "$SG" -q -w work -- sh -c 'echo ran; echo x >"$0/g"' "$kd" 2>&1); rc=$?
if [ -n "$kd" ] && [ "$rc" -ne 0 ] && grep -qx ran <<<"$out" && [ ! -e "$kd/g" ]; then pass=$((pass + 1)); else
	fail=$((fail + 1)); echo "FAIL tmpdir-other-step-refused: status $rc: $out"; fi
[ -n "$kd" ] && rm -rf "$kd"
expect 0 '#   temporary directory: a new one under /tmp (base: the default)' tmpdir-check -- \
	"${E[@]}" "$SG" -w work --check -- true
# --check makes nothing
before=$(ls -d /tmp/stepguard-* 2>/dev/null | wc -l)
"${E[@]}" "$SG" -q -w work --check -- true >/dev/null 2>&1
after=$(ls -d /tmp/stepguard-* 2>/dev/null | wc -l)
[ "$before" = "$after" ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL tmpdir-check-makes-nothing: $before -> $after"; }
# root dropping to the user (sudo): the directory is the user's
if [ "$(id -u)" = 0 ] && id sgtest >/dev/null 2>&1; then
	chmod 0777 work
	out=$("${E[@]}" SUDO_UID="$(id -u sgtest)" SUDO_GID="$(id -g sgtest)" "$SG" -q -w work -- \
		sh -c 'id -u; stat -c "%u %a" "$TMPDIR"; mktemp -p "$TMPDIR" >/dev/null && echo made' 2>&1); rc=$?
	chmod 0755 work
	if [ "$rc" -eq 0 ] && [ "$(printf '%s\n' "$out" | tr '\n' ' ')" = "$(id -u sgtest) $(id -u sgtest) 700 made " ]; then
		pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL tmpdir-sudo-user: status $rc: $out"; fi
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
expect 64 'no command given' no-command -- "${E[@]}" "$SG"
expect 64 'unknown option --frobnicate (see' unknown-option -- "${E[@]}" "$SG" --frobnicate -- true
# inside a cluster getopt has not moved on: the letter and its cluster, not argv[0]
expect 64 'unknown option -x in "-xv"' unknown-option-cluster-first -- "${E[@]}" "$SG" -xv -- true
expect 64 'unknown option -x in "-vx"' unknown-option-cluster-last -- "${E[@]}" "$SG" -vx -- true
refute 'stepguard --help): ' unknown-option-cluster-not-argv0 -- "${E[@]}" "$SG" -xv -- true
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
refute 'flag-options or value-options' unknown-cli-option-no-invitation -- \
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
0) pass=$((pass + 1)) ;;
77) ;; # skipped, and said why; never counted as passed
*) fail=$((fail + 1)); echo "FAIL model-cli: see above" ;;
esac

# tar x and lchmod through /proc/self/fd, and another process's fd refused
STEPGUARD=$SG bash "$here/procfd.sh"
case $? in
0) pass=$((pass + 1)) ;;
77) ;; # skipped, and said why; never counted as passed
*) fail=$((fail + 1)); echo "FAIL procfd: see above" ;;
esac

# every refusal on Landlock recorded, audit mode on Landlock, the failing step's summary
STEPGUARD=$SG bash "$here/landlock-log.sh"
case $? in
0) pass=$((pass + 1)) ;;
77) ;; # skipped, and said why; never counted as passed
*) fail=$((fail + 1)); echo "FAIL landlock-log: see above" ;;
esac

# a failing step ends with the summary of its refusals and their fix (issue 15)
STEPGUARD=$SG bash "$here/summary.sh"
case $? in
0) pass=$((pass + 1)) ;;
77) ;; # skipped, and said why; never counted as passed
*) fail=$((fail + 1)); echo "FAIL summary: see above" ;;
esac

# what a step runs without: a root step's capabilities, core dumps, IPC (issue 16)
STEPGUARD=$SG bash "$here/caps.sh"
case $? in
0) pass=$((pass + 1)) ;;
77) ;; # skipped, and said why; never counted as passed
*) fail=$((fail + 1)); echo "FAIL caps: see above" ;;
esac

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
