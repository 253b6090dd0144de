#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/dkms.sh KVER...: register the module's current sources with DKMS
# (a minimal copy of the tree: dkms.conf, kmod/, the ABI header)
# and build and install it for each kernel release given, running or not.
# Their headers must be installed (/lib/modules/KVER/build): see
# scripts/deps-vm.sh. Replaces a previous registration of the same version,
# rebuilding the module for the kernels that had it as well.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || die "usage: vm/dkms.sh KVER..."
command -v dkms >/dev/null || die "dkms not found: run scripts/deps-vm.sh (or apt-get install dkms)"
[ "$(id -u)" = 0 ] || die "dkms needs root: sudo $0 $*"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$STARVD_TOP/dkms.conf")
[ -n "$ver" ] || die "no PACKAGE_VERSION in $STARVD_TOP/dkms.conf"

stage=$STARVD_CACHE/dkms-src/starvd-$ver
rm -rf "$stage"
mkdir -p "$stage/kmod" "$stage/include/starvd"
cp "$STARVD_TOP/dkms.conf" "$stage/"
cp "$STARVD_TOP"/kmod/{Kbuild,compat.h,starvd.c} "$stage/kmod/"
cp "$STARVD_TOP/include/starvd/abi.h" "$stage/include/starvd/"

# Replacing the registration removes the module from every kernel: build
# it again for those that had it too (vm/check.sh 686 must not take it
# from the 6.1 and 6.12 guests of a run that follows).
kernels=" $* "
for k in $(dkms status "starvd/$ver" 2>/dev/null |
	   sed -n 's/^[^,]*, \([^,]*\),.*: installed.*/\1/p'); do
	case $kernels in
	*" $k "*) ;;
	*) [ ! -e "/lib/modules/$k/build" ] || kernels="$kernels$k " ;;
	esac
done
if [ -n "$(dkms status "starvd/$ver" 2>/dev/null)" ]; then
	dkms remove -q "starvd/$ver" --all >/dev/null ||
		die "dkms remove starvd/$ver failed: see 'dkms status'"
fi
rm -rf "/usr/src/starvd-$ver"
dkms add -q "$stage" >/dev/null || die "dkms add $stage failed"
for k in $kernels; do
	[ -e "/lib/modules/$k/build" ] ||
		die "no headers for $k (/lib/modules/$k/build): run scripts/deps-vm.sh or apt-get install linux-headers-$k"
	t0=$(date +%s.%N)
	ok=1
	dkms build -q -k "$k" "starvd/$ver" >/dev/null || ok=0
	log=$(ls /var/lib/dkms/starvd/"$ver"/"$k"/*/log/make.log 2>/dev/null | head -n1 || true)
	if [ $ok = 0 ]; then
		cat "${log:-/dev/null}" >&2
		die "dkms build for $k failed (log above)"
	fi
	if grep -q 'warning:' "$log"; then
		grep 'warning:' "$log" >&2
		die "the module builds with warnings for $k ($log)"
	fi
	t1=$(date +%s.%N)
	dkms install -q -k "$k" "starvd/$ver" --force >/dev/null ||
		die "dkms install for $k failed"
	t2=$(date +%s.%N)
	printf 'dkms: starvd/%s for %s: build %.1fs, install %.1fs: %s\n' "$ver" "$k" \
		"$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" \
		"$(ls /lib/modules/"$k"/updates/dkms/starvd.ko*)"
done
