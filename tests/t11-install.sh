#!/bin/sh
# t11-install.sh - what `make install` installs (tools/install.sh): the
# program and nomic-net (the commands that speak mail or HTTP, which the
# program runs; it links no mail or HTTP library itself), the man page nomic(1) and the service for `nomic serve`, under
# DESTDIR and PREFIX; the page renders with groff -ww clean and names every
# command of the table; the unit passes systemd-analyze verify (where
# systemd is) with its hardening; nomic --version.  Uses $NOMIC, groff.
set -u
. "$(dirname "$0")/lib.sh"

# a package's staging root: everything under DESTDIR, paths named as PREFIX
expect_status 0 "install into DESTDIR with PREFIX /usr" sh "$SRCDIR/tools/install.sh" "$NOMIC" "$T/stage" /usr
for f in usr/bin/nomic usr/lib/nomic/nomic-net usr/share/man/man1/nomic.1 usr/lib/systemd/system/nomic.service; do
    [ -f "$T/stage/$f" ] && ok || fail "$f not installed under DESTDIR"
done
expect_eq "$(stat -c %a "$T/stage/usr/bin/nomic") $(stat -c %a "$T/stage/usr/share/man/man1/nomic.1")" "755 644" "modes: the program runs, the page is read"
expect_in "$T/stage/usr/lib/systemd/system/nomic.service" "ExecStart=/usr/bin/nomic serve" "the unit runs the program where PREFIX put it, not where DESTDIR staged it"
expect_status 0 "the installed program runs" "$T/stage/usr/bin/nomic" --version
expect_in out "game files of format" "--version names the format it writes"
# the installed program runs the commands of nomic-net where it was
# installed, and loads none of their libraries for the others
expect_status 0 "the installed program makes a game" "$T/stage/usr/bin/nomic" init "$T/g.db" --ruleset favor
expect_status 0 "the installed program runs a mail command" "$T/stage/usr/bin/nomic" send "$T/g.db"
expect_in out "the transport is outbox" "nomic send, run by nomic-net, says where the messages are"
if command -v ldd >/dev/null; then
    ldd "$T/stage/usr/bin/nomic" >libs
    for l in gmime curl microhttpd xml2; do expect_not_in libs "lib$l" "nomic links no lib$l (nomic-net does)"; done
fi

# the man page: groff clean, every command of the table in it
groff -man -ww -z "$T/stage/usr/share/man/man1/nomic.1" 2>groff.err
expect_eq "$?$(cat groff.err)" "0" "groff -man -ww: no warning"
"$NOMIC" help >help.txt
missing=""
for c in $(awk '/^  nomic [a-z]/ { print $2 }' help.txt | sort -u); do
    grep -q "^\.B nomic $c\b\|nomic $c\b" "$T/stage/usr/share/man/man1/nomic.1" || missing="$missing $c"
done
expect_eq "$missing" "" "the man page names every command nomic help lists"
for s in EXIT FILES; do grep -q "^\.SH.*$s" "$T/stage/usr/share/man/man1/nomic.1" && ok || fail "the man page has no $s section"; done

# the unit: verified by systemd where it is, with the program where it names it
UNIT="$T/prefix/lib/systemd/system/nomic.service"
sh "$SRCDIR/tools/install.sh" "$NOMIC" "" "$T/prefix" >/dev/null
if command -v systemd-analyze >/dev/null; then
    expect_status 0 "systemd-analyze verify of the unit" systemd-analyze verify --man=no "$UNIT"
else
    echo "t11: systemd-analyze is not installed: the unit is checked by its lines alone"
fi
for line in "User=nomic" "StateDirectory=nomic" "NoNewPrivileges=yes" "ProtectSystem=strict" "ProtectHome=yes" \
    "PrivateTmp=yes" "CapabilityBoundingSet=" "WantedBy=multi-user.target"; do
    grep -qx "$line" "$UNIT" && ok || fail "the unit lacks $line"
done

report install
