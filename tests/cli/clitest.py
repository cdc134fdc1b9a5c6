"""Helpers shared by the CLI contract tests: the strata binary from argv, checks that
print ok/FAIL and are counted, and the exit status that ends a test script."""
import os
import struct
import subprocess
import sys
import zlib

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


def read_png(path):
    """(width, height, rows) of an 8-bit RGB or RGBA PNG without interlace: rows[y][x] is an
    (r, g, b) tuple."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path + " is not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    assert depth == 8 and ctype in (2, 6) and interlace == 0, f"{path}: an unexpected PNG kind"
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, rows, i = zlib.decompress(idat), w * bpp, bytearray(w * bpp), [], 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def finish():
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("all passed")
    sys.exit(0)
