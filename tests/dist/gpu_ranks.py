"""A distributed test on the GPUs runs one rank per GPU: it is skipped (exit 77, CTest's
SKIP_RETURN_CODE) where this strata has no CUDA backend or fewer GPUs are visible than it
has ranks, and says why. The device comes from --device or STRATA_TEST_DEVICE (CTest's
dist.*_gpu tests set it)."""
import os
import subprocess
import sys


def device(argv):
    """--device D after the script's three arguments, else STRATA_TEST_DEVICE, else cpu."""
    if len(argv) > 5 and argv[4] == "--device":
        return argv[5]
    return os.environ.get("STRATA_TEST_DEVICE", "cpu")


def visible_gpus():
    """CUDA_VISIBLE_DEVICES's entries where it is set, else nvidia-smi's list (0 without it)."""
    listed = os.environ.get("CUDA_VISIBLE_DEVICES")
    if listed is not None:
        return len([e for e in listed.split(",") if e.strip()])
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return 0
    return sum(1 for line in out.splitlines() if line.startswith("GPU "))


def require(strata, ranks):
    """Exit 77 unless `ranks` ranks of this strata can each have a GPU."""
    version = subprocess.run([strata, "--version"], capture_output=True, text=True).stdout
    if "CUDA" not in version:
        print(f"skipped: this strata has no CUDA backend ({version.strip()})")
        sys.exit(77)
    gpus = visible_gpus()
    if gpus < max(ranks, 1):
        print(f"skipped: {ranks} rank(s) on the GPUs need as many GPUs; {gpus} visible")
        sys.exit(77)
