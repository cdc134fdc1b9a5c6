"""Checks of the Python functions' scalar arguments, so that a value is refused, not changed:
int() would make 2.5 iterations 2 and True one; float('nan') passes every `< 0` test."""
import math
import numbers


def _number(value, what, kind):
    if isinstance(value, bool) or type(value).__name__ in ("bool", "bool_"):  # NumPy's too (2.x, 1.x)
        raise ValueError(f"{what} must be {kind}, got {value!r}")
    try:
        return float(value)  # ints, floats, NumPy scalars and 0-d arrays
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{what} must be {kind}, got {value!r}") from None


def whole(value, what):
    """value as an int, refused (ValueError) unless it is a whole number (not a bool)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    f = _number(value, what, "a whole number")
    if not f.is_integer():
        raise ValueError(f"{what} must be a whole number, got {value!r}")
    return int(f)


def finite(value, what):
    """value as a float, refused (ValueError) unless it is a finite real number."""
    f = _number(value, what, "a finite number")
    if not math.isfinite(f):
        raise ValueError(f"{what} must be a finite number, got {value!r}")
    return f


def overrides(value):
    """The configuration overrides as a list of 'key.path=VALUE' strings; one string is one
    override (list() would make each of its characters one)."""
    if isinstance(value, str):
        return [value]
    items = list(value)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"overrides must be 'key.path=VALUE' strings, got {item!r}")
    return items
