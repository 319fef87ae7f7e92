"""CSV exports as spreadsheets open them: streamed line by line, UTF-8 with a byte order mark,
and no cell a spreadsheet would run as a formula (CSV injection). The reports' exports and the
gradebook's write through it."""

import csv
from collections.abc import Iterable, Iterator
from decimal import Decimal
from functools import lru_cache

CSV_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value):
    """Text a spreadsheet would run as a formula gets a leading apostrophe; numbers stay,
    and a score or a credit (a Decimal) is a plain decimal: "2.5", "3", "0.33333"."""
    if value is None:
        return ""
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, Decimal):
        return _plain(value)
    if isinstance(value, str) and value.startswith(CSV_FORMULA_START):
        return f"'{value}"
    return value


@lru_cache(maxsize=4096)
def _plain(value: Decimal) -> str:
    """A Decimal as a plain decimal; cached, as a CSV repeats a few credits and scores many
    times (a row per attempt, a credit per answer)."""
    return f"{value.normalize():f}"


class _Echo:
    """A file-like object whose write returns the line, for csv.writer in a stream."""

    def write(self, value: str) -> str:
        return value


def csv_lines(rows: Iterable[list]) -> Iterator[str]:
    """The rows as UTF-8 CSV lines, after a byte order mark so spreadsheets read accents."""
    writer = csv.writer(_Echo())
    yield "\ufeff"
    for row in rows:
        yield writer.writerow([_cell(value) for value in row])
