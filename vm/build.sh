#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/build.sh 64|32: build what the test guests run, from the top of the
# tree. 64: the daemon with BPF (user/), the selftests (build/selftests/)
# and nlcheck, nlfuzz (build/kmod-tests/). 32: the same without BPF, with
# gcc -m32, all under build32/ (daemon and starvctl in build32/ itself),
# for the 686 guest.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$STARVD_TOP"

case ${1:-} in
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
	die "usage: vm/build.sh 64|32"
	;;
esac

make -s "${mk[@]}" O="$o" BIN="$bin" CC="$cc" ||
	die "building the daemon ($1-bit) failed; output above"
make -s -C selftests progs O="$STARVD_TOP/$o" CC="$cc" "${selftest_libs[@]}" ||
	die "building the selftests ($1-bit) failed; output above"
mkdir -p "$o/kmod-tests"
for t in nlcheck nlfuzz; do
	if [ ! "$o/kmod-tests/$t" -nt selftests/kmod/$t.c ] ||
	   [ ! "$o/kmod-tests/$t" -nt include/starvd/abi.h ] ||
	   [ ! "$o/kmod-tests/$t" -nt include/starvd/starvd.h ]; then
		$cc -O2 -g -Wall -Wextra -Wno-unused-parameter -Iinclude selftests/kmod/$t.c -lpthread \
			-o "$o/kmod-tests/$t" ||
			die "building $t ($1-bit) failed; output above"
	fi
done
echo "build: $1-bit programs in $bin/, selftests in $o/selftests/, nlcheck and nlfuzz in $o/kmod-tests/" >&2
