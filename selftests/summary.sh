#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# summary.sh RESULTS: one line per suite, then the closing line
# "N passed, N failed, N skipped"; exits 1 if anything failed.
# RESULTS holds "<suite> # Totals: pass:N fail:N xfail:N xpass:N skip:N error:N".
set -u
[ -s "$1" ] || { echo "# no test results in $1"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
echo "# === summary"
awk '{
	for (i = 1; i <= NF; i++) {
		split($i, kv, ":")
		if (kv[1] == "pass") p += kv[2]
		if (kv[1] == "fail" || kv[1] == "error") f += kv[2]
		if (kv[1] == "skip") s += kv[2]
	}
	printf "# %s\n", $0
} END {
	printf "%d passed, %d failed, %d skipped\n", p, f, s
	exit f > 0
}' "$1"
