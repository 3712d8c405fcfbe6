"""Server-rendered SVG charts (no JavaScript, no CDN, no inline styles): geometry is computed here, the
templates in ``templates/charts/`` draw it with SVG attributes and classes from the static stylesheet.

Every chart has axes with labelled ticks, a label under each column or beside each bar, and the value of each
column written on it; every position a template writes is a number computed here (never a lookup a template
could miss, which an SVG renders as ``y=""``: every label at the top).
"""

from __future__ import annotations

import math

from django import template

register = template.Library()

BAR_HEIGHT = 18
BAR_GAP = 6
LABEL_WIDTH = 70
BAR_WIDTH = 520
STATES = ("valid", "warning", "invalid")
AXIS_WIDTH = 44  # the y axis's tick labels, left of the plot
AXIS_TOP = 18  # room above the tallest column for its value
AXIS_BOTTOM = 34  # the x labels and the axis title under the plot
MIN_PLOT_WIDTH = 360  # columns widen up to MAX_COLUMN until the plot is this wide
MAX_COLUMN = 72


def nice_ticks(most: float, count: int = 4) -> list[float]:
    """Round tick values from 0 to at least ``most`` (1, 2, 2.5 or 5 times a power of ten apart)."""
    most = most if most > 0 else 1
    raw = most / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    if most >= 1 and step < 1:
        step = 1
    ticks = [0.0]
    while ticks[-1] < most - 1e-9:
        ticks.append(round(ticks[-1] + step, 6))
    return ticks


def _tick_text(value: float) -> str:
    return f"{value:g}"


def _columns(
    values: list[float], *, height: int, column: int, gap: int, unit: str = ""
) -> tuple[list[dict], dict]:
    """Columns on a y axis from 0 to a round top: each column's geometry and its value's label, and the axis
    (ticks with their y and text, the plot's corners)."""
    if values and len(values) * (column + gap) < MIN_PLOT_WIDTH:
        # Few columns: wider ones, so the chart (and its axis title) is not a thumbnail.
        column = min(MAX_COLUMN, MIN_PLOT_WIDTH // len(values) - gap)
    ticks = nice_ticks(max(values, default=0))
    top = ticks[-1] or 1
    plot_bottom = AXIS_TOP + height
    columns = []
    for i, value in enumerate(values):
        h = round(height * value / top, 1)
        x = AXIS_WIDTH + 8 + i * (column + gap)
        y = round(plot_bottom - h, 1)
        columns.append(
            {
                "x": x,
                "y": y,
                "h": h,
                "mid": x + column / 2,
                "value_y": round(y - 4, 1),
                "label_y": plot_bottom + 14,
                "value_text": f"{value:g}{unit}",
            }
        )
    plot_right = max(
        AXIS_WIDTH + 8 + max(len(values), 1) * (column + gap), AXIS_WIDTH + 8 + MIN_PLOT_WIDTH // 2
    )
    axis = {
        "left": AXIS_WIDTH,
        "right": plot_right,
        "top": AXIS_TOP,
        "bottom": plot_bottom,
        "title_x": AXIS_WIDTH + (plot_right - AXIS_WIDTH) / 2,
        "title_y": plot_bottom + 30,
        "ticks": [
            {"y": round(plot_bottom - height * t / top, 1), "text": _tick_text(t), "x": AXIS_WIDTH - 6}
            for t in ticks
        ],
        "column": column,
    }
    return columns, axis


@register.inclusion_tag("charts/release_bars.html")
def release_bars(matrix: dict) -> dict:
    """One horizontal bar per release, split into the profiles that would be valid, warning or invalid; an
    x axis of profiles from 0 to all of them, each segment's count written on it when it fits."""
    total_profiles = matrix.get("total", 0) or 0
    rows = []
    for i, entry in enumerate(matrix.get("releases") or ()):
        total = sum(entry[s] for s in STATES) or 1
        y = AXIS_TOP + i * (BAR_HEIGHT + BAR_GAP)
        x = LABEL_WIDTH
        segments = []
        for state in STATES:
            width = round(BAR_WIDTH * entry[state] / total, 2)
            if entry[state]:
                segments.append(
                    {
                        "state": state,
                        "x": x,
                        "width": width,
                        "count": entry[state],
                        "mid": round(x + width / 2, 2),
                        "fits": width >= 8 * len(str(entry[state])) + 6,
                    }
                )
            x += width
        rows.append(
            {
                "release": entry["release"],
                "fleet": entry.get("fleet"),
                "y": y,
                "text_y": y + BAR_HEIGHT - 5,
                "segments": segments,
                "summary": ", ".join(f"{entry[s]} {s}" for s in STATES),
                "end_x": LABEL_WIDTH + BAR_WIDTH + 8,
            }
        )
    bottom = AXIS_TOP + max(len(rows), 1) * (BAR_HEIGHT + BAR_GAP)
    ticks = [
        {"x": round(LABEL_WIDTH + BAR_WIDTH * share, 2), "text": f"{round(share * 100)}%"}
        for share in (0, 0.25, 0.5, 0.75, 1)
    ]
    return {
        "rows": rows,
        "height": bottom + 36,
        "width": LABEL_WIDTH + BAR_WIDTH + 260,
        "bar_height": BAR_HEIGHT,
        "total": total_profiles,
        "axis": {
            "left": LABEL_WIDTH,
            "right": LABEL_WIDTH + BAR_WIDTH,
            "top": AXIS_TOP - 4,
            "bottom": bottom,
            "tick_y": bottom + 14,
            "ticks": ticks,
            "title_x": LABEL_WIDTH + BAR_WIDTH / 2,
            "title_y": bottom + 30,
            "head_y": AXIS_TOP - 6,
        },
    }


@register.inclusion_tag("charts/recheck_bars.html")
def recheck_bars(rechecks: list) -> dict:
    """One column per re-check: its duration (height, on a y axis of seconds), the seconds written on it and
    the re-check's number under it; hovering gives its profiles per second."""
    height, column, gap = 120, 34, 10
    columns, axis = _columns(
        [r["seconds"] for r in rechecks], height=height, column=column, gap=gap, unit=" s"
    )
    columns = [{**r, **c} for r, c in zip(rechecks, columns, strict=True)]
    return {
        "columns": columns,
        "width": axis["right"] + 10,
        "height": axis["bottom"] + AXIS_BOTTOM + 4,
        "column": axis["column"],
        "axis": axis,
        "longest": max((r["seconds"] for r in rechecks), default=0),
    }


@register.inclusion_tag("charts/week_bars.html")
def week_bars(weeks: list) -> dict:
    """One column per week, its height the number of alerts (on a y axis of alerts), the count written above
    it and the week's Monday under it."""
    height, column, gap = 100, 38, 8
    columns, axis = _columns([w["count"] for w in weeks], height=height, column=column, gap=gap)
    columns = [{**w, **c} for w, c in zip(weeks, columns, strict=True)]
    return {
        "columns": columns,
        "width": axis["right"] + 10,
        "height": axis["bottom"] + AXIS_BOTTOM + 4,
        "column": axis["column"],
        "axis": axis,
    }


@register.inclusion_tag("charts/state_columns.html")
def state_columns(series: list) -> dict:
    """One column per day, stacked bottom-up: valid, warning, invalid, unverified profiles, on a y axis of
    profiles; a date label every ``step`` columns (about ten labels whatever the period)."""
    height = 140
    column = 16 if len(series) <= 60 else max(int(960 / max(len(series), 1)) - 1, 2)
    gap = max(column // 5, 1)
    step = max(len(series) // 10, 1)
    ticks = nice_ticks(max((d["total"] for d in series), default=0))
    most = ticks[-1] or 1
    plot_bottom = AXIS_TOP + height
    columns = []
    for i, d in enumerate(series):
        x = AXIS_WIDTH + 8 + i * (column + gap)
        y = plot_bottom
        segments = []
        for state in (*STATES, "unverified"):
            h = round(height * d.get(state, 0) / most, 2)
            if h:
                y -= h
                segments.append({"state": state, "y": round(y, 2), "h": h})
        label = (len(series) - 1 - i) % step == 0
        columns.append({**d, "x": x, "mid": x + column / 2, "segments": segments, "label": label})
    right = AXIS_WIDTH + 8 + max(len(series), 1) * (column + gap)
    return {
        "columns": columns,
        "width": right + 20,
        "height": plot_bottom + AXIS_BOTTOM + 4,
        "column": column,
        "base": plot_bottom + 14,
        "most": max((d["total"] for d in series), default=0),
        "axis": {
            "left": AXIS_WIDTH,
            "right": right,
            "top": AXIS_TOP,
            "bottom": plot_bottom,
            "title_x": AXIS_WIDTH + (right - AXIS_WIDTH) / 2,
            "title_y": plot_bottom + 30,
            "ticks": [
                {"y": round(plot_bottom - height * t / most, 1), "text": _tick_text(t), "x": AXIS_WIDTH - 6}
                for t in ticks
            ],
        },
    }
