#!/bin/sh
# setup.sh - installs what tests/t70-mail.sh runs: OpenSMTPD (the MTA that hands
# mail to `nomic deliver`), swaks (the sender) and python3-aiosmtpd (the
# receiver that stands in for the world), from Debian's packages, as root.
# Idempotent and quiet: installs only what is missing, waiting for the dpkg
# lock if another install is running.  Then stops and disables the OpenSMTPD
# system service the package starts: the test runs its own server, on its
# own port, and a system one would only hold port 25 for nothing.
# Usage: sh tests/mail/setup.sh   (prints nothing when all is in place)
set -u
PKGS="opensmtpd swaks python3-aiosmtpd"

installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }

missing=""
for p in $PKGS; do installed "$p" || missing="$missing $p"; done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup: must be root to install$missing" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    log=$(mktemp)
    # The lock timeout makes apt wait for an install already running
    # (the packages may be installing in the background) instead of failing.
    opts="-y -q -o DPkg::Lock::Timeout=600 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold"
    # shellcheck disable=SC2086
    if ! apt-get install $opts $missing > "$log" 2>&1; then
        # The package lists may be missing or stale: refresh them once.
        # shellcheck disable=SC2086
        if ! { apt-get update -q -o DPkg::Lock::Timeout=600 && apt-get install $opts $missing; } > "$log" 2>&1; then
            echo "setup: apt-get install$missing failed:" >&2
            tail -n 20 "$log" >&2
            rm -f "$log"
            exit 1
        fi
    fi
    rm -f "$log"
    for p in $PKGS; do
        installed "$p" || { echo "setup: $p is still not installed" >&2; exit 1; }
    done
fi

# The system service: stop it if it runs, and keep it from starting at boot.
if [ "$(id -u)" -eq 0 ]; then
    if [ -d /run/systemd/system ] && command -v systemctl > /dev/null 2>&1; then
        systemctl disable --now opensmtpd.service > /dev/null 2>&1 || true
    elif [ -x /etc/init.d/opensmtpd ]; then
        if [ -s /run/smtpd.pid ] && kill -0 "$(cat /run/smtpd.pid)" 2> /dev/null; then
            /etc/init.d/opensmtpd stop > /dev/null 2>&1 || true
        fi
        update-rc.d opensmtpd disable > /dev/null 2>&1 || true
    fi
fi
exit 0
