"""The release-risk report as pictures and tables: ARX's risk histogram, the driving classes."""

from __future__ import annotations

from app import charts
from app.core.release import ReleaseRisk

__all__ = ["driver_rows", "risk_chart"]


def _bound(x: float) -> str:
    return f"{x:.6g}"


def risk_chart(risk: ReleaseRisk) -> dict:
    """Percent of the records in each of ARX's prosecutor-risk bins ``(low, high]``.

    ARX's ``RiskModelSampleRiskDistribution`` bins; the empty bins below the lowest risk are
    left out so the bars are readable (the CSV keeps every bin shown).
    """
    bins = risk.histogram
    first = next((i for i, (*_, x) in enumerate(bins) if x), len(bins) - 1)
    shown = bins[first:]
    labels = [f"({_bound(lo)}, {_bound(hi)}]" for lo, hi, _ in shown]
    data = [round(100 * x, 6) for *_, x in shown]
    return charts.bar(
        "Records by re-identification risk (prosecutor, 1 / class size)",
        labels,
        [charts.Series("Records (%)", data)],
        x_title="Risk",
        y_title="Records (%)",
    )


def driver_rows(risk: ReleaseRisk) -> tuple[list[str], list[list]]:
    """The classes driving the risk (smallest first): header and rows for the page and CSV."""
    header = [*risk.qi, "records", "class size", "risk"]
    rows = [
        [*("(missing)" if v is None else v for v in c.values), c.records, c.size, c.risk]
        for c in risk.drivers
    ]
    return header, rows
