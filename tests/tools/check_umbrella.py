#!/usr/bin/env python3
"""strata.hpp includes every public header (include/strata/*.hpp), as its comment and the docs
say: a header added to the public API and not to strata.hpp fails here, naming it.
Usage: check_umbrella.py SOURCE_DIR"""
import os
import re
import sys

root = sys.argv[1]
folder = os.path.join(root, "include", "strata")
with open(os.path.join(folder, "strata.hpp"), encoding="utf-8") as f:
    included = set(re.findall(r'^#include "strata/([^"]+)"', f.read(), re.M))
public = {n for n in os.listdir(folder) if n.endswith(".hpp") and n != "strata.hpp"}
missing, stale = sorted(public - included), sorted(included - public)
for n in missing:
    print(f"include/strata/strata.hpp does not include strata/{n}")
for n in stale:
    print(f"include/strata/strata.hpp includes strata/{n}, which is not a public header")
print(f"umbrella: {len(public)} public headers, {len(missing) + len(stale)} problem(s)")
sys.exit(1 if missing or stale else 0)
