#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# scripts/pkg-compare.sh PKG_DIR: check the packages `make deb` and
# `make rpm` built in PKG_DIR (make check-pkg), KTAP: lintian reports no
# error or warning on the .debs; each .rpm has the version of the .deb
# and ships the same files, once the distributions' own conventions are
# mapped (below); the -dkms packages ship exactly `make dkms-install`'s
# list; the -stalld-compat packages take stalld's place the way each
# package manager expects, for the same stalld version, and need the
# starvd of their own build; every package and changelog names one
# maintainer. Appends "pkg # Totals: ..." to $RESULTS when set.
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
	    -e 's|^/etc/default/stalld$|/etc/sysconfig/stalld|' \
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
echo "1..11"
deb=$(ls "$dir"/starvd_*.deb) dkms_deb=$(ls "$dir"/starvd-dkms_*.deb)
compat_deb=$(ls "$dir"/starvd-stalld-compat_*.deb)
rpm=$(ls "$dir"/rpm/RPMS/*/starvd-[0-9]*.rpm) dkms_rpm=$(ls "$dir"/rpm/RPMS/*/starvd-dkms-*.rpm)
compat_rpm=$(ls "$dir"/rpm/RPMS/*/starvd-stalld-compat-*.rpm)

log=$(mktemp)
lintian --fail-on error,warning "$dir"/starvd_*.changes >"$log" 2>&1
st=$?
grep -v '^running with root privileges' "$log" | sed 's/^/# lintian: /'
rm -f "$log"
ok "$st" "lintian: no errors or warnings on starvd, starvd-stalld-compat and starvd-dkms"

dv=$(dpkg-deb -f "$deb" Version) rv=$(rpm -qp --qf '%{VERSION}-%{RELEASE}' "$rpm" 2>/dev/null)
[ "${dv%-*}" = "${rv%-*}" ]
ok $? "same upstream version: .deb $dv, .rpm $rv"

for pair in "$deb $rpm" "$compat_deb $compat_rpm" "$dkms_deb $dkms_rpm"; do
	set -- $pair
	if [ $# != 2 ]; then
		ok 1 "a .deb and an .rpm to compare: only $*"
		continue
	fi
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

# The .deb: Provides, Conflicts and Replaces stalld, so that dpkg removes
# an installed stalld for it (and apt this package for a stalld); the
# .rpm: Provides and Obsoletes (an upgrade replaces stalld) and Conflicts.
# Both provide the same stalld version and require their own starvd.
field() {	# field DEB NAME: the control field, one relation a line
	dpkg-deb -f "$1" "$2" | tr ',' '\n' | sed 's/^ *//'
}
sv=$(field "$compat_deb" Provides | sed -n 's/^stalld (= \(.*\))$/\1/p')
echo "# $(basename "$compat_deb"): Depends $(dpkg-deb -f "$compat_deb" Depends); Provides $(dpkg-deb -f "$compat_deb" Provides); Conflicts $(dpkg-deb -f "$compat_deb" Conflicts); Replaces $(dpkg-deb -f "$compat_deb" Replaces)"
[ -n "$sv" ] && field "$compat_deb" Conflicts | grep -qx stalld &&
	field "$compat_deb" Replaces | grep -qx stalld &&
	field "$compat_deb" Depends | grep -qx "starvd (= $dv)"
ok $? "$(basename "$compat_deb"): Provides stalld (= $sv), Conflicts and Replaces stalld, Depends starvd (= $dv)"

rq() {	# rq RPM TAG: rpm -qp --TAG
	rpm -qp --"$2" "$1" 2>/dev/null
}
for t in provides obsoletes conflicts requires; do
	rq "$compat_rpm" $t | grep -v -e '^rpmlib(' -e '^/bin/sh$' -e '^config(' | sed "s/^/# $(basename "$compat_rpm") $t: /"
done
rq "$compat_rpm" provides | grep -qx "stalld = $sv" &&
	rq "$compat_rpm" obsoletes | grep -qx "stalld < $sv" &&
	rq "$compat_rpm" conflicts | grep -qx stalld &&
	rq "$compat_rpm" requires | grep -qx "starvd(.*) = $rv"
ok $? "$(basename "$compat_rpm"): Provides stalld = $sv, Obsoletes stalld < $sv, Conflicts stalld, Requires starvd = $rv"

# What rpm makes of those relations, in a scratch database (--justdb):
# an older stalld is obsoleted (removed by the upgrade), and one of the
# provided version conflicts; the compat package's own Provides does not
# conflict with it. Stand-in stalld packages: names and versions only.
# Without --nodeps rpm also reports the libraries that database lacks.
scratch=$(mktemp -d)
for v in "$(echo "$sv" | awk -F. '{ printf "%d.%d.%d", $1, $2 - 1, 0 }')" "$sv"; do
	printf 'Name: stalld\nVersion: %s\nRelease: 1\nSummary: stand-in\nLicense: GPL-2.0-only\nBuildArch: noarch\n%%description\nstand-in\n%%files\n' \
		"$v" >"$scratch/stalld.spec"
	rpmbuild -bb --quiet --define "_topdir $scratch/$v" "$scratch/stalld.spec" >/dev/null 2>&1
done
rpmdb_try() {	# rpmdb_try STALLD_RPM RPM_OPTIONS...: stalld, then -U starvd and the compat package
	local st=$1
	shift
	rm -rf "$scratch/root" && mkdir "$scratch/root" && rpm --root="$scratch/root" --initdb &&
		rpm --root="$scratch/root" -i --justdb --nodeps "$st" 2>/dev/null &&
		rpm --root="$scratch/root" -U --justdb "$@" "$rpm" "$compat_rpm" 2>&1 | grep -v '^rpm: '
}
old_st=$(ls "$scratch"/*/RPMS/noarch/stalld-*.rpm 2>/dev/null | grep -v "stalld-$sv-")
new_st=$(ls "$scratch"/*/RPMS/noarch/stalld-"$sv"-*.rpm 2>/dev/null)
rpmdb_try "$old_st" --nodeps >/dev/null
after=$(rpm --root="$scratch/root" -qa 2>/dev/null | sort | tr '\n' ' ')
out=$(rpmdb_try "$new_st")
echo "# after rpm -U over $(basename "$old_st"): $after"
echo "$out" | grep -i conflict | sed 's/^/# over stalld-'"$sv"': /'
rm -rf "$scratch"
[ -n "$old_st" ] && [ -n "$new_st" ] && echo "$after" | grep -q 'starvd-stalld-compat' &&
	! echo "$after" | grep -q '^stalld-\| stalld-' &&
	echo "$out" | grep -q "stalld conflicts with starvd-stalld-compat" &&
	! echo "$out" | grep -q "starvd-stalld-compat.* conflicts with starvd-stalld-compat"
ok $? "rpm -U: starvd-stalld-compat obsoletes an older stalld and conflicts with stalld $sv"

# stalld's own names run the stalld personality: /usr/bin/stalld is a
# link to starvd (a copy would be another program to the kernel, SELinux
# included), and the unit starts that link.
unit=$(dpkg-deb --fsys-tarfile "$compat_deb" | tar -xOf - ./lib/systemd/system/stalld.service)
[ "$(dpkg-deb --fsys-tarfile "$compat_deb" | tar -tvf - ./usr/bin/stalld | sed 's/.* -> //')" = starvd ] &&
	[ "$(rpm -qp --qf '[%{FILENAMES} %{FILELINKTOS}\n]' "$compat_rpm" 2>/dev/null | sed -n 's|^/usr/bin/stalld ||p')" = starvd ] &&
	echo "$unit" | grep -qx 'ExecStart=/usr/bin/stalld --systemd .*' &&
	echo "$unit" | grep -qx 'EnvironmentFile=-/etc/default/stalld' &&
	echo "$unit" | grep -qx 'RuntimeDirectory=stalld'
ok $? "/usr/bin/stalld is a link to starvd in both, and stalld.service runs it with /etc/default/stalld and /run/stalld"

# One maintainer: debian/control's, named alike by the changelogs of both
# package formats and debian/copyright's Upstream-Contact.
who=$(dpkg-deb -f "$deb" Maintainer)
deb_cl=$(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/share/doc/starvd/changelog.Debian.gz | gzip -dc |
	sed -n 's/^ -- \(.*>\)  .*/\1/p' | sort -u)
rpm_cl=$(rpm -qp --changelog "$rpm" 2>/dev/null | sed -n 's/^\* [A-Z][a-z]\{2\} [A-Z][a-z]\{2\} [0-9]\{1,2\} [0-9]\{4\} \(.*>\) - .*/\1/p' | sort -u)
contact=$(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/share/doc/starvd/copyright | sed -n 's/^Upstream-Contact: //p')
echo "# Maintainer: $who; debian/changelog: $deb_cl; rpm %changelog: $rpm_cl; Upstream-Contact: $contact"
[ -n "$who" ] && [ "$deb_cl" = "$who" ] && [ "$rpm_cl" = "$who" ] && [ "$contact" = "$who" ]
ok $? "one maintainer in the .deb, both changelogs and debian/copyright"

totals="# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
echo "$totals"
[ -z "${RESULTS:-}" ] || echo "pkg $totals" >>"$RESULTS"
[ $fail = 0 ]
