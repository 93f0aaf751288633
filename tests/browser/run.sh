#!/bin/sh
# Runs the browser test of the page of `nomic serve`:
#   tests/browser/run.sh build/nomic
# (tests/browser/setup.sh installs Chromium and playwright-core first.)
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
exec node "$here/page.test.mjs" "$nomic"
