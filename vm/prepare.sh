#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/prepare.sh [GUEST...]: what the guests of vm/check.sh need from the
# host (default: $VM_DEFAULT_GUESTS of vm/lib.sh): their kernels fetched
# (vm/fetch.sh), the module built and installed for each with DKMS
# (vm/dkms.sh), the programs built (vm/build.sh: 64-bit, 32-bit
# without BPF for the i386 guests, arm64 for the arm64 guests), the
# netlink ABI checked against its
# spec. Run by vm/check.sh, or before it by make check-vm-prepare (make
# check: beside the packages' build). Needs root and scripts/deps-vm.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

guests=${*:-$VM_DEFAULT_GUESTS}
cd "$STARVD_TOP"
vm_preflight $guests

t_start=$(date +%s)
step() {	# step TEXT: print with the time since the start
	echo "# [prepare $(($(date +%s) - t_start))s] $*"
}

vm_resolve_kernels
kvers=()
for g in $guests; do
	kvers+=("$(vm_kver "$g")")
done
step "fetching guest kernels: ${kvers[*]}"
vm/fetch.sh $guests
step "DKMS build and install"
vm/dkms.sh "${kvers[@]}"

step "building programs"
vm/build.sh 64
for a in i386 arm64; do
	for g in $guests; do
		if [ "$(vm_arch "$g")" = $a ]; then
			vm/build.sh "${a/i386/32}"
			break
		fi
	done
done

ynl=$(vm/ynl.sh)
step "checking the netlink ABI against include/starvd/starvd.yaml"
STARVD_YNL=$ynl /usr/bin/python3 selftests/kmod/abi-check.py >/dev/null ||
	die "the netlink ABI disagrees with its spec: STARVD_YNL=$ynl selftests/kmod/abi-check.py says where"

step "done"
