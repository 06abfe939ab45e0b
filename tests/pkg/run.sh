#!/bin/bash
# SPDX-License-Identifier: MIT
# Packaging tests (make package-test), as root:
#   (a) action.yml and docs/examples/factory.yml: their structure, what the
#       docs say of the command line against --help, shellcheck of every
#       run: script, and every step run as a hosted runner runs it
#       (tests/pkg/runner.sh, in a private mount namespace);
#   (b) the Debian package: make deb (dpkg-buildpackage -us -uc -b in an
#       export of HEAD) in a clean clone, unpacked with dpkg -x into a
#       throwaway root, whose stepguard runs;
#   (c) the bash completion, from that package.
#
# The tree under test is a clean clone of HEAD; when the work tree has
# changes, they are copied over it and committed in the clone (tracked
# files as they are, untracked files that are not ignored), so what is
# tested is what would be committed.  PKG_TEST_SOURCE=head tests HEAD alone.
#
# Usage: STEPGUARD=build/stepguard bash tests/pkg/run.sh
set -u
SG=${STEPGUARD:?set STEPGUARD to the built binary}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$TOP/tests/pkg
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1: $2"; }
# tally: count the "ok ..." and "FAIL ..." lines of a helper's output.
tally() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*) pass=$((pass + 1)) ;;
		"FAIL "*) fail=$((fail + 1)) ;;
		esac
		printf '%s\n' "$line"
	done
}
finish() {
	echo "package-test: $pass passed, $fail failed, in $SECONDS s"
	[ "$fail" -eq 0 ]
	exit
}

if [ "$(id -u)" != 0 ]; then
	echo "package-test: needs root (the runner simulation uses sudo and a mount namespace)" >&2
	exit 1
fi
for tool in git python3 dpkg-buildpackage dpkg-deb unshare; do
	command -v "$tool" > /dev/null || { bad tools "$tool is missing (make deps)"; finish; }
done
python3 -c 'import yaml' 2> /dev/null || { bad tools "python3-yaml is missing (make deps)"; finish; }

# Under /var/tmp, not /tmp: the runner's home is in here, and the self-test
# takes a file in /tmp as one of its targets.  0755: the runner user walks
# through it.
T=$(mktemp -d /var/tmp/sg-pkg.XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 0755 "$T"

echo "== (a) action.yml and the example workflow: structure"
mkdir "$T/scripts"
tally < <(python3 "$HERE/check_action.py" "$TOP" "$SG" "$T/scripts" 2>&1 || echo "FAIL check_action.py: exited $?")
if command -v shellcheck > /dev/null; then
	for f in "$T"/scripts/*.sh; do
		# SC2024: a redirection on a sudo line is the runner's, on purpose
		# (the self-test's JSON, the model step's input and answer).
		if out=$(shellcheck -s bash -S warning -e SC2024 "$f" 2>&1); then
			ok "shellcheck $(basename "$f")"
		else
			bad "shellcheck $(basename "$f")" "$out"
		fi
	done
else
	echo "skip shellcheck: not installed (make deps)"
fi

echo "== the tree under test"
SRC=$T/src
if ! git clone -q "$TOP" "$SRC"; then
	bad clone "git clone $TOP"
	finish
fi
if [ "${PKG_TEST_SOURCE:-}" != head ] && [ -n "$(git -C "$TOP" status --porcelain)" ]; then
	(
		cd "$TOP" || exit 1
		git ls-files -z --deleted | xargs -0r -I{} rm -f -- "$SRC/{}"
		git ls-files -z -co --exclude-standard |
			while IFS= read -r -d '' f; do
				[ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"
			done | tar --null -T - -cf - | tar -xf - -C "$SRC"
	) &&
		git -C "$SRC" add -A &&
		git -C "$SRC" -c user.name=package-test -c user.email=package-test@localhost \
			commit -qm "package-test: the work tree" ||
		{ bad snapshot "cannot copy the work tree's changes"; finish; }
	echo "# HEAD $(git -C "$TOP" rev-parse --short HEAD) with the work tree's changes:" \
		"$(git -C "$SRC" diff --stat HEAD~1 | tail -n 1)"
else
	echo "# HEAD $(git -C "$TOP" rev-parse --short HEAD)"
fi

echo "== (a) the action and the example workflow, run as a hosted runner runs them"
mkdir "$T/runner"
chmod 0755 "$T/runner"
started=$SECONDS
unshare --mount --propagation private bash "$HERE/runner.sh" "$SRC" "$T/runner" > "$T/runner.out" 2>&1
echo "# the runner simulation took $((SECONDS - started)) s"
before=$fail
tally < "$T/runner.out"
grep -q '^ok runner: done$' "$T/runner.out" || bad runner "tests/pkg/runner.sh did not finish (see above)"
if [ "$fail" != "$before" ] && [ -f "$T/runner/wf.txt" ]; then
	echo "# the simulated steps and the end of their output:"
	cat "$T/runner/wf.txt"
fi

echo "== (b) the Debian package"
VERSION=$(make -s -C "$SRC" --no-print-directory --eval 'print-%: ; @echo $($*)' print-VERSION)
DEBVERSION=$(cd "$SRC" && dpkg-parsechangelog -S Version)
[ "$DEBVERSION" = "$VERSION" ] && ok "debian/changelog's version is the Makefile's ($VERSION)" ||
	bad changelog-version "debian/changelog $DEBVERSION, Makefile $VERSION"
build_deps=$(cd "$SRC" && python3 -c '
import re
text = open("debian/control").read()
m = re.search(r"^Build-Depends:(.*?)(?=^\S)", text, re.M | re.S)
print(" ".join(re.sub(r"\(.*?\)", "", d).strip() for d in m.group(1).split(",") if d.strip()))')
for p in $(make -s -C "$SRC" --no-print-directory --eval 'print-%: ; @echo $($*)' print-DEB_BUILD_PACKAGES); do
	[ "$p" = build-essential ] && continue
	case " $build_deps " in
	*" $p "*) ;;
	*) bad build-depends "make deps-build installs $p, debian/control does not Build-Depend on it" ;;
	esac
done
ok "debian/control's Build-Depends cover make deps-build"

# make deb, the one way the package is built.
started=$SECONDS
if make -C "$SRC" deb > "$T/dpkg-buildpackage.log" 2>&1; then
	echo "# make deb took $((SECONDS - started)) s"
	ok "make deb (dpkg-buildpackage -us -uc -b in an export of HEAD) in a clean clone"
else
	bad dpkg-buildpackage "$(tail -n 30 "$T/dpkg-buildpackage.log")"
	finish
fi
ARCH=$(dpkg --print-architecture)
DEB=$SRC/build/deb/stepguard_${VERSION}_$ARCH.deb
[ -f "$DEB" ] && ok "built build/deb/$(basename "$DEB")" || { bad deb "no $DEB: $(ls "$SRC/build/deb" 2>&1)"; finish; }
[ ! -e "$SRC/build/deb/src" ] && [ ! -e "$SRC/build/stepguard" ] &&
	ok "make deb built in its export, not in the tree" || bad deb-export "$(ls "$SRC/build" "$SRC/build/deb")"
# The empty override_dh_auto_test: dh skips the step, which would
# otherwise run "make check".
! grep -qE '^ +dh_auto_test|make(\[[0-9]+\])?:? .*check' "$T/dpkg-buildpackage.log" &&
	ok "the package build does not run make check" ||
	bad dh-auto-test "$(grep -E 'dh_auto_test|check' "$T/dpkg-buildpackage.log" | head -n 5)"

conffiles=$(dpkg-deb --info "$DEB" conffiles 2> /dev/null | sort)
want=$(cd "$SRC" && for f in rules.d/*.ini; do echo "/etc/stepguard/$f"; done | sort)
[ -n "$want" ] && [ "$conffiles" = "$want" ] && ok "conffiles: $(echo $conffiles)" ||
	bad conffiles "got [$conffiles], want [$want]"
R=$T/root
dpkg -x "$DEB" "$R" || { bad dpkg-x "dpkg -x $DEB"; finish; }
# Depends (dh_shlibdeps) names the package of every shared library the
# binaries need; the libraries linked statically are in Built-Using.
depends=$(dpkg-deb --field "$DEB" Depends)
for elf in "$R/usr/bin/stepguard" "$R/usr/libexec/stepguard/stepguard-probe"; do
	for so in $(objdump -p "$elf" | awk '$1 == "NEEDED" { print $2 }'); do
		p=$(dpkg -S "*/$so" 2> /dev/null | sed -n '1s/[:,].*//p')
		[ -n "$p" ] && grep -qE "(^|, )$p( |,|$)" <<< "$depends" &&
			ok "Depends: $p, for $so of $(basename "$elf")" ||
			bad depends "$(basename "$elf") needs $so (package [$p]); Depends: $depends"
	done
done
sbu=$(dpkg-deb --field "$DEB" Built-Using)
if objdump -p "$R/usr/bin/stepguard" | grep -q 'NEEDED.*libbpf'; then
	ok "libbpf linked shared (STATIC_LIBS=0)"
else
	grep -qE '(^|, )libbpf \(= ' <<< "$sbu" && ok "Built-Using: $sbu" ||
		bad built-using "[$sbu]"
fi
for f in usr/bin/stepguard usr/libexec/stepguard/stepguard-probe \
	usr/share/man/man1/stepguard.1.gz usr/share/man/man5/stepguard.ini.5.gz \
	usr/share/bash-completion/completions/stepguard usr/share/doc/stepguard/copyright \
	usr/share/doc/stepguard/ci.md.gz usr/share/doc/stepguard/examples/factory.yml \
	usr/share/doc/stepguard/examples/rules.d/50-caches.ini; do
	[ -f "$R/$f" ] && ok "package has /$f" || bad "package-file" "no /$f"
done
cmp -s "$R/usr/share/bash-completion/completions/stepguard" "$SRC/completion/stepguard.bash" &&
	ok "the packaged completion is completion/stepguard.bash" || bad completion-file "differs"
[ "$(stat -c %a "$R/usr/bin/stepguard")" = 755 ] && ok "/usr/bin/stepguard is 0755, not setuid" ||
	bad mode "$(stat -c %a "$R/usr/bin/stepguard")"

out=$("$R/usr/bin/stepguard" --version 2>&1) && [ "$out" = "stepguard $VERSION" ] &&
	ok "installed stepguard --version: $out" || bad version "$out"
# The installed binary reads /etc/stepguard; in the throwaway root, its
# drop-ins are named with --rules-dir.
RD=$R/etc/stepguard/rules.d
out=$(cd "$T" && "$R/usr/bin/stepguard" --rules-dir "$RD" --check -- true 2>&1)
rc=$?
if [ "$rc" = 0 ] && grep -q "^decision: run" <<< "$out" &&
	grep -qF "$RD/10-defaults.ini" <<< "$out" && grep -qF "$RD/20-devices.ini" <<< "$out"; then
	ok "installed stepguard --rules-dir ROOT/etc/stepguard/rules.d --check -- true"
else
	bad check "status $rc: $(tail -n 20 <<< "$out")"
fi
# It finds its probe in ../libexec/stepguard, as installed.
out=$(cd "$T" && "$R/usr/bin/stepguard" --rules-dir "$RD" --self-test --json 2> "$T/st.err")
rc=$?
probe=$(python3 -c 'import json, sys; d = json.loads(sys.stdin.read()); print(d["result"], d["probe"])' <<< "$out" 2>&1)
[ "$rc" = 0 ] && [ "$probe" = "pass $R/usr/libexec/stepguard/stepguard-probe" ] &&
	ok "installed stepguard --self-test passes with the installed probe" ||
	bad self-test "status $rc, [$probe]: $(cat "$T/st.err")"

echo "== (c) the bash completion (from the package)"
C=$R/usr/share/bash-completion/completions/stepguard
bash -n "$C" && ok "bash -n" || bad "bash -n" "syntax"
# complete_words WORD...: what the completion offers for the last WORD, one
# a line; in an empty directory, so that file names come only from paths.
mkdir "$T/empty"
complete_words() {
	(cd "$T/empty" && bash --norc --noprofile -c '
		source "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		_stepguard stepguard "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		((${#COMPREPLY[@]} == 0)) || printf "%s\n" "${COMPREPLY[@]}"' - "$C" "$@")
}
expect_words() {
	local name=$1 want=$2 got
	shift 2
	got=$(complete_words "$@" | tr '\n' ' ')
	[ "$got" = "$want" ] && ok "completion: $name" || bad "completion: $name" "got [$got], want [$want]"
}
reg=$(bash --norc --noprofile -c 'source "$1" && complete -p stepguard' - "$C" 2>&1)
[ "$reg" = "complete -F _stepguard stepguard" ] && ok "completion registers _stepguard" || bad registration "$reg"
expect_words "--filter <TAB>" "auto bpf-lsm bpf-fmod landlock " stepguard --filter ""
expect_words "--filter=<TAB>" "auto bpf-lsm bpf-fmod landlock " stepguard --filter = ""
expect_words "--filter=bpf-<TAB>" "bpf-lsm bpf-fmod " stepguard --filter = bpf-
expect_words "--mode <TAB>" "enforce audit " stepguard -s build --mode ""
expect_words "--che<TAB>" "--check " stepguard --che
got=$(complete_words stepguard aud | head -n 1)
[ "$got" = audit ] && ok "completion: aud<TAB> offers audit first" || bad "completion: aud" "got [$got]"
expect_words "audit --<TAB>" "--json --github --step --help " stepguard audit --
expect_words "after --, the command's" "" stepguard -- make --filter ""
expect_words "--rules-dir <TAB>: directories" "$RD " stepguard --rules-dir "$R/etc/stepguard/rules"
expect_words "--policy <TAB>: files" "$RD/10-defaults.ini " stepguard --policy "$RD/10-"
expect_words "audit LOG<TAB>: files" "$RD/20-devices.ini " stepguard audit --json "$RD/20-"
# The option lists agree with the binary's --help.
# (the lines of the option table, which start with blanks and a dash)
opts() { "$@" 2>&1 | grep -E '^ +-' | grep -oE '(^|[ ,[])--?[a-z][a-z-]*' | sed 's/^[ ,[]//' | sort -u | tr '\n' ' '; }
want=$(opts "$SG" --help)
got=$(complete_words stepguard - | sort -u | tr '\n' ' ')
[ "$got" = "$want" ] && ok "completion: the options are those of --help" || bad options "completion [$got], --help [$want]"
want=$(opts "$SG" audit --help)
got=$(complete_words stepguard audit - | sort -u | tr '\n' ' ')
[ "$got" = "$want" ] && ok "completion: audit's options are those of audit --help" ||
	bad audit-options "completion [$got], audit --help [$want]"

finish
