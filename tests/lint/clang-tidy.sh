#!/bin/bash
# clang-tidy over stepguard's userspace C, with the checks in .clang-tidy
# and the compile flags the Makefile uses (its CPPFLAGS, -std=gnu11).
# Every finding is an error: exits non-zero on any.  Run by `make lint`.
#
#   CLANG_TIDY   the binary (clang-tidy; the checks were chosen on 14)
#   LINT_JOBS    files checked at once (2)
#   BUILD        as for make (build); the eBPF skeleton header is
#                generated into $(BUILD)/bpf by make if it is missing
#
# tests/lint/README.md says which checks are on, which are off and why,
# and lists the NOLINT suppressions.
set -euo pipefail
cd "$(dirname "$0")/../.."

CLANG_TIDY=${CLANG_TIDY:-clang-tidy}
LINT_JOBS=${LINT_JOBS:-2}
MAKE=${MAKE:-make}

if ! command -v "$CLANG_TIDY" >/dev/null; then
	echo "clang-tidy.sh: $CLANG_TIDY not found (Debian/Ubuntu: apt-get install clang-tidy)" >&2
	exit 2
fi

# The flags, from the Makefile itself: CPPFLAGS as make passes them to the
# shell (so -DSTEPGUARD_VERSION='"0.1.0"' arrives as -DSTEPGUARD_VERSION="0.1.0"),
# and where the skeleton header goes.
# Under a parent make, MAKEFLAGS (kept: it carries BUILD=... and the like)
# may turn on "Entering directory" lines: only the marked line is taken.
mkvar() {
	local v
	v=$("$MAKE" --no-print-directory -s --eval="sg-lint-print: ; @echo sg-lint:$1" \
		sg-lint-print 2>/dev/null | sed -n 's/^sg-lint://p')
	if [ -z "$v" ]; then
		echo "clang-tidy.sh: cannot get $1 from the Makefile" >&2
		exit 2
	fi
	printf '%s\n' "$v"
}
# shellcheck disable=SC2016 # make's $(...), not the shell's
cppflags_line=$(mkvar '$(CPPFLAGS)')
read -r -a cppflags <<<"$cppflags_line"
# shellcheck disable=SC2016
gen=$(mkvar '$(BPF_GEN)')
[ -r "$gen/stepguard.skel.h" ] || "$MAKE" --no-print-directory -s "$gen/stepguard.skel.h"

files=(lib/*.c policy/*.c confine/*.c confine/supervisor/*.c audit/*.c selftest/*.c
	launcher/*.c bpf/loader.c bpf/pins.c bpf/scope.c bpf/events.c)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One clang-tidy per file, LINT_JOBS at a time; each file's report is kept
# apart and printed whole, so parallel output does not interleave.
#
# A report located in $gen is dropped (and counted): that is bpftool's
# generated skeleton, not our code.  Its one report, a "leak" of the
# skeleton when an allocation fails, is the analyzer assuming that
# libbpf's bpf_object__destroy_skeleton(), being in a system header, frees
# nothing.  Header-filter and -isystem do not hide it, because its path
# passes through bpf/loader.c, and NOLINT there cannot reach it.
# Anything else that fails (a crash, a compile error) fails the lint.
export CLANG_TIDY out gen
# shellcheck disable=SC2016 # the script is bash -c's, expanded there
printf '%s\0' "${files[@]}" |
	xargs -0 -P "$LINT_JOBS" -I{} bash -c '
		f=$1; shift
		base=$out/${f//\//_}
		"$CLANG_TIDY" --quiet -warnings-as-errors="*" "$f" -- "$@" >"$base.raw" 2>&1
		rc=$?
		awk -v gen="$gen/" -v skipped="$base.skipped" "
			/^[0-9]+ warnings? generated\\.\$/ { next }
			/^[^ ].*:[0-9]+:[0-9]+: (warning|error): / {
				drop = index(\$0, gen) == 1 || index(\$0, \"/\" gen) > 0
				if (drop) { n++; print > skipped } else found = 1
			}
			!drop { print }
			END { exit found ? 1 : 0 }" "$base.raw" >"$base.log"
		st=$?
		if [ "$st" -ne 0 ] || { [ "$rc" -ne 0 ] &&
			{ [ ! -s "$base.skipped" ] || grep -q "^Stack dump" "$base.raw"; }; }; then
			[ "$st" -ne 0 ] || cat "$base.raw" >"$base.log"
			echo "$f" >>"$out/failed"
		fi' _ {} -std=gnu11 "${cppflags[@]}" || true

cat "$out"/*.log
if [ -s "$out/failed" ]; then
	echo "clang-tidy: findings in $(wc -l <"$out/failed") file(s):" >&2
	sort "$out/failed" | sed 's/^/  /' >&2
	exit 1
fi
dropped=$(cat "$out"/*.skipped 2>/dev/null | sort -u)
[ -z "$dropped" ] || printf 'clang-tidy: not ours (%s), left out:\n%s\n' "$gen" "$dropped" | sed '2,$s/^/  /'
echo "clang-tidy: ${#files[@]} files, no findings"
