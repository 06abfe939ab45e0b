#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/compat/tree.sh — list a tree for comparison, and compare two lists.
#
#   tree.sh list ROOT [mtime=REGEX] [ignore=REGEX] [nohash=REGEX] [roothash=REGEX]
#   tree.sh diff LIST_A LIST_B [LABEL_A LABEL_B]
#
# `list` prints one line per entry under ROOT (ROOT itself left out), sorted
# by its path relative to ROOT, with the fields that must agree between a
# bare run and a confined run:
#
#   PATH<TAB>type=f mode=0644 owner=UID:GID size=N nlink=N link=TARGET
#            hl=FIRST mtime=SECONDS sha=SHA256 xattr=NAME=HEX,...
#
# Owners are numbers.  A directory's size is left out (it depends on the
# file system's history, not on the tool).  hl= names the first path (in
# sort order) with the same inode, so hard links compare by their shape,
# not by inode numbers.  xattr= holds every extended attribute getfattr
# shows (user.*, and POSIX ACLs as system.posix_acl_*), hex-encoded.
#
# The options are extended regexes (awk) on the relative path:
#   mtime=     compare the mtime of these entries (a tool that sets mtimes:
#              tar, cp -a, touch, rsync -a, copy2); others show mtime=-
#   ignore=    leave these entries out (a tool's cache, a lock file)
#   nohash=    compare these files' sizes but not their content
#   roothash=  hash these files with every occurrence of ROOT replaced by
#              @ROOT@ (files that name where they were made: a venv's
#              shebangs, git's remote URL)
#
# `diff` prints, for each path whose fields differ, "PATH: FIELD A -> B",
# and "only in LABEL: PATH" for paths on one side; it exits 1 if anything
# differs.  Needs GNU find (-printf), getfattr (attr), sha256sum, awk.
set -u
export LC_ALL=C

tree_list() {
	local root=$1 mtime='^$' ignore='^$' nohash='^$' roothash='^$' o
	shift
	for o in "$@"; do
		case $o in
		mtime=*) mtime=${o#mtime=} ;;
		ignore=*) ignore=${o#ignore=} ;;
		nohash=*) nohash=${o#nohash=} ;;
		roothash=*) roothash=${o#roothash=} ;;
		*) echo "tree.sh: bad option $o" >&2; return 2 ;;
		esac
	done
	[ -d "$root" ] || { echo "tree.sh: $root is not a directory" >&2; return 2; }
	root=$(cd "$root" && pwd -P) || return 2
	local tmp rre
	rre=$(printf '%s' "$root" | sed 's/[][\\.*^$|]/\\&/g')
	tmp=$(mktemp -d "${root%/*}/.tree.XXXXXX") || return 2
	(
		cd "$root" || exit 2
		find . -mindepth 1 -printf '%P\t%y\t%#m\t%U:%G\t%s\t%n\t%i\t%T@\t%l\n' | sort > "$tmp/entries"
		find . -mindepth 1 -type f -exec sha256sum {} + > "$tmp/sums" 2> "$tmp/sums.err"
		# Files that embed where they were made: hash them with ROOT
		# replaced, so two roots of the same length or not compare.
		awk -F '\t' -v re="$roothash" '$2 == "f" && $1 ~ re { print $1 }' "$tmp/entries" |
			while IFS= read -r p; do
				printf '%s  ./%s\n' "$(sed "s|$rre|@ROOT@|g" "$p" | sha256sum | cut -d' ' -f1)" "$p"
			done > "$tmp/rootsums"
		getfattr -R -P -h -d -m - -e hex . > "$tmp/xattrs" 2> "$tmp/xattrs.err" || :
	) || { rm -rf "$tmp"; return 2; }
	awk -F '\t' -v mre="$mtime" -v ire="$ignore" -v nre="$nohash" -v rre="$roothash" \
		-v sums="$tmp/sums" -v rsums="$tmp/rootsums" -v xa="$tmp/xattrs" '
	function strip(p) { sub(/^\.\//, "", p); return p }
	BEGIN {
		while ((getline l < sums) > 0) { h = substr(l, 1, 64); sha[strip(substr(l, 67))] = h }
		while ((getline l < rsums) > 0) { h = substr(l, 1, 64); rsha[strip(substr(l, 67))] = h }
		while ((getline l < xa) > 0) {
			if (l ~ /^# file: /) { cur = strip(substr(l, 9)); continue }
			if (l == "" || cur == "") continue
			if (cur in x) x[cur] = x[cur] "," l
			else x[cur] = l
		}
	}
	$1 ~ ire { next }
	{
		p = $1; size = ($2 == "d") ? "-" : $5
		hl = "-"
		if ($2 != "d" && $6 > 1) { if (!($7 in first)) first[$7] = p; hl = first[$7] }
		mt = (p ~ mre) ? $8 : "-"
		h = "-"
		if ($2 == "f" && p !~ nre) h = (p ~ rre) ? "root:" rsha[p] : sha[p]
		link = ($2 == "l") ? $9 : "-"
		xs = (p in x) ? x[p] : "-"
		printf "%s\ttype=%s mode=%s owner=%s size=%s nlink=%s link=%s hl=%s mtime=%s sha=%s xattr=%s\n",
			p, $2, $3, $4, size, ($2 == "d" ? "-" : $6), link, hl, mt, h, xs
	}' "$tmp/entries"
	local st=$?
	rm -rf "$tmp"
	return $st
}

tree_diff() {
	local a=$1 b=$2 la=${3:-A} lb=${4:-B}
	awk -F '\t' -v la="$la" -v lb="$lb" '
	NR == FNR { A[$1] = $2; order[++n] = $1; next }
	{
		if (!($1 in A)) { print "only in " lb ": " $1 " (" $2 ")"; bad = 1; next }
		if (A[$1] != $2) {
			na = split(A[$1], fa, " "); split($2, fb, " ")
			out = ""
			for (i = 1; i <= na; i++) if (fa[i] != fb[i]) {
				k = fa[i]; sub(/=.*/, "", k); va = fa[i]; sub(/^[^=]*=/, "", va)
				vb = fb[i]; sub(/^[^=]*=/, "", vb)
				out = out " " k " " va " -> " vb ";"
			}
			print $1 ":" out; bad = 1
		}
		seen[$1] = 1
	}
	END {
		for (i = 1; i <= n; i++) if (!(order[i] in seen)) { print "only in " la ": " order[i]; bad = 1 }
		exit bad
	}' "$a" "$b"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case ${1:-} in
	list) shift; tree_list "$@" ;;
	diff) shift; tree_diff "$@" ;;
	*) sed -n '4,30p' "$0" >&2; exit 2 ;;
	esac
fi
