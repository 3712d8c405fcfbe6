"""Server-rendered SVG charts (no JavaScript, no CDN, no inline styles): geometry is computed here, the
templates in ``templates/charts/`` draw it with SVG attributes and classes from the static stylesheet."""

from __future__ import annotations

from django import template

register = template.Library()

BAR_HEIGHT = 18
BAR_GAP = 6
LABEL_WIDTH = 70
BAR_WIDTH = 520
STATES = ("valid", "warning", "invalid")


@register.inclusion_tag("charts/release_bars.html")
def release_bars(matrix: dict) -> dict:
    """One horizontal bar per release, split into the profiles that would be valid, warning or invalid."""
    rows = []
    for i, entry in enumerate(matrix.get("releases") or ()):
        total = sum(entry[s] for s in STATES) or 1
        y = i * (BAR_HEIGHT + BAR_GAP)
        x = LABEL_WIDTH
        segments = []
        for state in STATES:
            width = round(BAR_WIDTH * entry[state] / total, 2)
            if entry[state]:
                segments.append({"state": state, "x": x, "width": width, "count": entry[state]})
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
    height = max(len(rows) * (BAR_HEIGHT + BAR_GAP), BAR_HEIGHT)
    return {
        "rows": rows,
        "height": height,
        "width": LABEL_WIDTH + BAR_WIDTH + 260,
        "bar_height": BAR_HEIGHT,
        "total": matrix.get("total", 0),
    }


@register.inclusion_tag("charts/recheck_bars.html")
def recheck_bars(rechecks: list) -> dict:
    """One column per re-check: its duration (height) with profiles per second written above."""
    height, column, gap, top = 120, 26, 8, 16
    longest = max((r["seconds"] for r in rechecks), default=1) or 1
    columns = []
    for i, r in enumerate(rechecks):
        h = max(round(height * r["seconds"] / longest, 1), 1)
        x = i * (column + gap)
        columns.append({**r, "x": x, "y": top + height - h, "h": h, "mid": x + column / 2})
    return {
        "columns": columns,
        "width": max(len(columns) * (column + gap), column),
        "height": top + height + 18,
        "column": column,
        "base": top + height + 14,
        "longest": longest,
    }


@register.inclusion_tag("charts/week_bars.html")
def week_bars(weeks: list) -> dict:
    """One column per week, its height the number of alerts."""
    height, column, gap, top = 90, 30, 6, 14
    most = max((w["count"] for w in weeks), default=0) or 1
    columns = []
    for i, w in enumerate(weeks):
        h = round(height * w["count"] / most, 1)
        x = i * (column + gap)
        columns.append({**w, "x": x, "y": top + height - h, "h": h, "mid": x + column / 2})
    return {
        "columns": columns,
        "width": max(len(columns) * (column + gap), column),
        "height": top + height + 18,
        "column": column,
        "base": top + height + 14,
        "count_y": top - 3,
    }


@register.inclusion_tag("charts/state_columns.html")
def state_columns(series: list) -> dict:
    """One column per day, stacked bottom-up: valid, warning, invalid, unverified profiles; a date label
    every ``step`` columns (about ten labels whatever the period)."""
    height, top = 140, 6
    column = 16 if len(series) <= 60 else max(int(960 / max(len(series), 1)) - 1, 2)
    gap = max(column // 5, 1)
    step = max(len(series) // 10, 1)
    most = max((d["total"] for d in series), default=0) or 1
    columns = []
    for i, d in enumerate(series):
        x = i * (column + gap)
        y = top + height
        segments = []
        for state in (*STATES, "unverified"):
            h = round(height * d.get(state, 0) / most, 2)
            if h:
                y -= h
                segments.append({"state": state, "y": round(y, 2), "h": h})
        label = (len(series) - 1 - i) % step == 0
        columns.append({**d, "x": x, "mid": x + column / 2, "segments": segments, "label": label})
    return {
        "columns": columns,
        "width": max(len(columns) * (column + gap), column) + 20,
        "height": top + height + 18,
        "column": column,
        "base": top + height + 14,
        "most": most,
    }
