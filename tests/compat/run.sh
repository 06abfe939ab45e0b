#!/bin/bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2016 # the cases' commands are sh -c strings, expanded by that sh
#
# tests/compat/run.sh — ordinary tools work under stepguard as they do bare.
#
#   STEPGUARD=build/stepguard bash tests/compat/run.sh
#       [--as root|USER|sudo:USER] [--filter BACKEND] [--only REGEX] [--list] [--keep] [-v]
#
# Each case builds the same input in two work directories of the same
# shape, BASE/bare/CASE and BASE/conf/CASE, runs one real tool in each
# (`sh -c CMD` in the work dir): bare, and as `stepguard -q -w WORK -s
# compat-CASE --log LOG -- sh -c CMD`, and passes when
#   - the exit statuses are equal;
#   - the two trees are equal relative to their roots (tree.sh: names,
#     types, modes, numeric owners, sizes, content, link counts and hard
#     link shape, symlink targets, xattrs and ACLs, and the mtimes of the
#     entries the case names because the tool sets or keeps them);
#   - the entries the case expects exist in both trees (the tool ran);
#   - stepguard's log holds the step's start record (its cwd, its uid) and
#     an end record with that status (stepguard ran it).
# A tool that is not there is SKIPPED with the reason, never passed; a case
# whose bare run fails is SKIPPED with that run's message (the tool does not
# work on this machine).  One confinement control per user (`outside`) must
# see its write to /tmp refused under stepguard and its control write land.
#
# As root without --as, the suite runs three times: as root; as sudo:sgtest
# (stepguard started by root with SUDO_UID, dropping the step to sgtest, as
# `sudo stepguard` on a runner; the bare runs are sgtest's own); and as the
# unprivileged sgtest (created with useradd -m if missing).  Steps get
# PATH=SG_COMPAT_PATH (default ~/.cargo/bin:/usr/local/bin:/usr/bin:/bin of
# the step's user), HOME, USER, LOGNAME, LANG=C.UTF-8, TERM=dumb and the
# case's tool variables; never TMPDIR.  Nothing here sets TMPDIR: a step
# gets the temp directory stepguard gives it.
#
# Environment: STEPGUARD (required); SG_COMPAT_BASE where the work dirs go
# (default /var/tmp; not /tmp, which the control writes to);
# SG_COMPAT_PATH the steps' PATH; SG_COMPAT_SHELL the shell that runs
# each COMMAND (default sh); SG_COMPAT_MISSING the reason given for a
# missing tool (default "not installed"; the VM says "not in the VM
# image").  Output: PASS|FAIL|SKIP USER/CASE — what, and the last line
#   compat: N passed, M failed, K skipped
# exit status 1 when M > 0, 2 on a harness error.
set -u
umask 022
export LC_ALL=C

SUITE_USER_DEFAULT=sgtest
die() { echo "compat: $*" >&2; exit 2; }

AS='' FILTER='' ONLY='' LIST=0 KEEP=0 VERBOSE=0 SETUP=''
while [ $# -gt 0 ]; do
	case $1 in
	--as) AS=${2:?--as needs a user}; shift 2 ;;
	--filter) FILTER=${2:?--filter needs a backend}; shift 2 ;;
	--only) ONLY=${2:?--only needs a regex}; shift 2 ;;
	--list) LIST=1; shift ;;
	--keep) KEEP=1; shift ;;
	-v) VERBOSE=1; shift ;;
	--setup) SETUP=${2:?}; shift 2; break ;; # internal: CASE-FN DIR
	-h | --help) sed -n '4,42p' "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done

SELF=$(realpath "$0")
HERE=$(dirname "$SELF")
TREE=$HERE/tree.sh
[ -r "$TREE" ] || die "no $TREE"

# ---------------------------------------------------------------------
# Inputs.  Each setup runs in the work dir as the step's user, bare, with
# the step's environment: both work dirs are built by the same commands.
# 1580609922 is 2020-02-02 02:18:42 UTC: an mtime no tool leaves by chance.

T0=1580609922

# A tree with dirs (one set-group-ID), files of several modes, symlinks
# (relative, absolute, to a dir, dangling), a hard link, a user xattr
# where the file system has them, fixed mtimes; as root, foreign owners.
mk_src() {
	mkdir -p src/d/sub src/empty
	printf 'hello\n' > src/f644 && chmod 0644 src/f644
	printf '#!/bin/sh\necho x\n' > src/x755 && chmod 0755 src/x755
	printf 'secret\n' > src/d/s600 && chmod 0600 src/d/s600
	printf 'group\n' > src/d/sub/g640 && chmod 0640 src/d/sub/g640
	seq 1 20000 > src/d/big
	ln src/f644 src/d/hard
	ln -s f644 src/rel-link
	ln -s /etc/hostname src/abs-link
	ln -s d src/dir-link
	ln -s nowhere src/dangling
	chmod 0750 src/d/sub
	chmod 2755 src/d
	setfattr -n user.compat -v tree src/f644 2> /dev/null
	setfattr -n user.compat -v dir src/d 2> /dev/null
	if [ "$(id -u)" = 0 ]; then
		chown 4242:4243 src/d/s600
		chown -h 4244:4245 src/rel-link
		chown 4246:4247 src/d/sub
	fi
	touch -d @1500000000 src/f644
	find src -depth ! -name f644 ! -name hard -exec touch -h -d @$T0 {} +
}

setup_tar() {
	mk_src
	# pax (for --xattrs) would record atimes and ctimes, and the pid in
	# its header names: leave them out, so that both inputs are equal.
	tar --xattrs --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
		-cf t.tar -C src . && rm -rf src && mkdir out
	touch -d @$T0 t.tar out
}
setup_src() { mk_src; }
setup_install() {
	printf '#!/bin/sh\necho tool\n' > tool
	printf 'conf\n' > conf
	touch -d @1500000000 tool conf
}
setup_patch() {
	seq 1 20 > lines && chmod 0640 lines
	cat > p.diff <<'EOF'
--- a/lines
+++ b/lines
@@ -3,5 +3,5 @@
 3
 4
-5
+five
 6
 7
--- /dev/null
+++ b/new
@@ -0,0 +1,2 @@
+a new file
+from patch
EOF
	touch -d @$T0 p.diff lines
}
setup_sed() {
	printf 'abc\naaa\n' > s1 && chmod 0640 s1
	printf '#!/bin/sh\necho a\n' > s2 && chmod 0755 s2
	printf 'one\ntwo\n' > s3
	ln -s s1 sl
	[ "$(id -u)" = 0 ] && chown 4242:4243 s2
	touch -d @$T0 s1 s2 s3
}
setup_mv() {
	mkdir md && printf 'inner\n' > md/inner
	printf 'm1\n' > m1 && printf 'm2\n' > m2 && chmod 0600 m2
	printf 'old\n' > exist && printf 'new\n' > exist2
	ln -s m1 ml
	find . -mindepth 1 -exec touch -h -d @$T0 {} +
}
setup_ln() {
	printf 't1\n' > t1 && printf 't2\n' > t2 && mkdir td
	ln -s t1 l1 && printf 'plain\n' > plain
}
setup_touch() {
	printf 'f\n' > tf && ln -s tf tl && mkdir td && ln -s nowhere dangling
}
setup_acl() {
	printf 'acl\n' > af && chmod 0640 af
	mkdir -p ad/sub && printf 'x\n' > ad/sub/f
	touch -d @$T0 af
}
setup_py_chmod() {
	mkdir pd && printf 'p\n' > pf && printf 'g\n' > pd/pg && ln -s pf pl
	touch -d @$T0 pf pd/pg
}
setup_git() {
	git init -q -b main src && cd src &&
		printf 'a\n' > a && git add a && git commit -q -m one &&
		printf 'b\n' > b && chmod 0755 b && git add b && git commit -q -m two
}
setup_npm() {
	mkdir pkg app
	cat > pkg/package.json <<'EOF'
{ "name": "compat-pkg", "version": "1.0.0", "main": "index.js",
  "bin": { "compat-pkg": "cli.js" }, "license": "MIT" }
EOF
	printf 'module.exports = 42;\n' > pkg/index.js
	printf '#!/usr/bin/env node\nconsole.log(require("./index.js"));\n' > pkg/cli.js
	chmod 0755 pkg/cli.js
	printf '{ "name": "compat-app", "version": "1.0.0", "private": true }\n' > app/package.json
	(cd pkg && npm pack --silent > /dev/null)
}
setup_pip() {
	mkdir pkg
	cat > pkg/setup.py <<'EOF'
from setuptools import setup
setup(name="compat_pkg", version="1.0", py_modules=["compat_mod"],
      entry_points={"console_scripts": ["compat-cli=compat_mod:main"]})
EOF
	printf 'def main():\n    print("compat")\n' > pkg/compat_mod.py
}
setup_make() {
	printf '#include "h.h"\nint a(void) { return 1; }\n' > a.c
	printf '#include "h.h"\nint b(void) { return 2; }\n' > b.c
	printf '#include <stdio.h>\n#include "h.h"\nint main(void) { printf("%%d\\n", a() + b()); return 0; }\n' > main.c
	printf 'int a(void);\nint b(void);\n' > h.h
	printf 'CFLAGS = -O2\nprog: main.o a.o b.o\n\t$(CC) -o $@ $^\n%%.o: %%.c h.h\n\t$(CC) $(CFLAGS) -c -o $@ $<\n' > Makefile
	touch -d @$T0 a.c b.c main.c h.h Makefile
}
setup_sort() {
	# About 270 kB, not sorted: sort -S 64K must spill to temp files.
	seq 1 50000 | awk '{ print ($1 * 7919) % 50021 }' > big
}
setup_cargo() {
	mkdir src
	printf '[package]\nname = "compat-crate"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n' > Cargo.toml
	printf 'fn main() {\n    println!("compat");\n}\n' > src/main.rs
}
setup_none() { :; }

if [ -n "$SETUP" ]; then
	cd "${1:?}" || exit 2
	"setup_$SETUP"
	exit
fi

# ---------------------------------------------------------------------
# The cases.  case NAME OPTION... -- COMMAND, where COMMAND is one sh -c
# string run in the work dir and the options are
#   setup=FN          setup_FN builds the input (default: nothing)
#   has=PATH          must exist in both trees afterwards (repeatable)
#   needs=TOOL        skip unless TOOL is in the step's PATH (repeatable)
#   gnu=TOOL          ... and is the GNU one (not busybox's)
#   root              only for a root step
#   path=PATH         skip unless PATH exists on this machine (/dev/log)
#   env=NAME=VALUE    a tool variable the tool's docs tell users to set
#                     (@W@ is the work dir)
#   mtime= ignore= nohash= roothash=   passed to tree.sh list
# Each case says why it compares the mtimes it compares.

NAMES=()
declare -A OPTS CMDS
case_() {
	local n=$1 o=
	shift
	while [ "$1" != -- ]; do o+="$1"$'\n'; shift; done
	shift
	NAMES+=("$n") OPTS[$n]=$o CMDS[$n]=$1
}

# tar restores every entry's mtime (directories last), so all of out/.
case_ tar-x setup=tar gnu=tar has=out/d/hard has=out/rel-link mtime='^(t\.tar|out(/.*)?)$' \
	-- 'tar -xf t.tar -C out'
case_ tar-xp setup=tar gnu=tar has=out/d/hard has=out/abs-link mtime='^(t\.tar|out(/.*)?)$' \
	-- 'tar --xattrs -xpf t.tar -C out'
case_ tar-same-owner setup=tar gnu=tar root has=out/d/s600 mtime='^(t\.tar|out(/.*)?)$' \
	-- 'tar --xattrs --same-owner -xpf t.tar -C out'
# cp -a keeps every mtime, and src is not touched: everything.
case_ cp-a setup=src gnu=cp has=dst/d/hard has=dst/dangling mtime=. \
	-- 'cp -a src dst'
# rsync -a keeps mtimes (-H hard links, -X xattrs), src is not touched.
case_ rsync-a setup=src needs=rsync has=dst/d/hard has=dst/rel-link mtime=. \
	-- 'rsync -aHX src/ dst/'
# install -p keeps the mtime of what it copies; the others get "now".
case_ install setup=install gnu=install has=dst/bin/tool has=dst/etc/conf \
	mtime='^(tool|conf|dst/etc/conf)$' \
	-- 'install -D -m 0750 tool dst/bin/tool && install -d -m 0711 dst/priv &&
	    install -p -D -m 0640 conf dst/etc/conf'
# patch writes new files; only the patch itself keeps its mtime.
case_ patch setup=patch needs=patch has=lines.orig has=new mtime='^p\.diff$' \
	-- 'patch -s -p1 -b < p.diff'
# sed -i writes a new file (mode and, as root, owner kept); s3 is not edited... but -i.bak renames it.
case_ sed-i setup=sed gnu=sed has=s3.bak \
	-- "sed -i 's/a/A/g' s1 s2 && sed -i.bak -e 1d s3"
# rename keeps the mtime of what moves (not of the directories it changes).
case_ mv setup=mv gnu=mv has=renamed has=moved/m2 mtime='^(renamed|exist|moved/.+)$' \
	-- 'mv m1 renamed && mv m2 md/ && mv ml md/ && mv md moved && mv -f exist2 exist'
case_ ln-sf setup=ln gnu=ln has=td/up \
	-- 'ln -sf t2 l1 && ln -sf t1 plain && ln -sfn td l2 && ln -sfn t2 l2 && ln -sf ../t1 td/up'
# touch sets them: every mtime.
case_ touch-h setup=touch gnu=touch has=newfile mtime=. \
	-- 'touch -h -d @1400000000 tl && touch -d @1300000000 tf && touch -m -d @1200000000 td &&
	    touch -h -d @1100000000 dangling && touch -d @1000000000 newfile'
# chmod changes no mtime: every mtime is the input's.
case_ chmod-R setup=src gnu=chmod has=src/d/s600 mtime=. \
	-- 'chmod -R go-rwx,u+rwX src/d && chmod -R a+rX,g-s src && chmod 0700 src/empty'
case_ chown-R setup=src gnu=chown root has=src/d/s600 mtime=. \
	-- 'chown -R 4250:4251 src/d && chown -h 4252:4253 src/rel-link && chown -R -h 4254 src/dir-link'
# setfacl changes no mtime of the file it sets an ACL on.
case_ setfacl setup=acl needs=setfacl needs=getfacl has=acls.txt mtime='^af$' \
	-- 'setfacl -m u:4242:r-x,g:4243:r-- af && setfacl -R -m u:4242:rwX ad &&
	    setfacl -d -m g:4243:rx ad && mkdir ad/new && touch ad/new/f2 && getfacl -R -p af ad > acls.txt'
# copytree and copy2 keep mtimes (copystat); src is not touched.
case_ py-copytree setup=src needs=python3 has=dst/d/hard has=c2 mtime='^(src|dst)(/.*)?$|^c2$' \
	-- 'python3 -c "import shutil
shutil.copytree(\"src\", \"dst\", symlinks=True)
shutil.copy2(\"src/f644\", \"c2\")
shutil.copy(\"src/x755\", \"c1\")"'
# Python does os.chmod(follow_symlinks=False) as glibc's fchmodat(...,
# AT_SYMLINK_NOFOLLOW), which glibc 2.36 does through /proc/self/fd/N.  On
# a symlink the kernel refuses it (EOPNOTSUPP, which Python raises as
# NotImplementedError) bare too, and the result file says so.
case_ py-chmod-nofollow setup=py_chmod needs=python3 has=result mtime='^(pf|pd/pg)$' \
	-- 'python3 -c "import os, errno
os.chmod(\"pf\", 0o600, follow_symlinks=False)
os.chmod(\"pd/pg\", 0o750, follow_symlinks=False)
try:
    os.chmod(\"pl\", 0o600, follow_symlinks=False); r = \"ok\"
except NotImplementedError:
    r = \"NotImplementedError\"
except OSError as e:
    r = errno.errorcode[e.errno]
open(\"result\", \"w\").write(r + \"\\n\")"'
# git writes "now" everywhere except where the dates are fixed; .git/index
# holds inode numbers and ctimes; the clone's config and reflogs name src.
GIT_ENV=(env=GIT_AUTHOR_NAME=compat env=GIT_AUTHOR_EMAIL=compat@example.invalid
	env=GIT_COMMITTER_NAME=compat env=GIT_COMMITTER_EMAIL=compat@example.invalid
	"env=GIT_AUTHOR_DATE=@$T0 +0000" "env=GIT_COMMITTER_DATE=@$T0 +0000" env=GIT_CONFIG_NOSYSTEM=1)
case_ git setup=git needs=git "${GIT_ENV[@]}" has=clone/c has=clone/.git/packed-refs \
	nohash='/\.git/index$' roothash='/\.git/' \
	-- 'git clone -q src clone && cd clone && git checkout -q -b topic &&
	    printf "c\n" > c && git add c && git commit -q -m three && git checkout -q main &&
	    git merge -q --ff-only topic && git gc -q && git status --short > ../status.txt'
# npm's cache and logs go where npm_config_cache says (npm's docs): into
# the work dir, and they hold times and random names: left out.
case_ npm-install setup=npm needs=npm needs=node "env=npm_config_cache=@W@/.npm-cache" \
	env=npm_config_update_notifier=false has=app/node_modules/compat-pkg/index.js \
	has=app/node_modules/.bin/compat-pkg has=out.txt ignore='^\.npm-cache(/|$)' \
	-- 'cd app && npm install --offline --no-audit --no-fund ../pkg/compat-pkg-1.0.0.tgz &&
	    ./node_modules/.bin/compat-pkg > ../out.txt'
# A venv names its path in pyvenv.cfg and in its scripts' shebangs (and
# RECORD holds those scripts' hashes); .pyc files hold their sources'
# mtimes, which the install sets to "now".
case_ pip-venv setup=pip needs=python3 has=venv/bin/compat-cli has=out.txt \
	roothash='^venv/bin/|pyvenv\.cfg$|direct_url\.json$' nohash='\.pyc$|/RECORD$' \
	-- 'python3 -m venv venv && venv/bin/pip install -q --no-index --no-build-isolation --no-cache-dir ./pkg &&
	    venv/bin/compat-cli > out.txt'
case_ make-gcc setup=make needs=make needs=gcc has=prog has=out.txt mtime='\.[ch]$|^Makefile$' \
	-- 'make -s -j2 && ./prog > out.txt'
case_ mktemp-d gnu=mktemp has=out.txt \
	-- 'd=$(mktemp -d) && echo ok > "$d/f" && cp "$d/f" out.txt && rm -r "$d" &&
	    f=$(mktemp) && echo file > "$f" && cat "$f" >> out.txt && rm "$f"'
case_ sort-S setup=sort gnu=sort has=sorted \
	-- 'sort -S 64K -n big > sorted'
# cargo's target/ names its files by a hash of the crate's path, and the
# binary holds it: the build's products compare by shape, the tree by all.
case_ cargo-build setup=cargo needs=cargo has=target/debug/compat-crate has=out.txt \
	ignore='^target/(debug/(deps|build|\.fingerprint|incremental|examples)(/|$)|\.rustc_info\.json$)' \
	nohash='^target/debug/compat-crate$' roothash='\.d$' \
	-- 'cargo build --offline -q && ./target/debug/compat-crate > out.txt'

# Scheduling, terminals and the system log: a step's own processes
# (issue 16 refuses these calls on other processes, never on the step's).
# nice and taskset run a program changed; what it sees is the output.
case_ nice needs=nice has=nice.txt -- 'nice -n 5 true && nice -n 5 nice > nice.txt'
case_ taskset needs=taskset has=cpus.txt \
	-- 'taskset -c 0 true && taskset -c 0 grep "^Cpus_allowed_list:" /proc/self/status > cpus.txt'
# renice of a child the step started, read back from its /proc/PID/stat.
case_ renice needs=renice has=renice.txt \
	-- 'sleep 30 & p=$!; renice -n 4 -p "$p" > /dev/null && cut -d" " -f19 "/proc/$p/stat" > renice.txt; kill "$p"'
# script makes a pty pair of its own (/dev/ptmx, /dev/pts/N).
case_ script needs=script has=script.txt -- "script -qc 'echo hi' /dev/null > script.txt"
# logger to the journal's or syslog's socket, with errors reported (by
# default logger says nothing when it cannot send).
case_ logger needs=logger path=/dev/log has=logger.txt \
	-- 'logger --socket-errors=on -u /dev/log -t stepguard-compat "compat test" && echo sent > logger.txt'

if [ "$LIST" = 1 ]; then
	printf '%s\n' "${NAMES[@]}" outside
	exit 0
fi

SG=${STEPGUARD:?set STEPGUARD to the stepguard binary}
SG=$(realpath "$SG") || die "no $STEPGUARD"
[ -x "$SG" ] || die "$SG is not executable"
ME=$(id -un)
MYUID=$(id -u)

# logger's case needs a log daemon behind /dev/log.  Where the machine has
# none (a container, the VM's initramfs, a CI machine without syslog), root
# runs busybox's syslogd for the suite's time, into a file of its own, and
# removes its socket at the end: the case then shows that the step's
# datagrams reach a pathname socket the shipped policy lists ([sockets]
# allow = ?/dev/log), on the backend that runs.  Without busybox the case
# is skipped ("no /dev/log on this machine").
SYSLOGD_PID='' SYSLOGD_DIR=''
stop_syslogd() {
	[ -n "$SYSLOGD_PID" ] || return 0
	kill "$SYSLOGD_PID" 2> /dev/null
	wait "$SYSLOGD_PID" 2> /dev/null
	rm -f /dev/log
	rm -rf "$SYSLOGD_DIR"
	SYSLOGD_PID=''
}
if [ -z "${SG_COMPAT_INNER:-}" ] && [ "$MYUID" = 0 ] && [ ! -e /dev/log ] && [ ! -L /dev/log ] &&
	bb=$(command -v busybox) && "$bb" --list | grep -qx syslogd; then
	SYSLOGD_DIR=$(mktemp -d /var/tmp/sg-compat-syslog.XXXXXX) || die "mktemp"
	"$bb" syslogd -n -O "$SYSLOGD_DIR/messages" &
	SYSLOGD_PID=$!
	trap stop_syslogd EXIT
	# Its socket exists once it is ready to take datagrams; it makes it
	# at once or dies (a second daemon, a read-only /dev).
	for _ in $(seq 100); do
		[ -S /dev/log ] && break
		kill -0 "$SYSLOGD_PID" 2> /dev/null || break
		sleep 0.05
	done
	if [ -S /dev/log ]; then
		echo "compat: no /dev/log here: busybox syslogd serves it for the suite (pid $SYSLOGD_PID)"
	else
		echo "compat: busybox syslogd did not make /dev/log: the logger case will be skipped"
		stop_syslogd
	fi
fi

# ---------------------------------------------------------------------
# The wrapper: as root, the three runs, each in a process of its own.

as_user() {
	local u=$1
	shift
	setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --init-groups -- "$@"
}

prepare_user() {
	local u=$1
	if ! id "$u" > /dev/null 2>&1; then
		[ "$u" = "$SUITE_USER_DEFAULT" ] || die "user $u does not exist"
		useradd -m "$u" || die "useradd $u failed"
	fi
	HELPER_DIR='' U_SG=$SG U_SELF=$SELF
	if ! as_user "$u" test -x "$SG" -a -r "$SELF" -a -r "$TREE"; then
		HELPER_DIR=$(mktemp -d /var/tmp/sg-compat-bin.XXXXXX) || die "mktemp"
		chmod 755 "$HELPER_DIR"
		cp "$SG" "$HELPER_DIR/stepguard" || die "copy $SG"
		cp "$SELF" "$TREE" "$HELPER_DIR/" || die "copy the suite"
		U_SG=$HELPER_DIR/stepguard U_SELF=$HELPER_DIR/run.sh
	fi
}

run_pass() {
	local u=$1 res rp rf rs
	res=$(mktemp /var/tmp/sg-compat-result.XXXXXX) || die "mktemp"
	chmod 666 "$res"
	local -a opts=()
	[ -n "$ONLY" ] && opts+=(--only "$ONLY")
	[ -n "$FILTER" ] && opts+=(--filter "$FILTER")
	[ "$KEEP" = 1 ] && opts+=(--keep)
	[ "$VERBOSE" = 1 ] && opts+=(-v)
	case $u in
	root)
		env -u SUDO_UID -u SUDO_GID -u SUDO_USER SG_COMPAT_RESULT="$res" SG_COMPAT_INNER=1 \
			"$BASH" "$SELF" "${opts[@]}" ;;
	sudo:*)
		prepare_user "${u#sudo:}"
		env -u SUDO_UID -u SUDO_GID -u SUDO_USER STEPGUARD="$U_SG" SG_COMPAT_SUDO="${u#sudo:}" \
			SG_COMPAT_RESULT="$res" SG_COMPAT_INNER=1 "$BASH" "$U_SELF" "${opts[@]}"
		[ -n "$HELPER_DIR" ] && rm -rf "$HELPER_DIR" ;;
	*)
		prepare_user "$u"
		(cd / && as_user "$u" env -i PATH="$PATH" LANG=C.UTF-8 STEPGUARD="$U_SG" \
			${SG_COMPAT_BASE:+SG_COMPAT_BASE="$SG_COMPAT_BASE"} \
			${SG_COMPAT_PATH:+SG_COMPAT_PATH="$SG_COMPAT_PATH"} \
			${SG_COMPAT_MISSING:+SG_COMPAT_MISSING="$SG_COMPAT_MISSING"} \
			${SG_COMPAT_SHELL:+SG_COMPAT_SHELL="$SG_COMPAT_SHELL"} \
			SG_COMPAT_RESULT="$res" SG_COMPAT_INNER=1 "$BASH" "$U_SELF" "${opts[@]}")
		[ -n "$HELPER_DIR" ] && rm -rf "$HELPER_DIR" ;;
	esac
	read -r rp rf rs < "$res" || { rp=0 rf=1 rs=0; echo "FAIL $u — the run reported nothing"; }
	rm -f "$res"
	TOTAL_P=$((TOTAL_P + rp)) TOTAL_F=$((TOTAL_F + rf)) TOTAL_S=$((TOTAL_S + rs))
}

if [ -z "${SG_COMPAT_INNER:-}" ]; then
	if [ "$MYUID" = 0 ] && [ "$AS" != root ]; then
		TOTAL_P=0 TOTAL_F=0 TOTAL_S=0 start=$SECONDS
		if [ -z "$AS" ]; then
			run_pass root
			run_pass "sudo:$SUITE_USER_DEFAULT"
			run_pass "$SUITE_USER_DEFAULT"
		else
			run_pass "$AS"
		fi
		echo "compat: $TOTAL_P passed, $TOTAL_F failed, $TOTAL_S skipped ($((SECONDS - start)) s)"
		[ "$TOTAL_F" = 0 ]
		exit
	fi
	[ -z "$AS" ] || [ "$AS" = "$ME" ] || die "only root can run the suite as another user (--as $AS)"
fi

# ---------------------------------------------------------------------
# One run, as the current user (or, under sudo:USER, as root for USER).

SUDO_TO=${SG_COMPAT_SUDO:-}
if [ -n "$SUDO_TO" ]; then
	[ "$MYUID" = 0 ] || die "sudo:$SUDO_TO needs root"
	STEP_USER=$SUDO_TO STEP_UID=$(id -u "$SUDO_TO") STEP_GID=$(id -g "$SUDO_TO")
	AS_STEP=(setpriv --reuid="$STEP_UID" --regid="$STEP_GID" --init-groups --)
	SUDO_ENV=(SUDO_UID="$STEP_UID" SUDO_GID="$STEP_GID" SUDO_USER="$SUDO_TO")
	TAG=sudo-$SUDO_TO
else
	STEP_USER=$ME STEP_UID=$MYUID STEP_GID=$(id -g)
	AS_STEP=() SUDO_ENV=() TAG=$ME
fi
STEP_HOME=$(getent passwd "$STEP_USER" | cut -d: -f6)
[ -n "$STEP_HOME" ] || die "no home for $STEP_USER"
STEP_PATH=${SG_COMPAT_PATH:-$STEP_HOME/.cargo/bin:/usr/local/bin:/usr/bin:/bin}
MISSING=${SG_COMPAT_MISSING:-not installed}
# The shell that runs each case's command.  busybox's sh runs its own
# applets before PATH (the VM's /bin/sh): the VM names bash here.
STEP_SH=${SG_COMPAT_SHELL:-sh}
# What `sudo -E env PATH=$PATH stepguard` hands on: the user's own
# environment (stepguard sets HOME, USER, LOGNAME from the user it drops to).
STEP_ENV=(PATH="$STEP_PATH" HOME="$STEP_HOME" USER="$STEP_USER" LOGNAME="$STEP_USER"
	LANG=C.UTF-8 TERM=dumb)

BASE=$(mktemp -d "${SG_COMPAT_BASE:-/var/tmp}/sg-compat.XXXXXX") || die "mktemp in ${SG_COMPAT_BASE:-/var/tmp}"
chmod 755 "$BASE"
mkdir "$BASE/bare" "$BASE/conf" "$BASE/log" "$BASE/out" || die "mkdir in $BASE"
[ -n "$SUDO_TO" ] && chown "$STEP_UID:$STEP_GID" "$BASE/bare" "$BASE/conf"
CTL=/tmp/sg-compat-outside.$TAG.$$
cleanup() {
	rm -f "$CTL"
	stop_syslogd
	if [ "$KEEP" = 1 ]; then echo "compat: kept $BASE"; else rm -rf "$BASE"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

NPASS=0 NFAIL=0 NSKIP=0
ok() { NPASS=$((NPASS + 1)); echo "PASS $TAG/$1 — $2"; }
bad() { NFAIL=$((NFAIL + 1)); echo "FAIL $TAG/$1 — $2"; }
skipped() { NSKIP=$((NSKIP + 1)); echo "SKIP $TAG/$1 — $2"; }
show() { sed 's/^/    | /' | head -n "${2:-25}"; }

# step_env W NAME: the case's environment, in STEPENV.
step_env() {
	local w=$1 o
	STEPENV=("${STEP_ENV[@]}")
	while IFS= read -r o; do
		case $o in env=*) o=${o#env=}; STEPENV+=("${o//@W@/$w}") ;; esac
	done <<< "${OPTS[$2]}"
}

# run HOW NAME W: run the case's command bare or confined; sets RC.
run() {
	local how=$1 n=$2 w=$3 out=$BASE/out/$2.$1
	step_env "$w" "$n"
	if [ "$how" = bare ]; then
		(cd "$w" && exec "${AS_STEP[@]}" env -i "${STEPENV[@]}" "$STEP_SH" -c "${CMDS[$n]}") > "$out" 2>&1 < /dev/null
	else
		local -a pre=("$SG" -q -w "$w" -s "compat-$n" --log "$BASE/log/$n.jsonl")
		[ -n "$FILTER" ] && pre+=(--filter "$FILTER")
		(cd "$w" && exec env -i "${STEPENV[@]}" "${SUDO_ENV[@]}" "${pre[@]}" -- "$STEP_SH" -c "${CMDS[$n]}") \
			> "$out" 2>&1 < /dev/null
	fi
	RC=$?
}

# setup FN W: build the input as the step's user.
setup() {
	local fn=$1 w=$2 n=$3
	mkdir "$w" && { [ -z "$SUDO_TO" ] || chown "$STEP_UID:$STEP_GID" "$w"; } || return 1
	step_env "$w" "$n"
	(cd / && "${AS_STEP[@]}" env -i "${STEPENV[@]}" "$BASH" "$SELF" --setup "$fn" "$w") \
		> "$BASE/out/$n.setup" 2>&1 < /dev/null
}

# Why the case cannot run here, or nothing.
unmet() {
	local o t p
	while IFS= read -r o; do
		case $o in
		root) [ "$STEP_UID" = 0 ] || { echo "needs a root step (the step runs as $STEP_USER)"; return; } ;;
		path=*) [ -e "${o#path=}" ] || { echo "no ${o#path=} on this machine"; return; } ;;
		needs=* | gnu=*)
			t=${o#*=}
			p=$("${AS_STEP[@]}" env -i PATH="$STEP_PATH" "$STEP_SH" -c 'command -v "$1"' sh "$t") ||
				{ echo "$t: $MISSING (not in $STEP_USER's PATH $STEP_PATH)"; return; }
			case $o in gnu=*)
				"${AS_STEP[@]}" env -i PATH="$STEP_PATH" "$p" --version 2>&1 | head -n 1 | grep -q GNU ||
					{ echo "$t: $MISSING (only $p, which is not GNU $t)"; return; } ;;
			esac ;;
		esac
	done <<< "${OPTS[$1]}"
}

# stepguard's log must show this step: its start (cwd, uid) and its end
# (status).  A stand-in that runs nothing, or runs it elsewhere, has none.
log_shows() {
	local log=$1 w=$2 rc=$3
	[ -s "$log" ] || { echo "no log records"; return 1; }
	grep '"event":"start"' "$log" | grep -F "\"cwd\":\"$w\"" | grep -q "\"uid\":$STEP_UID," ||
		{ echo "no start record with cwd $w and uid $STEP_UID"; return 1; }
	grep '"event":"end"' "$log" | grep -q "\"exit\":$rc," ||
		{ echo "no end record with exit $rc"; return 1; }
	BACKEND=$(sed -n 's/.*"event":"start".*"backend":"\([^"]*\)".*/\1/p' "$log" | head -n 1)
}

treeopts() {
	local o
	TOPTS=()
	while IFS= read -r o; do
		case $o in mtime=* | ignore=* | nohash=* | roothash=*) TOPTS+=("$o") ;; esac
	done <<< "${OPTS[$1]}"
}

run_case() {
	BACKEND='?'
	local n=$1 why fn o b=$BASE/bare/$1 c=$BASE/conf/$1 rcb rcc t0=$EPOCHREALTIME missing=
	why=$(unmet "$n")
	[ -n "$why" ] && { skipped "$n" "$why"; return; }
	fn=none
	while IFS= read -r o; do case $o in setup=*) fn=${o#setup=} ;; esac; done <<< "${OPTS[$n]}"
	if ! setup "$fn" "$b" "$n"; then
		bad "$n" "the input could not be built (bare setup):"
		show < "$BASE/out/$n.setup"
		return
	fi
	run bare "$n" "$b"
	rcb=$RC
	if [ "$rcb" != 0 ]; then
		skipped "$n" "the bare run fails here (status $rcb): $(tail -n 1 "$BASE/out/$n.bare")"
		return
	fi
	setup "$fn" "$c" "$n" || { bad "$n" "the input could not be built (second setup)"; return; }
	run conf "$n" "$c"
	rcc=$RC
	treeopts "$n"
	"${AS_STEP[@]}" bash "$TREE" list "$b" "${TOPTS[@]}" > "$BASE/out/$n.tree-bare" 2>&1 ||
		{ bad "$n" "tree.sh list failed"; show < "$BASE/out/$n.tree-bare"; return; }
	"${AS_STEP[@]}" bash "$TREE" list "$c" "${TOPTS[@]}" > "$BASE/out/$n.tree-conf" 2>&1 ||
		{ bad "$n" "tree.sh list failed"; show < "$BASE/out/$n.tree-conf"; return; }
	local problems=() d
	[ "$rcb" = "$rcc" ] || problems+=("exit status: bare $rcb, stepguard $rcc")
	while IFS= read -r o; do
		case $o in has=*)
			[ -e "$b/${o#has=}" ] || [ -L "$b/${o#has=}" ] || missing+=" bare:${o#has=}"
			[ -e "$c/${o#has=}" ] || [ -L "$c/${o#has=}" ] || missing+=" stepguard:${o#has=}" ;;
		esac
	done <<< "${OPTS[$n]}"
	[ -z "$missing" ] || problems+=("expected entries missing:$missing")
	log_shows "$BASE/log/$n.jsonl" "$c" "$rcc" > "$BASE/out/$n.logcheck" ||
		problems+=("stepguard's log: $(cat "$BASE/out/$n.logcheck")")
	d=$(bash "$TREE" diff "$BASE/out/$n.tree-bare" "$BASE/out/$n.tree-conf" bare stepguard)
	[ -z "$d" ] || problems+=("trees differ ($(wc -l <<< "$d") entries)")
	local secs
	secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	if [ ${#problems[@]} = 0 ]; then
		ok "$n" "status $rcc, $(wc -l < "$BASE/out/$n.tree-conf") entries equal, on $BACKEND ($secs s)"
		[ "$VERBOSE" = 1 ] && show 200 < "$BASE/out/$n.conf"
	else
		local msg
		msg=$(printf '%s; ' "${problems[@]}")
		bad "$n" "${msg%; }"
		[ -n "$d" ] && show 30 <<< "$d"
		if [ -s "$BASE/out/$n.conf" ]; then
			echo "    stepguard run's output:"
			show 15 < "$BASE/out/$n.conf"
		fi
	fi
}

# The confinement control: a write to /tmp (outside every root) must be
# refused under stepguard, and the write beside it in the work dir land.
# Bare, both must land, or the control proves nothing here.
control() {
	local n=outside b=$BASE/bare/outside c=$BASE/conf/outside
	BACKEND='?'
	CMDS[$n]="echo out > $CTL; echo in > inside" OPTS[$n]=
	rm -f "$CTL"
	setup none "$b" "$n" && run bare "$n" "$b"
	if [ ! -e "$CTL" ] || [ "$(cat "$b/inside" 2> /dev/null)" != in ]; then
		skipped "$n" "bare, the write to $CTL or to the work dir did not land: $(tail -n 1 "$BASE/out/$n.bare")"
		return
	fi
	rm -f "$CTL"
	setup none "$c" "$n" && run conf "$n" "$c"
	local why=
	[ -e "$CTL" ] && why+="the write to $CTL landed; "
	[ "$(cat "$c/inside" 2> /dev/null)" = in ] || why+="the control write in the work dir did not land; "
	log_shows "$BASE/log/$n.jsonl" "$c" "$RC" > /dev/null || why+="stepguard's log does not show the step; "
	if [ -z "$why" ]; then
		ok "$n" "the write to /tmp was refused, the one in the work dir landed, on $BACKEND"
	else
		bad "$n" "${why%; }"
		show < "$BASE/out/$n.conf"
	fi
	rm -f "$CTL"
}

echo "== compat as $TAG (step user $STEP_USER, uid $STEP_UID${FILTER:+, --filter $FILTER}; base $BASE)"
if ! { touch "$BASE/.x" && setfattr -n user.compat -v 1 "$BASE/.x"; } 2> /dev/null; then
	echo "   note: no user xattrs on the file system of $BASE: the trees carry none"
fi
rm -f "$BASE/.x"
for n in "${NAMES[@]}" outside; do
	[ -n "$ONLY" ] && ! [[ $n =~ $ONLY ]] && continue
	if [ "$n" = outside ]; then control; else run_case "$n"; fi
done
echo "compat ($TAG): $NPASS passed, $NFAIL failed, $NSKIP skipped"
[ -n "${SG_COMPAT_RESULT:-}" ] && echo "$NPASS $NFAIL $NSKIP" > "$SG_COMPAT_RESULT"
[ "$NFAIL" = 0 ]
