#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/chroot.sh NAME [check|prepare|shell]: the tree built and tested in a
# Debian chroot that shares the host's kernel (make check-chroot
# CHROOT=NAME); "prepare" makes the root and installs its packages only
# (no build, no test: make check runs it beside the guests' preparation).
#   trixie  Debian 13 amd64: scripts/deps.sh check, make, the unit suite
#           and one real boost (test_starvation's deadline_boost, BPF
#           backend, on the host's kernel)
#   arm64   Debian 12 arm64 under qemu-user-static: scripts/deps.sh check,
#           a native make and the unit suite
# The root is debootstrapped once into $STARVD_CACHE/chroot/NAME and kept
# (again when it is missing or was left incomplete); each check copies the
# tree (git's files, tracked and untracked, not ignored) to its /src and
# builds it from scratch. Everything is mounted in a mount namespace of
# its own, gone with the script however it ends. Results lines
# chroot-NAME-build, chroot-NAME-unit-* and chroot-NAME-boost go to
# $RESULTS when set. "shell" opens a shell in the chroot.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=${1:-}
what=${2:-check}
case $name in
trixie) suite=trixie arch=amd64 boost=1 ;;
arm64) suite=bookworm arch=arm64 boost= ;;
*) die "usage: vm/chroot.sh trixie|arm64 [check|shell]" ;;
esac
[ "$(id -u)" = 0 ] || die "run as root (debootstrap, chroot, mounts): sudo $0 $*"
command -v debootstrap >/dev/null ||
	die "no debootstrap: run scripts/deps.sh check (or apt-get install debootstrap)"
if [ "$arch" != "$(dpkg --print-architecture)" ] &&
   ! grep -qx enabled "/proc/sys/fs/binfmt_misc/qemu-${arch/arm64/aarch64}" 2>/dev/null; then
	die "the kernel runs no $arch programs: apt-get install qemu-user-static (its binfmt_misc entry qemu-${arch/arm64/aarch64} must be enabled)"
fi

root=$STARVD_CACHE/chroot/$name
prefix=chroot-$name-

record() {	# record NAME PASS FAIL
	[ -z "${RESULTS:-}" ] ||
		echo "$prefix$1 # Totals: pass:$2 fail:$3 xfail:0 xpass:0 skip:0 error:0" >>"$RESULTS"
}

main=$(vm_archive_uri bookworm http://deb.debian.org/debian)
sec=$(vm_archive_uri bookworm-security http://deb.debian.org/debian-security)

# The root, debootstrapped into NAME.tmp and renamed when complete (what
# debootstrap mounts there ends with its mount namespace).
if [ ! -f "$root/.starvd-root" ]; then
	t0=$(date +%s)
	echo "chroot: debootstrap $suite $arch into $root.tmp ($main)"
	rm -rf "$root.tmp" "$root"
	mkdir -p "$(dirname "$root")"
	foreign=()
	[ "$arch" = "$(dpkg --print-architecture)" ] || foreign=(--foreign)
	if ! { unshare --mount --propagation private \
			debootstrap --variant=minbase --arch "$arch" "${foreign[@]}" \
			"$suite" "$root.tmp" "$main" >"$root.log" 2>&1 &&
	       { [ ${#foreign[@]} = 0 ] ||
		unshare --mount --propagation private chroot "$root.tmp" \
			/debootstrap/debootstrap --second-stage >>"$root.log" 2>&1; }; }; then
		tail -n 20 "$root.log" >&2
		record build 0 1
		die "debootstrap of $suite $arch failed (log: $root.log): check the network to $main"
	fi
	# No service of a package installed in the chroot starts, and dpkg
	# does not fsync what it unpacks: the root is rebuilt if it breaks.
	printf '#!/bin/sh\nexit 101\n' >"$root.tmp/usr/sbin/policy-rc.d"
	chmod 0755 "$root.tmp/usr/sbin/policy-rc.d"
	echo force-unsafe-io >"$root.tmp/etc/dpkg/dpkg.cfg.d/starvd-unsafe-io"
	touch "$root.tmp/.starvd-root"
	mv "$root.tmp" "$root"
	echo "chroot: $suite $arch root ready in $(($(date +%s) - t0)) s"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The suites of a fresh install (debootstrap writes the first only):
# bookworm's linux-source-6.12 comes from its security suite.
printf 'deb %s %s main\ndeb %s %s-updates main\ndeb %s %s-security main\n' \
	"$main" "$suite" "$main" "$suite" "$sec" "$suite" >"$root/etc/apt/sources.list"

# The tree, copied fresh.
rm -rf "$root/src"
mkdir -p "$root/src"
git -C "$STARVD_TOP" ls-files -z -co --exclude-standard |
	tar -C "$STARVD_TOP" --null -T - --ignore-failed-read -cf - 2>/dev/null |
	tar -C "$root/src" -xf -

# in_chroot CMD: CMD (a shell command) in the chroot, /src its directory,
# with /proc, /sys (BTF, bpffs), /dev and a tmpfs /run; the mounts live in
# this command's mount namespace only.
in_chroot() {
	unshare --mount --propagation slave /bin/bash -euc '
		r=$1
		mount -t proc proc "$r/proc"
		mount --rbind /sys "$r/sys"
		mount --rbind /dev "$r/dev"
		mount -t tmpfs -o mode=0755 starvd-chroot-run "$r/run"
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
			DEBIAN_FRONTEND=noninteractive \
			/bin/bash -c "cd /src && $2"' in_chroot "$root" "$1"
}

if [ "$what" = shell ]; then
	in_chroot "exec bash -i"
	exit
fi
case $what in
check) ;;
prepare)
	t0=$(date +%s)
	# A failure is recorded by the check that follows, which tries again.
	in_chroot "scripts/deps.sh check" ||
		die "$name: installing the packages failed (above); vm/chroot.sh $name shell opens the chroot"
	echo "chroot: $name: packages installed in $(($(date +%s) - t0)) s"
	exit 0 ;;
*) die "unknown action '$what' (check, prepare, shell)" ;;
esac

t0=$(date +%s)
echo "chroot: $name: scripts/deps.sh check, make, make -C selftests"
if ! in_chroot "scripts/deps.sh check && make -j$(nproc) &&
		make -C selftests O=/src/build CC=gcc -j$(nproc) all"; then
	record build 0 1
	die "$name: the build failed (above); vm/chroot.sh $name shell opens the chroot"
fi
echo "chroot: $name: built in $(($(date +%s) - t0)) s"
record build 1 0

# The unit suite, its results lines named chroot-NAME-unit-*. Under qemu
# user emulation LeakSanitizer cannot stop the world (no ptrace there),
# so the fuzz replay runs without its leak checks; ASan and UBSan stay.
results=$root/src/build/results.txt
rm -f "$results"
asan=
[ "$arch" = "$(dpkg --print-architecture)" ] || asan=ASAN_OPTIONS=detect_leaks=0
in_chroot "$asan RESULTS=/src/build/results.txt SUITE_PREFIX=$prefix selftests/run.sh build/selftests unit" || true
[ -z "${RESULTS:-}" ] || cat "$results" >>"$RESULTS"
failed=$(grep -c -v ' fail:0 xfail:0 xpass:0 skip:[0-9]* error:0$' "$results" || true)

# One real boost, under the host suites' lock: the busy loop takes a CPU
# of the machine.
if [ -n "$boost" ]; then
	out=$root/src/build/boost.log
	exec 9>/run/starvd-selftests.lock
	flock 9
	in_chroot "STARVD_BIN_DIR=/src/user STARVD_TEST_BACKEND=bpf \
		build/selftests/test_starvation -t deadline_boost" 2>&1 | tee "$out" || true
	flock -u 9
	if grep -q '^# Totals: pass:1 fail:0' "$out"; then
		record boost 1 0
	else
		record boost 0 1
		failed=$((failed + 1))
	fi
fi
echo "chroot: $name: done in $(($(date +%s) - t0)) s, $failed suite(s) failed"
[ "$failed" = 0 ]
