# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by demo.sh: turn RT throttling off for the lifetime of
# the calling script and put the previous value back however it exits.

RT_RUNTIME=/proc/sys/kernel/sched_rt_runtime_us
rt_saved=$(cat "$RT_RUNTIME")

rt_throttle_restore() {
	if [ "$(cat "$RT_RUNTIME")" != "$rt_saved" ]; then
		echo "$rt_saved" > "$RT_RUNTIME"
		echo "== RT throttling restored (kernel.sched_rt_runtime_us=$rt_saved)"
	fi
}

rt_throttle_off() {
	if [ "$rt_saved" != -1 ]; then
		echo "== turning RT throttling off for now (kernel.sched_rt_runtime_us was $rt_saved)"
		echo -1 > "$RT_RUNTIME"
	fi
}
