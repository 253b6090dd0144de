#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
include-graph.py [DIR]: the include graph of the modules of DIR (default
user/ of this tree) as one KTAP test, "no include circle in DIR/".

A module is x.c with x.h (either alone counts too: starvd.c, version.h).
Module x depends on module y when x.c or x.h has #include "y.h" and y.h is
in DIR. Each line of the graph, "# x -> y z", is a KTAP comment; the test
fails, naming each circle ("# include circle: a -> b -> a"), when a module
depends on itself through others. Exit status: 0 no circle, 1 a circle.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)\.h"', re.MULTILINE)


def graph(top):
    """{module: set of the modules it includes} for the files of @top."""
    names = sorted(f for f in os.listdir(top) if f.endswith(('.c', '.h')))
    modules = {f[:-2] for f in names}
    deps = {m: set() for m in modules}
    for f in names:
        with open(os.path.join(top, f), encoding='utf-8') as src:
            text = src.read()
        for dep in INCLUDE.findall(text):
            if dep in modules and dep != f[:-2]:
                deps[f[:-2]].add(dep)
    return deps


def components(deps):
    """The strongly connected components of @deps (Tarjan), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(deps[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            found.append(sorted(comp))

    sys.setrecursionlimit(max(1000, 4 * len(deps)))
    for v in sorted(deps):
        if v not in index:
            visit(v)
    return found


def circle(deps, comp, start):
    """One shortest circle through @start within its component @comp."""
    inside = set(comp)
    paths, seen = [[start]], {start}
    while paths:
        path = paths.pop(0)
        for w in sorted(deps[path[-1]] & inside):
            if w == start:
                return path + [start]
            if w not in seen:
                seen.add(w)
                paths.append(path + [w])
    return comp


def circles_of(deps, comp):
    """A shortest circle through each module of @comp, each once."""
    found = []
    for start in comp:
        c = circle(deps, comp, start)[:-1]
        first = c.index(min(c))
        c = c[first:] + c[:first]
        if c not in found:
            found.append(c)
    return [c + c[:1] for c in found]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, '..',
                                                              'user')
    name = os.path.basename(os.path.normpath(top))
    deps = graph(top)
    circles = [c for c in components(deps) if len(c) > 1]
    print('KTAP version 1')
    print('1..1')
    for m in sorted(deps):
        print('# %s -> %s' % (m, ' '.join(sorted(deps[m])) or '(none)'))
    for comp in circles:
        for c in circles_of(deps, comp):
            print('# include circle: %s' % ' -> '.join(c))
    if circles:
        print('# each module includes one way: move what both sides use '
              'into a module of its own, or to the side the other includes')
    print('%s 1 - no include circle in %s/' %
          ('not ok' if circles else 'ok', name))
    print('# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0' %
          (0 if circles else 1, 1 if circles else 0))
    return 1 if circles else 0


if __name__ == '__main__':
    sys.exit(main())
