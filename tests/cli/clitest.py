"""Helpers shared by the CLI contract tests: the strata binary from argv, checks that
print ok/FAIL and are counted, and the exit status that ends a test script."""
import os
import subprocess
import sys

STRATA = os.path.abspath(sys.argv[1])
failures = []


def run_strata(*args, cwd=None, address_space=None):
    """Runs strata; address_space (bytes) caps its virtual memory as `ulimit -v` would."""
    def cap():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    return subprocess.run([STRATA, *args], capture_output=True, text=True, timeout=300, cwd=cwd,
                          preexec_fn=cap if address_space else None)


def has_cpu_fft():
    """Whether this strata was built with the CPU's FFT (the fft solver on the CPU), as
    `strata info` says."""
    import re
    return re.search(r"^\s*CPU FFT:\s+yes", run_strata("info").stdout, re.M) is not None


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
