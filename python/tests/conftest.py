"""Fixtures shared by the strata tests."""
import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(15)


def _holds_field(value):
    import strata
    if isinstance(value, strata.Field):
        return True
    if isinstance(value, dict):
        value = list(value.values())
    return isinstance(value, (list, tuple)) and any(_holds_field(v) for v in value)


def pytest_collection_modifyitems(items):
    """A Field made when the tests are collected (in a parametrize list) lives until the
    interpreter exits, past the extension module, and is shared by every test that uses the
    list. Make it in the test instead (a callable in the list, called there)."""
    held = [item.nodeid for item in items
            if _holds_field(list(getattr(getattr(item, "callspec", None), "params", {}).values()))]
    if held:
        raise pytest.UsageError("parameters hold strata.Field objects made at collection: " + ", ".join(held))
