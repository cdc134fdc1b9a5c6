"""Checks of the Python functions' scalar arguments, so that a value is refused, not changed:
int() would make 2.5 iterations 2 and True one; float('nan') passes every `< 0` test."""
import math
import numbers


def whole(value, what):
    """value as an int, refused (ValueError) unless it is a whole number (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not float(value).is_integer():
        raise ValueError(f"{what} must be a whole number, got {value!r}")
    return int(value)


def finite(value, what):
    """value as a float, refused (ValueError) unless it is a finite real number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ValueError(f"{what} must be a finite number, got {value!r}")
    return float(value)
