#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/run.sh — `make bench`: what stepguard costs, measured side by side
# with bare runs (and bubblewrap, firejail) in one run, as ratios.
#
#   STEPGUARD=build/stepguard bash bench/run.sh [--quick] [--only LIST] [--out FILE]
#
#   --quick      a smoke run (a few iterations, seconds): checks that the
#                benchmark works, judges no budget; CI runs this
#   --only LIST  comma-separated subset of startup,syscalls,build,tree,git,vm
#   --out FILE   where the Markdown goes (default: docs/performance.md for
#                a full run of everything, else $BUILD/bench/performance.md)
#
# Environment: STEPGUARD (the binary under test, default build/stepguard),
# BUILD (default build; helpers and raw data go to $BUILD/bench), CC.
#
# What runs, in this order (docs/performance.md explains each figure):
#   1. start-up: /bin/true bare, under a static exec-only wrapper, under
#      stepguard (Landlock, shipped default policy), bwrap and firejail,
#      interleaved by bench/runner;
#   2. syscalls inside a step: bench/sysbench bare and under stepguard,
#      alternately (chmod and utimensat in the work dir among them: the
#      supervisor's round trip; and the write-intent calls of issue 15,
#      create, unlink, write open, mkdir, rmdir, rename, one call each);
#   3. a real build: a generated C project, make -j2, bare and confined,
#      alternately, each from a clean output directory;
#   4. a tree of about 9k entries (a copy of /usr/include): `cp -a` of it
#      and `tar x` of a tarball of it into the work dir, bare, under
#      stepguard and under bwrap, interleaved by bench/runner (issue 14);
#   5. `git checkout -f HEAD` of a generated tree of 12k entries
#      (bench/gentree.py, committed once and cached in $BUILD/bench/cache)
#      into a fresh `clone --no-checkout --local` in the work dir, bare,
#      under stepguard and under bwrap, interleaved (issue 15);
#   6. the eBPF backends (bpf-lsm, bpf-fmod), which this kind of host
#      refuses to load: bench/vm.sh boots the newest cached kernel of
#      tests/vm twice in QEMU (software emulation, so ratios only) and runs
#      bench/vm-guest.sh there: warm and cold start, the syscalls bare,
#      unconfined with the programs attached, and confined.
# All in a tmpfs work directory, so disk noise does not hide the filter's
# cost.  A missed budget is reported, not an error: the exit status is
# non-zero only when the benchmark itself could not run (a VM that fails
# to boot or to load the programs is reported in the table, not an error).
set -euo pipefail
umask 022
export LC_ALL=C

die() { echo "bench: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }

QUICK=0
ALL=startup,syscalls,build,tree,git,vm
ONLY=$ALL
OUT=
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1; shift ;;
	--only) ONLY=${2:?--only needs a list}; shift 2 ;;
	--out) OUT=${2:?--out needs a file}; shift 2 ;;
	-h|--help) sed -n '4,43p' "$0"; exit 0 ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
done
want() { [[ ",$ONLY," == *",$1,"* ]]; }

SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$SRC/$BUILD ;; esac
SG=${STEPGUARD:-$BUILD/stepguard}
SG=$(realpath "$SG") || die "no stepguard at ${STEPGUARD:-$BUILD/stepguard}; run make first"
[ -x "$SG" ] || die "$SG is not executable"
CC=${CC:-cc}
OUTDIR=$BUILD/bench
mkdir -p "$OUTDIR"
rm -f "$OUTDIR"/*.tsv "$OUTDIR"/*.skip "$OUTDIR"/meta.env
if [ -z "$OUT" ]; then
	if [ $QUICK = 0 ] && [ "$ONLY" = "$ALL" ]; then
		OUT=$SRC/docs/performance.md
	else
		OUT=$OUTDIR/performance.md
	fi
fi

# Rounds, iterations and time limits.  The full run takes about three
# minutes on a quiet 2-core machine, plus 1.5-4 minutes for the VMs
# (bench/vm.sh sets its own rounds); the limits (runner -T) bound it on a
# slow or busy one, at the cost of fewer rounds (the table says how many
# ran).  The syscalls item has 90 s: issue 15's five loops made a round
# about 1.2 s longer, and once the write-intent calls are supervised a
# confined round gains about 5 x N round trips (3 s at 30 us each).
if [ $QUICK = 1 ]; then
	SU_ROUNDS=3 SU_BATCH=2 SU_LIMIT=20
	SC_ROUNDS=2 SC_N=1000 SC_LIMIT=20
	BU_ROUNDS=1 BU_FILES=6 BU_LIMIT=60
	TR_ROUNDS=1 TR_LIMIT=30
	GI_ENTRIES=1000 GI_ROUNDS=1 GI_LIMIT=30
else
	SU_ROUNDS=150 SU_BATCH=5 SU_LIMIT=60
	SC_ROUNDS=20 SC_N=20000 SC_LIMIT=90
	BU_ROUNDS=20 BU_FILES=48 BU_LIMIT=120
	TR_ROUNDS=12 TR_LIMIT=120
	GI_ENTRIES=12000 GI_ROUNDS=20 GI_LIMIT=120
fi

# ---- helpers ------------------------------------------------------------
# Built here, plain: they are not part of stepguard, and sysbench runs
# under the write filter, where a sanitizer runtime would be refused.
HFLAGS=(-std=gnu11 -O2 -g -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes)
$CC "${HFLAGS[@]}" -o "$OUTDIR/runner" "$SRC/bench/runner.c"
$CC "${HFLAGS[@]}" -o "$OUTDIR/sysbench" "$SRC/bench/sysbench.c"
# The exec-only floor is static where libc's static archive exists, so it
# pays one execve and no dynamic linking; say which one was measured.
if $CC "${HFLAGS[@]}" -static -o "$OUTDIR/execwrap" "$SRC/bench/execwrap.c" 2>/dev/null; then
	EXECWRAP_KIND=static
else
	$CC "${HFLAGS[@]}" -o "$OUTDIR/execwrap" "$SRC/bench/execwrap.c"
	EXECWRAP_KIND="dynamic (no static libc archive; install libc6-dev)"
	note "execwrap: -static failed, measuring a dynamically linked wrapper"
fi
RUNNER=$OUTDIR/runner

# ---- the tmpfs --------------------------------------------------------------
# A tmpfs of our own when we are root: /dev/shm is a tmpfs and writable,
# but it lies under /dev, and the bwrap command of the comparison mounts
# a fresh /dev (--dev /dev) after binding the work directory, which would
# hide a work directory there.  Without root, /dev/shm it is (the table
# says so), or whatever tmpfs BENCH_TMPFS names.
ROOT=
MOUNTED=0
cleanup() {
	if [ -n "$ROOT" ]; then
		if [ $MOUNTED = 1 ]; then
			umount "$ROOT" 2>/dev/null || umount -l "$ROOT" 2>/dev/null || true
			rmdir "$ROOT" 2>/dev/null || true
		else
			rm -rf "$ROOT"
		fi
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ -n "${BENCH_TMPFS:-}" ]; then
	ROOT=$(mktemp -d "$BENCH_TMPFS/stepguard-bench.XXXXXX")
	TMPFS_KIND="$BENCH_TMPFS (BENCH_TMPFS)"
elif [ "$(id -u)" = 0 ] && ROOT=$(mktemp -d /tmp/stepguard-bench.XXXXXX) &&
	mount -t tmpfs -o size=1g,mode=0755 stepguard-bench "$ROOT" 2>/dev/null; then
	MOUNTED=1
	TMPFS_KIND="a tmpfs mounted for the run ($ROOT)"
else
	[ -n "$ROOT" ] && rmdir "$ROOT"
	ROOT=$(mktemp -d /dev/shm/stepguard-bench.XXXXXX) || die "no tmpfs: not root and no /dev/shm"
	TMPFS_KIND="/dev/shm (not root: could not mount a tmpfs)"
fi
[ "$(stat -f -c %T "$ROOT")" = tmpfs ] || note "$ROOT is not on a tmpfs; disk noise may hide the filter's cost"
W=$ROOT/work
mkdir -p "$W" "$W/tmp"
# Six directories deep, outside the work directory.
DEEP=$ROOT/outside/a/b/c/d/e/f/deep.txt
mkdir -p "$(dirname "$DEEP")"
echo deep > "$DEEP"

# stepguard must run here at all, or nothing below means anything.
(cd "$W" && "$SG" -q -- /bin/true) ||
	die "stepguard -- /bin/true fails in $W; see: $SG --check"
# All of stderr, then its first line: `| head -1` may exit before
# stepguard's second line (root's "note:"), and with pipefail the SIGPIPE
# that stepguard then gets ended this script (exit 141).
SG_LINE=$(cd "$W" && "$SG" -- /bin/true 2>&1 >/dev/null)
SG_LINE=${SG_LINE%%$'\n'*}
POLICY_NOTE="compiled-in defaults (rules.d)"
if [ -e /etc/stepguard/stepguard.ini ] || [ -d /etc/stepguard/rules.d ]; then
	POLICY_NOTE="compiled-in defaults plus /etc/stepguard (present on this machine)"
fi

# ---- the machine ---------------------------------------------------------
{
	echo "DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "NPROC=$(nproc)"
	echo "KERNEL=$(uname -r)"
	echo "CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	# shellcheck source=/dev/null
	echo "OS=$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-?}")"
	echo "SG_VERSION=$("$SG" --version)"
	echo "SG_PATH=$SG"
	echo "TREE=$(git -C "$SRC" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "SG_LINE=$SG_LINE"
	echo "POLICY_NOTE=$POLICY_NOTE"
	echo "TMPFS_KIND=$TMPFS_KIND"
	echo "EXECWRAP_KIND=$EXECWRAP_KIND"
	echo "CC_VERSION=$($CC --version | head -1)"
	echo "LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "QUICK=$QUICK"
	echo "ONLY=$ONLY"
	echo "SU_BATCH=$SU_BATCH"
	echo "SC_N=$SC_N"
	echo "BU_FILES=$BU_FILES"
	echo "COMMAND=make bench$([ $QUICK = 1 ] && echo -smoke)"
} > "$OUTDIR/meta.env"

# ---- 1. start-up -----------------------------------------------------------
if want startup; then
	note "1/6 start-up: $SU_ROUNDS rounds x $SU_BATCH runs per command"
	cmds=(bare /bin/true
		:: execwrap "$OUTDIR/execwrap" /bin/true
		:: stepguard "$SG" -q -- /bin/true)
	# bwrap and firejail are comparisons: run each once first, and skip
	# it with the reason if it cannot run here.
	BWRAP=(bwrap --ro-bind / / --bind "$W" "$W" --dev /dev --proc /proc /bin/true)
	if ! command -v bwrap >/dev/null; then
		echo "bwrap is not installed (Debian package bubblewrap; make deps)" > "$OUTDIR/bwrap.skip"
	elif ! err=$(cd "$W" && "${BWRAP[@]}" 2>&1); then
		echo "bwrap cannot run here: $(echo "$err" | head -1)" > "$OUTDIR/bwrap.skip"
	else
		cmds+=(:: bwrap "${BWRAP[@]}")
	fi
	# --quiet only silences firejail's banner; the sandbox is the same.
	FIREJAIL=(firejail --quiet --noprofile /bin/true)
	if ! command -v firejail >/dev/null; then
		echo "firejail is not installed (Debian package firejail)" > "$OUTDIR/firejail.skip"
	elif ! err=$(cd "$W" && timeout 30 "${FIREJAIL[@]}" 2>&1 </dev/null); then
		echo "firejail cannot run here: $(echo "$err" | tail -1)" > "$OUTDIR/firejail.skip"
	else
		cmds+=(:: firejail "${FIREJAIL[@]}")
	fi
	for f in "$OUTDIR"/*.skip; do [ -e "$f" ] && note "skipped: $(cat "$f")"; done
	"$RUNNER" -C "$W" -r "$SU_ROUNDS" -n "$SU_BATCH" -w 1 -T "$SU_LIMIT" \
		-o "$OUTDIR/startup.tsv" -- "${cmds[@]}"
fi

# ---- 2. syscalls inside a step --------------------------------------------
if want syscalls; then
	note "2/6 syscalls: $SC_ROUNDS rounds, $SC_N iterations per operation"
	: > "$OUTDIR/syscalls.tsv"
	# One untimed pair first: page cache, dentries, the binary's pages.
	"$OUTDIR/sysbench" -n 100 "$W" "$DEEP" >/dev/null
	"$SG" -q -w "$W" -- "$OUTDIR/sysbench" -n 100 "$W" "$DEEP" >/dev/null
	start=$SECONDS
	for ((r = 0; r < SC_ROUNDS; r++)); do
		if ((r >= 3 && SECONDS - start > SC_LIMIT)); then
			note "time limit of $SC_LIMIT s reached after $r rounds"
			break
		fi
		"$OUTDIR/sysbench" -n "$SC_N" "$W" "$DEEP" |
			sed "s/^/$r\tbare\t/" >> "$OUTDIR/syscalls.tsv"
		"$SG" -q -w "$W" -- "$OUTDIR/sysbench" -n "$SC_N" "$W" "$DEEP" |
			sed "s/^/$r\tstepguard\t/" >> "$OUTDIR/syscalls.tsv"
	done
fi

# ---- 3. a real build ---------------------------------------------------------
if want build; then
	note "3/6 build: $BU_FILES C files, make -j2, $BU_ROUNDS rounds"
	bash "$SRC/bench/gen.sh" "$W/proj" "$BU_FILES"
	# The compiler's temporary files go to the work directory in both
	# runs: under stepguard /tmp is not writable, and a CI step sets
	# TMPDIR the same way.
	TMPDIR=$W/tmp "$RUNNER" -C "$W/proj" -p 'rm -rf out' -r "$BU_ROUNDS" -n 1 -w 1 \
		-T "$BU_LIMIT" -o "$OUTDIR/build.tsv" -- \
		bare make -s -j2 :: stepguard "$SG" -q -w "$W" -- make -s -j2
fi

# The three sides of one operation on a tree (items 4 and 5), as runner
# arguments in TCMDS: bare, under stepguard, and under the bwrap command of
# item 1 when bwrap runs here.
tree_cmds() {
	local -a c=("$@")
	TCMDS=(bare "${c[@]}" :: stepguard "$SG" -q -w "$W" -- "${c[@]}")
	if [ ! -e "$OUTDIR/bwrap.skip" ] && command -v bwrap >/dev/null &&
		(cd "$W" && bwrap --ro-bind / / --bind "$W" "$W" --dev /dev --proc /proc /bin/true) 2>/dev/null; then
		TCMDS+=(:: bwrap bwrap --ro-bind / / --bind "$W" "$W" --dev /dev --proc /proc "${c[@]}")
	fi
}

# ---- 4. a tree of about 9k entries ---------------------------------------
# What archive and copy tools do to a tree: every entry created, then its
# mode, owner and times set (as root, GNU tar sets modes through
# /proc/self/fd: the supervisor's other path).  The source lies outside the
# work directory, on the same tmpfs; the result lands inside it.  bwrap
# gets the command of item 1 (--ro-bind / / --bind W W --dev /dev --proc
# /proc), which confines writes with mounts and pays nothing per call.
if want tree; then
	SRCTREE=$ROOT/tree-src
	rm -rf "$SRCTREE"
	mkdir -p "$SRCTREE"
	cp -a /usr/include "$SRCTREE/include"
	(cd "$SRCTREE" && tar cf "$ROOT/tree.tar" include)
	TR_ENTRIES=$(find "$SRCTREE/include" | wc -l)
	echo "TR_ENTRIES=$TR_ENTRIES" >> "$OUTDIR/meta.env"
	note "4/6 tree: $TR_ENTRIES entries (/usr/include), cp -a and tar x, $TR_ROUNDS rounds"
	tree_cmds cp -a "$SRCTREE/include" "$W/tree-cp"
	"$RUNNER" -C "$W" -p "rm -rf '$W/tree-cp'" -r "$TR_ROUNDS" -n 1 -w 1 -T "$TR_LIMIT" \
		-o "$OUTDIR/tree_cp.tsv" -- "${TCMDS[@]}"
	tree_cmds tar xf "$ROOT/tree.tar"
	"$RUNNER" -C "$W" -p "rm -rf '$W/include'" -r "$TR_ROUNDS" -n 1 -w 1 -T "$TR_LIMIT" \
		-o "$OUTDIR/tree_tar.tsv" -- "${TCMDS[@]}"
	rm -rf "$W/tree-cp" "$W/include" "$SRCTREE" "$ROOT/tree.tar"
fi

# ---- 5. git checkout of a large tree --------------------------------------
# What a CI step's checkout does: every file of a commit written into an
# empty work tree (git opens each with O_WRONLY|O_CREAT|O_EXCL, makes each
# directory and symlink): one write-intent call per entry, each of which
# issue 15 routes to the supervisor.  The repository is generated
# (bench/gentree.py), committed once and cached in $OUTDIR/cache as a bare
# repository with one pack, so only the first run pays for it (about ten
# seconds); every run copies it onto the tmpfs, outside the work directory.
# Before every timed run (untimed, runner's PREP): a fresh
# `git clone --no-checkout --local` of it into the work directory, which
# hard-links the pack and leaves the work tree empty.  Timed: `git checkout
# -f HEAD` there, bare, under stepguard and under bwrap.  No system or
# global git configuration is read, so a machine's settings (parallel
# checkout, fsmonitor) do not change what is measured.
if want git; then
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
	command -v git >/dev/null || die "git is not installed (Debian package git)"
	GI_CACHE=$OUTDIR/cache/gittree-$GI_ENTRIES-v1.git
	if [ ! -s "$GI_CACHE/sg-bench-shape" ]; then
		note "5/6 git: generating a repository of $GI_ENTRIES entries (once; cached in $GI_CACHE)"
		gtmp=$(mktemp -d "$ROOT/gentree.XXXXXX")
		python3 "$SRC/bench/gentree.py" "$gtmp/src" "$GI_ENTRIES" > "$gtmp/shape"
		# A fixed author and date: the same tree gives the same commit.
		(cd "$gtmp/src" && git init -q -b bench && git add -A &&
			GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' \
			git -c user.name=bench -c user.email=bench@stepguard.invalid commit -q -m "bench tree")
		git clone -q --bare --no-local "$gtmp/src" "$gtmp/repo.git"
		cp "$gtmp/shape" "$gtmp/repo.git/sg-bench-shape"
		mkdir -p "$OUTDIR/cache"
		rm -rf "$GI_CACHE.tmp"
		cp -a "$gtmp/repo.git" "$GI_CACHE.tmp"
		mv "$GI_CACHE.tmp" "$GI_CACHE"
		rm -rf "$gtmp"
	fi
	GI_SRC=$ROOT/git-src.git
	rm -rf "$GI_SRC"
	cp -a "$GI_CACHE" "$GI_SRC"
	read -r gi_files gi_dirs gi_links gi_bytes < "$GI_SRC/sg-bench-shape"
	{
		echo "GI_FILES=$gi_files"
		echo "GI_DIRS=$gi_dirs"
		echo "GI_LINKS=$gi_links"
		echo "GI_BYTES=$gi_bytes"
		echo "GI_PACK_BYTES=$(cat "$GI_SRC"/objects/pack/*.pack | wc -c)"
		echo "GI_TREE=$(git -C "$GI_SRC" rev-parse 'HEAD^{tree}')"
		echo "GI_ROUNDS=$GI_ROUNDS"
		echo "GIT_VERSION=$(git --version)"
	} >> "$OUTDIR/meta.env"
	GI_CO=$W/git-co
	GI_PREP="rm -rf '$GI_CO' && git clone -q --no-checkout --local '$GI_SRC' '$GI_CO'"
	GI_CMD=(git -C "$GI_CO" checkout -q -f HEAD)
	# The checkout must be whole under stepguard, or the figure would be
	# the cost of a failure: every entry in place, nothing modified.
	(cd "$W" && sh -c "$GI_PREP" && "$SG" -q -w "$W" -- "${GI_CMD[@]}") ||
		die "git checkout fails under stepguard in $W"
	gi_have=$(git -C "$GI_CO" ls-files | wc -l)
	if [ "$gi_have" != "$((gi_files + gi_links))" ] || [ -n "$(git -C "$GI_CO" status --porcelain)" ]; then
		die "git checkout under stepguard left $gi_have of $((gi_files + gi_links)) entries, or a modified tree"
	fi
	note "5/6 git: checkout of $gi_files files, $gi_links symlinks, $gi_dirs directories, $GI_ROUNDS rounds"
	tree_cmds "${GI_CMD[@]}"
	"$RUNNER" -C "$W" -p "$GI_PREP" -r "$GI_ROUNDS" -n 1 -w 1 -T "$GI_LIMIT" \
		-o "$OUTDIR/git.tsv" -- "${TCMDS[@]}"
	rm -rf "$GI_CO" "$GI_SRC"
fi

# ---- 5. eBPF backends in the VM ------------------------------------------
# Last, so the emulator does not compete with the figures above.  Only
# missing binaries fail here; a VM that cannot boot or load the programs
# is a result the table reports.
if want vm; then
	note "6/6 eBPF in the VM (QEMU TCG)"
	vm_args=(--out "$OUTDIR/vm.tsv")
	[ $QUICK = 0 ] || vm_args+=(--quick)
	STEPGUARD=$SG BUILD=$BUILD CC=$CC bash "$SRC/bench/vm.sh" "${vm_args[@]}" ||
		die "bench/vm.sh could not run (see above)"
fi

# Other work on the machine shows in wall times; say how busy it was.
echo "LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUTDIR/meta.env"
python3 "$SRC/bench/report.py" "$OUTDIR" "$OUT"
note "raw data in $OUTDIR/*.tsv; table written to $OUT"
