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


def _documented_names():
    """Every strata.NAME(.NAME...) the package's docstrings mention."""
    import inspect
    import re
    import strata.bench
    import strata.plot
    import strata.poisson
    import strata.wave
    texts = []
    for mod in (strata, strata._strata, strata.poisson, strata.wave, strata.bench, strata.plot):
        texts.append(mod.__doc__ or "")
        for _, obj in inspect.getmembers(mod):
            if callable(obj) and getattr(obj, "__module__", "").startswith("strata"):
                texts.append(obj.__doc__ or "")
                for _, meth in inspect.getmembers(obj):
                    texts.append(getattr(meth, "__doc__", "") or "")
    names = set()
    for t in texts:
        if isinstance(t, str):
            names.update(re.findall(r"\bstrata(?:\.[A-Za-z_][A-Za-z0-9_]*)+", t))
    return names


def test_every_name_the_docstrings_mention_exists():
    import importlib
    missing = []
    for name in sorted(_documented_names()):
        parts = name.split(".")
        obj = importlib.import_module("strata")
        for i, part in enumerate(parts[1:], start=1):
            if hasattr(obj, part):
                obj = getattr(obj, part)
                continue
            try:
                obj = importlib.import_module(".".join(parts[: i + 1]))
            except ImportError:
                if part not in ("py", "md", "json", "hpp", "cpp"):  # a file name, not an attribute
                    missing.append(name)
                break
    assert not missing, f"docstrings mention what does not exist: {missing}"


def test_scalar_arguments_are_refused_not_changed():
    import numpy as np
    from strata import _args

    rng = np.random.default_rng(2026)
    for v in (7, np.int64(7), np.int32(7), np.array(7), 7.0, np.float32(7.0), np.array(7.0)):
        assert _args.whole(v, "n") == 7 and type(_args.whole(v, "n")) is int
    for v in list(rng.uniform(-1e6, 1e6, 20)) + [0.5, -2.5, 1e-300]:  # not whole: refused
        if not float(v).is_integer():
            with pytest.raises(ValueError, match="n must be a whole number"):
                _args.whole(v, "n")
    for v in (True, False, np.bool_(True), float("nan"), float("inf"), None, "x", [3], np.zeros(2)):
        with pytest.raises(ValueError, match="n must be a whole number"):
            _args.whole(v, "n")
    assert _args.finite(np.array(2.5), "x") == 2.5 and _args.finite(-3, "x") == -3.0
    for v in (float("nan"), float("-inf"), np.float64("inf"), True, None, "x"):
        with pytest.raises(ValueError, match="x must be a finite number"):
            _args.finite(v, "x")
    assert _args.overrides("a.b=1") == ["a.b=1"] and _args.overrides(("a=1", "b=2")) == ["a=1", "b=2"]
    with pytest.raises(TypeError, match="key.path=VALUE"):
        _args.overrides(["a=1", 2])
