"""Row checks of a table read back (ratings.csv, pairwise.csv, best_worst.csv, annotations.csv): each finding
is one Problem naming the file, the first bad CSV line, the column and the fix. The columns themselves are
checked by the table's declaration (`TableSchema.check_columns`, infact/table_schema.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from infact.errors import Problem


def csv_line(df: pd.DataFrame, mask: pd.Series) -> int:
    """The CSV line of the first row of `df` where `mask` holds (the header is line 1); `mask` may cover a
    subset of `df`'s rows (e.g. the rows that are not attention checks)."""
    at = mask if mask.index.equals(df.index) else mask.reindex(df.index, fill_value=False)
    return int(np.flatnonzero(at.to_numpy(dtype=bool))[0]) + 2


def blank(values: pd.Series) -> pd.Series:
    """Empty cells: missing, or only white space."""
    return values.isna() | (values.astype(str).str.strip() == "")


def row_problem(problems: list[Problem], df: pd.DataFrame, mask: pd.Series, source: str, key: str, message) -> None:
    """Add a Problem at the first row where `mask` holds, if any does; `message(first_label)` words it
    (a callable, so it is only built when a row is bad) or it is a plain string."""
    if mask.any():
        text = message(mask.idxmax()) if callable(message) else message
        problems.append(Problem(source, text, line=csv_line(df, mask), key=key))


def blank_problems(df: pd.DataFrame, columns, source: str, rows: pd.DataFrame | None = None) -> list[Problem]:
    """One Problem per required column with empty cells in `rows` (default: every row of `df`)."""
    rows = df if rows is None else rows
    problems: list[Problem] = []
    for col in columns:
        empty = blank(rows[col])
        row_problem(
            problems,
            df,
            empty,
            source,
            col,
            f"empty {col} in {int(empty.sum())} row(s); fill it in or delete those rows.",
        )
    return problems
