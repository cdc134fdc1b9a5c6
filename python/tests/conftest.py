"""Fixtures shared by the strata tests."""
import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(15)


def _fields_in(value):
    import strata
    if isinstance(value, strata.Field):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _fields_in(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _fields_in(v)


def pytest_collection_modifyitems(items):
    """A Field made when the tests are collected (in a parametrize list) lives until the
    interpreter exits, past the extension module: nanobind then reports it leaked. Make it
    in the test instead (a callable in the list, called there)."""
    held = [item.nodeid for item in items
            if any(True for v in getattr(getattr(item, "callspec", None), "params", {}).values()
                   for _ in _fields_in(v))]
    if held:
        raise pytest.UsageError("parameters hold strata.Field objects made at collection: " + ", ".join(held))
