#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/modelcli/install.sh — the pinned model CLI for the tests.
#
# Prints the path of the CLI's `claude` (its name in node_modules/.bin, so
# that it runs under the name the policy knows) and exits 0, installing
# @anthropic-ai/claude-code@VERSION from the npm registry into
# $MODELCLI_CACHE (default /var/cache/stepguard-tests) on first use; or
# prints why not on stderr and exits 77 (no npm, no registry): the tests
# then skip with that reason.  $STEPGUARD_MODEL_CLI, when set, is used as
# it is.  Idempotent: a cached install of the right version is reused.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
VERSION=$(cat "$HERE/VERSION")
CACHE=${MODELCLI_CACHE:-/var/cache/stepguard-tests}
DIR=$CACHE/claude-code-$VERSION
CLI=$DIR/node_modules/.bin/claude

if [ -n "${STEPGUARD_MODEL_CLI:-}" ]; then
	[ -x "$STEPGUARD_MODEL_CLI" ] || { echo "STEPGUARD_MODEL_CLI=$STEPGUARD_MODEL_CLI is not executable" >&2; exit 77; }
	echo "$STEPGUARD_MODEL_CLI"
	exit 0
fi
if [ -x "$CLI" ] && "$CLI" --version 2>/dev/null | grep -q "^$VERSION "; then
	echo "$CLI"
	exit 0
fi
command -v npm >/dev/null || { echo "npm is not installed" >&2; exit 77; }
# Readable by the unprivileged test user, who runs the CLI too.
mkdir -p "$DIR" 2>/dev/null && chmod 755 "$CACHE" "$DIR" 2>/dev/null ||
	{ echo "cannot create $DIR" >&2; exit 77; }
if ! out=$(cd "$DIR" && timeout 600 npm install --no-audit --no-fund --loglevel=error \
	"@anthropic-ai/claude-code@$VERSION" 2>&1); then
	echo "cannot install @anthropic-ai/claude-code@$VERSION from the npm registry: $(tail -1 <<<"$out")" >&2
	exit 77
fi
if ! "$CLI" --version 2>/dev/null | grep -q "^$VERSION "; then
	echo "the installed CLI does not run, or is not $VERSION" >&2
	exit 77
fi
echo "$CLI"
