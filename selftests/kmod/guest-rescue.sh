#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The rescues of selftests/test_rescue.c alone, in a test guest (vm/check.sh
# runs it in the guests of VM_RESCUE_ONLY_GUESTS, vm/lib.sh: the PREEMPT_RT
# one, where an unpinned starvd once slept through a starvation and hung
# the machine on its console). BPF backend; one results line, as
# vm-GUEST-rescue-bpf.
guest=${STARVD_VM_GUEST:?run by vm/check.sh inside a guest}
: "${STARVD_BUILD:?}" "${STARVD_BIN_DIR:?}" "${RESULTS:?}"
echo "# guest $guest, kernel $(uname -r): test_rescue only"
RESULTS=$RESULTS SUITE_PREFIX=vm-$guest- STARVD_TEST_BACKEND=bpf \
	STARVD_BIN_DIR=$STARVD_BIN_DIR bash selftests/run.sh "$STARVD_BUILD/selftests" rescue
