#!/bin/bash
# The shipped policy's model of the real model CLI, judged from outside.
#
# Reads the installed CLI's --help and asks `stepguard --check` about every
# option and every subcommand it lists, under ruling 2 (a dummy key):
#
#   tool flag      refused in any form ("grants tools");
#   <value>        takes the next word ("OPT mcp" runs), even "--tools";
#   <values...>    takes the next words, refused without one;
#   [value]        takes the next word unless it starts with '-';
#   no value       takes nothing ("OPT mcp" is the subcommand mcp);
#   a subcommand   refused as the first operand.
#
# Any option the policy does not classify (refused as "unknown to this
# stepguard's model"), or classifies with another arity than the help
# shows, fails.  The CLI is $STEPGUARD_MODEL_CLI, else `claude` on PATH;
# without one the test is SKIPPED with that reason, never passed.
#
# Usage: STEPGUARD=build/stepguard [STEPGUARD_MODEL_CLI=.../claude] bash tests/cli/model-cli.sh
set -u
SG=${STEPGUARD:?set STEPGUARD to the binary under test}
CLI=${STEPGUARD_MODEL_CLI:-$(command -v claude 2>/dev/null)}
if [ -z "$CLI" ]; then
	echo "SKIP model-cli: no model CLI (set STEPGUARD_MODEL_CLI, or put claude on PATH)"
	exit 77
fi
if [ ! -x "$CLI" ]; then
	echo "FAIL model-cli: STEPGUARD_MODEL_CLI=$CLI is not an executable file"
	exit 1
fi
T=$(mktemp -d /tmp/sg-model-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
mkdir home work
: >empty.ini # the compiled-in defaults alone: -p reads no /etc/stepguard/rules.d
E=(env -i PATH=/usr/bin:/bin HOME="$T/home" ANTHROPIC_API_KEY=dummy-key)

# The help of a fresh user, with no network: --help needs none.
if ! "${E[@]}" timeout 60 "$CLI" --help >help.txt 2>help.err || [ ! -s help.txt ]; then
	echo "FAIL model-cli: $CLI --help did not answer:"
	head -5 help.err
	exit 1
fi
version=$("${E[@]}" timeout 60 "$CLI" --version 2>/dev/null | head -1)
echo "model-cli: $CLI, version ${version:-unknown}"

# "  -x, --long <arg>  text": one line per option: NAMES<TAB>ARITY, where
# arity is flag, value, values or optional.  Continuation lines are
# indented further, so only lines with two spaces before a dash count.
awk '
	/^Options:/ { s = "o"; next }
	/^Commands:/ { s = "c"; next }
	/^[A-Za-z]/ { s = "" }
	s == "o" && /^  -/ {
		line = substr($0, 3)
		sub(/  .*/, "", line) # the description, after two spaces or more
		arity = "flag"
		if (line ~ /<[^>]*\.\.\.>/) arity = "values"
		else if (line ~ /</) arity = "value"
		else if (line ~ /\[/) arity = "optional"
		sub(/ [<[].*/, "", line)
		gsub(/,/, "", line)
		print line "\t" arity
	}
	s == "c" && /^  [a-z]/ { split(substr($0, 3), w, " "); print w[1] > "commands.txt" }
' help.txt >options.txt
if [ ! -s options.txt ] || [ ! -s commands.txt ]; then
	echo "FAIL model-cli: no options or no commands found in $CLI --help"
	exit 1
fi

# Every judgement below is --check's status and its decision line.  A
# binary that prints no decision judges nothing: stop here, before the
# CLI is handed to it some hundred times.
out=$(env -i PATH=/usr/bin:/bin HOME="$T/home" "$SG" -p empty.ini -w work --check -- true 2>&1)
if ! grep -q '^decision: run' <<<"$out"; then
	echo "FAIL model-cli: stepguard --check -- true printed no 'decision: run' line:"
	head -5 <<<"$out"
	exit 1
fi

# The ruling options of the shipped policy ("--x=value"): given their own value.
ruling=$("${E[@]}" "$SG" -p empty.ini -w work --check 2>/dev/null |
	sed -n 's/^ruling-options +\{0,1\}= //p' | tr '\n' ' ')

fail=0 checked=0
# check NAME WANT MESSAGE -- ARGS...: stepguard --check on "claude ARGS":
# status WANT, and the decision line that goes with it.
check() {
	local name=$1 want=$2 what=$3 out rc decision
	shift 4
	out=$("${E[@]}" "$SG" -p empty.ini -w work --check -- "$CLI" "$@" 2>&1)
	rc=$?
	checked=$((checked + 1))
	decision='^decision: run'
	[ "$want" = 77 ] && decision='^decision: refused'
	if [ "$rc" != "$want" ] || ! grep -q "$decision" <<<"$out"; then
		fail=$((fail + 1))
		printf 'FAIL model-cli %s: %s: status %s, want %s:\n%s\n' "$name" "$what" "$rc" "$want" \
			"$(grep -A1 '^decision:' <<<"$out" | head -3)"
		return 1
	fi
}

while IFS=$'\t' read -r names arity; do
	for opt in $names; do
		[ "$opt" = --tools ] && continue # the tools option itself
		out=$("${E[@]}" "$SG" -p empty.ini -w work --check -- "$CLI" -p --tools "" "$opt" x -- hi 2>&1)
		if grep -q 'grants tools' <<<"$out"; then
			# a tool flag: refused in the other forms too
			check "$opt" 77 'a tool flag, alone' -- -p --tools "" "$opt" -- hi
			continue
		fi
		if grep -q 'unknown to this stepguard' <<<"$out"; then
			fail=$((fail + 1))
			echo "FAIL model-cli $opt: not classified by the shipped policy (help: $arity)"
			continue
		fi
		val=mcp
		for r in $ruling; do
			[ "${r%%=*}" = "$opt" ] && [ "$r" != "$opt" ] && val=${r#*=}
		done
		case $arity in
		value)
			check "$opt" 0 "takes a value" -- -p --tools "" "$opt" "$val" -- hi &&
				check "$opt" 77 "takes even --tools as its value" -- -p "$opt" --tools "" -- hi ;;
		values)
			check "$opt" 0 "takes values" -- -p --tools "" "$opt" a "$val" -- hi &&
				check "$opt" 77 "needs a value" -- -p "$opt" --tools "" -- hi ;;
		optional)
			check "$opt" 0 "takes a value" -- -p --tools "" "$opt" "$val" -- hi &&
				check "$opt" 0 "leaves --tools alone" -- -p "$opt" --tools "" -- hi ;;
		flag)
			check "$opt" 77 "takes no value (mcp is a subcommand)" -- -p --tools "" "$opt" mcp &&
				check "$opt" 0 "alone" -- -p --tools "" "$opt" -- hi ;;
		esac
	done
done <options.txt

# "plugin|plugins": each name
for sub in $(tr '|' ' ' <commands.txt); do
	check "$sub" 77 "a subcommand, refused as the first operand" -- "$sub" --tools ""
done

echo "model-cli: $checked checks of $(wc -l <options.txt) option lines and $(wc -l <commands.txt) commands, $fail failed"
[ "$fail" -eq 0 ]
