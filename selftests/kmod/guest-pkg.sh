#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# guest-pkg.sh DEBDIR OVERLAY_KO STALLDDIR: in a test guest (vm/run.sh;
# make check-pkg-vm), install the starvd, starvd-dkms and
# starvd-stalld-compat .debs of DEBDIR with dpkg into a scratch copy of
# the guest's root: an overlayfs with the read-only host root below and a
# tmpfs above, chrooted into, with a fresh /run. Checks, KTAP: dpkg
# installs starvd and starvd-dkms; starvd-dkms's postinst (DKMS's package
# hook) built and installed the module for the running guest kernel;
# modprobe loads it and the module answers the packaged starvctl; under
# systemd, booted in the scratch root as a container's init, "systemctl
# start starvd" runs the packaged daemon with the packaged
# /etc/default/starvd, and RT throttling is back after "systemctl stop".
# Then, on a machine running the stalld package of STALLDDIR (a stand-in:
# vm/pkg-guest.sh), starvd-stalld-compat replaces it and keeps its
# variables; stalld.service's command lines run starvd as stalld, which
# boosts a task starved by a real-time busy loop and logs it under the
# stalld name, and starvctl sees it running; then systemd runs
# stalld.service with its sandbox from "systemctl start stalld" to
# "systemctl poweroff"; stalld's package replaces the compat package
# back, and once both are purged nothing of either is left. OVERLAY_KO:
# the guest kernel's overlay.ko (the initramfs lacks it).
debs=$1
overlay_ko=$2
stalld_dir=$3
kver=$(uname -r)
root=/tmp/pkgroot/merged
guest=${STARVD_VM_GUEST:?run inside a guest (vm/run.sh)}
. selftests/kmod/guest-lib.sh
finish() {
	echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
	exit $((fail > 0))
}
in_root() {
	chroot $root "$@"
}

echo "TAP version 13"
echo "1..27"
echo "# guest kernel $kver; packages: $(cd "$debs" && echo *.deb)"
grep -qw overlay /proc/filesystems || insmod "$overlay_ko"
mkdir -p /tmp/pkgroot/upper /tmp/pkgroot/work $root
mount -t overlay overlay \
	-o lowerdir=/,upperdir=/tmp/pkgroot/upper,workdir=/tmp/pkgroot/work $root
ok $? "scratch root: overlayfs over the guest's root"
[ $fail = 0 ] || finish
# What udev would have made: dkms uses bash's <(...), i.e. /dev/fd.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
for m in proc sys dev; do
	mount --rbind /$m $root/$m
done
mount -t tmpfs tmpfs $root/run
# The guest machine's /boot has its own kernel only; the host's also lists
# the kernels of the other guests (and the RT one), for which DKMS's hook
# would build the module too ("the newest kernel"): minutes under TCG.
mount -t tmpfs tmpfs $root/boot
cp /boot/*-"$kver" $root/boot/ 2>/dev/null
mount -t tmpfs tmpfs $root/tmp
# A machine that never had starvd: the host's own DKMS registration
# (vm/dkms.sh, for every guest kernel) would make the package hook first
# remove the module from each of those kernels, a depmod each, a minute
# apiece under TCG; and its installed starvd.ko would stand in for the
# build this checks. Deleted in the overlay only (whiteouts in upper/).
rm -rf $root/var/lib/dkms/starvd $root/usr/src/starvd-* \
	$root/lib/modules/*/updates/dkms/starvd.ko*
cp "$debs"/starvd_*.deb "$debs"/starvd-dkms_*.deb \
	"$debs"/starvd-stalld-compat_*.deb "$stalld_dir"/stalld_*.deb $root/tmp/

# man-db's trigger would re-index every man page of the host under TCG
# for minutes: switched off in the scratch root, as container images do.
echo 'man-db man-db/auto-update boolean false' | in_root debconf-set-selections
t0=$(date +%s)
in_root env DEBIAN_FRONTEND=noninteractive \
	sh -c 'dpkg -i /tmp/starvd-dkms_*.deb /tmp/starvd_*.deb' >/tmp/dpkg.log 2>&1
ok $? "dpkg -i starvd-dkms starvd ($(($(date +%s) - t0)) s)"
sed 's/^/# dpkg: /' /tmp/dpkg.log

st=$(in_root dkms status -m starvd -k "$kver")
echo "# dkms status: $st"
case $st in
*": installed"*) ok 0 "DKMS's package hook built and installed the module for $kver" ;;
*) ok 1 "DKMS's package hook built and installed the module for $kver" ;;
esac

ko=$(in_root modinfo -n starvd 2>/dev/null)
vm=$(in_root modinfo -F vermagic starvd 2>/dev/null)
echo "# modinfo: $ko, vermagic $vm"
case "$ko $vm" in
/lib/modules/$kver/updates/dkms/starvd.ko*" $kver "*) ok 0 "the module is in updates/dkms of $kver, built for it" ;;
*) ok 1 "the module is in updates/dkms of $kver, built for it" ;;
esac
in_root dpkg -S "$ko" >/dev/null 2>&1
[ $? != 0 ]
ok $? "the module is DKMS's build output, not a file of any package"

in_root modprobe starvd && grep -q '^starvd ' /proc/modules
ok $? "modprobe starvd"
in_root /usr/bin/starvctl -b netlink info >/tmp/info 2>&1
ok $? "the packaged starvctl reads the module ($(head -n1 /tmp/info))"

# Real systemd: the host root's (252), booted in the scratch root as a
# container's init, its own pid, mount and cgroup namespaces (systemd
# --system runs as PID 1 only), with its own /proc, /run, /tmp and
# cgroup2, into a target that wants nothing; every unit the host's boot
# targets want is masked but the journal's. systemd and its services stay
# on CPU 0 (CPUAffinity=). The container's files are under
# $sroot (/proc/PID/root): its /run is not the scratch root's.
sd=/etc/systemd/system
mkdir -p $root$sd/system.conf.d
printf '[Unit]\nDescription=the package guest: nothing but what is started\n' \
	>$root$sd/pkg-guest.target
printf '[Manager]\nCPUAffinity=0\nShowStatus=no\n' >$root$sd/system.conf.d/pkg-guest.conf
for u in $(cd $root && for t in sysinit sockets timers paths local-fs; do
	ls lib/systemd/system/$t.target.wants etc/systemd/system/$t.target.wants 2>/dev/null
done | grep -v ':$' | sort -u); do
	case $u in
	systemd-journald.service | systemd-journald.socket | systemd-journald-dev-log.socket) ;;
	*) ln -sf /dev/null $root$sd/$u ;;
	esac
done
cat >/tmp/sd-init.sh <<EOS
mount -t proc proc $root/proc &&
mount -t cgroup2 cgroup2 $root/sys/fs/cgroup &&
mount -t tmpfs -o mode=0755 tmpfs $root/run &&
mount -t tmpfs tmpfs $root/tmp &&
exec chroot $root env -i container=starvd-pkg-guest /lib/systemd/systemd --system --unit=pkg-guest.target
EOS
mkdir -p /tmp/cg
in_sd() {	# in_sd CMD...: CMD in the container, as its own command would run
	nsenter -t "$sdpid" -a -r -w "$@"
}
# is-active says "active" once systemd is up (its exit status alone
# does not tell: before, systemctl finds no systemd to ask).
sd_active() {	# sd_active UNIT: UNIT is active in the container
	[ "$(in_sd systemctl is-active "$1" 2>/dev/null)" = active ]
}
sd_boot() {	# sets container (unshare's pid), sdpid, sroot, up (0: booted)
	mount -t cgroup2 cgroup2 /tmp/cg && mkdir -p /tmp/cg/pkg-guest
	tb=$(date +%s)
	sh -c 'echo $$ >/tmp/cg/pkg-guest/cgroup.procs &&
		exec unshare --mount --pid --cgroup --fork --kill-child sh /tmp/sd-init.sh' \
		>/tmp/systemd.log 2>&1 </dev/null &
	container=$!
	tries=0
	sdpid=
	until [ -n "$sdpid" ] || [ $tries -ge 50 ]; do
		tries=$((tries + 1))
		sleep 0.2
		sdpid=$(cut -d' ' -f1 /proc/$container/task/$container/children 2>/dev/null)
	done
	sroot=/proc/$sdpid/root
	tries=0
	until sd_active pkg-guest.target; do
		tries=$((tries + 1))
		[ $tries -lt 120 ] && kill -0 $container 2>/dev/null || break
		sleep 1
	done
	sd_active pkg-guest.target
	up=$?
	ok $up "systemd boots in the scratch root as a container's init (pid $sdpid, in $(($(date +%s) - tb)) s)"
	# systemd itself writes to the console (vm/run.sh keeps it); what
	# failed before it ran, here.
	[ $up = 0 ] || sed 's/^/# container: /' /tmp/systemd.log
}
sd_stop() {	# sd_stop NAME: "systemctl stop NAME", and nothing of it left
	in_sd systemctl stop "$1" >/tmp/stop.log 2>&1
	st=$?
	sed 's/^/# stop: /' /tmp/stop.log
	[ $st = 0 ] && [ "$(in_sd systemctl is-active "$1")" = inactive ] &&
		[ "${spid:-0}" != 0 ] && [ ! -e "$sroot/run/$1" ] &&
		[ "$(cat /proc/sys/kernel/sched_rt_runtime_us)" = "$rt0" ] &&
		[ -z "$(cat "$sroot/sys/fs/cgroup/system.slice/$1.service/cgroup.procs" 2>/dev/null)" ]
	ok $? "systemctl stop $1: RT throttling back ($rt0), /run/$1 gone, no process left"
}
sd_poweroff() {
	in_sd systemctl poweroff >/dev/null 2>&1
	tries=0
	while kill -0 $container 2>/dev/null && [ $tries -lt 120 ]; do
		tries=$((tries + 1))
		sleep 1
	done
	# Still there: no clean shutdown; unshare --kill-child takes it down.
	! kill -0 $container 2>/dev/null
	down=$?
	[ $down = 0 ] || kill $container
	wait $container
	[ $up = 0 ] && [ $down = 0 ] && grep -q '^populated 0$' /tmp/cg/pkg-guest/cgroup.events &&
		find /tmp/cg/pkg-guest -depth -type d -exec rmdir {} + &&
		[ ! -e /tmp/cg/pkg-guest ]
	ok $? "systemctl poweroff: systemd exits, no process of the container left"
	umount /tmp/cg
}

# starvd.service, as "systemctl start starvd" runs it, the packaged
# /etc/default/starvd and the module loaded.
rt0=$(cat /proc/sys/kernel/sched_rt_runtime_us)
sd_boot
in_sd systemctl start starvd >/tmp/start.log 2>&1
st=$?
sed 's/^/# start: /' /tmp/start.log
# Ready when starvctl status answers (start-up under TCG takes a while).
tries=0
until in_sd starvctl status >/tmp/status 2>&1; do
	tries=$((tries + 1))
	[ $tries -lt 120 ] && sd_active starvd || break
	sleep 1
done
in_sd starvctl status >/tmp/status 2>&1
sst=$?
sed 's/^/# status: /' /tmp/status
spid=$(in_sd systemctl show -p MainPID --value starvd)
in_sd journalctl -u starvd --no-pager 2>&1 | tail -n 12 | sed 's/^/# journal: /'
[ $st = 0 ] && [ $sst = 0 ] && sd_active starvd && grep -q "running, pid $spid" /tmp/status &&
	[ "$(cat /proc/sys/kernel/sched_rt_runtime_us)" = -1 ]
ok $? "systemctl start starvd: active with the packaged config, RT throttling off, starvctl status sees it"
sd_stop starvd
sd_poweroff
in_root modprobe -r starvd

# A unit's command lines, as systemd would run them without sandboxing:
# their $VARS from the unit's EnvironmentFile= files, "+" dropped.
cat >$root/tmp/unit.sh <<'EOS'
unit=$1 what=$2
set -a
for f in $(sed -n 's/^EnvironmentFile=-\{0,1\}//p' $unit); do
	[ ! -r "$f" ] || . "$f"
done
set +a
sed -n "s/^$what=+\{0,1\}//p" $unit | while read -r line; do
	echo "# $what: $line"
	eval "$line" || exit 1
done
EOS

# A machine running stalld, whose administrator set its threshold.
# The packages' paths in the scratch root, named outside it.
stalld_deb=/tmp/$(cd $root/tmp && echo stalld_*.deb)
compat_deb=/tmp/$(cd $root/tmp && echo starvd-stalld-compat_*.deb)
in_root dpkg -i $stalld_deb >/tmp/dpkg.log 2>&1 &&
	sed -i 's/^THRESH=.*/THRESH="-t 5"/' $root/etc/default/stalld
ok $? "dpkg -i stalld (the stand-in); THRESH=\"-t 5\" in /etc/default/stalld"
sed 's/^/# dpkg: /' /tmp/dpkg.log
# What the compat package ships, to look for once it is purged.
dpkg-deb -c $root$compat_deb |
	sed -n 's|^[^d].* \./\([^ ]*\).*|/\1|p' >/tmp/compat.files

# --force-confold answers dpkg's question about the edited
# /etc/default/stalld as the administrator would: keep it.
in_root env DEBIAN_FRONTEND=noninteractive dpkg -i --force-confold \
	$compat_deb </dev/null >/tmp/dpkg.log 2>&1
st=$?
sed 's/^/# dpkg: /' /tmp/dpkg.log
[ $st = 0 ] && grep -q '^dpkg: yes, will remove stalld in favour of starvd-stalld-compat' /tmp/dpkg.log &&
	[ "$(in_root dpkg-query -W -f='${db:Status-Status}' stalld)" = config-files ]
ok $? "dpkg -i starvd-stalld-compat removes stalld in favour of it"

owners=$(in_root dpkg -S /usr/bin/stalld /usr/bin/throttlectl \
	/lib/systemd/system/stalld.service /etc/default/stalld | cut -d: -f1 | sort -u)
echo "# owners: $owners; /usr/bin/stalld -> $(readlink $root/usr/bin/stalld)"
[ "$owners" = starvd-stalld-compat ] && [ "$(readlink $root/usr/bin/stalld)" = starvd ] &&
	grep -q '^Description=Stall Monitor (starvd' $root/lib/systemd/system/stalld.service &&
	grep -q '^THRESH="-t 5"$' $root/etc/default/stalld
ok $? "stalld's files are the compat package's now, /etc/default/stalld as the administrator left it"

# stalld.service, as systemd starts it: RuntimeDirectory=, ExecStartPre,
# ExecStart. Not under the container's systemd: starvd acts on the thread
# ids of the initial pid namespace, which name no task in the container's.
# The test itself stays on CPU 0, and so does the daemon.
unit=/lib/systemd/system/stalld.service
taskset -p 1 $$ >/dev/null
# The unit may log to syslog (--log_syslog): /dev/log is read into
# /tmp/syslog as the journal would read it, and stderr into daemon.log.
rm -f /dev/log
python3 -c 'import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
f = open("/tmp/syslog", "ab", 0)
while True:
	f.write(s.recv(8192) + b"\n")' &
syslogd=$!
mkdir -m 0700 -p $root/run/stalld
in_root sh /tmp/unit.sh $unit ExecStartPre
in_root sh /tmp/unit.sh $unit ExecStart >/tmp/daemon.log 2>&1 &
bg=$!
tries=0
until [ -e $root/run/stalld/state ]; do
	tries=$((tries + 1))
	[ $tries -lt 120 ] && kill -0 $bg 2>/dev/null || break
	sleep 1
done
pid=$(cat $root/run/stalld/stalld.pid 2>/dev/null)
comm=$(cat /proc/"${pid:-0}"/comm 2>/dev/null)
echo "# pid $pid ($comm), /run/stalld: $(ls $root/run/stalld | tr '\n' ' ')"
[ -e $root/run/stalld/state ] && [ "$comm" = stalld ] &&
	[ "$(cat /proc/sys/kernel/sched_rt_runtime_us)" = -1 ]
ok $? "stalld.service's ExecStartPre and ExecStart run starvd as stalld, in /run/stalld"

# A real starvation on CPU 1: a SCHED_FIFO 10 task queued behind a
# SCHED_FIFO 50 busy loop (RT throttling is off: ExecStartPre). Each is
# bounded by timeout(1), which stays on CPU 0; the victim's pid is that
# of the shell which execs it.
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
tries=0
boosted="stalld[][0-9]*: boosted pid $victim "
until cat /tmp/daemon.log /tmp/syslog 2>/dev/null | grep -q "$boosted"; do
	tries=$((tries + 1))
	[ $tries -lt 180 ] || break
	sleep 1
done
cat /tmp/daemon.log /tmp/syslog 2>/dev/null | grep "pid $victim " | head -n 3 | sed 's/^/# /'
cat /tmp/daemon.log /tmp/syslog 2>/dev/null | grep -q "$boosted"
ok $? "a task starved behind a busy loop is boosted, and logged under the stalld name"

# starvctl finds the daemon's state in /run/stalld (no /run/starvd).
in_root /usr/bin/starvctl status >/tmp/status 2>&1
st=$?
sed 's/^/# status: /' /tmp/status
[ $st = 0 ] && grep -q "running, pid $pid" /tmp/status
ok $? "starvctl status sees the daemon running as stalld"

kill $hog $victim_t
wait $hog $victim_t 2>/dev/null
[ -z "$pid" ] || kill $pid
wait $bg
sed 's/^/# daemon: /' /tmp/daemon.log | grep -v ': stalld: boosted pid' | tail -n 20
in_root sh /tmp/unit.sh $unit ExecStopPost
kill $syslogd
wait $syslogd 2>/dev/null
rm -f /dev/log
# No file: no state, pidfile, saved RT runtime or boost journal entry
# (its directory stays); only the episodes kept for starvctl advise,
# meant to outlive a restart (RuntimeDirectoryPreserve=restart). systemd
# then removes the RuntimeDirectory=, them with it.
left=$(cd $root/run/stalld &&
	find . ! -type d ! -name episodes ! -name episodes.old)
echo "# left in /run/stalld: $(cd $root/run/stalld && find . -mindepth 1 | tr '\n' ' ')"
[ "$(cat /proc/sys/kernel/sched_rt_runtime_us)" = "$rt0" ] && [ -z "$left" ] &&
	rm -r $root/run/stalld
ok $? "stopped: RT throttling back ($rt0), no file of the daemon's left in /run/stalld"

# The same unit under systemd, as "systemctl start stalld" runs it.
sd_boot
in_sd systemctl start stalld >/tmp/start.log 2>&1
st=$?
sed 's/^/# start: /' /tmp/start.log
tries=0
until [ -e $sroot/run/stalld/state ]; do
	tries=$((tries + 1))
	[ $tries -lt 120 ] && sd_active stalld || break
	sleep 1
done
spid=$(in_sd systemctl show -p MainPID --value stalld)
comm=$(cat $sroot/proc/"${spid:-0}"/comm 2>/dev/null)
in_sd systemctl status --no-pager stalld 2>&1 | sed 's/^/# status: /'
echo "# MainPID $spid ($comm), /run/stalld: $(ls $sroot/run/stalld | tr '\n' ' ')"
[ $st = 0 ] && sd_active stalld && [ "$comm" = stalld ] &&
	[ -e $sroot/run/stalld/state ] && [ "$(cat $sroot/run/stalld/stalld.pid)" = "$spid" ] &&
	[ "$(cat /proc/sys/kernel/sched_rt_runtime_us)" = -1 ]
ok $? "systemctl start stalld: active, starvd as stalld in /run/stalld, RT throttling off"

# The unit's sandbox is on the daemon: its cgroup, a mount namespace
# of its own (ProtectSystem=, PrivateTmp=), a seccomp filter.
cg=$(in_sd cat /proc/"${spid:-0}"/cgroup 2>/dev/null)
sec=$(sed -n 's/^Seccomp:[[:space:]]*//p' $sroot/proc/"${spid:-0}"/status 2>/dev/null)
echo "# cgroup $cg, Seccomp $sec"
[ "$cg" = 0::/system.slice/stalld.service ] && [ "$sec" = 2 ] &&
	[ "$(readlink $sroot/proc/$spid/ns/mnt)" != "$(readlink $sroot/proc/1/ns/mnt)" ]
ok $? "the daemon runs in stalld.service's sandbox (cgroup, mount namespace, seccomp)"

in_sd journalctl -u stalld --no-pager >/tmp/journal 2>&1
sed 's/^/# journal: /' /tmp/journal | tail -n 15
# Each of the daemon's lines once, though both its standard error and
# syslog reach the journal (standard error's copy has the "stalld: " prefix).
twice=$(sed -n "s/^.* stalld\[$spid\]: \(stalld: \)\{0,1\}//p" /tmp/journal | sort | uniq -d)
echo "# in the journal twice: $twice"
grep -q "stalld\[$spid\]: starvd .*threshold 5\.000 s" /tmp/journal && [ -z "$twice" ]
ok $? "journalctl -u stalld: each line once, under the stalld name, THRESH from /etc/default/stalld"

in_sd starvctl status >/tmp/status 2>&1
st=$?
sed 's/^/# status: /' /tmp/status
[ $st = 0 ] && grep -q "running, pid $spid" /tmp/status
ok $? "starvctl status sees stalld.service's daemon running"

sd_stop stalld

sd_poweroff
taskset -p 3 $$ >/dev/null

# apt installs stalld again, the way back: the compat package goes.
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y \
	-o Dpkg::Options::=--force-confold $stalld_deb </dev/null >/tmp/apt.log 2>&1
st=$?
grep -v 'Reading database' /tmp/apt.log | sed 's/^/# apt: /'
owners=$(in_root dpkg -S /usr/bin/stalld /usr/bin/throttlectl \
	/lib/systemd/system/stalld.service /etc/default/stalld | cut -d: -f1 | sort -u)
echo "# owners: $owners"
[ $st = 0 ] && [ "$(in_root dpkg-query -W -f='${db:Status-Status}' stalld)" = installed ] &&
	[ "$(in_root dpkg-query -W -f='${db:Status-Status}' starvd-stalld-compat)" = config-files ] &&
	[ "$owners" = stalld ] && [ ! -L $root/usr/bin/stalld ]
ok $? "apt-get install stalld removes starvd-stalld-compat and gets stalld's files back"

# Purged, nothing of either is left: no file of the compat package, and
# nothing named stalld in the scratch root's upper layer (where every
# file the packages, their scripts or the daemon made would be).
in_root dpkg --purge stalld starvd-stalld-compat >/tmp/dpkg.log 2>&1
st=$?
sed 's/^/# dpkg: /' /tmp/dpkg.log
left=$(while read -r f; do
	[ ! -e "$root$f" ] && [ ! -L "$root$f" ] || echo "$f"
done </tmp/compat.files; find /tmp/pkgroot/upper -name '*stalld*')
echo "# left: $left"
[ $st = 0 ] && [ -z "$left" ] && [ ! -e $root/run/stalld ] &&
	! in_root dpkg-query -W stalld starvd-stalld-compat >/dev/null 2>&1 &&
	[ -x $root/usr/bin/starvd ]
ok $? "dpkg --purge stalld starvd-stalld-compat leaves nothing of either, starvd in place"
finish
