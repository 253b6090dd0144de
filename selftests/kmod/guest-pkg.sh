#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# guest-pkg.sh DEBDIR OVERLAY_KO: in a test guest (vm/run.sh; make
# check-pkg-vm), install the starvd and starvd-dkms .debs of DEBDIR with
# dpkg into a scratch copy of the guest's root: an overlayfs with the
# read-only host root below and a tmpfs above, chrooted into, with a
# fresh /run (no systemd there, as in the guest). Checks, KTAP: dpkg
# installs both; starvd-dkms's postinst (DKMS's package hook) built and
# installed the module for the running guest kernel; modprobe loads it and
# the module answers the packaged starvctl; the packaged daemon runs from
# the packaged unit's command lines (ExecStartPre, ExecStart, ExecStopPost)
# with the packaged /etc/default/starvd, and RT throttling is back after.
# OVERLAY_KO: the guest kernel's overlay.ko (the initramfs lacks it).
debs=$1
overlay_ko=$2
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
echo "1..9"
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
cp "$debs"/starvd_*.deb "$debs"/starvd-dkms_*.deb $root/tmp/

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

# The unit's command lines, as systemd would run them without sandboxing:
# its $VARS from EnvironmentFile=/etc/default/starvd, "+" dropped.
unit=/lib/systemd/system/starvd.service
cat >$root/tmp/unit.sh <<'EOS'
set -a
. /etc/default/starvd
set +a
unit=$1 what=$2
sed -n "s/^$what=+\{0,1\}//p" $unit | while read -r line; do
	echo "# $what: $line"
	eval "$line" || exit 1
done
EOS
rt0=$(cat /proc/sys/kernel/sched_rt_runtime_us)
mkdir -m 0700 -p $root/run/starvd
in_root sh /tmp/unit.sh $unit ExecStartPre
rt1=$(cat /proc/sys/kernel/sched_rt_runtime_us)
in_root sh /tmp/unit.sh $unit ExecStart >/tmp/daemon.log 2>&1 &
bg=$!
# Ready when starvctl status answers (start-up under TCG takes a while).
tries=0
until in_root /usr/bin/starvctl status >/tmp/status 2>&1; do
	tries=$((tries + 1))
	[ $tries -lt 120 ] && kill -0 $bg 2>/dev/null || break
	sleep 1
done
in_root /usr/bin/starvctl status >/tmp/status 2>&1
st=$?
sed 's/^/# status: /' /tmp/status
pid=$(pidof starvd)
[ $st = 0 ] && [ -n "$pid" ] && [ "$rt1" = -1 ]
ok $? "the packaged unit's ExecStartPre and ExecStart run the daemon with the packaged config"
[ -z "$pid" ] || kill $pid
wait
sed 's/^/# daemon: /' /tmp/daemon.log
in_root sh /tmp/unit.sh $unit ExecStopPost
[ "$(cat /proc/sys/kernel/sched_rt_runtime_us)" = "$rt0" ]
ok $? "ExecStopPost restored kernel.sched_rt_runtime_us ($rt0)"
in_root modprobe -r starvd
finish
