"""What the checkers of this directory share: a command line and a self-test's scratch tree.

A checker reads a source tree and returns its problems as strings (empty: none). main() runs
it as `checker.py SOURCE_DIR` (exit 0 when clean, 1 listing every problem, 2 on bad usage) or
`checker.py --self-test`, which builds a small tree in a temporary directory with write_tree()
and checks that exactly the expected problems are found with expect_problems().
"""

import os
import sys


def write_tree(root, files):
    """Writes {relative path: text} under root, creating directories as needed."""
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def expect_problems(problems, expected):
    """None when every predicate of `expected` matches one of `problems` and there are no
    others; otherwise what differs, for the self-test to print."""
    listing = "\n  " + "\n  ".join(problems)
    for describe, matches in expected:
        if not any(matches(p) for p in problems):
            return f"expected a problem {describe} in:{listing}"
    if len(problems) != len(expected):
        return f"unexpected problems:{listing}"
    return None


def main(usage, check, self_test, clean_message, fix_hint):
    """The checker's command line: check(SOURCE_DIR) or self_test(); returns the exit code."""
    argv = sys.argv
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2:
        print(usage)
        return 2
    problems = check(argv[1])
    if problems:
        print("\n".join(problems))
        print(f"\n{len(problems)} {fix_hint}")
        return 1
    print(clean_message)
    return 0
