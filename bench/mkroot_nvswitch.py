#!/usr/bin/env python3
"""mkroot_nvswitch.py ROOT: turns a root made by mkroot_procs.py into an HGX
board's: four NVSwitch functions on the PCI bus (vendor 0x10de, class
0x068000), nv-fabricmanager running (a process that sorts last), and its log
/var/log/fabricmanager.log of 1.3 MB, as the daemon writes it over weeks:
INFO lines in the shapes of the real ones in tests/unit/test_fabric.c
(tests/offline/real/MANIFEST.md names their sources), with an error now and
then, all older than the look-back of a day.  What the fabric collector
reads on the nodes that have a fabric; bench/run.sh times the tiered cycle
on it.
"""
import os
import re
import shutil
import sys

INFO = [
    "[INFO] [tid 1803] Received an inband message:  Message header details: magic Id:adbc request "
    "Id:1fdba18d7da4ef9e status:0 type:4 length:14",
    "[INFO] [tid 1803] Sending inband response message:  Message header details: magic Id:adbc request "
    "Id:1fdba18d7da4ef9e status:0 type:5 length:24",
    "[INFO] [tid 1803] Team release request: Team Handle:99c9f23d49236386 Flags:0",
    "[INFO] [tid 841] Successfully configured all the available NVSwitches to route GPU NVLink traffic.",
]
ERROR = "[ERROR] [tid 841] detected NVSwitch non-fatal error 12028 on fid 0 on NVSwitch pci bus id " \
        "00000000:86:00.0 physical id 3 port 61"
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.exit("usage: mkroot_nvswitch.py ROOT (made by mkroot_procs.py)")
    root = sys.argv[1]
    devs = os.path.join(root, "sys/bus/pci/devices")
    for i in range(4):
        bdf = "0000:%02x:00.0" % (0x05 + i)
        d = os.path.join(root, "sys/devices/pci0000:00", bdf)
        os.makedirs(d, exist_ok=True)
        for name, text in (("vendor", "0x10de\n"), ("class", "0x068000\n")):
            with open(os.path.join(d, name), "w") as fh:
                fh.write(text)
        os.symlink("../../../devices/pci0000:00/" + bdf, os.path.join(devs, bdf))
    # nv-fabricmanager: a copy of a service's files, the last pid of all
    proc = os.path.join(root, "proc")
    pids = sorted(int(p) for p in os.listdir(proc) if p.isdigit())
    src = next(p for p in pids if open(os.path.join(proc, str(p), "comm")).read().strip() == "sshd")
    new = pids[-1] + 7
    shutil.copytree(os.path.join(proc, str(src)), os.path.join(proc, str(new)), symlinks=True)
    with open(os.path.join(proc, str(new), "comm"), "w") as fh:
        fh.write("nv-fabricmanage\n")
    with open(os.path.join(proc, str(new), "stat")) as fh:
        stat = fh.read()
    with open(os.path.join(proc, str(new), "stat"), "w") as fh:
        fh.write(re.sub(r"^\d+ \([^)]*\)", "%d (nv-fabricmanage)" % new, stat))
    with open(os.path.join(proc, str(new), "cmdline"), "w") as fh:
        fh.write("/usr/bin/nv-fabricmanager\0-c\0/usr/share/nvidia/nvswitch/fabricmanager.cfg\0")
    lines, n = [], 0
    while sum(len(x) + 1 for x in lines) < 1300000:
        day, sec = 1 + (n // 400) % 28, n % 86400
        stamp = "[%s %02d 2025 %02d:%02d:%02d] " % (MONTHS[(n // 11200) % 12], day, sec // 3600, sec // 60 % 60,
                                                    sec % 60)
        lines.append(stamp + (ERROR if n % 997 == 0 else INFO[n % len(INFO)]))
        n += 1
    os.makedirs(os.path.join(root, "var/log"), exist_ok=True)
    with open(os.path.join(root, "var/log/fabricmanager.log"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("mkroot_nvswitch: %s: 4 NVSwitches, nv-fabricmanager as pid %d, %d log lines" % (root, new, len(lines)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
