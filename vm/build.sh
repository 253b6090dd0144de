#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/build.sh 64|32|arm64: build what the test guests run, from the top
# of the tree. 64: the daemon with BPF (user/), the selftests
# (build/selftests/) and nlcheck, nlfuzz (build/kmod-tests/). 32: the same
# without BPF, with gcc -m32, all under build32/ (daemon and starvctl in
# build32/ itself), for the 686 guest. arm64: the same as 64, cross-built
# with vm/fetch.sh's aarch64-linux-gnu-gcc-12 (in the cache) against its
# arm64 root (its libraries and headers: the sysroot), all under
# build-arm64/, for the arm64 guests. Its BPF objects are the ones 64 builds (clang -target bpf
# from bpf/vmlinux/x86/vmlinux.h: the CO-RE object is the same for every
# architecture, its programs being tp_btf ones that read no pt_regs):
# copied from build/, linked by bpftool (which drops the DWARF) and
# embedded by its skeleton, which this checks (the linked object's bytes
# are in the arm64 starvd), and each
# program smoke-tested with qemu-aarch64-static.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$STARVD_TOP"

case ${1:-} in
arm64)
	root=$ARM64/root
	[ -e "$root/.starvd-pkgs" ] ||
		die "no arm64 root in $root: run vm/fetch.sh arm64-6.1 (or vm/prepare.sh with an arm64 guest)"
	[ -x "$ARM64/cross/usr/bin/aarch64-linux-gnu-gcc-12" ] ||
		die "no cross compiler in $ARM64/cross: run vm/fetch.sh arm64-6.1"
	export PATH=$ARM64/cross/usr/bin:$PATH
	export LD_LIBRARY_PATH=$ARM64_CROSS_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	# The x86 build's BPF objects, built first (make 64 builds them).
	make -s build/starvd.bpf.o build/pending.bpf.o build/softirqs.bpf.o build/lockwait.bpf.o O=build ||
		die "building the BPF objects failed; output above"
	o=build-arm64 bin=build-arm64 cc="aarch64-linux-gnu-gcc-12 --sysroot=$root"
	mkdir -p "$o"
	for f in starvd.bpf.o pending.bpf.o softirqs.bpf.o lockwait.bpf.o; do
		cmp -s "build/$f" "$o/$f" || cp -p "build/$f" "$o/$f"
	done
	# make must not rebuild them (vmlinux.h copied as build/ has it).
	cp -p build/vmlinux.h "$o/vmlinux.h"
	touch -r build/starvd.bpf.o "$o/starvd.bpf.o"
	touch -r build/pending.bpf.o "$o/pending.bpf.o"
	touch -r build/softirqs.bpf.o "$o/softirqs.bpf.o"
	export PKG_CONFIG_SYSROOT_DIR=$root
	export PKG_CONFIG_LIBDIR=$root/usr/lib/aarch64-linux-gnu/pkgconfig:$root/usr/share/pkgconfig
	# Without libdw: starvd unwinds user stacks on x86_64 only
	# (user/stack_unwind.c); test_stacks skips what needs user frames.
	mk=(all "$o/lockwait.bpf.o" AR=aarch64-linux-gnu-ar LIBDW=0)
	selftest_libs=(STRIP=aarch64-linux-gnu-strip
		LDLIBS="-lbpf -lelf -lz -lnl-genl-3 -lnl-3 -lcap -ljson-c -lm -lpthread")
	;;
64)
	o=build bin=user cc=gcc
	# and the lock-owner iterator of the guests' stallwatch
	mk=(all "$o/lockwait.bpf.o")
	selftest_libs=()
	;;
32)
	o=build32 bin=build32 cc="gcc -m32"
	mk=(BPF=0)
	# The 686 guest has no usable BPF: link the selftests without libbpf.
	selftest_libs=(LDLIBS="-lnl-genl-3 -lnl-3 -lcap -ljson-c -lm")
	[ -e /usr/lib/i386-linux-gnu/libnl-genl-3.so ] ||
		die "no 32-bit libnl: run scripts/deps-vm.sh (libnl-genl-3-dev:i386, gcc-multilib)"
	[ -e /usr/lib/i386-linux-gnu/libcap.so ] ||
		die "no 32-bit libcap: run scripts/deps-vm.sh (libcap-dev:i386)"
	[ -e /usr/lib/i386-linux-gnu/libjson-c.so ] ||
		die "no 32-bit json-c: run scripts/deps-vm.sh (libjson-c-dev:i386)"
	;;
*)
	die "usage: vm/build.sh 64|32|arm64"
	;;
esac

make -s "${mk[@]}" O="$o" BIN="$bin" CC="$cc" ||
	die "building the daemon ($1) failed; output above"
make -s -C selftests progs O="$STARVD_TOP/$o" CC="$cc" "${selftest_libs[@]}" ||
	die "building the selftests ($1) failed; output above"
mkdir -p "$o/kmod-tests"
for t in nlcheck nlfuzz; do
	if [ ! "$o/kmod-tests/$t" -nt selftests/kmod/$t.c ] ||
	   [ ! "$o/kmod-tests/$t" -nt include/starvd/abi.h ] ||
	   [ ! "$o/kmod-tests/$t" -nt include/starvd/starvd.h ]; then
		$cc -O2 -g -Wall -Wextra -Wno-unused-parameter -Iinclude selftests/kmod/$t.c -lpthread \
			-o "$o/kmod-tests/$t" ||
			die "building $t ($1) failed; output above"
	fi
done
if [ "$1" = arm64 ]; then
	cmp -s build/starvd.bpf.o "$o/starvd.bpf.o" ||
		die "$o/starvd.bpf.o is not build/starvd.bpf.o: make rebuilt it (remove $o and run again)"
	python3 - "$o/starvd.link.o" "$bin/starvd" <<-'EOF' ||
		import sys
		obj, exe = (open(f, "rb").read() for f in sys.argv[1:])
		sys.exit(0 if obj in exe else 1)
	EOF
		die "$bin/starvd does not hold the bytes of $o/starvd.link.o (the skeleton's object, linked from $o/starvd.bpf.o)"
	# Each runs on an arm64 CPU (user-mode emulation, the root's libraries).
	for t in "$bin/starvd --version" "$bin/starvctl --help" \
		 "$o/selftests/test_options" "$o/kmod-tests/nlcheck"; do
		out=$(qemu-aarch64-static -L "$root" $t 2>&1) || case $t in
		*nlcheck) ;;	# usage, exit 2
		*) die "$t does not run under qemu-aarch64-static: $(echo "$out" | tail -n 3)" ;;
		esac
	done
	echo "build: arm64: $o/starvd.bpf.o is build/starvd.bpf.o, sha256 $(sha256sum <"$o/starvd.bpf.o" | cut -c1-64), embedded in $bin/starvd" >&2
fi
label=$1-bit
[ "$1" != arm64 ] || label=arm64
echo "build: $label programs in $bin/, selftests in $o/selftests/, nlcheck and nlfuzz in $o/kmod-tests/" >&2
