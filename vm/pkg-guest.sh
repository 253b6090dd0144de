#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/pkg-guest.sh GUEST DEBDIR: boot GUEST (vm/run.sh) and install the
# starvd, starvd-dkms and starvd-stalld-compat .debs of DEBDIR there with
# dpkg, in a scratch copy of the guest's root, on a machine that runs a
# stalld package (selftests/kmod/guest-pkg.sh says what is checked).
# Appends "pkg-vm-GUEST # Totals: ..." to $RESULTS when set.
# Needs root (qemu, the guest kernel's headers: scripts/deps-vm.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 2 ] || die "usage: vm/pkg-guest.sh GUEST DEBDIR"
guest=$1
debs=$(cd "$2" && pwd)
ls "$debs"/starvd_*.deb "$debs"/starvd-dkms_*.deb "$debs"/starvd-stalld-compat_*.deb >/dev/null ||
	die "no starvd, starvd-dkms and starvd-stalld-compat .debs in $debs: run make deb"
vm_resolve_kernels
kver=$(vm_kver "$guest")
"$STARVD_TOP/vm/fetch.sh" "$guest"
ko=$(find "$VM_CACHE/$guest/root/lib/modules/$kver" -name 'overlay.ko*' | head -n1)
[ -n "$ko" ] || die "no overlay.ko in $VM_CACHE/$guest/root/lib/modules/$kver"

# The stalld package the compat package replaces. Debian's archive has
# none (bookworm, trixie, sid), so this is a stand-in with the names and
# kinds of file a stalld package ships at the paths the compat package
# takes over (the program, throttlectl, the unit, /etc/default/stalld as
# a conffile, the man page), whose programs only say what they are.
stalld_deb() {	# stalld_deb DIR: build DIR/stalld_1.28.1-1_all.deb
	local d=$1/root
	rm -rf "$1" && mkdir -p "$d/DEBIAN" "$d/usr/bin" "$d/etc/default" \
		"$d/lib/systemd/system" "$d/usr/share/man/man8"
	cat >"$d/DEBIAN/control" <<-EOF
	Package: stalld
	Version: 1.28.1-1
	Architecture: all
	Maintainer: $(sed -n 's/^Maintainer: //p' "$STARVD_TOP/debian/control")
	Description: stand-in for a distribution's stalld (vm/pkg-guest.sh)
	 Ships the files of a stalld package, at stalld's paths.
	EOF
	echo /etc/default/stalld >"$d/DEBIAN/conffiles"
	printf '#!/bin/sh\necho "the stand-in stalld of vm/pkg-guest.sh" >&2\nexit 1\n' >"$d/usr/bin/stalld"
	cp "$d/usr/bin/stalld" "$d/usr/bin/throttlectl"
	chmod 0755 "$d/usr/bin/stalld" "$d/usr/bin/throttlectl"
	printf '[Unit]\nDescription=Stall Monitor (stand-in)\n\n[Service]\nEnvironmentFile=-/etc/default/stalld\nExecStart=/usr/bin/stalld $CLIST $THRESH\n' \
		>"$d/lib/systemd/system/stalld.service"
	cp "$STARVD_TOP/systemd/stalld.conf" "$d/etc/default/stalld"
	printf '.TH STALLD 8\n.SH NAME\nstalld \\- stand-in\n' | gzip -9n >"$d/usr/share/man/man8/stalld.8.gz"
	dpkg-deb --root-owner-group -b "$d" "$1/stalld_1.28.1-1_all.deb" >/dev/null
}
stalld=$VM_CACHE/pkg-stalld
stalld_deb "$stalld"

rc=0
"$STARVD_TOP/vm/run.sh" -t 1200 "$guest" \
	"sh selftests/kmod/guest-pkg.sh $debs $ko $stalld" || rc=$?
totals=$(grep '^# Totals:' "$VM_CACHE/results/$guest/out" 2>/dev/null | tail -n1 || true)
[ -n "$totals" ] || totals="# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:1"
[ -z "${RESULTS:-}" ] || echo "pkg-vm-$guest $totals" >>"$RESULTS"
exit $rc
