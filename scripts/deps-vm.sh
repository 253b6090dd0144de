#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Install what the VM tests (make check-vm, make bench-vm) need, from
# the host's own Debian archive only, under its release's names.
# Idempotent: prints what it installs and skips what is there. Guest
# kernel images are NOT installed (no /boot, no initramfs): vm/fetch.sh
# downloads and unpacks them into the cache. On a Debian 12 (bookworm)
# host, the bookworm guests' kernel headers ARE installed, so kbuild and
# DKMS find them at /lib/modules/KVER/build like for any kernel, and the
# host's gcc-12 builds their module. On a host of another Debian release
# (Debian 13 trixie, ...) they are another suite's, so they are not:
# bookworm's package lists are fetched into the cache with an apt
# configuration of their own (bookworm_update in vm/lib.sh), and
# vm/fetch.sh unpacks the headers, their kbuild tools, bookworm's gcc-12
# and pahole into the cache. Bullseye's (5.10 guests) are never installed:
# their lists come the same way (bullseye_update), and vm/fetch.sh
# unpacks their headers and gcc-10 into the cache. Likewise bookworm's
# arm64 lists (arm64_update): the arm64 guests' kernels, headers, root and
# libraries are unpacked into the cache, and so is the cross compiler
# (gcc-aarch64-linux-gnu conflicts with gcc-multilib); the host gets only
# what boots them and runs their programs (qemu-system-arm,
# qemu-user-static), and the libraries the cache's compilers run with
# (isl, mpc, mpfr, binutils', jansson).
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"

[ "$(id -u)" = 0 ] || die "run as root (it installs Debian packages): sudo $0"
# The guests' packages come from Debian's archive (bookworm's, bullseye's,
# forky's lists under the cache), fetched and unpacked with Debian's apt
# and dpkg, and the host's own ones go by Debian's names. Bookworm's
# compilers, unpacked into the cache elsewhere, need a C library as new
# as bookworm's.
release=$(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-${ID:-an unknown system}}")
case $VM_HOST_RELEASE in
"" | jessie | stretch | buster | bullseye)
	die "the qemu guests need a Debian 12 (bookworm) or later host, with apt-get and Debian's archive; this is $release. Run make check VM=0 here (host suites, packages, the Debian 13 chroot), or make check on such a machine" ;;
esac
command -v apt-get >/dev/null || die "apt-get not found on this $release: the qemu guests need Debian's apt"

if ! dpkg --print-foreign-architectures | grep -qx i386; then
	echo "deps-vm: adding the i386 architecture (686 guest, 32-bit client)"
	dpkg --add-architecture i386
fi

# The security archive's i386 index may fail to verify (apt-get exits
# 100); the packages needed come from the main archive, so go on and let
# the install below say if something is really missing.
echo "deps-vm: apt-get update"
if ! apt-get update -qq; then
	echo "deps-vm: warning: apt-get update reported errors (often the i386 security index); continuing" >&2
fi

! vm_bookworm_foreign || bookworm_update
vm_resolve_kernels
bullseye_update
arm64_update

pkgs=(
	qemu-system-x86 busybox-static dkms kmod xz-utils zstd cpio bc file
	qemu-system-arm qemu-user-static
	libisl23 libmpc3 libmpfr6 libbinutils libjansson4
	iproute2 util-linux procps linux-perf systemd
	python3 python3-yaml python3-jsonschema
	linux-source-6.12	# the ynl CLI and netlink specs (vm/ynl.sh)
	gcc-multilib libnl-genl-3-dev libnl-3-dev pkg-config
	libnl-genl-3-dev:i386 libnl-3-dev:i386 libcap-dev libcap-dev:i386
	libjson-c-dev libjson-c-dev:i386
)
# bookworm's guest kernel headers and linux-source-6.1, where they are the
# host's own packages (elsewhere vm/fetch.sh unpacks the headers into the
# cache)
vm_bookworm_foreign || pkgs+=(
	linux-source-6.1
	"linux-headers-$KVER_61" "linux-headers-$KVER_612" "linux-headers-$KVER_612RT"
	"linux-headers-$KVER_61RT"
	"linux-headers-$KVER_686:i386"
)

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed'; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps-vm: everything is installed (${#pkgs[@]} packages)"
else
	echo "deps-vm: installing: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" ||
		die "apt-get install failed for: ${missing[*]} (check 'apt-cache policy <package>' and the network to Debian's archive)"
fi
vm_resolve_bullseye
vm_resolve_arm64
echo "deps-vm: guest kernels${VM_HOST_RELEASE:+ on a $VM_HOST_RELEASE host}: $KVER_61, $KVER_612, $KVER_612RT, $KVER_61RT, $KVER_686 (i386); bullseye: $KVER_510, $KVER_510_686 (i386), $KVER_510RT; arm64: $KVER_ARM64_61, $KVER_ARM64_612RT"
