#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# guest-pkg-systemd.sh N PASS FAIL: the package guest's second half, run
# by systemd as the guest's init (PID 1) in the scratch root guest-pkg.sh
# prepared, from a unit of pkg-guest.target; N, PASS and FAIL are the
# counts guest-pkg.sh ended with. Checks, KTAP, appended to the guest's
# output: "systemctl start starvd" runs the packaged daemon with the
# packaged /etc/default/starvd, and "systemctl stop" leaves nothing. Then,
# on a machine with the stalld package guest-pkg.sh copied in (a
# stand-in: vm/pkg-guest.sh), starvd-stalld-compat replaces it, keeps its
# variables and, as a stalld package does, starts stalld.service: starvd
# as stalld in the unit's sandbox, which boosts a task starved by a
# real-time busy loop, logs it under the stalld name to the journal, each
# line once, and which starvctl sees running. stalld's package replaces
# the compat package back, and once both are purged nothing of either is
# left. Prints the guest's exit status for vm/run.sh and ends; the unit's
# SuccessAction= powers the guest off.
guest=${STARVD_VM_GUEST:?run by the unit guest-pkg.sh makes}
exec >>"$STARVD_VM_RESULTS/out" 2>&1
. selftests/kmod/guest-lib.sh
. selftests/kmod/guest-pkg-lib.sh
n=$1 pass=$2 fail=$3
finish() {
	echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
	dmesg >"$STARVD_VM_RESULTS/dmesg" 2>&1
	echo "STARVD-VM-RC=$((fail > 0))" >/dev/console
	exit 0
}
# is-active says "active" once the unit has started, "activating" before.
sd_active() {	# sd_active UNIT: UNIT is active
	[ "$(systemctl is-active "$1" 2>/dev/null)" = active ]
}
sd_stop() {	# sd_stop NAME: "systemctl stop NAME", and nothing of it left
	systemctl stop "$1" >/tmp/stop.log 2>&1
	st=$?
	sed 's/^/# stop: /' /tmp/stop.log
	[ $st = 0 ] && [ "$(systemctl is-active "$1")" = inactive ] &&
		[ "${spid:-0}" != 0 ] && [ ! -e "/run/$1" ] &&
		[ "$(cat /proc/sys/kernel/sched_rt_runtime_us)" = "$rt0" ] &&
		[ -z "$(cat "/sys/fs/cgroup/system.slice/$1.service/cgroup.procs" 2>/dev/null)" ]
	ok $? "systemctl stop $1: RT throttling back ($rt0), /run/$1 gone, no process left"
}
# sd_started UNIT STATEFILE: wait until UNIT's daemon wrote STATEFILE (it
# has started up); its main pid in spid.
sd_started() {
	tries=0
	until [ -e "$2" ]; do
		tries=$((tries + 1))
		[ $tries -lt 120 ] && [ "$(systemctl is-active "$1")" != failed ] || break
		sleep 1
	done
	spid=$(systemctl show -p MainPID --value "$1")
	systemctl status --no-pager "$1" 2>&1 | sed 's/^/# status: /'
}

# The test stays on CPU 0, and so do systemd's services (CPUAffinity=).
taskset -p 1 $$ >/dev/null
rt0=$(cat /proc/sys/kernel/sched_rt_runtime_us)
state=$(systemctl is-system-running 2>&1)
echo "# PID 1: $(cat /proc/1/comm), systemd $(systemctl --version | head -n1), $state"
[ "$(cat /proc/1/comm)" = systemd ] && [ "$(stat -L -c %i /proc/self/ns/pid)" = 4026531836 ]
ok $? "systemd runs the guest as its init, the test in the initial pid namespace"

# starvd.service, as "systemctl start starvd" runs it, the packaged
# /etc/default/starvd and the module loaded (guest-pkg.sh).
systemctl start starvd >/tmp/start.log 2>&1
st=$?
sed 's/^/# start: /' /tmp/start.log
sd_started starvd /run/starvd/state
starvctl status >/tmp/status 2>&1
sst=$?
sed 's/^/# status: /' /tmp/status
journalctl -u starvd --no-pager 2>&1 | tail -n 12 | sed 's/^/# journal: /'
[ $st = 0 ] && [ $sst = 0 ] && sd_active starvd && grep -q "running, pid $spid" /tmp/status &&
	[ "$(cat /proc/sys/kernel/sched_rt_runtime_us)" = -1 ]
ok $? "systemctl start starvd: active with the packaged config, RT throttling off, starvctl status sees it"
sd_stop starvd
modprobe -r starvd

# A machine running stalld, whose administrator set its threshold.
stalld_deb=$(echo /tmp/stalld_*.deb)
compat_deb=$(echo /tmp/starvd-stalld-compat_*.deb)
dpkg -i $stalld_deb >/tmp/dpkg.log 2>&1 &&
	sed -i 's/^THRESH=.*/THRESH="-t 5"/' /etc/default/stalld
ok $? "dpkg -i stalld (the stand-in); THRESH=\"-t 5\" in /etc/default/stalld"
sed 's/^/# dpkg: /' /tmp/dpkg.log
# What the compat package ships, to look for once it is purged.
dpkg-deb -c $compat_deb | sed -n 's|^[^d].* \./\([^ ]*\).*|/\1|p' >/tmp/compat.files

# --force-confold answers dpkg's question about the edited
# /etc/default/stalld as the administrator would: keep it. Its postinst
# (dh_installsystemd's) enables and starts stalld.service.
env DEBIAN_FRONTEND=noninteractive dpkg -i --force-confold \
	$compat_deb </dev/null >/tmp/dpkg.log 2>&1
st=$?
sed 's/^/# dpkg: /' /tmp/dpkg.log
[ $st = 0 ] && grep -q '^dpkg: yes, will remove stalld in favour of starvd-stalld-compat' /tmp/dpkg.log &&
	[ "$(dpkg-query -W -f='${db:Status-Status}' stalld)" = config-files ]
ok $? "dpkg -i starvd-stalld-compat removes stalld in favour of it"

owners=$(dpkg -S /usr/bin/stalld /usr/bin/throttlectl \
	/lib/systemd/system/stalld.service /etc/default/stalld | cut -d: -f1 | sort -u)
echo "# owners: $owners; /usr/bin/stalld -> $(readlink /usr/bin/stalld)"
[ "$owners" = starvd-stalld-compat ] && [ "$(readlink /usr/bin/stalld)" = starvd ] &&
	grep -q '^Description=Stall Monitor (starvd' /lib/systemd/system/stalld.service &&
	grep -q '^THRESH="-t 5"$' /etc/default/stalld
ok $? "stalld's files are the compat package's now, /etc/default/stalld as the administrator left it"

sd_started stalld /run/stalld/state
comm=$(cat /proc/"${spid:-0}"/comm 2>/dev/null)
echo "# MainPID $spid ($comm), /run/stalld: $(ls /run/stalld | tr '\n' ' ')"
sd_active stalld && [ "$comm" = stalld ] && [ "$(cat /run/stalld/stalld.pid)" = "$spid" ] &&
	[ "$(cat /proc/sys/kernel/sched_rt_runtime_us)" = -1 ]
ok $? "the compat package started stalld.service: starvd as stalld in /run/stalld, RT throttling off"

# The unit's sandbox is on the daemon: its cgroup, a mount namespace
# of its own (ProtectSystem=, PrivateTmp=), a seccomp filter.
cg=$(cat /proc/"${spid:-0}"/cgroup 2>/dev/null)
sec=$(sed -n 's/^Seccomp:[[:space:]]*//p' /proc/"${spid:-0}"/status 2>/dev/null)
echo "# cgroup $cg, Seccomp $sec"
[ "$cg" = 0::/system.slice/stalld.service ] && [ "$sec" = 2 ] &&
	[ "$(readlink /proc/$spid/ns/mnt)" != "$(readlink /proc/1/ns/mnt)" ]
ok $? "the daemon runs in stalld.service's sandbox (cgroup, mount namespace, seccomp)"

# A real starvation on CPU 1: a SCHED_FIFO 10 task queued behind a
# SCHED_FIFO 50 busy loop (RT throttling is off: the unit's
# ExecStartPre). Each is bounded by timeout(1), which stays on CPU 0; the
# victim's pid is that of the shell which execs it.
timeout 600 chrt -f 50 taskset -c 1 sh -c 'while :; do :; done' &
hog=$!
rm -f /tmp/victim.pid
timeout 600 sh -c 'echo $$ >/tmp/victim.pid
	exec chrt -f 10 taskset -c 1 sh -c "while :; do :; done"' &
victim_t=$!
tries=0
until [ -s /tmp/victim.pid ] || [ $tries -ge 100 ]; do
	tries=$((tries + 1))
	sleep 0.2
done
victim=$(cat /tmp/victim.pid)
boosted="stalld\[$spid\]: boosted pid $victim "
tries=0
until journalctl -u stalld --no-pager 2>/dev/null | grep -q "$boosted"; do
	tries=$((tries + 1))
	[ $tries -lt 180 ] || break
	sleep 1
done
journalctl -u stalld --no-pager >/tmp/journal 2>&1
grep "pid $victim " /tmp/journal | head -n 3 | sed 's/^/# /'
grep -q "$boosted" /tmp/journal
ok $? "a task starved behind a busy loop is boosted, and journalctl -u stalld shows it under the stalld name"
kill $hog $victim_t
wait $hog $victim_t 2>/dev/null

sed 's/^/# journal: /' /tmp/journal | grep -v ': boosted pid' | tail -n 15
# Each of the daemon's lines once, though both its standard error and
# syslog reach the journal (standard error's copy has the "stalld: " prefix).
twice=$(sed -n "s/^.* stalld\[$spid\]: \(stalld: \)\{0,1\}//p" /tmp/journal | sort | uniq -d)
echo "# in the journal twice: $twice"
grep -q "stalld\[$spid\]: starvd .*threshold 5\.000 s" /tmp/journal && [ -z "$twice" ]
ok $? "journalctl -u stalld: each line once, THRESH from /etc/default/stalld"

starvctl status >/tmp/status 2>&1
st=$?
sed 's/^/# status: /' /tmp/status
[ $st = 0 ] && grep -q "running, pid $spid" /tmp/status
ok $? "starvctl status sees stalld.service's daemon running"

sd_stop stalld

# apt installs stalld again, the way back: the compat package goes.
env DEBIAN_FRONTEND=noninteractive apt-get install -y \
	-o Dpkg::Options::=--force-confold $stalld_deb </dev/null >/tmp/apt.log 2>&1
st=$?
grep -v 'Reading database' /tmp/apt.log | sed 's/^/# apt: /'
owners=$(dpkg -S /usr/bin/stalld /usr/bin/throttlectl \
	/lib/systemd/system/stalld.service /etc/default/stalld | cut -d: -f1 | sort -u)
echo "# owners: $owners"
[ $st = 0 ] && [ "$(dpkg-query -W -f='${db:Status-Status}' stalld)" = installed ] &&
	[ "$(dpkg-query -W -f='${db:Status-Status}' starvd-stalld-compat)" = config-files ] &&
	[ "$owners" = stalld ] && [ ! -L /usr/bin/stalld ]
ok $? "apt-get install stalld removes starvd-stalld-compat and gets stalld's files back"

# Purged, nothing of either is left: no file of the compat package, and
# nothing named stalld in the scratch root's upper layer (where every
# file the packages, their scripts or the daemon made would be).
dpkg --purge stalld starvd-stalld-compat >/tmp/dpkg.log 2>&1
st=$?
sed 's/^/# dpkg: /' /tmp/dpkg.log
left=$(while read -r f; do
	[ ! -e "$f" ] && [ ! -L "$f" ] || echo "$f"
done </tmp/compat.files; find $upper -name '*stalld*')
echo "# left: $left"
[ $st = 0 ] && [ -z "$left" ] && [ ! -e /run/stalld ] &&
	! dpkg-query -W stalld starvd-stalld-compat >/dev/null 2>&1 &&
	[ -x /usr/bin/starvd ]
ok $? "dpkg --purge stalld starvd-stalld-compat leaves nothing of either, starvd in place"
finish
