#!/usr/bin/env python3
"""
floor_list.py - the files one collection cycle read, from an strace log, as
the list `bench_collect readlist` reads in a loop (the read(2) floor of the
same files).

    strace -f -y -qq -e trace=openat,readlinkat,getdents64 -o LOG \\
        bench_collect once ROOT
    python3 bench/floor_list.py LOG ROOT > LIST

One line per successful call, in the order the cycle made them:
  F path   a file opened (read to the end by the floor)
  D path   a directory listed with getdents64 (listed by the floor)
  L path   a link read with readlinkat
Paths are absolute: the directory the call was relative to (strace -y names
it) joined with the name given, so the floor walks the same path,
symlinks included.  Only paths under ROOT count (for ROOT "/": /proc, /sys
and /dev), so the libraries the process loads are not in the list; a path
under the traced process's own /proc/<pid>/ becomes /proc/self/, which the
floor's process then reads as its own.
"""
import re
import sys

CALL = re.compile(r'^(\d+)\s+(openat|readlinkat|getdents64)\((.*)\)\s+=\s+(-?\d+)(<[^>]*>)?')
DIRFD = re.compile(r'^(AT_FDCWD|\d+)<([^>]*)>,\s*"((?:[^"\\]|\\.)*)"(.*)$')
GETDENTS = re.compile(r'^(\d+)<([^>]*)>,')


def join(base, rel):
    if rel.startswith("/"):
        return rel
    return base.rstrip("/") + "/" + rel if base != "/" else "/" + rel


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: floor_list.py STRACE_LOG ROOT")
    log, root = sys.argv[1], sys.argv[2].rstrip("/") or "/"
    prefixes = ("/proc/", "/sys/", "/dev/") if root == "/" else (root + "/",)
    out = []
    opened = {}   # (pid, fd) -> a directory opened, not listed yet
    with open(log, errors="replace") as fh:
        for line in fh:
            m = CALL.match(line)
            if not m or int(m.group(4)) < 0:
                continue
            pid, call, args = m.group(1), m.group(2), m.group(3)
            if call == "getdents64":
                g = GETDENTS.match(args)
                # once per opening: a long listing takes several calls
                if not g or opened.pop((pid, g.group(1)), None) is None:
                    continue
                op, path = "D", g.group(2)
            else:
                d = DIRFD.match(args)
                if not d:
                    continue
                path = join(d.group(2), d.group(3).encode().decode("unicode_escape"))
                if call == "readlinkat":
                    op = "L"
                elif "O_DIRECTORY" in d.group(4) or "O_PATH" in d.group(4):
                    # listed if getdents64 follows; else a dirfd that only walks
                    opened[(pid, m.group(4))] = path
                    continue
                else:
                    op = "F"
            if root == "/":
                path = re.sub(r"^/proc/%s(/|$)" % pid, r"/proc/self\1", path)
            if not (path + "/").startswith(prefixes):
                continue
            out.append((op, path))
    for op, path in out:
        print(op, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
