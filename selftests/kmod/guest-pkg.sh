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
# modprobe loads it and the module answers the packaged starvctl. Then
# the guest is handed to systemd, booted as its init (PID 1) in the
# scratch root, where guest-pkg-systemd.sh goes on with the stalld
# package of STALLDDIR (a stand-in: vm/pkg-guest.sh). OVERLAY_KO: the
# guest kernel's overlay.ko (the initramfs lacks it).
debs=$1
overlay_ko=$2
stalld_dir=$3
kver=$(uname -r)
root=/tmp/pkgroot/merged
guest=${STARVD_VM_GUEST:?run inside a guest (vm/run.sh)}
. selftests/kmod/guest-lib.sh
. selftests/kmod/guest-pkg-lib.sh
finish() {
	echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
	exit $((fail > 0))
}
in_root() {
	chroot $root "$@"
}

echo "TAP version 13"
echo "1..$pkg_tests"
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

# A container image's policy-rc.d (exit 101: start no service) is not a
# machine's: removed in the overlay only, so that a package's postinst
# starts its service under systemd as on any Debian system.
rm -f $root/usr/sbin/policy-rc.d
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

# The rest runs under systemd: the host root's (252), the guest's init
# (PID 1) in the scratch root, which vm/initramfs-init execs once this
# script has ended (vm/guest.sh: /run/starvd-vm-handoff), into a target
# that wants guest-pkg-systemd.sh's unit only. Every unit the host's boot
# targets want is masked but the journal's; systemd and its services stay
# on CPU 0 (CPUAffinity=). The tree, the results share and the overlay's
# upper layer are mounted where that script finds them; it takes over
# the counts, appends to the same output, reports the guest's exit status
# and powers the guest off.
sd=/etc/systemd/system
mkdir -p $root/etc/systemd/system.conf.d $root$sd/pkg-guest.target.wants
printf '[Unit]\nDescription=the package guest: its test, nothing else\n' \
	>$root$sd/pkg-guest.target
printf '[Manager]\nCPUAffinity=0\nShowStatus=no\n' >$root/etc/systemd/system.conf.d/pkg-guest.conf
for u in $(cd $root && for t in sysinit sockets timers paths local-fs; do
	ls lib/systemd/system/$t.target.wants etc/systemd/system/$t.target.wants 2>/dev/null
done | grep -v ':$' | sort -u); do
	case $u in
	systemd-journald.service | systemd-journald.socket | systemd-journald-dev-log.socket) ;;
	*) ln -sf /dev/null $root$sd/$u ;;
	esac
done
mkdir -p "$root$PWD" $root$upper
mount --rbind "$PWD" "$root$PWD" &&
	mount --bind /tmp/pkgroot/upper $root$upper
ok $? "the tree, the results and the upper layer are seen in the scratch root"
[ $fail = 0 ] || finish
cat >$root$sd/pkg-guest-test.service <<UNIT
[Unit]
Description=the package guest's tests under systemd (guest-pkg-systemd.sh)
After=systemd-journald.service
SuccessAction=poweroff
FailureAction=poweroff

[Service]
Type=oneshot
WorkingDirectory=$PWD
Environment=STARVD_VM_GUEST=$guest STARVD_VM_RESULTS=$STARVD_VM_RESULTS HOME=/tmp
ExecStart=/bin/sh selftests/kmod/guest-pkg-systemd.sh $n $pass $fail
UNIT
ln -s ../pkg-guest-test.service $root$sd/pkg-guest.target.wants/
echo "$root /lib/systemd/systemd --system --unit=pkg-guest.target" \
	>/run/starvd-vm-handoff
echo "# handing the guest to systemd: guest-pkg-systemd.sh goes on"
