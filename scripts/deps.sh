#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# scripts/deps.sh [check]: install the Debian/Ubuntu packages starvd needs,
# when they are missing; quiet when everything is there.
#   (none)  what building and running starvd needs (make, make run,
#           make demo)
#   check   that and what the tests need on the host (make check); the
#           qemu guests' packages are scripts/deps-vm.sh's
# Package names are Debian 12's and 13's (the same); where Ubuntu 24.04's
# differ, pkg_name maps them (untested: README.md, "Prerequisites").
set -euo pipefail

what=${1:-run}
case $what in
run|check) ;;
*) echo "usage: scripts/deps.sh [check]" >&2; exit 2 ;;
esac

id=$(. /etc/os-release 2>/dev/null && echo "${ID:-}")

# pkg_name DEBIAN_NAME: the name of the package here.
pkg_name() {
	case $id:$1 in
	# Ubuntu ships bpftool with its kernels' tools.
	ubuntu:bpftool) echo linux-tools-common linux-tools-generic ;;
	# Ubuntu 24.04's kernel sources are 6.8's.
	ubuntu:linux-source-6.12) echo linux-source ;;
	*) echo "$1" ;;
	esac
}

pkgs=(
	make gcc clang bpftool pkg-config
	libbpf-dev libelf-dev zlib1g-dev libnl-genl-3-dev libnl-3-dev libcap-dev
	libjson-c-dev
	libdw-dev	# holder stacks' user frames (user/stack_unwind.c)
	libncurses-dev	# starvctl top
)
[ "$what" = run ] || pkgs+=(
	# libFuzzer and the sanitizers' runtimes for clang (make fuzz)
	libclang-rt-dev
	# the selftests' kselftest harness and checkpatch.pl (the kmod/ and
	# bpf/ coding style); the kernel's ynl-gen-c.py (unit-abi, make abi)
	linux-source-6.12 perl python3 python3-yaml python3-jsonschema
	strace	# test_cli: starvd pins itself before it loads BPF programs
	curl	# scraping node_exporter (starvctl metrics)
	tmux	# starvctl top driven as a person would
	# (prometheus and promtool: selftests/Makefile unpacks Debian's
	# package, as prometheus-node-exporter: installed, it would start)
	systemd	# systemd-analyze (the units' sandbox)
	elfutils	# eu-addr2line, eu-readelf (test_stacks)
	# Packages (make check-pkg): dpkg-buildpackage with dh_dkms, lintian,
	# rpmbuild; the kernel's kselftest install (make kselftest) uses rsync.
	debhelper dh-dkms lintian rpm rsync
	debootstrap	# the Debian 13 chroot (vm/chroot.sh)
)

missing=()
for p in "${pkgs[@]}"; do
	for n in $(pkg_name "$p"); do
		dpkg-query -W -f='${Status}' "$n" 2>/dev/null | grep -q "ok installed" ||
			missing+=("$n")
	done
done
((${#missing[@]})) || exit 0

echo "starvd: installing missing packages: ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
	echo "starvd: run as root (or install them yourself: apt-get install ${missing[*]})" >&2
	exit 1
fi
if ! command -v apt-get >/dev/null; then
	echo "starvd: no apt-get here: install the equivalents of: ${missing[*]}" >&2
	exit 1
fi
# Lists may be missing on a fresh machine; a partial failure (an extra
# architecture's index) must not stop the install.
apt-get update -qq || echo "starvd: apt-get update reported errors; trying the install anyway" >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" || {
	echo "starvd: apt-get install failed for: ${missing[*]} (apt-cache policy PACKAGE says which the archive lacks)" >&2
	exit 1
}
