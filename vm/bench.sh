#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm/bench.sh [GUEST]: the module's benchmarks in a Debian guest (default
# 6.12-rt, the PREEMPT_RT kernel starvd's users run; see
# selftests/kmod/guest-bench.sh): builds and installs the module with
# DKMS, builds nlcheck, boots the guest and prints the ratios. Then, in
# the PREEMPT_RT guest, what boosts give: the lookup table (lookups
# served by a starving IRQ thread with no daemon, starvd, starvd
# --no-escalation; selftests/kmod/guest-escalate.sh) and the CPU time
# per boosted period over the runtime (bench overrun). STARVD_BENCH_VM
# ("module boosts" by default) chooses.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$STARVD_TOP"

[ "$(id -u)" = 0 ] || die "the benchmark installs the module with DKMS: run as root"
command -v perf >/dev/null || die "perf not found: run scripts/deps-vm.sh (linux-perf)"
guest=${1:-6.12-rt}
[ "$(vm_arch "$guest")" = amd64 ] || die "the benchmark runs in a 64-bit guest, not $guest"
vm_resolve_kernels
what=${STARVD_BENCH_VM:-module boosts}
vm/build.sh 64
case " $what " in
*" module "*)
	vm/fetch.sh "$guest"
	vm/dkms.sh "$(vm_kver "$guest")"
	# 10,000 threads: more memory than the tests' guests.
	vm/run.sh -t "${GUEST_TIMEOUT:-900}" -m 2048 "$guest" \
		"STARVD_BUILD=$STARVD_TOP/build sh selftests/kmod/guest-bench.sh"
	;;
esac
case " $what " in
*" boosts "*)
	vm/fetch.sh 6.12-rt
	# make bench's program, which make check does not build.
	make -s build/bench.skel.h
	make -s -C selftests O="$STARVD_TOP/build" "$STARVD_TOP/build/selftests/bench"
	vm/run.sh -t "${GUEST_TIMEOUT:-900}" 6.12-rt \
		"(cd selftests && STARVD_BIN_DIR=$STARVD_TOP/user ../build/selftests/bench overrun); STARVD_BUILD=$STARVD_TOP/build STARVD_BIN_DIR=$STARVD_TOP/user sh selftests/kmod/guest-escalate.sh bench"
	;;
esac
