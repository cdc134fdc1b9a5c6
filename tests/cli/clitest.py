"""Helpers shared by the CLI contract tests: the strata binary from argv, checks that
print ok/FAIL and are counted, and the exit status that ends a test script."""
import subprocess
import sys

STRATA = sys.argv[1]
failures = []


def run_strata(*args, cwd=None):
    return subprocess.run([STRATA, *args], capture_output=True, text=True, timeout=300, cwd=cwd)


def check(name, cond, detail=""):
    if not cond:
        failures.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}")
    else:
        print(f"ok   {name}")


def finish():
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("all passed")
    sys.exit(0)
