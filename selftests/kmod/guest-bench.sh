#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Module benchmarks, run inside a 64-bit guest by vm/bench.sh from the
# top of the tree. Everything is a ratio of two things measured in this
# same run (absolute times under TCG mean nothing):
#  - one get-tasks dump vs one read of /sys/kernel/debug/sched/debug, the
#    text the module replaces, with 100 and 10,000 sleeping threads;
#  - context-switch throughput (perf bench sched pipe, both ends on CPU 0:
#    across vCPUs a TCG guest measures the host's scheduling of its vCPU
#    threads) with the module loaded vs not, alternating, median of 5.
# Environment: STARVD_BUILD (build directory with kmod-tests/nlcheck).
B=${STARVD_BUILD:?run by vm/bench.sh inside a guest}
NL=$B/kmod-tests/nlcheck
LOOPS=${STARVD_BENCH_PIPE_LOOPS:-50000}

fail() {
	echo "guest-bench: $*" >&2
	exit 1
}

modprobe starvd || fail "modprobe starvd failed"
[ -r /sys/kernel/debug/sched/debug ] || fail "no /sys/kernel/debug/sched/debug (debugfs)"
# 10,000 threads need more than the default threads-max of a small guest.
echo 20000 >/proc/sys/kernel/threads-max
"$NL" bench 100 20 || fail "nlcheck bench 100 failed"
"$NL" bench 10000 3 || fail "nlcheck bench 10000 failed"

pipe() {	# ops/s of one perf bench sched pipe run
	taskset -c 0 perf bench sched pipe -l "$LOOPS" 2>/dev/null |
		sed -n 's/^ *\([0-9]*\) ops\/sec.*/\1/p'
}
median() {
	printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"
}
off=""
on=""
for r in 1 2 3 4 5; do
	rmmod starvd || fail "rmmod starvd failed"
	off="$off $(pipe)"
	modprobe starvd || fail "modprobe starvd failed"
	on="$on $(pipe)"
done
rmmod starvd
# shellcheck disable=SC2086
moff=$(median $off)
# shellcheck disable=SC2086
mon=$(median $on)
[ -n "$moff" ] && [ -n "$mon" ] || fail "perf bench sched pipe printed no ops/sec"
echo "pipe: taskset -c 0 perf bench sched pipe -l $LOOPS, ops/s without the module:$off; with it:$on"
awk -v a="$mon" -v b="$moff" 'BEGIN {
	printf "pipe: context switches with the module loaded / not loaded: %.3f (medians %d / %d ops/s)\n", a / b, a, b
}'
