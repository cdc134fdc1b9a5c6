#!/usr/bin/env python3
"""A signal to a job of N ranks is said once, as to one process: SIGTERM (what mpirun also
sends the ranks for Ctrl-C) to mpirun during `strata wave` gives rank 0's two lines (the
request, then where the run stopped and its last checkpoint) and during `strata apply --steps`
at most rank 0's "interrupted" line; no other rank adds its own, and the job exits non-zero with no output
left behind (the launcher's status where it passes the ranks' on: see launcher_passes_status).
A rank killed outright (SIGKILL) ends the job with at most one line of strata's, naming it.
Usage: test_signals.py STRATA MPIEXEC NP"""
import os, signal, struct, subprocess, sys, tempfile, time

import cli_checks

strata, mpiexec, np_ = sys.argv[1], sys.argv[2], int(sys.argv[3])
failures = []


def launcher_passes_status():
    """Whether the launcher's own exit status tells the job's after a signal to it: one
    process, Open MPI's mpirun (documented in docs/multigpu.md). MPICH's mpiexec (Hydra),
    signalled itself, forwards the signal, the ranks stop and exit 128 + 15, and Hydra 4.0
    still exits 0 at times (most runs at 1 rank): there only the messages and the files are
    checked."""
    if not mpiexec:
        return True
    v = subprocess.run([mpiexec, "--version"], capture_output=True, text=True)
    return "Open MPI" in v.stdout + v.stderr or "OpenRTE" in v.stdout + v.stderr


STATUS = launcher_passes_status()
if not STATUS:
    print("note: %s does not pass the ranks' status on after a signal to it: not checked" % mpiexec)


def status_says_stopped(rc):
    """The job's exit status says it was stopped (or the launcher does not tell)."""
    return rc != 0 or not STATUS


def interrupt(args, started):
    """Runs args under mpirun (plainly on one rank), sends SIGTERM once `started()` holds
    (at most 60 s), returns (exit status, stderr)."""
    cmd = ([mpiexec, "-np", str(np_)] if mpiexec else []) + [strata] + args
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.time()
    while not started() and time.time() - t0 < 60 and p.poll() is None:
        time.sleep(0.1)
    time.sleep(1.0)  # every rank is past its start (MPI_Init) by now
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    return p.returncode, err


def strata_lines(err):
    """strata's lines, less its warnings about the run itself (a build without cairo warns
    once that its pictures are plain)."""
    return [l for l in err.splitlines() if l.startswith("strata") and ": warning:" not in l]


with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "w")
    rc, err = interrupt(["wave", "--config", os.path.join(os.path.dirname(__file__), "../../examples/wave/quick.json"),
                         "--set", "time.steps=1000000", "--out-dir", out, "--device", "cpu"],
                        lambda: os.path.exists(os.path.join(out, ".strata.lock")))
    lines = strata_lines(err)
    if not status_says_stopped(rc) or len(lines) != 2 or "SIGTERM received" not in lines[0] or "stopped by SIGTERM" not in lines[1]:
        failures.append("wave: expected a non-zero exit and rank 0's two lines, got exit %d:\n%s" % (rc, err))
    if os.path.exists(os.path.join(out, "report.json")):
        failures.append("wave: an interrupted run wrote its report")

    src, dst = os.path.join(d, "a.npy"), os.path.join(d, "b.npy")
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (40, 36, 44), }"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(src, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % (40 * 36 * 44), *[((i * 7919) % 1013) / 1013.0 for i in range(40 * 36 * 44)]))
    t0 = time.time()
    rc, err = interrupt(["apply", "--in", src, "--out", dst, "--steps", "100000000", "--device", "cpu"],
                        lambda: time.time() - t0 > 4)
    # At most one line: rank 0's. (Open MPI's mpirun, ending the job at once, may exit before
    # it forwards that last line: on a loaded machine it sometimes shows none.)
    lines = strata_lines(err)
    if not status_says_stopped(rc) or len(lines) > 1 or any("interrupted by SIGTERM" not in l for l in lines):
        failures.append("apply: expected a non-zero exit and at most rank 0's line, got exit %d:\n%s" % (rc, err))
    if os.path.exists(dst):
        failures.append("apply: an interrupted run wrote its output")

    # A rank that dies without a word (SIGKILL, as the out-of-memory killer sends): mpirun
    # ends the others with SIGTERM, and one line of strata's, rank 0's, says how that comes;
    # nothing is written. The rank killed is not rank 0 (the one that speaks). mpirun may end
    # the job before it passes the line on (as above), so two tries, one of them with it.
    def rank_of(pid):
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                env = dict(e.split(b"=", 1) for e in f.read().split(b"\0") if b"=" in e)
            return int(env.get(b"OMPI_COMM_WORLD_RANK", env.get(b"PMI_RANK", b"-1")))
        except (OSError, ValueError):
            return -1

    if mpiexec and np_ > 1:
        said = False
        for attempt in range(2):
            cmd = [mpiexec, "-np", str(np_), strata, "apply", "--in", src, "--out", dst, "--steps", "100000000",
                   "--device", "cpu"]
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            victim = None
            t0 = time.time()
            while victim is None and time.time() - t0 < 60 and p.poll() is None:
                time.sleep(0.2)
                for pid in subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split():
                    if rank_of(pid) > 0:
                        victim = int(pid)
            time.sleep(3.0)  # past MPI_Init, into the steps
            if victim is not None:
                os.kill(victim, signal.SIGKILL)
            _, err = p.communicate(timeout=120)
            lines = strata_lines(err)
            if victim is None or p.returncode == 0 or len(lines) > 1 or any("a rank's death" not in l for l in lines):
                failures.append("a killed rank: expected a non-zero exit and at most one line naming it, got exit %s "
                                "(killed %s):\n%s" % (p.returncode, victim, err))
                break
            if os.path.exists(dst):
                failures.append("a killed rank: the job wrote its output")
                break
            said = said or len(lines) == 1
            if said:
                break
        if not said and not failures:
            failures.append("a killed rank: no line said why the job stopped, in two tries")
    cli_checks.no_temporaries(d, failures)

cli_checks.verdict(failures, "%d ranks: signals" % np_)
