#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Generate include/starvd/starvd.h from include/starvd/starvd.yaml.

usage: gen-abi.py YNL_DIR SPEC OUT

YNL_DIR is the kernel's tools/net/ynl (vm/ynl.sh extracts it from
linux-source-6.12), whose ynl-gen-c.py --mode uapi writes the header; this
script only puts it where the generator wants it (a tree with a
MAINTAINERS file and the genetlink schema next to the spec's directory,
against which the generator validates the spec) and adds, at the top, a
comment that documents each command's request and reply from the spec.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

C_TYPE = {"u32": "NLA_U32", "s32": "NLA_S32", "u64": "NLA_U64",
          "string": "NLA_NUL_STRING", "nest": "NLA_NESTED"}


def c_name(*parts):
    return "_".join(p.replace("-", "_").upper() for p in parts)


def wrap(text, indent, hang="", width=77):
    """@text in comment lines of at most @width columns, indented by
    @indent, continuation lines by @indent + @hang."""
    lines, line = [], ""
    for word in text.split():
        pfx = indent + (hang if lines else "")
        if line and len(pfx) + len(line) + 1 + len(word) > width - 3:
            lines.append(pfx + line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(indent + (hang if lines else "") + line)
    return [" * " + l for l in lines]


def describe(spec, setname, names, depth):
    """Comment lines for the attributes @names of attribute set @setname."""
    sets = {s["name"]: s for s in spec["attribute-sets"]}
    attrs = {a["name"]: a for a in sets[setname]["attributes"]}
    out = []
    pad = "    " * depth
    for name in names:
        a = attrs[name]
        line = f"{c_name('starvd-a', setname, name)}: {C_TYPE[a['type']]}"
        doc = a.get("doc", "")
        out += wrap(f"{line}{': ' + doc if doc else ''}", pad, "    ")
        if a["type"] == "nest":
            nested = sets[a["nested-attributes"]]
            out += describe(spec, nested["name"],
                            [n["name"] for n in nested["attributes"]
                             if n["type"] != "pad"], depth + 1)
    return out


def doc_block(spec):
    out = ["/*", " * Documentation", " * =============", " *"]
    out += wrap(spec["doc"], "")
    for op in spec["operations"]["list"]:
        kind = "do" if "do" in op else "dump"
        title = f"{c_name('starvd-cmd', op['name'])} ({kind})"
        out += [" *", f" * {title}", " * " + "-" * len(title)]
        out += wrap(op["doc"], "")
        msg = op[kind]
        req = msg.get("request", {}).get("attributes", [])
        out += [" *", " * Request:" + ("" if req else " no attribute.")]
        out += describe(spec, op["attribute-set"], req, 1)
        reply = "Replies" if kind == "dump" else "Reply"
        out += [f" * {reply}:"]
        out += describe(spec, op["attribute-set"],
                        msg["reply"]["attributes"], 1)
    out.append(" */")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    ynl, spec_path, out_path = sys.argv[1:]
    spec = yaml.safe_load(open(spec_path))
    with tempfile.TemporaryDirectory() as tree:
        os.makedirs(f"{tree}/include/starvd")
        open(f"{tree}/MAINTAINERS", "w").close()
        shutil.copy(f"{ynl}/../../../Documentation/netlink/genetlink.yaml",
                    f"{tree}/include/")
        shutil.copy(spec_path, f"{tree}/include/starvd/starvd.yaml")
        subprocess.run([sys.executable, f"{ynl}/ynl-gen-c.py", "--mode",
                        "uapi", "--header", "--spec",
                        "include/starvd/starvd.yaml", "-o", "starvd.h"],
                       cwd=tree, check=True, timeout=120)
        text = open(f"{tree}/starvd.h").read()
    marker = "/* YNL-GEN uapi header */\n"
    head, _, body = text.partition(marker)
    with open(out_path, "w") as f:
        f.write(head + marker + "\n" + doc_block(spec) + body)


main()
