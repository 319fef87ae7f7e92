"""Checks that work grows linearly with its input, by the ratio of two timings rather than a
deadline: a slower or busier machine slows both alike."""

import time
from collections.abc import Callable

GROWTH = 8  # The larger input is this many times the smaller.


def _fastest(run: Callable[[int], object], size: int) -> float:
    timings = []
    for _ in range(3):
        started = time.perf_counter()
        run(size)
        timings.append(time.perf_counter() - started)
    return min(timings)


def assert_linear(run: Callable[[int], object], size: int) -> None:
    """`run(n)` takes time linear in n: 8 times the input takes under 24 times as long (a
    quadratic run takes 64 times), timed at `size` and 8 × `size`, the fastest of three."""
    small = max(_fastest(run, size), 1e-4)
    large = _fastest(run, GROWTH * size)
    assert large / small < 3 * GROWTH, f"{GROWTH}× the input took {large / small:.0f}× as long"
