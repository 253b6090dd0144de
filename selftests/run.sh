#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run the selftests: unit tests, then the host tests with real starvation
# through each BPF mode. Prints KTAP from every test binary and ends with
# one line "N passed, N failed, N skipped".
#
# Usage: run.sh BINDIR [suite...]
#   STARVD_TEST_BACKEND=netlink run.sh BINDIR host   (kernel module guests)
set -u
bindir=$(cd "$1" && pwd); shift
here=$(cd "$(dirname "$0")" && pwd)
suites=${*:-unit host}
export STARVD_BIN_DIR=${STARVD_BIN_DIR:-$here/../user}
results=$(mktemp)
rt_path=/proc/sys/kernel/sched_rt_runtime_us
rt_saved=$(cat $rt_path 2>/dev/null)

# Whatever happens to a test, RT throttling comes back and no busy loop
# outlives the run (each test also cleans up after itself).
cleanup() {
	[ -n "$rt_saved" ] && [ "$(cat $rt_path)" != "$rt_saved" ] &&
		echo "$rt_saved" > $rt_path
	for pid in $(pgrep -x stv-hog); do
		echo "# killing leftover busy loop $pid"
		kill -9 "$pid"
	done
	rm -f "$results"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

run_one() {	# name binary [env...]
	local name=$1 bin=$2 line
	shift 2
	echo "# === $name"
	env "$@" "$bin" 2>&1 | tee /dev/stderr |
		grep '^# Totals:' | tail -n1 |
		sed "s/^/$name /" >> "$results"
	grep -q "^$name " "$results" || echo "$name # Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:1" >> "$results"
} 2>&1

for suite in $suites; do
	case $suite in
	unit)
		for t in options cpuset detect journal; do
			run_one "unit-$t" "$bindir/test_$t"
		done ;;
	host)
		cd "$here" || exit 1
		if [ "${STARVD_TEST_BACKEND:-bpf}" = bpf ]; then
			for mode in ${STARVD_TEST_BPF_MODES:-sched_info tracking}; do
				run_one "starvation-bpf-$mode" "$bindir/test_starvation" \
					STARVD_TEST_BACKEND=bpf STARVD_TEST_BPF_MODE=$mode
			done
		else
			run_one "starvation-$STARVD_TEST_BACKEND" "$bindir/test_starvation"
		fi
		run_one "cli" "$bindir/test_cli" ;;
	esac
done

echo "# === summary"
awk '{
	for (i = 1; i <= NF; i++) {
		split($i, kv, ":")
		if (kv[1] == "pass") p += kv[2]
		if (kv[1] == "fail" || kv[1] == "error") f += kv[2]
		if (kv[1] == "skip") s += kv[2]
	}
	printf "# %-28s %s\n", $1, $0
} END {
	printf "%d passed, %d failed, %d skipped\n", p, f, s
	exit f > 0
}' "$results"
