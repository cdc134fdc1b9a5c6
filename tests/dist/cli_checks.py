"""What the CLI tests under mpirun check alike: bad input gives one message and exit 1 on
every rank with nothing written, no temporaries are left, and the verdict line."""
import os, sys


def said_once(r, expect, code=1):
    """A refusal the job makes as one process would: exit `code`, one "strata:" line that
    holds `expect`, and nothing from the other ranks: no MPI_Abort (its banner), no rank
    saying it was stopped by the SIGTERM with which mpirun ends the ranks once one exits
    non-zero. (Open MPI's own note that a process returned a non-zero status may follow.)"""
    lines = [l for l in r.stderr.splitlines() if l.startswith("strata")]
    return (r.returncode == code and len(lines) == 1 and lines[0].startswith("strata: error") and
            expect in r.stderr and "MPI_ABORT" not in r.stderr and "SIGTERM" not in r.stderr)


def bad_input(run, cases, out, failures):
    """run(args) -> CompletedProcess; cases: (args, words the one message must hold)."""
    for args, expect in cases:
        r = run(args)
        if not said_once(r, expect):
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
