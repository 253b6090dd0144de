#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make demo: a real starvation on the last CPU and its rescue. A SCHED_FIFO
# 50 busy loop (a DPDK-like poller) holds the CPU; a SCHED_FIFO 10 task
# behind it wants to run every 10 ms. RT throttling is off for the demo
# only; starvd (threshold 2 s) rescues the task. The closing line counts
# how often the task ran before starvd and with it; the demo fails when it
# never ran with starvd. Everything is put back at the end, however the
# demo ends.
#
# Usage: scripts/demo.sh [STARVE] (STARVE: selftests/starve, built by
# make demo; default build/selftests/starve)
set -u
cd "$(dirname "$0")/.." || exit 1
starve=${1:-build/selftests/starve}
[ "$(id -u)" = 0 ] || { echo "make demo: run as root" >&2; exit 1; }
[ "$(nproc)" -gt 1 ] || { echo "make demo: needs two CPUs" >&2; exit 1; }
[ -x "$starve" ] || { echo "make demo: no $starve: run make demo (it builds it)" >&2; exit 1; }
[ -x user/starvd ] || { echo "make demo: no user/starvd: run make demo (it builds it)" >&2; exit 1; }
# Never beside the selftests: their busy loops would share the CPU.
exec 9>/run/starvd-selftests.lock
flock -n 9 || { echo "== waiting for the selftests running on this machine"; flock 9; }
. scripts/rt-throttle.sh

before_s=3
with_s=8
out=$(mktemp -d)
starve_pid=
cleanup() {
	[ -n "$starve_pid" ] && kill "$starve_pid" 2>/dev/null && wait "$starve_pid"
	rt_throttle_restore
	rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# runs FROM: the victim's runs in starve's per-second lines after the
# first FROM lines.
runs() {
	sed -n 's/^starve: t= *[0-9]*s victim ran *\([0-9]*\) times.*/\1/p' "$out/starve" |
		tail -n +$(($1 + 1)) | awk '{ n += $1 } END { print n + 0 }'
}
lines() { grep -c '^starve: t=' "$out/starve"; }

rt_throttle_off
"$starve" -s $((before_s + with_s + 1)) > >(tee "$out/starve") &
starve_pid=$!
sleep "$before_s.5"
echo "== what starvctl sees now:"
user/starvctl tasks
echo "== starvd -t 2 -d 1 (for $with_s s):"
at_start=$(lines)
timeout -s TERM "$with_s" user/starvd -f -v -a 0 -t 2 -d 1 \
	--run-dir "$out/run" 2>&1 | tee "$out/starvd"
at_stop=$(lines)
wait "$starve_pid"
starve_pid=
before=$(($(runs 0) - $(runs "$at_start")))
with=$(($(runs "$at_start") - $(runs "$at_stop")))
boosts=$(grep -c 'boosted pid' "$out/starvd")
echo "== the victim ran $before times in the ${at_start} s before starvd," \
	"$with times in the $((at_stop - at_start)) s with starvd ($boosts boosts)"
[ "$with" -gt 0 ] || { echo "make demo: the victim never ran with starvd: its log is above" >&2; exit 1; }
