#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The netlink ABI is written once, in include/starvd/starvd.yaml: check,
as KTAP, that everything else agrees with it.

  - the spec is valid against the kernel's genetlink schema;
  - include/starvd/starvd.h is what scripts/gen-abi.py (the kernel's
    ynl-gen-c.py) generates from it now;
  - each command's policy in kmod/starvd.c takes exactly the command's
    request attributes, each with the spec's type and range, and is sized
    so that strict validation rejects every other attribute;
  - user/backend_netlink.c's libnl policy of each attribute set covers
    exactly the attributes replies carry, with the spec's type and range;
  - the task-state enum, the task-flags and struct starvd_task in
    include/starvd/abi.h match the spec's definitions and task attributes.

usage: STARVD_YNL=DIR abi-check.py   (DIR: tools/net/ynl, from vm/ynl.sh)
"""
import os
import re
import subprocess
import sys
import tempfile

try:
    import jsonschema
    import yaml
except ImportError as e:
    sys.exit(f"abi-check: {e}: install python3-yaml and python3-jsonschema "
             "(scripts/deps.sh)")

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KERNEL = {"u32": "NLA_U32", "s32": "NLA_S32", "u64": "NLA_U64",
          "string": "NLA_NUL_STRING", "nest": "NLA_NESTED"}
LIBNL = {"u32": "NLA_U32", "s32": "NLA_S32", "u64": "NLA_U64",
         "string": "NLA_STRING", "nest": "NLA_NESTED"}
CTYPE = {"u32": "__u32", "s32": "__s32", "u64": "__u64", "string": "char"}

results = []


def check(ok, name, why=""):
    results.append((ok, name, why))


def c_name(*parts):
    return "_".join(p.replace("-", "_").upper() for p in parts)


def read(path):
    with open(os.path.join(TOP, path)) as f:
        return f.read()


def policies(text):
    """{array name: (size expression, {attribute: policy text})}"""
    out = {}
    for m in re.finditer(r"struct nla_policy\s+(\w+)\[([^\]]+)\]\s*=\s*"
                         r"\{(.*?)\n\};", text, re.S):
        entries = {}
        for e in re.finditer(r"\[(\w+)\]\s*=\s*(\{[^}]*\}|NLA_POLICY_\w+"
                             r"\([^)]*\))", m.group(3)):
            entries[e.group(1)] = " ".join(e.group(2).split())
        out[m.group(1)] = (m.group(2).strip(), entries)
    return out


def want_policy(attr, kind):
    """The policy text @kind (KERNEL or LIBNL) gives the spec's @attr."""
    t = kind[attr["type"]]
    checks = attr.get("checks", {})
    if kind is KERNEL and ("min" in checks or "max" in checks):
        if "min" in checks and "max" in checks:
            return f"NLA_POLICY_RANGE({t}, {checks['min']}, {checks['max']})"
        if "max" in checks:
            return f"NLA_POLICY_MAX({t}, {checks['max']})"
        return f"NLA_POLICY_MIN({t}, {checks['min']})"
    if kind is LIBNL and "max-len" in checks:
        # libnl's maxlen of a string counts the NUL.
        return f"{{ .type = {t}, .maxlen = {checks['max-len'] + 1} }}"
    if kind is KERNEL and "max-len" in checks:
        return f"{{ .type = {t}, .len = {checks['max-len']} }}"
    return f"{{ .type = {t} }}"


def same(got, want, consts):
    """Policy texts equal once the constants of @consts are replaced."""
    for k, v in consts.items():
        got = re.sub(rf"\b{k}\b", str(v), got)
    got = re.sub(r",\s*\}", " }", got)
    return got == want


def main():
    ynl = os.environ.get("STARVD_YNL")
    if not ynl or not os.path.isfile(os.path.join(ynl, "ynl-gen-c.py")):
        sys.exit("abi-check: no ynl-gen-c.py in STARVD_YNL: set it to the "
                 "kernel's tools/net/ynl (vm/ynl.sh prints it; it needs "
                 "linux-source-6.12: scripts/deps.sh)")
    spec = yaml.safe_load(read("include/starvd/starvd.yaml"))
    schema_path = os.path.join(ynl, "../../../Documentation/netlink/"
                               "genetlink.yaml")
    try:
        jsonschema.validate(spec, yaml.safe_load(open(schema_path)))
        check(True, "spec valid against genetlink.yaml")
    except jsonschema.ValidationError as e:
        check(False, "spec valid against genetlink.yaml", e.message)

    with tempfile.TemporaryDirectory() as tmp:
        fresh = os.path.join(tmp, "starvd.h")
        r = subprocess.run([sys.executable,
                            os.path.join(TOP, "scripts/gen-abi.py"), ynl,
                            os.path.join(TOP, "include/starvd/starvd.yaml"),
                            fresh], capture_output=True, text=True)
        ok = r.returncode == 0 and \
            open(fresh).read() == read("include/starvd/starvd.h")
        diff = r.stderr.strip() or subprocess.run(
            ["diff", "-u", os.path.join(TOP, "include/starvd/starvd.h"),
             fresh], capture_output=True, text=True).stdout
        check(ok, "include/starvd/starvd.h is generated from the spec",
              "" if ok else diff + "\nregenerate it: make abi")

    abi = read("include/starvd/abi.h")
    consts = {m.group(1): int(m.group(2)) for m in
              re.finditer(r"#define\s+(\w+)\s+(\d+)\b", abi)}
    sets = {s["name"]: s for s in spec["attribute-sets"]}

    # The module: per-command request policies.
    kmod = read("kmod/starvd.c")
    kpol = policies(kmod)
    ops = {m[0]: (m[1], m[2]) for m in re.findall(
        r"\.cmd\s*=\s*(STARVD_CMD_\w+),[^}]*?STARVD_HAVE_OP_POLICY\)\s*"
        r"\.policy\s*=\s*(\w+),\s*\.maxattr\s*=\s*(\w+),", kmod)}
    for op in spec["operations"]["list"]:
        cmd = c_name("starvd-cmd", op["name"])
        aset = sets[op["attribute-set"]]
        attrs = {a["name"]: a for a in aset["attributes"]}
        msg = op.get("do") or op.get("dump")
        req = msg.get("request", {}).get("attributes", [])
        pname, maxattr = ops.get(cmd, (None, None))
        if pname not in kpol:
            check(False, f"kmod: {op['name']} has a policy",
                  f"no per-operation .policy for {cmd} in kmod/starvd.c")
            continue
        size, entries = kpol[pname]
        # Sized by the largest request attribute (pad when none): strict
        # validation rejects everything above it.
        top = max(req, key=lambda n: aset["attributes"].index(attrs[n]),
                  default="pad")
        want_size = c_name("starvd-a", aset["name"], top) + " + 1"
        check(size == want_size and f"{maxattr} + 1" == want_size,
              f"kmod: {pname} sized {want_size}, maxattr one less",
              f"is [{size}], maxattr {maxattr}")
        want = {c_name("starvd-a", aset["name"], n): n for n in req}
        extra = set(entries) - set(want)
        check(not extra, f"kmod: {pname} takes only {op['name']}'s "
              "request attributes", f"also {sorted(extra)}")
        for cn, n in want.items():
            w = want_policy(attrs[n], KERNEL)
            got = entries.get(cn, "missing")
            check(same(got, w, consts), f"kmod: {cn} {attrs[n]['type']}",
                  f"policy {got}, spec wants {w}")

    # The netlink backend: reply policies.
    user = read("user/backend_netlink.c")
    upol = policies(user)
    replied = {}
    for op in spec["operations"]["list"]:
        msg = op.get("do") or op.get("dump")
        replied.setdefault(op["attribute-set"], set()).update(
            msg.get("reply", {}).get("attributes", []))
    replied["task"] = {a["name"] for a in sets["task"]["attributes"]
                       if a["type"] != "pad"}
    for sname, names in replied.items():
        pname = f"{sname}_policy"
        if pname not in upol:
            check(False, f"libnl: {pname} exists",
                  "not in user/backend_netlink.c")
            continue
        size, entries = upol[pname]
        want_size = c_name("starvd-a", sname, "max") + " + 1"
        check(size == want_size, f"libnl: {pname} sized {want_size}",
              f"is [{size}]")
        attrs = {a["name"]: a for a in sets[sname]["attributes"]}
        want = {c_name("starvd-a", sname, n): n for n in names}
        extra = set(entries) - set(want)
        check(not extra, f"libnl: {pname} covers only replied attributes",
              f"also {sorted(extra)}")
        for cn, n in sorted(want.items()):
            w = want_policy(attrs[n], LIBNL)
            got = entries.get(cn, "missing")
            check(same(got, w, consts), f"libnl: {cn} {attrs[n]['type']}",
                  f"policy {got}, spec wants {w}")

    # The records: enum task-state, the task-flags and struct starvd_task.
    vals = dict(re.findall(r"\b(STARVD_TASK_[A-Z_]+)\s*=\s*([^,\n]+),",
                           abi))
    for d in spec["definitions"]:
        if d["type"] not in ("enum", "flags"):
            continue
        for i, e in enumerate(d["entries"]):
            cn = c_name("starvd-task", e["name"] if isinstance(e, dict) else e)
            want = (str(d.get("value-start", 0) + i) if d["type"] == "enum"
                    else f"1 << {i}")
            check(vals.get(cn) == want, f"abi.h: {cn} = {want}",
                  f"is {vals.get(cn)}")
    struct = re.search(r"struct starvd_task \{(.*?)\};", abi, re.S).group(1)
    fields = dict((f, t) for t, f in
                  re.findall(r"^\s*(\w+)\s+(\w+)(?:\[\w+\])?;", struct, re.M))
    for a in sets["task"]["attributes"]:
        if a["type"] == "pad":
            continue
        f = a["name"].replace("-", "_")
        f = f if f in fields else f + "_ns"
        check(fields.get(f) == CTYPE[a["type"]],
              f"abi.h: struct starvd_task.{f} is {CTYPE[a['type']]}",
              f"is {fields.get(f)}")

    print("TAP version 13")
    print(f"1..{len(results)}")
    for i, (ok, name, why) in enumerate(results, 1):
        if not ok and why:
            for line in why.splitlines():
                print(f"# {line}")
        print(f"{'ok' if ok else 'not ok'} {i} {name}")
    fails = sum(not ok for ok, _, _ in results)
    print(f"# Totals: pass:{len(results) - fails} fail:{fails} xfail:0 "
          "xpass:0 skip:0 error:0")
    sys.exit(1 if fails else 0)


main()
