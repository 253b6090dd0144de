#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Install the Debian/Ubuntu packages starvd needs to build and test, when
# they are missing. Quiet when everything is there.
set -euo pipefail

pkgs=(
	make gcc clang llvm bpftool pkg-config
	perl	# checkpatch.pl (make check: the kmod/ and bpf/ coding style)
	strace	# test_cli: starvd pins itself before it loads BPF programs
	curl	# scraping node_exporter (make check: starvctl metrics)
	libncurses-dev	# starvctl top
	tmux	# make check: starvctl top driven as a person would
	# (prometheus and promtool: selftests/Makefile unpacks Debian's
	# package, as prometheus-node-exporter: installed, it would start)
	systemd	# systemd-analyze (make check: the units' sandbox)
	# libFuzzer and the sanitizers' runtimes for clang (make fuzz):
	# libclang-rt-14-dev on bookworm, a Recommends of clang's.
	libclang-rt-dev
	libbpf-dev libelf-dev zlib1g-dev libnl-genl-3-dev libnl-3-dev libcap-dev
	libjson-c-dev
	libdw-dev	# holder stacks' user frames (user/stack.c)
	elfutils	# eu-addr2line, eu-readelf (test_stacks)
	linux-source-6.12
	# Packages (make check-pkg): dpkg-buildpackage with dh_dkms, lintian,
	# rpmbuild; the kernel's kselftest install (make kselftest) uses rsync.
	debhelper dh-dkms lintian rpm rsync
	# the kernel's ynl-gen-c.py (make abi; make check: unit-abi)
	python3 python3-yaml python3-jsonschema
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
((${#missing[@]})) || exit 0

echo "starvd: installing missing build dependencies: ${missing[*]}"
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
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
