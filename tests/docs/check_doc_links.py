#!/usr/bin/env python3
"""Checks that the project's references into docs/ resolve, and that no code cites the old spec.

Usage: check_doc_links.py SOURCE_DIR     (exit 0 when clean, 1 listing every problem as file:line)
       check_doc_links.py --self-test    (proves the checker catches each kind of problem)

Scanned: README.md, CONTRIBUTING.md and every text file under src/ include/ tools/ engines/ tests/
docs/ cmake/ bench/ (build trees and tests/fuzz/corpus excluded). Checked:
  1. every `docs/<file>.md#<anchor>` reference: the file exists under docs/ and has the anchor;
  2. every relative Markdown link in a .md file, `[text](path)` or `[text](path#anchor)`: the
     path exists and, for a .md target, has the anchor;
  3. no section-sign citation and no reference to the specification outside the repository
     (the parent directory's shared/ tree or its upstream spec files): comments point into docs/.
An anchor is the GitHub slug of a heading (fenced code blocks excluded; repeated headings get
-1, -2, ...) or an explicit <a id="..."> / <a name="...">.
"""

import os
import re
import sys
import tempfile

import tree_checker
from tree_checker import expect_problems, write_tree

SCAN_DIRS = ("src", "include", "tools", "engines", "tests", "docs", "cmake", "bench")
SCAN_FILES = ("README.md", "CONTRIBUTING.md")
SKIP_DIRS = {".git", "build", "node_modules", "__pycache__"}
SKIP_PATHS = (os.path.join("tests", "fuzz", "corpus"),)

# Built from pieces so that this file does not trip its own check.
SECTION_SIGN = "\u00a7"
FORBIDDEN = (
    (SECTION_SIGN, "a section-sign citation of the old spec"),
    ("../" + "shared", "a reference outside the repository"),
    ("shared/" + "spec", "a reference to the spec outside the repository"),
    ("upstream-" + "protocol.md", "a citation of the upstream spec"),
    ("upstream-" + "engine-host.md", "a citation of the upstream spec"),
)
FIX_HINT = ("point the comment into docs/ instead (e.g. docs/protocol.md#session-rules); "
            "the anchors are the headings of docs/*.md")

DOC_REF = re.compile(r"(?<![A-Za-z0-9_./-])docs/([A-Za-z0-9_.-]+\.md)#([A-Za-z0-9_-]*)")
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^ {0,3}(```|~~~)")
EXPLICIT_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


def github_slug(text):
    """The anchor GitHub derives from a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors_of(path, cache={}):
    if path in cache:
        return cache[path]
    anchors = set()
    seen = {}
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            anchors.update(EXPLICIT_ANCHOR.findall(line))
            m = HEADING.match(line)
            if m:
                slug = github_slug(m.group(2))
                n = seen.get(slug, 0)
                seen[slug] = n + 1
                anchors.add(slug if n == 0 else f"{slug}-{n}")
    cache[path] = anchors
    return anchors


def files_to_scan(root):
    for name in SCAN_FILES:
        if os.path.isfile(os.path.join(root, name)):
            yield name
    for top in SCAN_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            rel_dir = os.path.relpath(dirpath, root)
            dirnames[:] = sorted(
                d for d in dirnames
                if d not in SKIP_DIRS and not d.startswith("build")
                and os.path.join(rel_dir, d) not in SKIP_PATHS)
            for name in sorted(filenames):
                yield os.path.join(rel_dir, name)


def read_text(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def check_anchor(root, target, anchor, where, problems):
    if not os.path.isfile(target):
        problems.append(f"{where}: {os.path.relpath(target, root)} does not exist")
    elif anchor and anchor not in anchors_of(target):
        problems.append(f"{where}: no heading or <a id> gives the anchor #{anchor} in "
                        f"{os.path.relpath(target, root)}")


def check(root):
    root = os.path.abspath(root)
    problems = []
    forbidden_hits = []
    for rel in files_to_scan(root):
        path = os.path.join(root, rel)
        text = read_text(path)
        if text is None:
            continue
        in_fence = False
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{rel}:{number}"
            for needle, what in FORBIDDEN:
                if needle in line:
                    forbidden_hits.append(f"{where}: {what} ({needle!r}); {FIX_HINT}")
                    break
            for file_name, anchor in DOC_REF.findall(line):
                if not anchor:
                    problems.append(f"{where}: empty anchor in docs/{file_name}#")
                    continue
                check_anchor(root, os.path.join(root, "docs", file_name), anchor, where, problems)
            if not rel.endswith(".md"):
                continue
            if FENCE.match(line):
                in_fence = not in_fence
            if in_fence:
                continue
            for link in MD_LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", link):  # http:, https:, mailto:
                    continue
                link_path, _, anchor = link.partition("#")
                target = (os.path.normpath(os.path.join(os.path.dirname(path), link_path))
                          if link_path else path)
                if not os.path.exists(target):
                    problems.append(f"{where}: link target {link_path} does not exist")
                elif target.endswith(".md") and anchor:
                    check_anchor(root, target, anchor, where, problems)
    return problems + forbidden_hits


def self_test():
    with tempfile.TemporaryDirectory() as root:
        d = "do" + "cs/"  # split so that the scan of this file does not see the fixture
        write_tree(root, {
            "docs/guide.md":
                "# Guide\n\n## Resync handshake\n\n### The sandbox HTTP API (`sandboxd`)\n\n"
                "## Resync handshake\n\n<a id=\"rule-s3\"></a>\n\n```\n# not a heading\n```\n"
                "[ok](guide.md#resync-handshake-1) [bad](guide.md#nope) [gone](other.md)\n",
            "src/a.cc":
                "// " + d + "guide.md#resync-handshake\n"
                "// " + d + "guide.md#the-sandbox-http-api-sandboxd\n"
                "// " + d + "guide.md#rule-s3\n"
                "// " + d + "guide.md#not-a-heading\n"
                "// " + d + "missing.md#overview\n"
                "// see " + SECTION_SIGN + "5.8\n"
                "// see ../" + "sha" + "red/spec/x.md\n",
            "tests/fuzz/corpus/seed": SECTION_SIGN + "\n",  # excluded
        })
        failure = expect_problems(check(root), [
            (f"{prefix} ...{fragment}...",
             lambda p, prefix=prefix, fragment=fragment: p.startswith(prefix) and fragment in p)
            for prefix, fragment in (
                ("src/a.cc:4:", "#not-a-heading"),
                ("src/a.cc:5:", "docs/missing.md does not exist"),
                ("src/a.cc:6:", "section-sign"),
                ("src/a.cc:7:", "outside the repository"),
                ("docs/guide.md:14:", "#nope"),
                ("docs/guide.md:14:", "other.md does not exist"),
            )])
        if failure:
            print("self-test: " + failure)
            return 1
    print("self-test: every kind of broken reference is reported")
    return 0


if __name__ == "__main__":
    sys.exit(tree_checker.main(
        __doc__, check, self_test, "every docs/ reference resolves; no outside citations",
        "broken docs/ reference(s) or outside citation(s). Each code comment must cite the "
        "project's own reference, docs/<file>.md#<anchor>, whose anchor is a heading's GitHub "
        "slug or an <a id>."))
