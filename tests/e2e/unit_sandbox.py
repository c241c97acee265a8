#!/usr/bin/python3
"""tests/e2e/unit_sandbox.py - runs a command under the sandbox a systemd
unit file describes, without systemd (this machine's PID 1 is not systemd,
so systemd-run cannot): the unit file is the one source of truth, read here
property by property.  Used by tests/e2e/unit_sandbox.sh; run as root.

  unit_sandbox.py [--level full|user|nocaps] UNIT -- COMMAND [ARG...]

  full    everything below (the unit as systemd would run it)
  user    only the user, its capabilities and no_new_privs (the
          "unprivileged but capable" baseline: what the sandbox must not cost)
  nocaps  only the user (what the capabilities buy)

Reproduced from [Service]:
  DynamicUser=/User=       a uid and gid of the dynamic range (61184-65519)
                           that no account has, no supplementary groups
  AmbientCapabilities=, CapabilityBoundingSet=, NoNewPrivileges=
                           setpriv --inh-caps/--ambient-caps/--bounding-set
                           --no-new-privs
  ProtectSystem=strict     every mount read-only but /dev, /proc and /sys
  ProtectHome=yes|read-only|tmpfs   /home, /root, /run/user
  ReadOnlyPaths=           read-only, recursively (mount_setattr)
  InaccessiblePaths=       a mode-0000 node bound over each (as systemd's
                           /run/systemd/inaccessible/*); "-" ignores a missing one
  PrivateTmp=yes           a fresh tmpfs on /tmp and /var/tmp
  ProtectKernelTunables=, ProtectControlGroups=   /proc/sys, /sys, /sys/fs/cgroup read-only
  SystemCallFilter=, SystemCallErrorNumber=   a seccomp allow list, groups
                           expanded by `systemd-analyze syscall-filter` (systemd's
                           own tables), default action the errno or kill
  RestrictAddressFamilies= socket(2) of another family: EAFNOSUPPORT
  RestrictNamespaces=yes   setns(2), unshare(2)/clone(2) with CLONE_NEW*: EPERM;
                           clone3(2): ENOSYS (as systemd)
  LimitNOFILE=N            the soft and hard RLIMIT_NOFILE, both N (as
                           systemd sets them for one value)
Not reproduced (named in NOT_HERE; the device cgroup, resource limits and
flags that do not change what the service can read or write); any other
property is an error, so the test learns of a new one.
"""
import ctypes
import errno
import os
import re
import resource
import socket
import subprocess
import sys
import tempfile

HANDLED = {
    "DynamicUser", "User", "AmbientCapabilities", "CapabilityBoundingSet", "NoNewPrivileges",
    "ProtectSystem", "ProtectHome", "ReadOnlyPaths", "InaccessiblePaths", "PrivateTmp",
    "ProtectKernelTunables", "ProtectControlGroups", "SystemCallFilter", "SystemCallErrorNumber",
    "RestrictAddressFamilies", "RestrictNamespaces", "LimitNOFILE",
}
NOT_HERE = {
    "PrivateDevices", "DeviceAllow", "ProtectKernelModules", "ProtectClock", "ProtectHostname",
    "RestrictRealtime", "RestrictSUIDSGID", "LockPersonality", "SystemCallArchitectures",
    "MemoryMax", "CPUQuota", "TasksMax",
}
IGNORED = {"Type", "ExecStart", "Restart", "RestartSec"}

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18
AT_FDCWD, AT_RECURSIVE, MOUNT_ATTR_RDONLY = -100, 0x8000, 1
SYS_mount_setattr = 442


def die(msg):
    print("unit_sandbox: " + msg, file=sys.stderr)
    sys.exit(2)


def parse(path):
    """[Service] properties: name -> list of values (an empty one resets)."""
    props, section = {}, None
    for raw in open(path, encoding="utf-8"):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line
            continue
        if section != "[Service]":
            continue
        k, _, v = line.partition("=")
        k, v = k.strip(), v.strip()
        if k not in HANDLED | NOT_HERE | IGNORED:
            die(f"{path}: {k}= is not reproduced here: teach tests/e2e/unit_sandbox.py")
        if v == "":
            props[k] = []
        else:
            props.setdefault(k, []).append(v)
    return props


def words(props, key):
    return [w for v in props.get(key, []) for w in v.split()]


def yes(props, key):
    v = props.get(key, ["no"])[-1]
    return v.lower() in ("yes", "true", "1", "on")


def paths(props, key, extra=()):
    """The paths of key (and extra) that exist; a missing one is an error unless "-" marks it optional."""
    for p in list(words(props, key)) + list(extra):
        opt = p.startswith("-")
        p = p.lstrip("-+")
        if os.path.lexists(p):
            yield p
        elif not opt:
            die(f"{key}={p}: no such path")


def sys_mount(src, target, fstype, flags, data=None):
    if libc.mount(src and src.encode(), target.encode(), fstype and fstype.encode(), ctypes.c_ulong(flags),
                  data and data.encode()) != 0:
        e = ctypes.get_errno()
        die(f"mount {src} {target}: {os.strerror(e)}")


class MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def setattr_ro(path, flags):
    a = MountAttr(MOUNT_ATTR_RDONLY, 0, 0, 0)
    if libc.syscall(SYS_mount_setattr, AT_FDCWD, path.encode(), flags, ctypes.byref(a), ctypes.sizeof(a)) == 0:
        return
    e = ctypes.get_errno()
    if e != errno.ENOSYS:
        die(f"mount_setattr {path} read-only: {os.strerror(e)}")
    # before Linux 5.12: a read-only remount of each mount (and, recursive, those below)
    for t in [path] + ([m for m in mounts() if m.startswith(path.rstrip("/") + "/")] if flags & AT_RECURSIVE else []):
        sys_mount(None, t, None, MS_REMOUNT | MS_BIND | MS_RDONLY)


def readonly(path):
    """Makes path (bound onto itself first when no mount point) read-only, with what is mounted below it."""
    if not os.path.ismount(path):
        sys_mount(path, path, None, MS_BIND | MS_REC)
    setattr_ro(path, AT_RECURSIVE)


def mounts():
    out = []
    for line in open("/proc/self/mountinfo", encoding="utf-8"):
        t = line.split()[4]
        out.append(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), t))
    return out


def under(p, roots):
    return any(p == r or p.startswith(r.rstrip("/") + "/") for r in roots)


def sandbox_mounts(props):
    if libc.unshare(CLONE_NEWNS) != 0:
        die("unshare(CLONE_NEWNS): " + os.strerror(ctypes.get_errno()))
    sys_mount(None, "/", None, MS_REC | MS_PRIVATE)
    # the inaccessible nodes, on a tmpfs of our own (systemd: /run/systemd/inaccessible)
    nodes = tempfile.mkdtemp(prefix="gd-inaccessible.", dir="/dev/shm")
    sys_mount("tmpfs", nodes, "tmpfs", 0, "mode=0755,size=64k")
    os.mkdir(nodes + "/dir", 0)
    os.close(os.open(nodes + "/reg", os.O_CREAT | os.O_WRONLY, 0))
    os.chmod(nodes + "/dir", 0)
    os.chmod(nodes + "/reg", 0)
    home = props.get("ProtectHome", ["no"])[-1]
    extra = ["-/home", "-/root", "-/run/user"] if home in ("yes", "true", "tmpfs") else []
    for p in paths(props, "InaccessiblePaths", extra):
        src = nodes + ("/dir" if os.path.isdir(p) and not os.path.islink(p) else "/reg")
        sys_mount(src, p, None, MS_BIND)
    if props.get("ProtectSystem", ["no"])[-1] == "strict":
        for t in mounts():
            if not under(t, ["/dev", "/proc", "/sys"]):
                setattr_ro(t, 0)
    if home == "read-only":
        for p in ("/home", "/root", "/run/user"):
            if os.path.isdir(p):
                readonly(p)
    for p in paths(props, "ReadOnlyPaths"):
        readonly(p)
    if yes(props, "ProtectKernelTunables"):
        for p in ("/proc/sys", "/sys"):
            readonly(p)
    if yes(props, "ProtectControlGroups") and os.path.isdir("/sys/fs/cgroup"):
        readonly("/sys/fs/cgroup")
    if yes(props, "PrivateTmp"):
        for p in ("/tmp", "/var/tmp"):
            if os.path.isdir(p):
                sys_mount("tmpfs", p, "tmpfs", 0, "mode=1777")


def free_id():
    taken = set()
    for db in ("/etc/passwd", "/etc/group"):
        with open(db, encoding="utf-8") as f:
            taken |= {int(x.split(":")[2]) for x in f if x.count(":") >= 3 and x.split(":")[2].isdigit()}
    for i in range(61184 + 4242, 65520):
        if i not in taken:
            return i
    die("no free uid in the dynamic range")
    return None


def caps(props, key):
    return [c.lower().removeprefix("cap_") for c in words(props, key)]


def setpriv(props, level, rest):
    uid = free_id()
    if not (yes(props, "DynamicUser") or props.get("User")):
        die("the unit names no user: this reproduction assumes one")
    argv = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    if level != "nocaps":
        amb = caps(props, "AmbientCapabilities")
        bound = caps(props, "CapabilityBoundingSet") or amb
        lst = lambda cs: ",".join(["-all"] + ["+" + c for c in cs])
        argv += [f"--inh-caps={lst(amb)}", f"--ambient-caps={lst(amb)}", f"--bounding-set={lst(bound)}"]
    if yes(props, "NoNewPrivileges") or level == "full":
        argv.append("--no-new-privs")  # systemd implies it with SystemCallFilter= for a non-root user
    return argv + rest


def groups():
    """systemd's system-call groups, one `systemd-analyze syscall-filter` call: name -> members."""
    r = subprocess.run(["systemd-analyze", "syscall-filter"], capture_output=True, text=True, check=False)
    if r.returncode != 0:
        die("systemd-analyze syscall-filter: " + r.stderr.strip())
    table, cur = {}, None
    for line in r.stdout.splitlines():
        if line.startswith("@"):
            cur = table.setdefault(line.strip(), [])
        elif cur is not None and line.strip() and not line.strip().startswith("#") and line[0] in " \t":
            cur.append(line.strip())
        elif not line.strip():
            cur = None
    return table


def expand(name, table, seen):
    if not name.startswith("@"):
        return {name}
    if name in seen:
        return set()
    if name not in table:
        die(f"unknown system-call group {name}")
    seen.add(name)
    out = set()
    for w in table[name]:
        out |= expand(w, table, seen)
    return out


def apply_seccomp(props):
    import seccomp  # python3-seccomp (Debian), libseccomp's own binding
    af_allowed = words(props, "RestrictAddressFamilies")
    if af_allowed:
        f = seccomp.SyscallFilter(seccomp.ALLOW)
        allowed = {int(getattr(socket, a)) for a in af_allowed if not a.startswith("~")}
        if any(a.startswith("~") for a in af_allowed):
            die("RestrictAddressFamilies=~ (a deny list) is not reproduced here")
        for af in range(0, 64):
            if af not in allowed:
                f.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", seccomp.Arg(0, seccomp.EQ, af))
        f.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socket", seccomp.Arg(0, seccomp.GE, 64))
        f.load()
    if yes(props, "RestrictNamespaces"):
        f = seccomp.SyscallFilter(seccomp.ALLOW)
        f.add_rule(seccomp.ERRNO(errno.EPERM), "setns")
        news = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000, 0x00000080)
        for bit in news:
            f.add_rule(seccomp.ERRNO(errno.EPERM), "unshare", seccomp.Arg(0, seccomp.MASKED_EQ, bit, bit))
        for bit in news:
            f.add_rule(seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, bit, bit))
        f.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
        f.load()
    lines = props.get("SystemCallFilter", [])
    if not lines:
        return
    allow, denied, table = None, set(), groups()
    for v in lines:
        neg = v.startswith("~")
        names = set()
        for w in v.lstrip("~").split():
            names |= expand(w, table, set())
        if allow is None and not neg:
            allow = names
        elif allow is None:
            die("a deny-list SystemCallFilter= first is not reproduced here")
        elif neg:
            denied |= names
        else:
            allow |= names
    allow -= denied
    allow |= expand("@default", table, set())  # "always permitted" (systemd)
    en = props.get("SystemCallErrorNumber", [None])[-1]
    default = seccomp.ERRNO(getattr(errno, en)) if en else seccomp.KILL_PROCESS
    f = seccomp.SyscallFilter(default)
    for s in sorted(allow):
        try:
            f.add_rule(seccomp.ALLOW, s)
        except (RuntimeError, ValueError, OSError):
            pass  # not a system call of this architecture (systemd skips those too)
    f.load()


def main():
    a = sys.argv[1:]
    level = "full"
    stage = "mounts"
    if a[:1] == ["--seccomp"]:
        stage, a = "seccomp", a[1:]
    if a[:1] == ["--level"]:
        level, a = a[1], a[2:]
    if len(a) < 3 or a[1] != "--":
        die("usage: unit_sandbox.py [--level full|user|nocaps] UNIT -- COMMAND [ARG...]")
    unit, cmd = a[0], a[2:]
    props = parse(unit)
    if stage == "seccomp":
        apply_seccomp(props)
        os.execvp(cmd[0], cmd)
    if os.geteuid() != 0:
        die("run as root")
    rest = cmd
    if level == "full":
        if props.get("LimitNOFILE"):
            n = int(props["LimitNOFILE"][-1])
            resource.setrlimit(resource.RLIMIT_NOFILE, (n, n))
        sandbox_mounts(props)
        rest = ["/usr/bin/python3", os.path.abspath(__file__), "--seccomp", os.path.abspath(unit), "--"] + cmd
    os.execvp("setpriv", setpriv(props, level, rest))


if __name__ == "__main__":
    main()
