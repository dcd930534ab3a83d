#!/usr/bin/env python3
"""Checks that every ```cpp block of a Markdown file appears verbatim in one of the given source
files, so documentation cannot drift from the code it shows.

  check_code_blocks.py DOC.md SOURCE... 
"""
import sys

doc, sources = sys.argv[1], sys.argv[2:]
text = open(doc, encoding="utf-8").read()
corpus = [open(s, encoding="utf-8").read() for s in sources]
blocks, failures = [], 0
parts = text.split("```cpp\n")
for part in parts[1:]:
    blocks.append(part.split("```", 1)[0])
for i, block in enumerate(blocks, 1):
    if not any(block.strip() in src for src in corpus):
        failures += 1
        print(f"{doc}: cpp block {i} is not in any of {', '.join(sources)}:\n{block}")
print(f"{len(blocks)} cpp blocks checked, {failures} out of date")
sys.exit(1 if failures or not blocks else 0)
