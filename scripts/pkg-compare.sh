#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# scripts/pkg-compare.sh PKG_DIR: check the packages `make deb` and
# `make rpm` built in PKG_DIR (make check-pkg), KTAP: lintian reports no
# error or warning on the .debs; each .rpm has the version of the .deb
# and ships the same files, once the distributions' own conventions are
# mapped (below); the -dkms packages ship exactly `make dkms-install`'s
# list. Appends "pkg # Totals: ..." to $RESULTS when set.
set -uo pipefail
dir=${1:?usage: scripts/pkg-compare.sh PKG_DIR}
n=0 pass=0 fail=0
ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		pass=$((pass + 1)); echo "ok $n $2"
	else
		fail=$((fail + 1)); echo "not ok $n $2"
	fi
}

# Files and symlinks, not directories; what differs by design mapped:
# units in /lib (Debian bookworm) or /usr/lib, the variables file in
# /etc/default or /etc/sysconfig, man pages compressed or not, and each
# distribution's own documentation, licence and debug-id files left out.
normalize() {
	sed -e 's|^\./|/|' -e 's|^/lib/systemd/|/usr/lib/systemd/|' \
	    -e 's|^/etc/default/starvd$|/etc/sysconfig/starvd|' \
	    -e 's|^\(/usr/share/man/.*\)\.gz$|\1|' |
		grep -v -e '^/usr/share/doc/' -e '^/usr/share/licenses/' \
			-e '^/usr/lib/\.build-id/' -e '^/usr/share/lintian/' | sort
}
deb_files() {
	dpkg-deb --fsys-tarfile "$1" | tar -t | grep -v '/$' | normalize
}
rpm_files() {
	rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$1" 2>/dev/null |
		sed -n 's/^[^d][^ ]* //p' | normalize
}

echo "TAP version 13"
echo "1..5"
deb=$(ls "$dir"/starvd_*.deb) dkms_deb=$(ls "$dir"/starvd-dkms_*.deb)
rpm=$(ls "$dir"/rpm/RPMS/*/starvd-[0-9]*.rpm) dkms_rpm=$(ls "$dir"/rpm/RPMS/*/starvd-dkms-*.rpm)

log=$(mktemp)
lintian --fail-on error,warning "$dir"/starvd_*.changes >"$log" 2>&1
st=$?
grep -v '^running with root privileges' "$log" | sed 's/^/# lintian: /'
rm -f "$log"
ok "$st" "lintian: no errors or warnings on starvd and starvd-dkms"

dv=$(dpkg-deb -f "$deb" Version) rv=$(rpm -qp --qf '%{VERSION}-%{RELEASE}' "$rpm" 2>/dev/null)
[ "${dv%-*}" = "${rv%-*}" ]
ok $? "same upstream version: .deb $dv, .rpm $rv"

for pair in "$deb $rpm" "$dkms_deb $dkms_rpm"; do
	set -- $pair
	d=$(diff <(deb_files "$1") <(rpm_files "$2"))
	st=$?
	[ $st = 0 ] || echo "$d" | sed 's/^/# /'
	ok $st "$(basename "$1") and $(basename "$2") ship the same files ($(deb_files "$1" | wc -l))"
done

scratch=$(mktemp -d)
want=$(make -s -C "$(dirname "$0")/.." dkms-install DESTDIR="$scratch" DKMSDIR=/x |
	sed -n 's/^ *DKMS-INSTALL [^:]*: //p' | tr ' ' '\n' | sed 's|^|/usr/src/starvd-|' | sort)
rm -rf "$scratch"
got=$(deb_files "$dkms_deb" | grep "^/usr/src/" | sed 's|^\(/usr/src/starvd-\)[^/]*/|\1|')
d=$(diff <(echo "$want") <(echo "$got"))
st=$?
[ $st = 0 ] || echo "$d" | sed 's/^/# /'
ok $st "starvd-dkms ships exactly make dkms-install's sources"

totals="# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
echo "$totals"
[ -z "${RESULTS:-}" ] || echo "pkg $totals" >>"$RESULTS"
[ $fail = 0 ]
