#!/bin/sh
# install.sh BIN DESTDIR PREFIX - what `make install` installs, as Debian
# and systemd expect: the program in PREFIX/bin, nomic-net (built beside
# BIN: the commands that speak mail or HTTP, which nomic runs from
# ../lib/nomic) in PREFIX/lib/nomic, the man page nomic(1)
# (docs/nomic.1, made from the command table) in PREFIX/share/man/man1,
# and the service for `nomic serve` in PREFIX/lib/systemd/system, naming
# where the program went.  DESTDIR is the staging root of a package build
# (empty: the system itself).
set -eu
BIN=$1 DESTDIR=$2 PREFIX=$3
SRC=$(cd "$(dirname "$0")/.." && pwd)
BINDIR=$PREFIX/bin LIBDIR=$PREFIX/lib/nomic MANDIR=$PREFIX/share/man/man1 UNITDIR=$PREFIX/lib/systemd/system
install -d "$DESTDIR$BINDIR" "$DESTDIR$LIBDIR" "$DESTDIR$MANDIR" "$DESTDIR$UNITDIR"
install -m 755 "$BIN" "$DESTDIR$BINDIR/nomic"
install -m 755 "$(dirname "$BIN")/nomic-net" "$DESTDIR$LIBDIR/nomic-net"
install -m 644 "$SRC/docs/nomic.1" "$DESTDIR$MANDIR/nomic.1"
sed "s|@BINDIR@|$BINDIR|g" "$SRC/tools/nomic.service.in" >"$DESTDIR$UNITDIR/nomic.service"
chmod 644 "$DESTDIR$UNITDIR/nomic.service"
echo "installed $DESTDIR$BINDIR/nomic, $DESTDIR$LIBDIR/nomic-net, $DESTDIR$MANDIR/nomic.1, $DESTDIR$UNITDIR/nomic.service"
