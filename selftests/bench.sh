#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench: run the benchmarks; RT throttling and every task come back.
set -u
bindir=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
export STARVD_BIN_DIR=${STARVD_BIN_DIR:-$here/../user}
[ -x "$STARVD_BIN_DIR/starvd" ] || {
	echo "bench: no $STARVD_BIN_DIR/starvd: run make first, or set STARVD_BIN_DIR" >&2
	exit 1
}
# One run of busy loops at a time on a machine, the suites' too (run.sh).
if [ "$(id -u)" = 0 ] && flock -V >/dev/null 2>&1; then
	exec 9>/run/starvd-selftests.lock
	flock 9 || exit 1
fi
rt_saved=$(cat /proc/sys/kernel/sched_rt_runtime_us)
cleanup() {
	"$STARVD_BIN_DIR/starvd" --restore --run-dir /run/starvd-selftests
	echo "$rt_saved" > /proc/sys/kernel/sched_rt_runtime_us
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cd "$here" && "$bindir/bench"
