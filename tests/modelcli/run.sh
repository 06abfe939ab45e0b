#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/modelcli/run.sh — the real model CLI under stepguard (issue 12).
#
#   STEPGUARD=build/stepguard bash tests/modelcli/run.sh
#
# The pinned CLI (tests/modelcli/VERSION) is installed from the npm
# registry into $MODELCLI_CACHE (default /var/cache/stepguard-tests; a
# native binary, about 400 MB, kept between runs), or taken from
# $STEPGUARD_MODEL_CLI.  When neither works (no npm, no registry) every
# case is SKIPPED with the reason, never passed.  It talks only to a stub
# of the Messages API on 127.0.0.1 (stub_api.py), with a dummy key.
#
# Each case runs as root, as the unprivileged user sgtest (setpriv), and
# as root dropping to sgtest (SUDO_UID, as `sudo stepguard` on a runner),
# in a git repository and outside one.  What is planted:
#   answers          nothing: the CLI answers "ok", exits 0, the stub was asked
#   project-config   a project hook (SessionStart, UserPromptSubmit, Stop) and
#                    a project stdio MCP server: nothing runs (the ruling
#                    options keep project settings from loading)
#   project-kernel   the same with [model-cli] ruling-options emptied: every
#                    hook and server start is refused at exec, with a record
#   user-hook        a SessionStart hook in the step's HOME (not stopped by
#                    the ruling options): refused at exec, with a record
#   plugin-dirs      CLAUDE_CODE_PLUGIN_DIRS with a plugin holding a hook: 77
#   stream-json      --input-format stream-json (control requests on stdin): 77
#   git              in a repository the CLI runs git (allowed): no refused git
# Every plant is first tried without stepguard (once, as root), and must
# run there: a refusal judged confined proves nothing otherwise.  Markers
# are written inside the work directory, so only the exec rule can stop
# them.  The last line is "modelcli: N passed, M failed, K skipped".
set -u
umask 022

SG=${STEPGUARD:?set STEPGUARD to the stepguard binary}
SG=$(realpath "$SG")
HERE=$(cd "$(dirname "$0")" && pwd)
SUITE_USER=sgtest
pass=0 fail=0 skip=0

ok() { pass=$((pass + 1)); echo "PASS $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
skipped() { skip=$((skip + 1)); echo "SKIP $*"; }
finish() {
	echo "modelcli: $pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ]
	exit
}

CASES="answers project-config project-kernel user-hook plugin-dirs stream-json git"

# ---- the CLI --------------------------------------------------------------
if ! CLI=$(bash "$HERE/install.sh" 2>"${TMPDIR:-/tmp}/sg-modelcli-why.$$"); then
	WHY=$(cat "${TMPDIR:-/tmp}/sg-modelcli-why.$$")
	rm -f "${TMPDIR:-/tmp}/sg-modelcli-why.$$"
	for c in $CASES; do skipped "$c — $WHY"; done
	finish
fi
rm -f "${TMPDIR:-/tmp}/sg-modelcli-why.$$"
# Run as users do: by its name ("claude", the policy's [model-cli] names),
# found on PATH; the name resolves to the native binary through npm's link.
CLI_DIR=$(cd "$(dirname "$CLI")" && pwd)
CLI_NAME=$(basename "$CLI")
echo "modelcli: $("$CLI" --version) at $CLI; stepguard $SG"

# ---- the stub --------------------------------------------------------------
T=$(mktemp -d /var/tmp/sg-modelcli.XXXXXX)
chmod 755 "$T"
STUB_PID=
cleanup() {
	[ -n "$STUB_PID" ] && kill "$STUB_PID" 2>/dev/null
	rm -rf "$T"
	[ -n "${SUDO_HOME_PLANT:-}" ] && rm -rf "$SUDO_HOME_PLANT"
}
trap cleanup EXIT
python3 "$HERE/stub_api.py" "$T/port" "$T/requests.log" 900 &
STUB_PID=$!
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.1; done
[ -s "$T/port" ] || { bad "stub — the stub API did not start"; finish; }
chmod 644 "$T/requests.log"
BASE=http://127.0.0.1:$(cat "$T/port")

# ---- the users ----------------------------------------------------------------
MODES=root
if [ "$(id -u)" = 0 ]; then
	id "$SUITE_USER" >/dev/null 2>&1 || useradd -m "$SUITE_USER" || bad "useradd $SUITE_USER"
	if id "$SUITE_USER" >/dev/null 2>&1; then
		if setpriv --reuid="$SUITE_USER" --regid="$SUITE_USER" --init-groups -- \
			test -x "$CLI" -a -x "$SG"; then
			MODES="root sgtest sudo:sgtest"
		else
			skipped "sgtest, sudo:sgtest — $SUITE_USER cannot execute $CLI or $SG"
		fi
	fi
else
	MODES=$(id -un)
fi

# run_as MODE HOME CMD...: CMD as MODE, with HOME (root and sgtest; sudo's HOME
# is the user's own, from the password database, as stepguard sets it).
run_as() {
	local mode=$1 home=$2
	shift 2
	case $mode in
	root|"$(id -un)") env HOME="$home" "$@" ;;
	sudo:*) env SUDO_UID="$(id -u "${mode#sudo:}")" SUDO_GID="$(id -g "${mode#sudo:}")" "$@" ;;
	*) setpriv --reuid="$mode" --regid="$mode" --init-groups -- env HOME="$home" "$@" ;;
	esac
}

owner_of() { case $1 in root) echo root ;; sudo:*) echo "${1#sudo:}" ;; *) echo "$1" ;; esac; }

# A work dir (a repository or not) owned by the step's user.
new_work() {
	local mode=$1 where=$2 w
	w=$(mktemp -d "$T/work.XXXXXX")
	if [ "$where" = repo ]; then
		git -C "$w" init -q . && git -C "$w" -c user.email=t@t -c user.name=t commit -q --allow-empty -m init
	fi
	chown -R "$(owner_of "$mode")": "$w"
	echo "$w"
}

# plant_project W: the hooks and the stdio MCP server a pull request can add.
plant_project() {
	local w=$1
	mkdir -p "$w/.claude"
	cat >"$w/.claude/settings.json" <<JSON
{"hooks": {
  "SessionStart": [{"hooks": [{"type": "command", "command": "echo ran > $w/marker-session"}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo ran > $w/marker-prompt"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "echo ran > $w/marker-stop"}]}]},
 "enableAllProjectMcpServers": true}
JSON
	cat >"$w/.mcp.json" <<JSON
{"mcpServers": {"planted": {"command": "sh", "args": ["-c", "echo ran > $w/marker-mcp; sleep 2"]}}}
JSON
}

# plant_home H W: a SessionStart hook in the step's own settings.
plant_home() {
	mkdir -p "$1/.claude"
	printf '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo ran > %s/marker-home"}]}]}}\n' \
		"$2" >"$1/.claude/settings.json"
}

# plant_plugin W: a plugin directory whose hook writes a marker.
plant_plugin() {
	local p=$1/plugins/planted
	mkdir -p "$p/.claude-plugin" "$p/hooks"
	echo '{"name": "planted", "version": "1.0.0"}' >"$p/.claude-plugin/plugin.json"
	printf '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo ran > %s/marker-plugin"}]}]}}\n' \
		"$1" >"$p/hooks/hooks.json"
	echo "$1/plugins"
}

markers() { find "$1" -maxdepth 1 -name 'marker-*' -printf '%f ' 2>/dev/null; }
requests() { wc -l <"$T/requests.log"; }
# Refused execs of a shell: what a hook or the planted server starts.
exec_denials() { grep -cE '"event":"denial".*"op":"exec","path":"[^"]*/(sh|dash|bash)"' "$1" 2>/dev/null; }

CLI_ENV=(ANTHROPIC_BASE_URL="$BASE" ANTHROPIC_API_KEY=sk-ant-dummy-modelcli-0000
	CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 PATH="$CLI_DIR:/usr/bin:/bin")

printf '[model-cli]\nruling-options =\n' >"$T/no-ruling-options.ini"
chmod 644 "$T/no-ruling-options.ini"

# ---- the controls: each plant runs without stepguard ------------------------------
control() {
	local name=$1 want=$2 w h out
	shift 2
	w=$(new_work root repo) h=$(mktemp -d "$T/home.XXXXXX")
	case $name in
	project) plant_project "$w" ;;
	home) plant_home "$h" "$w" ;;
	plugin) export CLAUDE_CODE_PLUGIN_DIRS; CLAUDE_CODE_PLUGIN_DIRS=$(plant_plugin "$w") ;;
	esac
	out=$(cd "$w" && env HOME="$h" "${CLI_ENV[@]}" ${CLAUDE_CODE_PLUGIN_DIRS:+CLAUDE_CODE_PLUGIN_DIRS=$CLAUDE_CODE_PLUGIN_DIRS} \
		timeout 120 "$CLI_NAME" -p hi --tools "" </dev/null 2>&1)
	unset CLAUDE_CODE_PLUGIN_DIRS
	sleep 1 # the MCP server writes its marker as it starts
	if [[ " $(markers "$w")" == *" $want "* ]]; then
		ok "control-$name — without stepguard the planted $want is written ($(markers "$w"))"
		return 0
	fi
	bad "control-$name — without stepguard no $want: the plant does not work, so its refusal proves nothing (markers: $(markers "$w"); CLI: $(head -c 200 <<<"$out"))"
	return 1
}
CTRL_project=0 CTRL_home=0 CTRL_plugin=0
control project marker-session && CTRL_project=1
control home marker-home && CTRL_home=1
control plugin marker-plugin && CTRL_plugin=1

# ---- the cases ---------------------------------------------------------------
# confined MODE WHERE NAME [SG ARGS...] -- [CLI ARGS...]: sets OUT, RC, W, LOG
one() {
	local mode=$1 where=$2 name=$3 h sgargs=() cliargs=() extra_env=() seen=0
	shift 3
	for a in "$@"; do
		if [ "$a" = -- ] && [ $seen = 0 ]; then seen=1; continue; fi
		if [ $seen = 0 ]; then sgargs+=("$a"); else cliargs+=("$a"); fi
	done
	W=$(new_work "$mode" "$where")
	h=$(mktemp -d "$T/home.XXXXXX")
	chown "$(owner_of "$mode")": "$h"
	LOG=$T/$mode-$where-$name.log
	LOG=${LOG/:/-}
	# The log's directory is root's: the file is made for the step's user.
	: >"$LOG" && chown "$(owner_of "$mode")": "$LOG"
	case $name in
	project-config|project-kernel) plant_project "$W" ;;
	user-hook)
		if [[ $mode == sudo:* ]]; then
			h=$(getent passwd "${mode#sudo:}" | cut -d: -f6)
			SUDO_HOME_PLANT=$h/.claude
			rm -rf "$SUDO_HOME_PLANT"
		fi
		plant_home "$h" "$W"
		chown -R "$(owner_of "$mode")": "$h/.claude"
		;;
	plugin-dirs) extra_env=(CLAUDE_CODE_PLUGIN_DIRS="$(plant_plugin "$W")") ;;
	esac
	# No TMPDIR: the CLI's temporary files go to the directory stepguard
	# gives each step (and to /tmp in the control runs, bare).
	chown -R "$(owner_of "$mode")": "$W"
	sgargs=("${sgargs[@]//@HOME@/$h}")
	REQ0=$(requests)
	OUT=$(cd "$W" && run_as "$mode" "$h" "${CLI_ENV[@]}" "${extra_env[@]}" \
		timeout 180 "$SG" -q --log "$LOG" "${sgargs[@]}" -- "$CLI_NAME" -p hi --tools "" "${cliargs[@]}" \
		</dev/null 2>&1)
	RC=$?
	sleep 1
	REQ=$(($(requests) - REQ0))
	[ -n "${SUDO_HOME_PLANT:-}" ] && rm -rf "$SUDO_HOME_PLANT" && SUDO_HOME_PLANT=
}

judge() {
	local id=$1 name=$2 m
	m=$(markers "$W")
	case $name in
	answers|git|project-config)
		if [ "$RC" = 0 ] && [ "$(head -1 <<<"$OUT")" = ok ] && [ "$REQ" -ge 1 ] && [ -z "$m" ]; then
			ok "$id — answered ok, exit 0, $REQ requests to the stub, no marker"
		else
			bad "$id — status $RC, $REQ requests, markers '$m', output: $(head -c 300 <<<"$OUT")"
			return
		fi
		if [ "$name" = git ]; then
			if grep -q '"op":"exec".*"path":"[^"]*/git"' "$LOG"; then
				bad "$id-allowed — git was refused: $(grep '"op":"exec"' "$LOG" | head -2)"
			else
				ok "$id-allowed — git ran as the CLI asked (no refused exec of git)"
			fi
		fi
		;;
	project-kernel|user-hook)
		local ctrl=$CTRL_project n
		[ "$name" = user-hook ] && ctrl=$CTRL_home
		n=$(exec_denials "$LOG")
		if [ "$ctrl" != 1 ]; then
			skipped "$id — its control failed: the plant does not run even without stepguard"
		elif [ "$RC" = 0 ] && [ "$(head -1 <<<"$OUT")" = ok ] && [ -z "$m" ] && [ "${n:-0}" -ge 1 ]; then
			ok "$id — answered ok, exit 0, no marker, $n execs refused and logged"
		else
			bad "$id — status $RC, markers '$m', $n exec denials, output: $(head -c 300 <<<"$OUT")"
		fi
		;;
	plugin-dirs|stream-json)
		local why=CLAUDE_CODE_PLUGIN_DIRS
		[ "$name" = stream-json ] && why=--input-format
		if [ "$name" = plugin-dirs ] && [ "$CTRL_plugin" != 1 ]; then
			skipped "$id — its control failed: the plugin's hook does not run even without stepguard"
		elif [ "$RC" = 77 ] && grep -qF -- "$why" <<<"$OUT" && [ "$REQ" = 0 ] && [ -z "$m" ]; then
			ok "$id — refused before the step (77), the stub never asked, no marker"
		else
			bad "$id — status $RC (want 77, naming $why), $REQ requests, markers '$m', output: $(head -c 300 <<<"$OUT")"
		fi
		;;
	esac
}

for mode in $MODES; do
	for where in repo plain; do
		for name in $CASES; do
			[ "$name" = git ] && [ "$where" = plain ] && continue
			id="$name.$mode.$where"
			case $name in
			project-kernel) one "$mode" "$where" "$name" -p "$T/no-ruling-options.ini" -- ;;
			stream-json) one "$mode" "$where" "$name" -- --input-format stream-json --output-format stream-json --verbose ;;
			# The CLI runs its session hooks only where it can keep the
			# session (~/.claude), so that directory is made writable.
			user-hook) one "$mode" "$where" "$name" --allow-write "@HOME@/.claude" -- ;;
			*) one "$mode" "$where" "$name" -- ;;
			esac
			judge "$id" "$name"
		done
	done
done
finish
