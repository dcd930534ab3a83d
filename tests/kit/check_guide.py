#!/usr/bin/env python3
"""Checks that every code block of docs/build-your-own-runtime.md is compiled or run by a test
(the conventions are in guide.py):

  check_guide.py --guide DOC --sandbox BIN --wasm GUEST.wasm SOURCE...

  - each ```cpp, ```c and ```cmake block appears verbatim in one of the SOURCE files (which the
    build compiles) or in the projects `sandbox init` generates (calc2, and kv2 around GUEST —
    the ones the flow tests build), generated here with BIN;
  - each ```sh block parses into commands and servers, and lies in a section that a flow test
    runs (guide.FLOWS), and every section a flow names exists;
  - there is no block of another kind.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import guide


def generated_sources(sandbox, wasm, root):
    for args in (["init", "--custom", "calc2"], ["init", "--custom", "kv2", "--wasm", wasm]):
        r = subprocess.run([sandbox] + args, cwd=root, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"sandbox {' '.join(args)} failed:\n{r.stdout}{r.stderr}")
    out = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            if not f.endswith(".wasm"):
                out.append(os.path.join(dirpath, f))
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--guide", required=True)
    ap.add_argument("--sandbox", required=True)
    ap.add_argument("--wasm", required=True)
    ap.add_argument("sources", nargs="+")
    args = ap.parse_args()

    blocks = guide.read_blocks(args.guide)
    failures = []
    with tempfile.TemporaryDirectory(prefix="sandbox-guide-") as root:
        sources = args.sources + generated_sources(os.path.abspath(args.sandbox),
                                                   os.path.abspath(args.wasm), root)
        corpus = {s: open(s, encoding="utf-8").read() for s in sources}
        covered = {s for sections in guide.FLOWS.values() for s in sections}
        sections = {b.section for b in blocks}
        for flow, names in guide.FLOWS.items():
            for name in names:
                if name not in sections:
                    failures.append(f"flow {flow} runs section '{name}', which has no code")
        counts = {}
        for b in blocks:
            where = f"{args.guide}:{b.line_number} ({b.language or 'untagged'} block in '{b.section}')"
            counts[b.language] = counts.get(b.language, 0) + 1
            if b.language in guide.CHECKED_LANGUAGES:
                text = b.text.strip()
                if not any(text in src for src in corpus.values()):
                    failures.append(f"{where} is not verbatim in any compiled source:\n{b.text}")
            elif b.language == "sh":
                try:
                    guide.parse_sh(b)
                except guide.GuideError as e:
                    failures.append(f"{where}: {e}")
                if b.section not in covered:
                    failures.append(f"{where}: no flow test runs this section")
            else:
                failures.append(f"{where}: only sh, cpp, c and cmake blocks are allowed")
    for f in failures:
        print(f, "\n")
    summary = ", ".join(f"{n} {lang}" for lang, n in sorted(counts.items()))
    print(f"{len(blocks)} blocks ({summary}), {len(failures)} problems")
    sys.exit(1 if failures or not blocks else 0)


if __name__ == "__main__":
    main()
