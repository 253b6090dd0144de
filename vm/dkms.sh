#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/dkms.sh KVER...: register the module's current sources with DKMS
# (`make dkms-install`: exactly the module's sources, see mk/dkms.mk)
# and build and install it for each kernel release given, running or not.
# Their headers must be there: installed (/lib/modules/KVER/build:
# bookworm's on a Debian 12 host, scripts/deps-vm.sh) or unpacked into the
# cache by vm/fetch.sh and passed with --kernelsourcedir (vm_kdir), each
# built with the compiler its kernel was built with, from the cache:
# bookworm's on a host of another release with bookworm's gcc-12 and
# pahole (vm/fetch.sh's bookworm_toolchain), bullseye's 5.10 kernels' with
# bullseye's gcc-10, forky's 7.2 kernels' with forky's gcc-16 and pahole
# (forky_toolchain), an arm64 kernel's cross-built with the cache's
# aarch64-linux-gnu-gcc-12 (its headers' .kernelvariables give ARCH and
# the compiler). Replaces a previous registration of the same version,
# rebuilding the module for the kernels that had it as well; a
# registration of the very same sources is kept, and a kernel that has
# its module installed from them is left alone (a guest of another run
# may be loading it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -gt 0 ] || die "usage: vm/dkms.sh KVER..."
command -v dkms >/dev/null || die "dkms not found: run scripts/deps-vm.sh (or apt-get install dkms)"
[ "$(id -u)" = 0 ] || die "dkms needs root: sudo $0 $*"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$STARVD_TOP/dkms.conf")
[ -n "$ver" ] || die "no PACKAGE_VERSION in $STARVD_TOP/dkms.conf"

stage=$STARVD_CACHE/dkms-src/starvd-$ver
rm -rf "$stage"
make -s -C "$STARVD_TOP" dkms-install DKMSDIR="$stage" >/dev/null ||
	die "make dkms-install DKMSDIR=$stage failed"

installed=$(dkms status "starvd/$ver" 2>/dev/null |
	sed -n 's/^[^,]*, \([^,]*\),.*: installed.*/\1/p')
kernels=" $* "
if [ -n "$(dkms status "starvd/$ver" 2>/dev/null)" ] &&
   diff -r -q "$stage" "/usr/src/starvd-$ver" >/dev/null 2>&1; then
	# The same sources: only the kernels without the module.
	for k in $installed; do
		kernels=${kernels/ $k / }
		echo "dkms: starvd/$ver for $k: installed from the same sources" >&2
	done
else
	# Replacing the registration removes the module from every kernel:
	# build it again for those that had it too (vm/check.sh 686 must not
	# take it from the 6.1 and 6.12 guests of a run that follows).
	for k in $installed; do
		case $kernels in
		*" $k "*) ;;
		*) [ ! -e "$(vm_kdir "$k")" ] || kernels="$kernels$k " ;;
		esac
	done
	if [ -n "$(dkms status "starvd/$ver" 2>/dev/null)" ]; then
		dkms remove -q "starvd/$ver" --all >/dev/null ||
			die "dkms remove starvd/$ver failed: see 'dkms status'"
	fi
	rm -rf "/usr/src/starvd-$ver"
	dkms add -q "$stage" >/dev/null || die "dkms add $stage failed"
fi
for k in $kernels; do
	kdir=$(vm_kdir "$k")
	[ -e "$kdir" ] ||
		die "no headers for $k ($kdir): run vm/fetch.sh for its guest (after scripts/deps-vm.sh)"
	t0=$(date +%s.%N)
	ok=1
	src=(--kernelsourcedir "$kdir")
	path=$PATH
	cross=()
	case $kdir in
	"$BULLSEYE"/*) path=$BULLSEYE/bin:$PATH ;;	# gcc-10
	"$BOOKWORM"/*) path=$BOOKWORM/bin:$PATH ;;	# gcc-12, pahole
	"$FORKY"/*) path=$FORKY/bin:$PATH ;;	# gcc-16, pahole
	"$FORKY_ARM64"/*)	# aarch64-linux-gnu-gcc-16 (.kernelvariables)
		path=$FORKY/bin:$PATH
		src+=(-a aarch64) ;;
	"$ARM64"/*)
		path=$ARM64/cross/usr/bin:$PATH
		cross=(CROSS_COMPILE=aarch64-linux-gnu-
		       LD_LIBRARY_PATH="$ARM64_CROSS_LIBS")
		src+=(-a aarch64) ;;
	esac
	env "${cross[@]}" PATH="$path" dkms build -q -k "$k" "${src[@]}" "starvd/$ver" >/dev/null || ok=0
	log=$(ls /var/lib/dkms/starvd/"$ver"/"$k"/*/log/make.log 2>/dev/null | head -n1 || true)
	[ -n "$log" ] || log=/var/lib/dkms/starvd/$ver/build/make.log
	if [ $ok = 0 ]; then
		cat "${log:-/dev/null}" >&2
		die "dkms build for $k failed (log above)"
	fi
	if grep -q 'warning:' "$log"; then
		grep 'warning:' "$log" >&2
		die "the module builds with warnings for $k ($log)"
	fi
	t1=$(date +%s.%N)
	# DKMS installs only for a kernel whose /lib/modules/KVER exists: for
	# a kernel whose image is only in the cache (bullseye's, forky's, and
	# bookworm's on a host of another release) it is made here, holding
	# nothing but DKMS's updates/dkms and depmod's files.
	mkdir -p "/lib/modules/$k"
	env "${cross[@]}" PATH="$path" dkms install -q -k "$k" "${src[@]}" "starvd/$ver" --force >/dev/null ||
		die "dkms install for $k failed"
	t2=$(date +%s.%N)
	printf 'dkms: starvd/%s for %s: build %.1fs, install %.1fs: %s\n' "$ver" "$k" \
		"$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)" \
		"$(ls /lib/modules/"$k"/updates/dkms/starvd.ko*)"
done
# The guests' modprobe finds the module through modules.dep. DKMS 3.2
# (Debian 13) runs depmod only where a modules.dep is there already, i.e.
# where the kernel's image is installed: for the cache's kernels, depmod
# runs here (its warnings of the image's missing modules.order and
# modules.builtin are not printed).
for k in "$@"; do
	grep -q '^updates/dkms/starvd\.ko' "/lib/modules/$k/modules.dep" 2>/dev/null ||
		out=$(depmod -a "$k" 2>&1) ||
		die "depmod -a $k failed, so modprobe in its guest would not find starvd: $out"
done
