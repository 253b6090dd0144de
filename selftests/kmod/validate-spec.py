#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Validate include/starvd/starvd.yaml against the kernel's genetlink
schema and check that its numbering matches include/starvd/abi.h.

usage: validate-spec.py SPEC SCHEMA ABI_H
"""
import re
import sys

try:
    import jsonschema
    import yaml
except ImportError as e:
    sys.exit(f"validate-spec: {e}: install python3-yaml and "
             "python3-jsonschema (scripts/deps-vm.sh)")


def abi_enum(text, prefix):
    """Names of an enum's members in order, e.g. STARVD_A_ -> [unspec...]"""
    names = re.findall(r"^\s*" + prefix + r"([A-Z0-9_]+)\s*[,=]", text, re.M)
    return [n.lower().replace("_", "-") for n in names if
            not n.startswith("_")]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    spec = yaml.safe_load(open(sys.argv[1]))
    schema = yaml.safe_load(open(sys.argv[2]))
    jsonschema.validate(spec, schema)
    abi = open(sys.argv[3]).read()
    fails = 0
    sets = {s["name"]: s for s in spec["attribute-sets"]}
    for setname, prefix in (("starvd", "STARVD_A_"),
                            ("task", "STARVD_TASK_A_")):
        want = [a for a in abi_enum(abi, prefix) if a not in
                ("unspec", "max")]
        got = [a["name"] for a in sets[setname]["attributes"]]
        if want != got:
            print(f"attribute set {setname}: abi.h {want} != spec {got}")
            fails += 1
    want = [c for c in abi_enum(abi, "STARVD_CMD_") if c not in
            ("unspec", "max")]
    got = [o["name"] for o in spec["operations"]["list"]]
    if want != got:
        print(f"operations: abi.h {want} != spec {got}")
        fails += 1
    if spec["name"] != re.search(r'STARVD_GENL_NAME\s+"(\w+)"', abi)[1]:
        print("family name differs from STARVD_GENL_NAME")
        fails += 1
    if fails:
        sys.exit(1)
    print(f"{sys.argv[1]}: valid against {sys.argv[2]}, matches {sys.argv[3]}")


main()
