#!/bin/sh
# setup.sh - installs what tests/t70-mail.sh and tests/t71-postfix.sh run:
# OpenSMTPD and Postfix (the MTAs that hand mail to `nomic deliver`), swaks
# (the sender) and python3-aiosmtpd (the receiver that stands in for the
# world), from Debian's packages, as root.  Idempotent and quiet: installs
# only what is missing, waiting for the dpkg lock if another install is
# running.  Then stops and disables the OpenSMTPD system service the package
# starts: the test runs its own server, on its own port, and a system one
# would only hold port 25 for nothing.
#
# Postfix and OpenSMTPD both provide mail-transport-agent and conflict, so
# Debian installs one of them at a time.  OpenSMTPD is installed; Postfix's
# package is only unpacked (apt-get download, dpkg -x) into POSTFIX_ROOT
# (default /opt/nomic-tests/postfix), with the packages it depends on
# installed: no maintainer script runs, so there is no system service, no
# debconf question and no user of its own, and t71 runs that copy as a
# private instance (its main.cf names where its programs are).
# Usage: sh tests/mail/setup.sh   (prints nothing when all is in place)
set -u
PKGS="opensmtpd swaks python3-aiosmtpd"
POSTFIX_ROOT=${POSTFIX_ROOT:-/opt/nomic-tests/postfix}

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

# Postfix, unpacked beside the machine's MTA (above).  apt-get download
# writes into the current directory as the user _apt; the lists may be stale
# (a 404): refreshed once, as for the install.
if [ ! -x "$POSTFIX_ROOT/usr/sbin/postfix" ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup: must be root to unpack postfix into $POSTFIX_ROOT" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    dl=$(mktemp -d)
    log=$dl/log
    getent passwd _apt > /dev/null && chown _apt "$dl"
    if ! (cd "$dl" && apt-get download -q postfix) > "$log" 2>&1; then
        if ! { apt-get update -q -o DPkg::Lock::Timeout=600 && (cd "$dl" && apt-get download -q postfix); } > "$log" 2>&1; then
            echo "setup: apt-get download postfix failed:" >&2
            tail -n 20 "$log" >&2
            rm -rf "$dl"
            exit 1
        fi
    fi
    deb=$(ls "$dl"/postfix_*.deb 2> /dev/null | head -n 1)
    # What its programs need to run: the first of each alternative of its
    # Depends, without versions (libc6, libdb5.3, libicu72, libsasl2-2, ...).
    deps=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/:any//; s/[[:space:]]//g' | grep -v '^$')
    need=""
    for p in $deps; do installed "$p" || need="$need $p"; done
    opts="-y -q -o DPkg::Lock::Timeout=600 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold"
    # shellcheck disable=SC2086
    if [ -n "$need" ] && ! apt-get install $opts $need > "$log" 2>&1; then
        echo "setup: apt-get install$need (what postfix needs) failed:" >&2
        tail -n 20 "$log" >&2
        rm -rf "$dl"
        exit 1
    fi
    # Unpacked beside its place and renamed into it: never half a tree.
    mkdir -p "$(dirname "$POSTFIX_ROOT")" &&
        rm -rf "$POSTFIX_ROOT.new" &&
        dpkg -x "$deb" "$POSTFIX_ROOT.new" &&
        dpkg-deb -f "$deb" Version > "$POSTFIX_ROOT.new/VERSION" &&
        rm -rf "$POSTFIX_ROOT" &&
        mv "$POSTFIX_ROOT.new" "$POSTFIX_ROOT" || {
        echo "setup: cannot unpack $deb into $POSTFIX_ROOT" >&2
        rm -rf "$dl" "$POSTFIX_ROOT.new"
        exit 1
    }
    rm -rf "$dl"
    [ -x "$POSTFIX_ROOT/usr/sbin/postfix" ] || { echo "setup: no usr/sbin/postfix in $POSTFIX_ROOT" >&2; exit 1; }
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
