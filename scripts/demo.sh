#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make demo: a real starvation on the last CPU and its rescue. A SCHED_FIFO
# 50 busy loop (a DPDK-like poller) holds the CPU; a SCHED_FIFO 10 task
# behind it wants to run every 10 ms. RT throttling is off for the demo
# only; starvd (threshold 2 s) rescues the task. Everything is put back at
# the end, however the demo ends.
set -u
cd "$(dirname "$0")/.." || exit 1
[ "$(id -u)" = 0 ] || { echo "make demo: run as root" >&2; exit 1; }
[ "$(nproc)" -gt 1 ] || { echo "make demo: needs two CPUs" >&2; exit 1; }
. scripts/rt-throttle.sh

starve_pid=
cleanup() {
	[ -n "$starve_pid" ] && kill "$starve_pid" 2>/dev/null && wait "$starve_pid"
	rt_throttle_restore
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rt_throttle_off
build/selftests/starve -s 14 &
starve_pid=$!
sleep 3.5
echo "== what starvctl sees now:"
user/starvctl tasks
echo "== starvd -t 2 -d 1 (for 8 s):"
timeout -s TERM 8 user/starvd -f -v -a 0 -t 2 -d 1 --run-dir /tmp/starvd-demo
wait "$starve_pid"
starve_pid=
echo "== done: the victim ran again each time starvd boosted it"
