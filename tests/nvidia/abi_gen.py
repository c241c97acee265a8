#!/usr/bin/env python3
"""tests/nvidia/abi_gen.py - the comparison list of tests/nvidia/abi.sh.

    abi_gen.py index THEIRS.json THEIRS.macros > INDEX.json
    abi_gen.py gen KIND OURS.json OURS.h INDEX.json OUTDIR

KIND is nvml or cuda.  OURS.json / THEIRS.json are clang's AST (-ast-dump=
json) of our header (src/nvml/nvml_abi.h, src/probe/cuda_abi.h) and of
NVIDIA's (nvml.h, cuda.h); THEIRS.macros is `cc -dM -E` of NVIDIA's header.
INDEX.json: the names NVIDIA's header has (its typedefs with their members,
enum constants, macros), kept between runs: NVIDIA's header does not change.

The list is derived from OUR header, never written by hand, so it cannot
miss a member: every typedef (its size), every member of every struct and
union (offset and size), every enum constant and every object-like macro
(its value).  Each is looked up in NVIDIA's header under its NVIDIA name
(the same name, but for cuda_abi.h's GD_CU_* constants); what that header
lacks is listed as "absent" (a newer header has it) unless its struct is
there, where a member we have and NVIDIA's struct lacks is a difference.

Writes OUTDIR/items.h, an X-macro table (one line per compared quantity:
ITEM(label, our expression, NVIDIA's expression)), and OUTDIR/absent.txt.
ours.c and theirs.c (OUTDIR) each include one header and evaluate their
column of the table into an array; compare.c prints every difference.
"""
import json
import re
import sys

# Ours only: no NVIDIA counterpart by design.
OURS_ONLY = re.compile(r"^(GD_NVML_|GD_PROBE_|GD_NVML_ABI_H$)")


def cuda_name(n):
    """cuda_abi.h spells NVIDIA's constants GD_CU_*."""
    if not n.startswith("GD_CU_"):
        return n
    t = n[len("GD_CU_"):]
    if t == "SUCCESS" or t.startswith("ERROR_"):
        return "CUDA_" + t
    if t.startswith("ATTR_"):
        a = t[len("ATTR_"):]
        a = {"CC_MAJOR": "COMPUTE_CAPABILITY_MAJOR", "CC_MINOR": "COMPUTE_CAPABILITY_MINOR"}.get(a, a)
        return "CU_DEVICE_ATTRIBUTE_" + a
    return "CU_" + t


def walk(node):
    yield node
    for c in node.get("inner", []) or []:
        yield from walk(c)


def index(ast, want_file=None):
    """Typedefs (name -> node), records (id -> node), enum constants
    (names), in the file wanted (None: all)."""
    typedefs, records, consts, order = {}, {}, set(), []
    cur = None
    for n in ast.get("inner", []):
        loc = n.get("loc", {}) or {}
        f = loc.get("file") or (loc.get("expansionLoc") or {}).get("file") or (loc.get("spellingLoc") or {}).get("file")
        if f:
            cur = f
        for m in walk(n):
            if m.get("kind") == "RecordDecl":
                records[m["id"]] = m
        if n.get("isImplicit") or (want_file and (not cur or not cur.endswith(want_file))):
            continue
        if n.get("kind") == "TypedefDecl":
            typedefs[n["name"]] = n
            order.append(("typedef", n["name"]))
        for m in walk(n):
            if m.get("kind") == "EnumConstantDecl":
                consts.add(m["name"])
                order.append(("const", m["name"]))
    return typedefs, records, consts, order


def record_of(td, typedefs, records, depth=0):
    """The record a typedef names, or None (an enum, a scalar, a pointer)."""
    if depth > 8:
        return None
    for m in walk(td):
        if m is td:
            continue
        k = m.get("ownedTagDecl") or m.get("decl")
        if not k:
            continue
        if k.get("kind") == "RecordDecl":
            r = records.get(k["id"])
            # a typedef of a pointer to a struct is not the struct
            if r is not None and "*" not in td["type"]["qualType"]:
                return r
            return None
        if k.get("kind") == "TypedefDecl":
            return record_of(typedefs[k["name"]], typedefs, records, depth + 1) if k["name"] in typedefs else None
        if k.get("kind") == "EnumDecl":
            return None
    return None


def fields(rec):
    return [m["name"] for m in rec.get("inner", []) or [] if m.get("kind") == "FieldDecl" and m.get("name")]


def macros_of(header_text):
    out = []
    for line in header_text.splitlines():
        m = re.match(r"\s*#\s*define\s+([A-Za-z_]\w*)(\(?)\s*(.*)$", line)
        if m and not m.group(2) and m.group(3).strip():
            out.append(m.group(1))
    return out


def make_index(theirs_json, theirs_macros):
    theirs = json.load(open(theirs_json))
    t_td, t_rec, t_consts, _ = index(theirs)
    macros = []
    for line in open(theirs_macros):
        m = re.match(r"#define\s+(\w+)", line)
        if m:
            macros.append(m.group(1))
    tds = {}
    for name, td in t_td.items():
        rec = record_of(td, t_td, t_rec)
        tds[name] = fields(rec) if rec is not None else None
    json.dump({"typedefs": tds, "consts": sorted(t_consts), "macros": sorted(macros)}, sys.stdout)


def main():
    if sys.argv[1] == "index":
        make_index(sys.argv[2], sys.argv[3])
        return
    kind, ours_json, ours_h, index_json, outdir = sys.argv[2:7]
    rename = cuda_name if kind == "cuda" else (lambda n: n)
    ours = json.load(open(ours_json))
    o_td, o_rec, o_consts, o_order = index(ours, ours_h.split("/")[-1])
    idx = json.load(open(index_json))
    t_td, t_consts, t_macros = idx["typedefs"], set(idx["consts"]), set(idx["macros"])

    items, absent, diffs = [], [], []
    for what, name in o_order:
        if what == "typedef":
            td = o_td[name]
            if name not in t_td:
                absent.append("typedef " + name)
                continue
            items.append((name + " size", "sizeof(%s)" % name, "sizeof(%s)" % name))
            rec = record_of(td, o_td, o_rec)
            if rec is None:
                continue
            tf = t_td[name] or []
            for f in fields(rec):
                if f not in tf:
                    diffs.append("%s.%s: NVIDIA's %s has no member %s" % (name, f, name, f))
                    continue
                items.append(("%s.%s offset" % (name, f), "offsetof(%s, %s)" % (name, f), "offsetof(%s, %s)" % (name, f)))
                items.append(("%s.%s size" % (name, f), "sizeof(((%s *)0)->%s)" % (name, f),
                              "sizeof(((%s *)0)->%s)" % (name, f)))
        else:
            tn = rename(name)
            if tn not in t_consts and tn not in t_macros:
                absent.append("enum value " + name + ("" if tn == name else " (" + tn + ")"))
                continue
            items.append(("%s value" % name + ("" if tn == name else " (" + tn + ")"), name, tn))
    for name in macros_of(open(ours_h).read()):
        if OURS_ONLY.match(name):
            continue
        tn = rename(name)
        if tn not in t_macros and tn not in t_consts:
            absent.append("macro " + name + ("" if tn == name else " (" + tn + ")"))
            continue
        items.append(("%s value" % name + ("" if tn == name else " (" + tn + ")"), name, tn))

    with open(outdir + "/items.h", "w") as f:
        f.write("/* generated by tests/nvidia/abi_gen.py from %s: do not edit */\n" % ours_h)
        for label, a, b in items:
            f.write('ITEM("%s", %s, %s)\n' % (label, a, b))
    with open(outdir + "/absent.txt", "w") as f:
        for a in absent:
            f.write(a + "\n")
    with open(outdir + "/missing_members.txt", "w") as f:
        for d in diffs:
            f.write(d + "\n")
    print("%s: %d quantities compared, %d names absent from NVIDIA's header, %d members missing there"
          % (kind, len(items), len(absent), len(diffs)))


if __name__ == "__main__":
    main()
