#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# promtool.sh: the shipped Prometheus rules (contrib/prometheus) checked
# and unit-tested with Debian's promtool ($PROMTOOL, unpacked by
# selftests/Makefile), in KTAP. The last test breaks a copy of the rules
# (StarvdTaskStarving without its for:) and expects the unit tests
# to catch it: they can fail.
set -u
here=$(cd "$(dirname "$0")" && pwd)
rules=$here/../contrib/prometheus
promtool=${PROMTOOL:-promtool}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"
echo "1..3"
if ! "$promtool" --version >/dev/null 2>&1; then
	for i in 1 2 3; do
		echo "ok $i # SKIP no promtool at $promtool (make -C selftests fetches Debian's prometheus)"
	done
	echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:3 error:0"
	exit 0
fi
pass=0 fail=0
result() {	# n name status output
	if [ "$3" = 0 ]; then
		echo "ok $1 $2"
		pass=$((pass + 1))
	else
		sed 's/^/# /' <<<"$4"
		echo "not ok $1 $2"
		fail=$((fail + 1))
	fi
}

out=$("$promtool" check rules "$rules/starvd-rules.yml" 2>&1)
result 1 check_rules $? "$out"
out=$(cd "$rules" && "$promtool" test rules starvd-rules.test.yml 2>&1)
result 2 unit_tests $? "$out"
# A starving alert that fires at the first wait past the threshold,
# rescued or not: the tests must fail.
cp "$rules/starvd-rules.test.yml" "$tmp/"
sed -e '/alert: StarvdTaskStarving/,/for:/s/for: 30s/for: 0s/' \
	"$rules/starvd-rules.yml" > "$tmp/starvd-rules.yml"
if cmp -s "$rules/starvd-rules.yml" "$tmp/starvd-rules.yml"; then
	result 3 unit_tests_catch_a_broken_rule 1 "the sed found nothing to break in starvd-rules.yml"
else
	out=$(cd "$tmp" && "$promtool" test rules starvd-rules.test.yml 2>&1)
	st=$?
	result 3 unit_tests_catch_a_broken_rule $((st == 0)) \
		"promtool test rules passed on a broken copy:
$(diff "$rules/starvd-rules.yml" "$tmp/starvd-rules.yml")"
fi
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" = 0 ]
