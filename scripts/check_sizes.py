#!/usr/bin/env python3
"""Lists C++ files over 450 lines and functions over 80 lines (the project's size guides).

A file or function may be longer when the reason is written beside it: a comment containing
"longer than" within the three lines above the function, or in the file's first ten lines.
Exit status 1 when anything is listed without a reason.
  usage: scripts/check_sizes.py [DIR ...]   (default: the source folders)
"""
import os
import re
import sys

FILE_LIMIT, FUNCTION_LIMIT = 450, 80
DIRS = ["app", "bench", "core", "fuzz", "nn", "proto", "records", "search", "selfplay", "tests", "training", "util"]
CONTROL = re.compile(r"^\s*(if|for|while|switch|catch|do|else|return|namespace)\b")


def has_reason(lines, i):
    return any("longer than" in lines[k] for k in range(max(0, i - 3), i))


STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)\'')
START = re.compile(r"^\s{0,2}[A-Za-z_~][\w:<>,*&\s~]*\(")


def code_of(line):
    """The line without string and character literals and // comments (braces in them do not count)."""
    line = STRING.sub('""', line)
    return line.split("//")[0]


def definition_end(code, i):
    """The line of a definition's opening brace, when lines[i] starts one, else None."""
    for j in range(i, min(i + 6, len(code))):
        stripped = code[j].rstrip()
        if stripped.endswith(";"):
            return None
        if stripped.endswith("{"):
            return j
    return None


def check(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    code = [code_of(l) for l in lines]
    problems = []
    if len(lines) - 1 > FILE_LIMIT and not any("longer than" in l for l in lines[:10]):
        problems.append(f"{path}: {len(lines) - 1} lines")
    i = 0
    while i < len(lines):
        line = code[i]
        brace = definition_end(code, i) if START.match(line) and not CONTROL.match(line) else None
        if brace is not None and "=" not in line.split("(")[0]:
            depth, j = 0, i
            while j < len(lines):
                depth += code[j].count("{") - code[j].count("}")
                if j >= brace and depth <= 0:
                    break
                j += 1
            length = j - i + 1
            if length > FUNCTION_LIMIT and not has_reason(lines, i):
                problems.append(f"{path}:{i + 1}: a function of {length} lines: {lines[i].strip()[:70]}")
            i = j + 1
            continue
        i += 1
    return problems


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    dirs = sys.argv[1:] or [os.path.join(root, d) for d in DIRS]
    problems = []
    for d in dirs:
        for base, _, files in os.walk(d):
            for name in sorted(files):
                if name.endswith((".cpp", ".h")):
                    problems += check(os.path.relpath(os.path.join(base, name)))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
