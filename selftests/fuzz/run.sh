#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make fuzz: run each libFuzzer target for SECONDS, then print one line of
# statistics per target. The corpus each run grows is kept in
# BINDIR/work/corpus/<target> for the next run; the checked-in seeds
# (corpus/<target>) and regressions (regressions/<target>) are inputs too.
# An input that crashes, leaks, times out or breaks a property is copied
# into regressions/<target>/, where make check replays it (and fails until
# the bug is fixed): commit it with the fix. Exits 1 if any target failed.
#
# Usage: run.sh BINDIR SECONDS TARGET...
# Environment: FUZZ_ARGS (more libFuzzer options, e.g. -jobs=2).
set -u
bindir=$(cd "$1" && pwd)
secs=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
work=$bindir/work
top=$(cd "$here/../.." && pwd)
failed=()
stats=()
# Leaks are checked after each input; LeakSanitizer's own check at exit
# sometimes fails to stop the threads and would report an empty input.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}leak_check_at_exit=0

# "key: value" from libFuzzer's -print_final_stats, or from its last
# status line ("#N DONE cov: C ft: F corp: U/S ...").
final_stat() {	# final_stat LOG NAME
	sed -n "s/^stat::$2: *//p" "$1" | tail -n1
}
status() {	# status LOG FIELD
	grep -E '^#[0-9]+' "$1" | tail -n1 |
		sed -n "s/.* $2: \([^ ]*\).*/\1/p"
}

for t in "$@"; do
	bin=$bindir/fuzz_$t
	corpus=$work/corpus/$t
	mkdir -p "$corpus" "$work/artifacts"
	art=$(mktemp -d "$work/artifacts/$t.XXXXXX")
	log=$work/$t.log
	dirs=("$corpus" "$here/corpus/$t")
	[ -d "$here/regressions/$t" ] && dirs+=("$here/regressions/$t")
	opts=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048
	      -max_len=4096 -close_fd_mask=1 -print_final_stats=1
	      -artifact_prefix="$art/")
	[ -f "$here/dict/$t.dict" ] && opts+=(-dict="$here/dict/$t.dict")
	echo "# fuzz: $t for ${secs}s (log: $log)"
	t0=$(date +%s)
	# shellcheck disable=SC2086 # FUZZ_ARGS is a list of options
	"$bin" "${opts[@]}" ${FUZZ_ARGS:-} "${dirs[@]}" >"$log" 2>&1
	rc=$?
	secs_run=$(($(date +%s) - t0))
	found=()
	for f in "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-*; do
		[ -e "$f" ] || continue
		mkdir -p "$here/regressions/$t"
		cp "$f" "$here/regressions/$t/"
		found+=("${f##*/}")
	done
	rmdir "$art" 2>/dev/null
	result=ok
	if ((${#found[@]})); then
		result="FAILED (${found[*]})"
		failed+=("$t")
		echo "# fuzz: $t FAILED: libFuzzer's report:"
		grep -E 'ERROR: |SUMMARY: |fuzz check failed|runtime error|^    #[0-9]+ ' "$log" |
			head -n 30 | sed 's/^/#   /'
		for f in "${found[@]}"; do
			echo "# fuzz: $t: input saved as ${here#"$top"/}/regressions/$t/$f"
			echo "#   reproduce: $bin $here/regressions/$t/$f"
		done
		echo "#   make check replays it until the bug is fixed; commit it with the fix"
	elif [ "$rc" != 0 ]; then
		result="FAILED (libFuzzer exited $rc, see $log)"
		failed+=("$t")
		tail -n 20 "$log" | sed 's/^/#   /'
	fi
	stats+=("$(printf '%-9s %5ss %12s %9s %6s %7s %7s  %s' "$t" "$secs_run" \
		"$(final_stat "$log" number_of_executed_units)" \
		"$(final_stat "$log" average_exec_per_sec)" \
		"$(status "$log" cov)" "$(status "$log" ft)" \
		"$(status "$log" corp | cut -d/ -f1)" "$result")")
done

printf '# %-9s %6s %12s %9s %6s %7s %7s  %s\n' target time execs exec/s cov ft corpus result
for s in "${stats[@]}"; do
	echo "# $s"
done
if ((${#failed[@]})); then
	echo "fuzz: FAILED: ${failed[*]}"
	exit 1
fi
echo "fuzz: $# targets, no crash"
