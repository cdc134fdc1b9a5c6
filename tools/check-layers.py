#!/usr/bin/env python3
"""Checks that every #include of strata's C++ and CUDA files goes to a layer the including
file's layer may include, as cmake/layers.txt says (docs/architecture.md explains the rules).

Usage: tools/check-layers.py [--rules FILE] [--root DIR] [--list-exceptions]

Each violation is one line, `file:line: <layer> may not include <layer> (<header>)` or
`file:line: <layer> may not use <text> (<private rule>: <layers> only)`, and the exit status
is 1. Also reported, exit 1: a file under a scanned folder that is in no layer, a quoted
include found under no include root, an include found under two roots, a layer folder, root
or documented table row that does not match the tree, and an exception that no longer
matches anything (the work it waited for is done: remove it). A rules file that cannot be
read or parsed exits 2. Python 3 standard library only.
"""
import argparse
import fnmatch
import os
import re
import sys

SOURCE_EXTENSIONS = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".cu", ".cuh", ".inc")
INCLUDE = re.compile(r'\s*#\s*include\s*([<"])([^">]+)[">]')
RAW_STRING = re.compile(r'(?:u8|u|U|L)?R"([^()\\ ]{0,16})\(')


class RulesError(Exception):
    pass


class Rules:
    def __init__(self):
        self.roots = []  # include roots, in search order
        self.scan = []  # folders whose sources are checked
        self.layers = {}  # name -> {"folders": [...], "may": set of layers, "line": n}
        self.order = []  # layer names in file order
        self.generated = {}  # include text -> layer
        self.private = []  # (name, texts, set of layers, line)
        self.allows = []  # {"from", "to", "reason", "line", "used"}
        self.doc = None


def parse_rules(path):
    rules = Rules()
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise RulesError(f"{path}: {e.strerror}")
    pending_may = []
    for n, raw in enumerate(lines, 1):
        text, _, comment = raw.partition("#")
        words = text.split()
        if not words:
            continue
        where = f"{path}:{n}"
        kind, args = words[0], words[1:]
        if kind == "roots":
            rules.roots += args
        elif kind == "scan":
            rules.scan += args
        elif kind == "doc":
            if len(args) != 1:
                raise RulesError(f"{where}: doc takes one file")
            rules.doc = args[0]
        elif kind == "layer":
            left, colon, right = " ".join(args).partition(":")
            names = left.split()
            if len(names) < 2:
                raise RulesError(f"{where}: layer NAME FOLDER... [: LAYER...]")
            name, folders = names[0], [p.rstrip("/") for p in names[1:]]
            if name in rules.layers:
                raise RulesError(f"{where}: layer {name} is declared twice")
            rules.layers[name] = {"folders": folders, "may": right.split() if colon else [], "line": n}
            rules.order.append(name)
            pending_may.append((name, where))
        elif kind == "generated":
            if len(args) != 2:
                raise RulesError(f"{where}: generated HEADER LAYER")
            rules.generated[args[0]] = args[1]
        elif kind == "private":
            left, colon, right = " ".join(args).partition(" : ")
            if not colon or len(left.split()) < 2 or not right.split():
                raise RulesError(f"{where}: private NAME TEXT... : LAYER...")
            name, texts = left.split()[0], left.split()[1:]
            if any(name == p[0] for p in rules.private):
                raise RulesError(f"{where}: private {name} is declared twice")
            rules.private.append((name, texts, set(right.split()), n))
        elif kind == "allow":
            if len(args) != 3 or args[1] != "->":
                raise RulesError(f"{where}: allow FILE-GLOB -> HEADER-GLOB-OR-PRIVATE-NAME  # why")
            if not comment.strip():
                raise RulesError(f"{where}: an exception needs a comment: why, and what removes it")
            rules.allows.append({"from": args[0], "to": args[2], "reason": comment.strip(),
                                 "line": n, "used": []})
        else:
            raise RulesError(f"{where}: unknown directive {kind!r} "
                             "(roots, scan, doc, layer, generated, private, allow)")
    if not rules.roots or not rules.scan or not rules.layers:
        raise RulesError(f"{path}: needs roots, scan and at least one layer")
    # Expand each layer's may-include list: names, `*` (every layer), `!name` (not that one).
    for name, where in pending_may:
        may = set()
        for word in rules.layers[name]["may"]:
            if word == "*":
                may |= set(rules.layers)
            elif word.startswith("!"):
                continue
            elif word in rules.layers:
                may.add(word)
            else:
                raise RulesError(f"{where}: layer {name} may include {word!r}, which is no layer")
        for word in rules.layers[name]["may"]:
            if word.startswith("!"):
                if word[1:] not in rules.layers:
                    raise RulesError(f"{where}: {word!r} names no layer")
                may.discard(word[1:])
        may.add(name)
        rules.layers[name]["may"] = may
    for header, layer in rules.generated.items():
        if layer not in rules.layers:
            raise RulesError(f"{path}: generated {header} is in layer {layer!r}, which is no layer")
    for name, _, layers, n in rules.private:
        for layer in layers:
            if layer not in rules.layers:
                raise RulesError(f"{path}:{n}: private {name} names {layer!r}, which is no layer")
    return rules


def strip_comments(lines):
    """The lines with comments, string and character literals blanked (a raw string's body
    too), so that text in them is neither an include nor a use of a private name."""
    out = []
    in_block = False
    raw_end = None
    for line in lines:
        res = []
        i = 0
        while i < len(line):
            if raw_end is not None:
                j = line.find(raw_end, i)
                if j < 0:
                    i = len(line)
                    continue
                i = j + len(raw_end)
                raw_end = None
                res.append('""')
                continue
            if in_block:
                j = line.find("*/", i)
                if j < 0:
                    i = len(line)
                    continue
                in_block = False
                i = j + 2
                res.append(" ")
                continue
            c = line[i]
            if line.startswith("//", i):
                break
            if line.startswith("/*", i):
                in_block = True
                i += 2
                continue
            m = c in "uULR" and RAW_STRING.match(line, i)
            if m and (i == 0 or not (line[i - 1].isalnum() or line[i - 1] == "_")):
                raw_end = ")" + m.group(1) + '"'
                i = m.end()
                continue
            if c in "\"'":
                j = i + 1
                while j < len(line) and line[j] != c:
                    j += 2 if line[j] == "\\" else 1
                res.append(c + c)
                i = j + 1
                continue
            res.append(c)
            i += 1
        out.append("".join(res))
    return out


class Checker:
    def __init__(self, root, rules):
        self.root = root
        self.rules = rules
        self.findings = []  # (path, line, message): a violation or a problem of the tree
        self.files = 0
        self.includes = 0
        # Longest folder first, so that a layer inside another's folder (src/verify in src)
        # takes its files.
        self.folders = sorted(((f, name) for name, l in rules.layers.items() for f in l["folders"]),
                              key=lambda p: -len(p[0]))
        # A private text is used where it is written bare or qualified by the project's
        # namespace only: dist::detail:: in strata::dist::detail:: and ::strata::dist::detail::,
        # but not in mydist::detail::, and cuda:: not in nb::device::cuda::.
        self.private = [(name, re.compile(r"(?<![\w:])(?:::)?(?:strata::)?(" +
                                          "|".join(map(re.escape, texts)) + ")"), owners)
                        for name, texts, owners, _ in rules.private]

    def layer_of(self, rel):
        for folder, name in self.folders:
            if rel == folder or rel.startswith(folder + "/"):
                return name
        return None

    def exists(self, rel):
        return os.path.isfile(os.path.join(self.root, rel))

    def resolve(self, includer, quote, header):
        """The repository-relative path an include lands on, as the compiler looks it up:
        a quoted include first beside the including file, then under each root."""
        if quote == '"':
            here = os.path.normpath(os.path.join(os.path.dirname(includer), header))
            if not here.startswith("..") and self.exists(here):
                return [here]
        found = []
        for r in self.rules.roots:
            p = os.path.normpath(os.path.join(r, header))
            if not p.startswith("..") and self.exists(p) and p not in found:
                found.append(p)
        return found

    def allowed(self, rel, target):
        for a in self.rules.allows:
            if fnmatch.fnmatchcase(rel, a["from"]) and fnmatch.fnmatchcase(target, a["to"]):
                return a
        return None

    def report(self, rel, n, message, target):
        a = self.allowed(rel, target)
        if a:
            a["used"].append(f"{rel}:{n}: {message}")
        else:
            self.findings.append((rel, n, message))

    def check_file(self, rel):
        self.files += 1
        layer = self.layer_of(rel)
        if layer is None:
            self.findings.append((rel, 0, "is in no layer: add its folder to a layer of the rules"))
            return
        may = self.rules.layers[layer]["may"]
        with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        code = strip_comments(lines)
        for n, (line, stripped) in enumerate(zip(lines, code), 1):
            m = INCLUDE.match(line)
            if m and stripped.lstrip().startswith("#"):
                self.check_include(rel, n, layer, may, *m.groups())
            for name, pattern, owners in self.private:
                m = layer not in owners and pattern.search(stripped)
                if m:
                    self.report(rel, n, f"{layer} may not use {m.group(1)} ({name}: "
                                f"{', '.join(sorted(owners))} only)", name)

    def check_include(self, rel, n, layer, may, quote, header):
        if header in self.rules.generated:
            target, found = header, self.rules.generated[header]
        else:
            paths = self.resolve(rel, quote, header)
            if not paths:
                if quote == '"':
                    self.findings.append((rel, n, f'"{header}" is under no include root ('
                                          f'{" ".join(self.rules.roots)}) and is not a generated header'))
                return  # <...> found nowhere in the tree: a system or third-party header
            if len(paths) > 1:
                self.findings.append((rel, n, f"{header} is both {' and '.join(paths)}: which one "
                                      "compiles depends on the target's include order"))
                return
            target = paths[0]
            found = self.layer_of(target)
            if found is None:
                self.findings.append((rel, n, f"{header} lands on {target}, which is in no layer"))
                return
        self.includes += 1
        if found not in may:
            self.report(rel, n, f"{layer} may not include {found} ({target})", target)

    def sources(self):
        for top in self.rules.scan:
            base = os.path.join(self.root, top)
            if not os.path.isdir(base):
                self.findings.append((top, 0, "is scanned (scan) but is no folder"))
                continue
            for d, dirs, files in os.walk(base):
                dirs.sort()
                for name in sorted(files):
                    if name.endswith(SOURCE_EXTENSIONS):
                        yield os.path.relpath(os.path.join(d, name), self.root)

    def check_tree(self, rules_path):
        for top in self.rules.roots:
            if not os.path.isdir(os.path.join(self.root, top)):
                self.findings.append((rules_path, 0, f"include root {top} is no folder"))
        for name in self.rules.order:
            for folder in self.rules.layers[name]["folders"]:
                if not os.path.isdir(os.path.join(self.root, folder)):
                    self.findings.append((rules_path, self.rules.layers[name]["line"],
                                          f"layer {name}: {folder} is no folder"))
        for rel in self.sources():
            self.check_file(rel)
        for a in self.rules.allows:
            if not a["used"]:
                self.findings.append((rules_path, a["line"], f"exception {a['from']} -> {a['to']} "
                                      "matches nothing: the work it waited for is done, remove it"))
        if self.rules.doc:
            self.check_doc(rules_path)

    def check_doc(self, rules_path):
        """The documented layer table (the first markdown table whose header has `layer` and
        `may include`) names, in its first column, the same folders as the layers."""
        try:
            with open(os.path.join(self.root, self.rules.doc), encoding="utf-8") as f:
                lines = f.read().splitlines()
        except OSError as e:
            self.findings.append((self.rules.doc, 0, f"cannot be read ({e.strerror})"))
            return
        rows, in_table = [], False
        for n, line in enumerate(lines, 1):
            cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
            if cells is None:
                if rows or in_table:
                    break
                continue
            if not in_table:
                in_table = len(cells) >= 3 and cells[0] == "layer" and cells[-1] == "may include"
                continue
            if set(cells[0]) <= set("-: "):
                continue
            rows.append((n, re.findall(r"`([^`]+)`", cells[0])))
        if not in_table:
            self.findings.append((self.rules.doc, 0, "has no layer table (| layer | ... | may include |)"))
            return
        folders = {f for _, l in self.rules.layers.items() for f in l["folders"]}
        documented = set()
        for n, names in rows:
            for name in names:
                name = name.rstrip("/")
                documented.add(name)
                if name not in folders:
                    self.findings.append((self.rules.doc, n, f"documents {name}/, which is no layer's "
                                          f"folder in {rules_path}"))
        for name in self.rules.order:
            for folder in self.rules.layers[name]["folders"]:
                if folder not in documented:
                    self.findings.append((rules_path, self.rules.layers[name]["line"],
                                          f"layer {name}: {folder}/ has no row in {self.rules.doc}'s "
                                          "layer table"))


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--root", default=os.path.dirname(here), help="the repository (default: this tool's)")
    p.add_argument("--rules", help="the rules file (default: ROOT/cmake/layers.txt)")
    p.add_argument("--list-exceptions", action="store_true",
                   help="also list each exception with what it allows today (the to-do list)")
    a = p.parse_args(argv)
    root = os.path.abspath(a.root)
    rules_path = a.rules or os.path.join(root, "cmake", "layers.txt")
    try:
        rules = parse_rules(rules_path)
    except RulesError as e:
        print(f"check-layers: {e}", file=sys.stderr)
        return 2
    shown = os.path.relpath(rules_path, root) if not os.path.relpath(rules_path, root).startswith("..") else rules_path
    checker = Checker(root, rules)
    checker.check_tree(shown)
    for path, n, message in sorted(checker.findings):
        print(f"{path}:{n}: {message}" if n else f"{path}: {message}")
    allowed = sum(len(x["used"]) for x in rules.allows)
    if a.list_exceptions:
        for x in rules.allows:
            print(f"{shown}:{x['line']}: allow {x['from']} -> {x['to']}  # {x['reason']}")
            for use in x["used"]:
                print(f"    {use}")
    print(f"check-layers: {checker.files} files, {checker.includes} includes of the tree, "
          f"{len(rules.layers)} layers ({shown}): {len(checker.findings)} problems, "
          f"{allowed} allowed by {len(rules.allows)} exceptions"
          + ("" if a.list_exceptions or not rules.allows else " (--list-exceptions lists them)"))
    return 1 if checker.findings else 0


if __name__ == "__main__":
    sys.exit(main())
