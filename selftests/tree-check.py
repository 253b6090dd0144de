#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tree-check.py CHECK (or TREE_CHECK=CHECK): checks of the tree itself, KTAP, for the unit suite.

  history  no run history in any file: internal stop or issue numbers,
           per-run pass counts, accounts of what past runs showed (a result belongs in
           the commit message of the change it justifies). One test per
           file that has some, plus one for the whole tree.
  links    every relative link of every Markdown file resolves: the file
           or directory exists and a #fragment names one of its headings.
  man      every option (and starvctl command) that `starvd --help` and
           `starvctl --help` print is in man/starvd.8 / man/starvctl.8,
           and every option the man pages list is in --help. Needs the
           binaries: $STARVD_BIN_DIR (default ../user).
  version  the version is written once, in VERSION; every other file that
           names it (user/version.h, kmod/Kbuild, dkms.conf,
           debian/changelog, starvd.spec, the man pages, the documents'
           commands) says the same.

Files are those git knows (tracked, or untracked and not ignored), else
every file under the top directory but build output.
"""
import os
import re
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SELF = os.path.relpath(os.path.abspath(__file__), TOP)
SKIP_DIRS = {".git", "build", ".cache"}


class Ktap:
    def __init__(self):
        self.results = []

    def test(self, ok, name, diag=()):
        self.results.append((ok, name, list(diag)))

    def finish(self):
        print("TAP version 13")
        print("1..%d" % len(self.results))
        passed = failed = 0
        for n, (ok, name, diag) in enumerate(self.results, 1):
            for line in diag:
                print("# " + line)
            print("%s %d %s" % ("ok" if ok else "not ok", n, name))
            passed += ok
            failed += not ok
        print("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0"
              % (passed, failed))
        return 0 if failed == 0 else 1


def tree_files():
    try:
        out = subprocess.run(
            ["git", "-C", TOP, "ls-files", "-z", "--cached", "--others",
             "--exclude-standard"], capture_output=True, check=True).stdout
        files = sorted(set(f for f in out.decode().split("\0") if f))
    except (OSError, subprocess.CalledProcessError):
        files = []
        for root, dirs, names in os.walk(TOP):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
            files += [os.path.relpath(os.path.join(root, n), TOP)
                      for n in names]
        files.sort()
    return [f for f in files if os.path.isfile(os.path.join(TOP, f))]


def read_text(path):
    try:
        with open(os.path.join(TOP, path), "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")


# ---------------------------------------------------------------- history
# What a run, not the code, said. Case-insensitive.
HISTORY = [
    (r"\bstops? [0-9]+\b", "a stop number"),
    (r"\bstops? [0-9]+ (?:and|to|or) [0-9]+\b", "stop numbers"),
    (r"\bissues? #?[0-9]+\b", "an internal issue number"),
    (r"\b[0-9]+ passed, [0-9]+ failed\b", "a run's pass count"),
    (r"\b[0-9]+ (?:passed|failed|green)\b[^.\n]{0,40}\bruns?\b",
     "a run's pass count"),
    (r"\b[0-9]+ (?:of|out of) [0-9]+ (?:runs|loops)\b", "a run count"),
    (r"\b[0-9]+/[0-9]+ (?:runs|loops|passed)\b", "a run count"),
    (r"\b(?:an? )?(?:earlier|previous|first|second|third|fourth|last|one)"
     r" (?:clean-clone |ci |whole-suite )?runs?"
     r"(?: of [\w.-]+)? (?:gave|showed|found|failed|passed|took|had)\b",
     "an account of a past run"),
    # [ ] rather than a space: this file must not match its own patterns.
    (r"\b(?:in|from) (?:an|one) earlier[ ]run\b", "an account of a past run"),
    (r"\bCI[ ]run\b", "a run of CI"),
]
HISTORY_RE = [(re.compile(p, re.I), why) for p, why in HISTORY]
# Generated or foreign text: not ours to word. This file is checked too:
# its patterns are written so that they do not match themselves.
HISTORY_SKIP = ("bpf/vmlinux/",)


def check_history(k):
    total = 0
    for path in tree_files():
        if path.startswith(HISTORY_SKIP):
            continue
        text = read_text(path)
        if text is None:
            continue
        hits = []
        for n, line in enumerate(text.splitlines(), 1):
            # A program's own output (its pass and fail counts) is no history.
            if re.search(r"\b(?:echo|printf)\b", line):
                continue
            for rx, why in HISTORY_RE:
                m = rx.search(line)
                if m:
                    hits.append("%s:%d: %s: \"%s\"" % (path, n, why,
                                                        m.group(0)))
                    break
        if hits:
            total += len(hits)
            k.test(False, "history " + path, hits)
    k.test(total == 0, "no run history in the tree",
           [] if total == 0 else
           ["%d line(s) above; state what is true now, and put what a run"
            " showed in the commit message" % total])


# ------------------------------------------------------------------ links
LINK_RE = re.compile(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?"
                     r"(?:\s+\"[^\"]*\")?\s*\)")
IMG_RE = re.compile(r"!\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?")
REF_RE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def strip_code(text):
    """Markdown text with fenced blocks and inline code blanked out."""
    out, fence = [], None
    for line in text.splitlines():
        s = line.lstrip()
        if fence:
            if s.startswith(fence):
                fence = None
            out.append("")
            continue
        if s.startswith("```") or s.startswith("~~~"):
            fence = s[:3]
            out.append("")
            continue
        out.append(re.sub(r"(`+)(?:(?!\1).)+?\1", "", line))
    return out


def slugs(text):
    """GitHub's anchors for the headings of a Markdown text."""
    seen, result = {}, set()
    for line in strip_code(text):
        m = re.match(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(2))
        slug = re.sub(r"[^\w\- ]", "", title.lower().replace("`", ""))
        slug = slug.replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        result.add(slug if n == 0 else "%s-%d" % (slug, n))
    # Inline code in titles: GitHub keeps its text.
    for line in text.splitlines():
        m = re.match(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m and "`" in m.group(1):
            t = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1)).lower()
            result.add(re.sub(r"[^\w\- ]", "", t).replace(" ", "-"))
    return result


def check_links(k):
    mds = [f for f in tree_files() if f.endswith(".md")]
    cache = {}
    for path in mds:
        text = read_text(path) or ""
        bad, count = [], 0
        for n, line in enumerate(strip_code(text), 1):
            targets = LINK_RE.findall(line) + IMG_RE.findall(line)
            m = REF_RE.match(line)
            if m:
                targets.append(m.group(1))
            for t in targets:
                if SCHEME_RE.match(t) or t.startswith("//"):
                    continue
                count += 1
                target, _, frag = t.partition("#")
                if target:
                    dest = os.path.normpath(os.path.join(
                        os.path.dirname(path), target))
                    if dest.startswith("..") or not os.path.exists(
                            os.path.join(TOP, dest)):
                        bad.append("%s:%d: %s: no such file" % (path, n, t))
                        continue
                else:
                    dest = path
                if frag and dest.endswith(".md"):
                    if dest not in cache:
                        cache[dest] = slugs(read_text(dest) or "")
                    if frag.lower() not in cache[dest]:
                        bad.append("%s:%d: %s: no heading #%s in %s"
                                   % (path, n, t, frag, dest))
        k.test(not bad, "links %s (%d relative)" % (path, count), bad)


# -------------------------------------------------------------------- man
OPT_RE = re.compile(r"(?<![\w-])(--?[A-Za-z][A-Za-z0-9_-]*)")


def help_options(binary):
    out = subprocess.run([binary, "--help"], capture_output=True, text=True,
                         timeout=10)
    opts, cmds = set(), set()
    for line in (out.stdout + out.stderr).splitlines():
        # An option line: indented by at most 6, begins with "-"; its
        # first column ends at two spaces. Deeper lines continue a
        # description.
        m = re.match(r"^ {1,6}(-\S.*?)(?: {2,}|$)", line)
        if m:
            opts.update(OPT_RE.findall(m.group(1)))
        m = re.match(r"^Usage: \S+ .*?([a-z]+(?:\|[a-z]+)+)\s*$", line)
        if m:
            cmds.update(m.group(1).split("|"))
    return opts, cmds, out.returncode


def man_text(line):
    line = line.replace("\\-", "-")
    line = re.sub(r"\\f[BIRP]", "", line)
    line = re.sub(r"\\f\(..", "", line)
    return line


def man_options(path):
    with open(os.path.join(TOP, path)) as f:
        lines = f.read().splitlines()
    opts, cmds, section, tag_next = set(), set(), None, False
    for line in lines:
        if line.startswith(".SH"):
            section = line[3:].strip().strip('"')
            continue
        if line.startswith(".TP"):
            tag_next = True
            continue
        if tag_next:
            tag_next = False
            # Arguments (\fI...\fR) are not options.
            tag = man_text(re.sub(r"\\fI.*?\\f[RP]", "", line))
            if section == "OPTIONS":
                opts.update(OPT_RE.findall(tag))
            elif section == "DESCRIPTION":
                m = re.match(r"^\.B\s+([a-z]+)\s*$", line)
                if m:
                    cmds.add(m.group(1))
    return opts, cmds


def check_man(k):
    bindir = os.environ.get("STARVD_BIN_DIR",
                            os.path.join(TOP, "user"))
    for prog in ("starvd", "starvctl"):
        binary = os.path.join(bindir, prog)
        page = "man/%s.8" % prog
        if not os.access(binary, os.X_OK):
            k.test(False, "man %s: %s --help" % (prog, binary),
                   ["%s not built" % binary])
            continue
        hopts, hcmds, rc = help_options(binary)
        mopts, mcmds = man_options(page)
        k.test(rc == 0 and bool(hopts), "man %s: --help lists options" % prog,
               [] if rc == 0 else ["%s --help exited %d" % (prog, rc)])
        missing = sorted(hopts - mopts)
        k.test(not missing, "man %s: every --help option in %s"
               % (prog, page),
               ["%s --help prints %s, %s (OPTIONS) does not" % (prog, o, page)
                for o in missing])
        stale = sorted(mopts - hopts)
        k.test(not stale, "man %s: every option of %s in --help"
               % (prog, page),
               ["%s (OPTIONS) lists %s, %s --help does not" % (page, o, prog)
                for o in stale])
        if hcmds or mcmds:
            diff = ["--help names command %s, %s does not" % (c, page)
                    for c in sorted(hcmds - mcmds)]
            diff += ["%s describes command %s, --help does not" % (page, c)
                     for c in sorted(mcmds - hcmds)]
            k.test(not diff, "man %s: commands match" % prog, diff)


# ---------------------------------------------------------------- version
def grep1(path, rx):
    text = read_text(path)
    if text is None:
        return None
    m = re.search(rx, text, re.M)
    return m.group(1) if m else None


# File, what names the version there (one group), its name, and whether
# the file must name it (else: only where it does).
VERSIONED = [
    ("Makefile", r"^VERSION\s*:?=\s*(.*)$", "VERSION", True),
    ("user/version.h", r"#define STARVD_VERSION \"([^\"]+)\"", "STARVD_VERSION", True),
    ("kmod/Kbuild", r"^STARVD_MOD_VERSION\s*:?=\s*(\S+)", "STARVD_MOD_VERSION", True),
    ("dkms.conf", r"^PACKAGE_VERSION=\"?([^\"\s]+)", "PACKAGE_VERSION", True),
    ("debian/changelog", r"\A\S+ \(([^)-]+)(?:-[^)]*)?\)", "newest entry", True),
    ("starvd.spec", r"^Version:\s*(\S+)", "Version", True),
    ("starvd.spec", r"^%changelog\n\*.* - ([0-9.]+)-[^-\s]+\s*$", "newest %changelog entry", True),
    ("man/starvd.8", r"^\.TH .*\"starvd ([^\"]+)\"", ".TH", True),
    ("man/starvctl.8", r"^\.TH .*\"starvd ([^\"]+)\"", ".TH", True),
]
# Commands in documents and comments that name a version.
VERSION_USE = re.compile(r"\bstarvd(?:-dkms)?[/_-]([0-9]+\.[0-9]+\.[0-9]+)\b")


def check_version(k):
    want = (read_text("VERSION") or "").strip()
    ok = bool(re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", want))
    k.test(ok, "version VERSION holds one version", [] if ok else
           ["VERSION: \"%s\" is not MAJOR.MINOR.PATCH" % want])
    if not ok:
        return
    for path, rx, label, must in VERSIONED:
        got = grep1(path, rx)
        if path == "Makefile" and got is not None:
            # Read from VERSION, not written there.
            good = "VERSION" in got and want not in got
            k.test(good, "version Makefile reads VERSION", [] if good else
                   ["Makefile: VERSION := %s (must read the VERSION file)"
                    % got])
            continue
        good = got == want or (got is None and not must)
        k.test(good, "version %s %s" % (path, label),
               [] if good else
               ["%s says %s, VERSION %s (scripts/set-version.sh NEW sets"
                " every file)" % (path, got, want)])
    bad = []
    for path in tree_files():
        if path.startswith(("debian/changelog", "selftests/fuzz/",
                            "bpf/vmlinux/")):
            continue
        text = read_text(path)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for v in VERSION_USE.findall(line):
                if v != want:
                    bad.append("%s:%d: %s, VERSION %s" % (path, n, v, want))
    k.test(not bad, "version every starvd-X.Y.Z in the tree", bad)


def main():
    checks = {"history": check_history, "links": check_links,
              "man": check_man, "version": check_version}
    # The check: the argument, else $TREE_CHECK (run.sh's run_one passes
    # only the environment).
    which = sys.argv[1:] or [os.environ.get("TREE_CHECK", "")]
    if len(which) != 1 or which[0] not in checks:
        sys.stderr.write("usage: tree-check.py %s\n" % "|".join(checks))
        return 2
    k = Ktap()
    checks[which[0]](k)
    return k.finish()


if __name__ == "__main__":
    sys.exit(main())
