#!/usr/bin/env python3
"""Checks that docs/architecture.md's dependency table is the link graph CMake builds.

Usage: check_architecture.py SOURCE_DIR   (exit 0 when they agree, 1 listing every difference)
       check_architecture.py --self-test  (proves a missing, extra or unknown edge is reported)

The graph: every `add_library(sandbox_...)` under src/ and the libraries of ours each one names
in its `target_link_libraries` (any visibility; `sandbox::x` aliases resolved). The table: the
rows of "The dependency direction" in docs/architecture.md, `| `sandbox_a` (...) | b, c (...) |`,
where b and c are short names (`storage_postgres` for `sandbox_storage_postgres`), a parenthesis
holds other libraries and "none of ours" is the empty set. Rows for libraries outside src/
(`sandbox_engines`) are not checked.
"""

import os
import re
import sys
import tempfile

import tree_checker
from tree_checker import expect_problems, write_tree

ADD_LIBRARY = re.compile(r"add_library\(\s*([A-Za-z0-9_:]+)\s+([^)]*)\)", re.S)
LINK = re.compile(r"target_link_libraries\(\s*([A-Za-z0-9_:]+)\s+([^)]*)\)", re.S)
ROW = re.compile(r"^\|\s*(.+?)\s*\|\s*(.+?)\s*\|\s*$")


def strip_comments(text):
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def link_graph(root):
    """{library: set of our libraries it links}, for the libraries defined under src/."""
    defined, aliases, links = set(), {}, {}
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, "src")):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("build"))
        if "CMakeLists.txt" not in filenames:
            continue
        with open(os.path.join(dirpath, "CMakeLists.txt"), encoding="utf-8") as f:
            text = strip_comments(f.read())
        for name, rest in ADD_LIBRARY.findall(text):
            alias = re.match(r"ALIAS\s+(\S+)", rest.strip())
            if alias:
                aliases[name] = alias.group(1)
            elif name.startswith("sandbox_"):
                defined.add(name)
        for name, rest in LINK.findall(text):
            links.setdefault(name, []).extend(rest.split())
    graph = {}
    for lib in defined:
        deps = set()
        for token in links.get(lib, []):
            token = aliases.get(token, token)
            if token in defined and token != lib:
                deps.add(token)
        graph[lib] = deps
    return graph


def documented_graph(doc_text):
    """{library: set of libraries} from the table of "The dependency direction"."""
    section = doc_text.split("## The dependency direction", 1)
    if len(section) < 2:
        raise ValueError("docs/architecture.md has no section 'The dependency direction'")
    body = section[1].split("\n## ", 1)[0]
    table = {}
    for line in body.splitlines():
        m = ROW.match(line)
        if not m or m.group(1).startswith(("Library", "---")):
            continue
        names = re.findall(r"`(sandbox_[a-z0-9_]+)`", m.group(1))
        deps_text = re.sub(r"\([^)]*\)", "", m.group(2)).strip()
        deps = set()
        if deps_text != "none of ours":
            for part in deps_text.split(","):
                part = part.strip()
                if part:
                    deps.add("sandbox_" + part)
        for name in names:
            table[name] = deps
    return table


def compare(graph, table):
    problems = []
    for lib in sorted(graph):
        if lib not in table:
            problems.append(f"{lib}: defined under src/ but has no row in the table")
            continue
        for dep in sorted(graph[lib] - table[lib]):
            problems.append(f"{lib} links {dep}, which its row does not list")
        for dep in sorted(table[lib] - graph[lib]):
            problems.append(f"{lib}'s row lists {dep}, which it does not link")
    return problems


def check(root):
    with open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8") as f:
        table = documented_graph(f.read())
    return compare(link_graph(root), table)


def self_test():
    with tempfile.TemporaryDirectory() as root:
        good = ("## The dependency direction\n\n| Library | Links |\n| --- | --- |\n"
                "| `sandbox_a` (`src/a`) | none of ours (Boost) |\n"
                "| `sandbox_b` (`src/b`) | a (zstd, PRIVATE) |\n"
                "| `sandbox_c` (`src/c`) | b, a |\n\n## Next\n")
        write_tree(root, {
            "src/a/CMakeLists.txt":
                "add_library(sandbox_a STATIC a.cc)\n"
                "target_link_libraries(sandbox_a PUBLIC Boost::json)  # sandbox_c in a comment\n",
            "src/b/CMakeLists.txt":
                "add_library(sandbox_b STATIC b.cc)\nadd_library(sandbox::b ALIAS sandbox_b)\n"
                "target_link_libraries(sandbox_b PUBLIC sandbox_a\n  PRIVATE zstd)\n",
            "src/c/CMakeLists.txt":
                "add_library(sandbox_c STATIC c.cc)\n"
                "target_link_libraries(sandbox_c PUBLIC sandbox::b sandbox_a)\n",
            "docs/architecture.md": good,
        })
        if check(root):
            print("self-test: a matching table was reported:\n  " + "\n  ".join(check(root)))
            return 1
        write_tree(root, {"docs/architecture.md": good.replace("| b, a |", "| b, base |")
                          .replace("| `sandbox_a` (`src/a`) | none of ours (Boost) |\n", "")})
        failure = expect_problems(check(root), [
            (f"...{fragment}...", lambda p, fragment=fragment: fragment in p)
            for fragment in ("sandbox_a: defined under src/ but has no row",
                             "sandbox_c links sandbox_a, which its row does not list",
                             "sandbox_c's row lists sandbox_base, which it does not link")])
        if failure:
            print("self-test: " + failure)
            return 1
    print("self-test: a missing row, a missing edge and an extra edge are reported")
    return 0


if __name__ == "__main__":
    sys.exit(tree_checker.main(
        __doc__, check, self_test, "docs/architecture.md's dependency table is the link graph of src/",
        "difference(s) between docs/architecture.md's dependency table and the "
        "target_link_libraries of src/*/CMakeLists.txt: update the table (and, if the layering "
        "changed, the rest of the page)."))
