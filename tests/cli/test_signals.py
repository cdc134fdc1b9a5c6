#!/usr/bin/env python3
"""SIGINT and SIGTERM during `strata wave`: the run stops with exit status 128 + the signal,
says where the last valid checkpoint is, leaves no temporary and no results of a run that
did not finish, and can be continued with --restart. A signal that arrives while a
checkpoint is being written (the process is frozen with SIGSTOP with the temporary on disk,
so the timing is not left to chance) lets the write finish; a second signal stops at once
and removes the temporary. Usage: test_signals.py PATH_TO_STRATA"""
import json
import os
import re
import signal
import subprocess
import tempfile
import time

from clitest import STRATA, check, finish, run_strata

CASE = {
    "grid": {"shape": [128, 128, 128], "spacing": 10.0},
    "time": {"steps": 400},
    "scheme": {"order": 8, "precision": "f32"},
    "sources": [{"position": [640.0, 640.0, 400.0], "frequency": 10.0}],
    "receivers": {"points": [[400.0, 640.0, 200.0]]},
    "output": {"checkpoint_every": 1},
    "device": "cpu",
}


def start(cfg, out, *extra):
    return subprocess.Popen([STRATA, "wave", "--config", cfg, "--out-dir", out, "--progress", "off", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def temporaries(out):
    return [f for f in os.listdir(out) if ".tmp." in f] if os.path.isdir(out) else []


def freeze_in_a_write(proc, out, timeout=120):
    """Stops proc (SIGSTOP) while a checkpoint temporary is on disk, after a first checkpoint
    was written; True when it did."""
    end = time.time() + timeout
    while time.time() < end and proc.poll() is None:
        if temporaries(out) and os.path.exists(os.path.join(out, "checkpoint.strata")):
            proc.send_signal(signal.SIGSTOP)
            if temporaries(out):
                return True
            proc.send_signal(signal.SIGCONT)
        time.sleep(0.001)
    return False


def no_results(out):
    return not any(os.path.exists(os.path.join(out, f)) for f in ("config.json", "report.json", "seismogram.npy"))


with tempfile.TemporaryDirectory() as tmp:
    cfg = os.path.join(tmp, "case.json")
    with open(cfg, "w") as f:
        json.dump(CASE, f)

    # 1. SIGINT between steps: stops, names the checkpoint, continues with --restart.
    out = os.path.join(tmp, "int")
    p = start(cfg, out, "--set", "output.checkpoint_every=5")
    while p.poll() is None and not os.path.exists(os.path.join(out, "checkpoint.strata")):
        time.sleep(0.01)
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=300)
    check("SIGINT exits 130", p.returncode == 130, f"rc={p.returncode} {err}")
    m = re.search(r"last valid checkpoint is (\S+) \(step (\d+)\): continue with --restart", err)
    check("SIGINT names the last valid checkpoint", m is not None and m.group(1).endswith("checkpoint.strata"), err)
    check("SIGINT leaves no temporary", not temporaries(out), str(temporaries(out)))
    check("SIGINT leaves no results of the unfinished run", no_results(out), str(os.listdir(out)))
    if m:
        r = run_strata("wave", "--config", cfg, "--out-dir", out, "--set", "output.checkpoint_every=5",
                       "--restart", "--quiet", "--progress", "off", "--steps", str(int(m.group(2)) + 5))
        rep = json.load(open(os.path.join(out, "report.json"))) if r.returncode == 0 else {}
        check("the interrupted run continues from that checkpoint",
              r.returncode == 0 and rep.get("first_step") == int(m.group(2)), r.stderr)

    # 2. SIGTERM while a checkpoint is being written: the write finishes, then the run stops.
    out = os.path.join(tmp, "term")
    p = start(cfg, out)
    frozen = freeze_in_a_write(p, out)
    check("a checkpoint write was caught in progress", frozen)
    p.send_signal(signal.SIGTERM)
    p.send_signal(signal.SIGCONT)
    _, err = p.communicate(timeout=300)
    check("SIGTERM during a write exits 143", p.returncode == 143, f"rc={p.returncode} {err}")
    check("SIGTERM during a write leaves no temporary", not temporaries(out), str(temporaries(out)))
    check("SIGTERM during a write leaves no results", no_results(out), str(os.listdir(out)))
    m = re.search(r"last valid checkpoint is (\S+) \(step (\d+)\)", err)
    if m:
        r = run_strata("wave", "--config", cfg, "--out-dir", out, "--restart", "--quiet", "--progress", "off",
                       "--steps", str(int(m.group(2)) + 1))
        check("the checkpoint written through the signal is valid", r.returncode == 0, r.stderr)
    else:
        check("SIGTERM during a write names the checkpoint", False, err)

    # 3. A second signal during the write stops at once and removes the temporary; the
    #    checkpoint before it stays valid.
    out = os.path.join(tmp, "twice")
    p = start(cfg, out)
    frozen = freeze_in_a_write(p, out)
    check("a second checkpoint write was caught in progress", frozen)
    p.send_signal(signal.SIGINT)  # one is the cooperative request (the kernel picks the order),
    p.send_signal(signal.SIGTERM)  # the other stops at once
    p.send_signal(signal.SIGCONT)
    _, err = p.communicate(timeout=300)
    second = re.search(r"interrupted by (SIG[A-Z]+)", err)
    check("a second signal says it stopped", second is not None, err)
    check("a second signal exits 128 + its number",
          second is not None and p.returncode == 128 + signal.Signals[second.group(1)].value, f"rc={p.returncode} {err}")
    check("a second signal removes the temporary", not temporaries(out), str(temporaries(out)))
    check("a second signal leaves no results", no_results(out), str(os.listdir(out)))
    if os.path.exists(os.path.join(out, "checkpoint.strata")):
        with open(os.path.join(out, "checkpoint.strata"), "rb") as f:
            step = int(re.search(rb'"step":(\d+)', f.read(4096)).group(1))
        r = run_strata("wave", "--config", cfg, "--out-dir", out, "--restart", "--quiet", "--progress", "off",
                       "--steps", str(step + 1))
        check("the previous checkpoint is intact", r.returncode == 0, r.stderr)
    else:
        check("the previous checkpoint is intact", False, str(os.listdir(out)))

    # 4. SIGTERM during `strata wave --shots`: the shot's line does not offer --restart, which
    #    a shots run refuses; it says to run the shots again with --overwrite.
    shots = os.path.join(tmp, "shots.json")
    with open(shots, "w") as f:
        json.dump([{"position": [640.0, 640.0, 400.0]}, {"position": [600.0, 640.0, 400.0]}], f)
    out = os.path.join(tmp, "shots")
    p = start(cfg, out, "--shots", shots)
    end = time.time() + 120
    while time.time() < end and p.poll() is None and not os.path.exists(os.path.join(out, "shot0000", "checkpoint.strata")):
        time.sleep(0.01)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=300)
    check("SIGTERM during shots: exits 128 + 15", p.returncode == 128 + signal.SIGTERM, f"rc={p.returncode} {err}")
    check("  the shot's line offers --overwrite, not --restart",
          "run the shots again with --overwrite" in err and "continue with --restart" not in err, err)

finish()
