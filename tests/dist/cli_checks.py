"""What the CLI tests under mpirun check alike: bad input gives one message and exit 1 on
every rank with nothing written, no temporaries are left, and the verdict line."""
import os, sys


def bad_input(run, cases, out, failures):
    """run(args) -> CompletedProcess; cases: (args, words the one message must hold)."""
    for args, expect in cases:
        r = run(args)
        if r.returncode != 1 or r.stderr.count("strata: error") != 1 or expect not in r.stderr:
            failures.append("%s: expected exit 1 and one message with '%s', got exit %d:\n%s" %
                            (args, expect, r.returncode, r.stderr))
        if os.path.exists(out):
            failures.append("%s: wrote %s" % (args, out))


def no_temporaries(directory, failures):
    leftovers = [f for f in os.listdir(directory) if ".tmp." in f]
    if leftovers:
        failures.append("temporaries left: %s" % leftovers)


def verdict(failures, what):
    for f in failures:
        print("FAIL:", f)
    print("%s: %s" % (what, "ok" if not failures else "%d failures" % len(failures)))
    sys.exit(1 if failures else 0)
