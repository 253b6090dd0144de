#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/pkg-guest.sh GUEST DEBDIR: boot GUEST (vm/run.sh) and install the
# starvd and starvd-dkms .debs of DEBDIR there with dpkg, in a scratch
# copy of the guest's root (selftests/kmod/guest-pkg.sh says what is
# checked). Appends "pkg-vm-GUEST # Totals: ..." to $RESULTS when set.
# Needs root (qemu, the guest kernel's headers: scripts/deps-vm.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 2 ] || die "usage: vm/pkg-guest.sh GUEST DEBDIR"
guest=$1
debs=$(cd "$2" && pwd)
ls "$debs"/starvd_*.deb "$debs"/starvd-dkms_*.deb >/dev/null ||
	die "no starvd and starvd-dkms .debs in $debs: run make deb"
vm_resolve_kernels
kver=$(vm_kver "$guest")
"$STARVD_TOP/vm/fetch.sh" "$guest"
ko=$(find "$VM_CACHE/$guest/root/lib/modules/$kver" -name 'overlay.ko*' | head -n1)
[ -n "$ko" ] || die "no overlay.ko in $VM_CACHE/$guest/root/lib/modules/$kver"

rc=0
"$STARVD_TOP/vm/run.sh" -t 900 "$guest" \
	"sh selftests/kmod/guest-pkg.sh $debs $ko" || rc=$?
totals=$(grep '^# Totals:' "$VM_CACHE/results/$guest/out" 2>/dev/null | tail -n1 || true)
[ -n "$totals" ] || totals="# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:1"
[ -z "${RESULTS:-}" ] || echo "pkg-vm-$guest $totals" >>"$RESULTS"
exit $rc
