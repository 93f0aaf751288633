#!/bin/sh
# Runs the browser tests of the page of `nomic serve`:
#   tests/browser/run.sh build/nomic
# page.test.mjs plays favor through the page; sets.test.mjs shows suber's
# and agora's proposals; host.test.mjs the list of a directory's games
# (`nomic serve DIR`) and a game's page at /NAME/; harness.mjs is what they
# share.  (tests/browser/setup.sh installs Chromium and
# playwright-core first.)
set -eu
if [ $# -ne 1 ]; then
    echo "usage: $0 NOMIC_BINARY" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
case $1 in
    /*) nomic=$1 ;;
    *) nomic=$(pwd)/$1 ;;
esac
if [ ! -d "$here/node_modules/playwright-core" ]; then
    echo "$0: playwright-core is not installed: run $here/setup.sh (as root)" >&2
    exit 2
fi
node "$here/page.test.mjs" "$nomic"
node "$here/sets.test.mjs" "$nomic"
node "$here/host.test.mjs" "$nomic"
node "$here/scamcheck.test.mjs" "$nomic"
