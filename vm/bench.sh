#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/bench.sh: the module's benchmarks in the Debian 6.12 guest (see
# selftests/kmod/guest-bench.sh): builds and installs the module with
# DKMS, builds nlcheck, boots the guest and prints the ratios.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$STARVD_TOP"

[ "$(id -u)" = 0 ] || die "the benchmark installs the module with DKMS: run as root"
command -v perf >/dev/null || die "perf not found: run scripts/deps-vm.sh (linux-perf)"
vm_resolve_kernels
vm/fetch.sh 6.12
vm/dkms.sh "$KVER_612"
vm/build.sh 64
# 10,000 threads: more memory than the tests' guests.
vm/run.sh -t "${GUEST_TIMEOUT:-900}" -m 2048 6.12 \
	"STARVD_BUILD=$STARVD_TOP/build sh selftests/kmod/guest-bench.sh"
