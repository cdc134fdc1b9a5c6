"""The extension module as a shared object: it must carry its static libraries privately."""
import shutil
import subprocess
import sys

import pytest

import strata._strata


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF symbol tables: Linux only")
def test_the_module_exports_only_its_init_function():
    # Exported C++ symbols of a static library inside the module (libstdc++ where the
    # toolchain links it statically, strata, nanobind) would mix with the process's own
    # libstdc++.so.6 and crash the first formatted double; see python/CMakeLists.txt.
    nm = shutil.which("nm")
    assert nm, "nm (binutils) is needed to read the module's symbol table"
    out = subprocess.run([nm, "-D", "--defined-only", strata._strata.__file__],
                         capture_output=True, text=True, check=True).stdout
    names = [line.split()[-1] for line in out.splitlines() if line.strip()]
    assert "PyInit__strata" in names
    others = [n for n in names if n != "PyInit__strata"]
    assert not others, f"{len(others)} more exported symbols, e.g. {others[:5]}"
