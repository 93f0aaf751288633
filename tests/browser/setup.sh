#!/bin/sh
# Installs what the browser test (page.test.mjs) needs on a Debian machine,
# as root: Debian's Chromium, and playwright-core from package-lock.json.
# Node.js and npm are expected on the machine already.  Idempotent: when
# everything is there it does nothing and prints nothing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

if [ ! -x /usr/bin/chromium ]; then
    echo "setup.sh: installing chromium (Debian package)"
    export DEBIAN_FRONTEND=noninteractive
    # another apt may be running (an image's first boot): wait for its lock
    apt-get -o DPkg::Lock::Timeout=900 update -qq
    apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends chromium >/dev/null
fi

for tool in node npm; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "setup.sh: $tool is missing (apt-get install nodejs npm)" >&2
        exit 1
    }
done

# npm ci when node_modules is missing or holds another playwright-core than
# the one package.json pins
want=$(cd "$here" && node -p "require('./package.json').dependencies['playwright-core']")
have=$(cd "$here" && node -p "try { require('./node_modules/playwright-core/package.json').version } catch (e) { '' }")
if [ "$have" != "$want" ]; then
    echo "setup.sh: npm ci in $here (playwright-core $want)"
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
