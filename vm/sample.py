#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""vm/sample.py MONITOR-SOCKET KALLSYMS INTERVAL OUT

Where each vCPU of a qemu guest is, seen from outside the guest: every
INTERVAL seconds ask qemu's human monitor (HMP) for the registers of all
vCPUs and append one line to OUT: the host time, then for each vCPU its
RIP as symbol+offset and whether it is halted. The symbols are the
guest's own /proc/kallsyms, which vm/guest.sh copies to KALLSYMS once it
runs (the guest boots with nokaslr; Debian's System.map is a stub);
until then, and for user space, raw addresses. vm/run.sh starts it
when VM_SAMPLE is set. It sees what no tool inside the guest can: a vCPU
spinning with interrupts off, or one that qemu does not run at all.
Ends when qemu closes the socket.
"""
import bisect
import os
import re
import socket
import sys
import time


def load_map(path):
    addrs, names = [], []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                addrs.append(int(parts[0], 16))
                names.append(parts[2])
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


def symbolize(rip, addrs, names):
    if rip < 0xffff800000000000:
        return "user:%x" % rip
    i = bisect.bisect_right(addrs, rip) - 1
    if i < 0:
        return "%x" % rip
    return "%s+0x%x" % (names[i], rip - addrs[i])


def read_prompt(sock):
    buf = b""
    while not buf.endswith(b"(qemu) "):
        chunk = sock.recv(65536)
        if not chunk:
            raise EOFError
        buf += chunk
    return buf.decode(errors="replace")


def main():
    path, kallsyms, interval, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    addrs, names = [], []
    sock = socket.socket(socket.AF_UNIX)
    for _ in range(100):
        try:
            sock.connect(path)
            break
        except OSError:
            time.sleep(0.1)
    else:
        sys.exit("sample: cannot connect to qemu's monitor at %s: did qemu start? see the guest's console file" % path)
    cpu_re = re.compile(r"CPU#(\d+)(.*?)(?=CPU#|\Z)", re.S)
    with open(out, "a", buffering=1) as f:
        try:
            read_prompt(sock)
            while True:
                if not addrs and os.path.exists(kallsyms):
                    addrs, names = load_map(kallsyms)
                sock.sendall(b"info registers -a\n")
                text = read_prompt(sock)
                cols = []
                for m in cpu_re.finditer(text):
                    rip = re.search(r"RIP=([0-9a-f]+)", m.group(2))
                    hlt = re.search(r"HLT=(\d)", m.group(2))
                    if rip:
                        cols.append("cpu%s=%s%s" % (m.group(1),
                                    symbolize(int(rip.group(1), 16), addrs, names),
                                    "(hlt)" if hlt and hlt.group(1) == "1" else ""))
                f.write("%.3f %s\n" % (time.time(), " ".join(cols)))
                time.sleep(interval)
        except (EOFError, OSError):
            pass


if __name__ == "__main__":
    main()
