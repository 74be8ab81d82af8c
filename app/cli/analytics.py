"""``flask analytics ...``: admins' batch risk reports from the command line.

The group lives here; each report adds its commands from a module of its own
(``app/cli/trajectory.py``, ``app/cli/belief.py``), imported by ``app.cli.register``.
"""

from __future__ import annotations

from flask.cli import AppGroup

analytics = AppGroup("analytics", help="Batch risk reports: trajectory linkage, belief audits.")
