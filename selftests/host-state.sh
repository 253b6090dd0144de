#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# host-state.sh save FILE | check FILE RESULTS TOP: make check leaves
# the machine as it found it. "save" (first) writes to FILE
# kernel.sched_rt_runtime_us and the SCHED_DEADLINE tasks there are;
# "check" (last) appends the results line "host-state" to RESULTS: a
# failure for each thing a suite left behind (RT throttling altered, a
# busy loop, a starvd run from TOP, a task newly SCHED_DEADLINE), each
# named here (and put right where it can be), so that the suite at
# fault can be found. Nothing else is touched: a starvd service of the
# machine's own, its own DEADLINE tasks.
set -u
rt_path=/proc/sys/kernel/sched_rt_runtime_us
deadline_tasks() {	# the tids of SCHED_DEADLINE tasks, one per line
	local s
	for s in /proc/[0-9]*/task/[0-9]*/sched; do
		grep -q '^policy *: *6$' "$s" 2>/dev/null || continue
		s=${s%/sched}
		echo "${s##*/}"
	done
}
case ${1:-} in
save)
	{ cat $rt_path 2>/dev/null || echo; deadline_tasks; } >"$2"
	exit 0
	;;
check) ;;
*)
	echo "usage: host-state.sh save FILE | check FILE RESULTS TOP" >&2
	exit 2
	;;
esac
saved=$(head -n1 "$2" 2>/dev/null)
results=$3
top=$(cd "$4" && pwd -P)
pass=0 fail=0
bad() {	# bad WHAT
	echo "# host-state: $1"
	fail=$((fail + 1))
}

now=$(cat $rt_path 2>/dev/null)
if [ -n "$saved" ] && [ "$now" != "$saved" ]; then
	bad "kernel.sched_rt_runtime_us is $now, was $saved before make check: a suite left it altered (restored now)"
	echo "$saved" >$rt_path
else
	pass=$((pass + 1))
fi
# What the suites start: busy loops (selftests/starve.c, lib/workload.c)
# and daemons (starvd built in TOP: user/, the kselftest install).
left=$(pgrep -x -d ' ' 'stv-hog|stv-victim')
for pid in $(pgrep -x starvd); do
	case $(readlink /proc/$pid/exe) in
	"$top"/*) left="$left $pid" ;;
	esac
done
if [ -n "${left// }" ]; then
	for pid in $left; do
		bad "process $pid ($(cat /proc/$pid/comm 2>/dev/null)) outlived its suite: $(tr '\0' ' ' </proc/$pid/cmdline 2>/dev/null) (killed now)"
		kill -9 "$pid" 2>/dev/null
	done
else
	pass=$((pass + 1))
fi
dl=
for tid in $(deadline_tasks); do
	grep -qx "$tid" <(tail -n +2 "$2") ||
		dl="$dl $tid ($(cat /proc/$tid/comm 2>/dev/null))"
done
if [ -n "$dl" ]; then
	bad "tasks left SCHED_DEADLINE:$dl"
else
	pass=$((pass + 1))
fi
echo "host-state # Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0" >>"$results"
[ "$fail" = 0 ]
