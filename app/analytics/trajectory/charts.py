"""Charts of a finished trajectory risk job (their downloads are ``views/trajectory.py``).

Built from the job's stored result with :mod:`app.charts`: RL and run time against the window
size (the trade-off the reference hides), RL per distance (the attacker ensemble, or the one
distance run) and the distribution of distances to the nearest original.
"""

from __future__ import annotations

from app import charts


def window_charts(result: dict) -> list[dict]:
    """RL and run time against the window (percent of the originals), when a sweep ran."""
    rows = result.get("sweep") or []
    if not rows:
        return []
    rl = [{"x": row["percent"], "y": row["rl_percent"]} for row in rows]
    seconds = [{"x": row["percent"], "y": row["seconds"]} for row in rows]
    series = [charts.Series("Windowed RL (%)", rl)]
    if result.get("exact"):
        exact = result["exact"]["percent"]
        series.append(charts.Series("Exact RL (%)", [{"x": p["x"], "y": exact} for p in rl]))
    return [
        charts.line(
            "RL against window size", series, x_title="Window (% of the originals)",
            y_title="RL (%)", x_scale="logarithmic",
        ),
        charts.line(
            "Run time against window size", [charts.Series("Search time (s)", seconds)],
            x_title="Window (% of the originals)", y_title="Seconds", x_scale="logarithmic",
        ),
    ]  # fmt: skip


def distance_chart(result: dict) -> dict:
    """RL under each distance the attacker tried (one bar when only one ran)."""
    if "ensemble" in result:
        per = result["ensemble"]["per_distance"]
        title = f"RL per distance (worst: {result['ensemble']['max']['distance']})"
    else:
        per = {result["report"]["distance"]: result["report"]}
        title = "RL per distance"
    labels = list(per)
    values = [per[name]["rl_percent"] for name in labels]
    return charts.bar(
        title, labels, [charts.Series("RL (%)", values)], x_title="Distance", y_title="RL (%)"
    )


def nearest_chart(result: dict) -> dict:
    """How far each anonymized trajectory is from its nearest original, split by outcome."""
    main = result.get("windowed") if result["options"]["search"] == "windowed" else None
    histogram = (main or result.get("exact") or {}).get("histogram") or {}
    edges = histogram.get("edges") or []
    labels = [f"{edges[k]:.4g}–{edges[k + 1]:.4g}" for k in range(len(edges) - 1)]
    return charts.bar(
        "Distance to the nearest original",
        labels,
        [
            charts.Series("Linked to its true original", histogram.get("linked", [])),
            charts.Series("Not linked", histogram.get("not_linked", [])),
        ],
        x_title=f"Distance ({result['report']['distance']})",
        y_title="Anonymized trajectories",
    )


def job_charts(result: dict) -> dict[str, dict]:
    """Every chart of one result, by the name its download uses."""
    out = {"distances": distance_chart(result), "nearest": nearest_chart(result)}
    for name, spec in zip(("window-rl", "window-time"), window_charts(result), strict=False):
        out[name] = spec
    return out
