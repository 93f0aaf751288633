#!/bin/sh
# run-smtpd.sh DIR - runs OpenSMTPD in the foreground (-d) with DIR/smtpd.conf.
# smtpd's queue (/var/spool/smtpd) and control socket (/run/smtpd.sock) are
# compiled in; so that the test's server shares neither with a system one,
# nor leaves anything behind, it runs in a private mount namespace where
# DIR/spool is /var/spool and DIR/run is /run.  Where no namespace can be
# had it says so and runs with the machine's paths (smtpd itself then
# refuses to start beside a running system smtpd).  Used by tests/t70-mail.sh.
dir=$1
if unshare -m true 2> /dev/null; then
    exec unshare -m sh -c 'mount --make-rprivate / &&
        mount --bind "$1/spool" /var/spool &&
        mount --bind "$1/run" /run &&
        exec /usr/sbin/smtpd -d -f "$1/smtpd.conf"' sh "$dir"
fi
echo "run-smtpd: no private mount namespace here; using the machine's /var/spool/smtpd and /run/smtpd.sock" >&2
exec /usr/sbin/smtpd -d -f "$dir/smtpd.conf"
