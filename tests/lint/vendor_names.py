#!/usr/bin/env python3
"""Counts vendor names in the code (comments stripped) of every file under
src/ that is not a vendor's own: device/ and the per-vendor install probes
are exempt. Prints 'path count' lines; with an allow-list, checks that no
file has more than the list allows and exits 1 otherwise."""
import os
import re
import sys

# Words that only a vendor's own code should need.
# "rocm" and "hip" inside identifiers count (nd_vendor_rocm, ND_FW_HIP), inside
# words not (sigprocmask, ownership).
PATTERN = re.compile(
    r"ascend|nvidia|cuda|(?<![a-z])rocm|(?<![a-z])hip|(?<![a-z])amd(?:gpu|hip|(?![a-z0-9]))|hygon|npu-smi|"
    r"hy-smi|davinci|dcmi|nvml|rsmi|(?<![a-z])cann(?![a-z])|torch_npu|hccl|nccl|rccl|(?<![a-z])kfd(?![a-z])",
    re.IGNORECASE,
)
EXEMPT_DIRS = ("src/device/",)
# A vendor's install probe is its own file: probe/<vendor>_install.[ch].
EXEMPT_FILE = re.compile(r"^src/probe/[a-z0-9]+_install\.[ch]$")


def strip_comments(text):
    """C comments out, strings and code kept (a string holding "/*" stays)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def counts(root):
    result = {}
    for dirpath, _, files in os.walk(os.path.join(root, "src")):
        for name in files:
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.relpath(os.path.join(dirpath, name), root)
            if path.startswith(EXEMPT_DIRS) or EXEMPT_FILE.match(path):
                continue
            with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                n = len(PATTERN.findall(strip_comments(f.read())))
            if n:
                result[path] = n
    return result


def read_allow(path):
    allow = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) < 2 or not parts[1].isdigit():
                sys.exit(f"{path}:{lineno}: want 'path count  # why'")
            allow[parts[0]] = int(parts[1])
    return allow


def main():
    root = sys.argv[1]
    found = counts(root)
    if len(sys.argv) < 3:
        for path in sorted(found):
            print(path, found[path])
        return 0
    allow = read_allow(sys.argv[2])
    bad = 0
    for path in sorted(found):
        if found[path] > allow.get(path, 0):
            print(f"FAIL - {path}: {found[path]} vendor names in code, {allow.get(path, 0)} allowed "
                  "(use the vendor descriptor in device/device.h, or move the code into the vendor's own file)")
            bad += 1
        elif found[path] < allow[path]:
            print(f"note - {path}: {found[path]} vendor names, {allow[path]} allowed: lower the allow-list")
    for path in sorted(set(allow) - set(found)):
        print(f"note - {path}: no vendor names left: drop it from the allow-list")
    print(f"{len(found)} files with vendor names, {bad} over their allowance")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
