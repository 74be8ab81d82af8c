"""Framework-free mathematics, one room per subject; each room's ``__init__`` names its API.

- :mod:`app.core.disclosure`: attribute types, alignment, masked/partial/full displays;
- :mod:`app.core.kapr`: the KAPR score, anonymity-set sizes, reveal costs (``kapr.pair``: the
  ``pair`` evidence model);
- :mod:`app.core.belief`: belief functions and re-identification audits;
- :mod:`app.core.trajectory`: trajectories, their distances, record-linkage risk;
- :mod:`app.core.release`: re-identification risk of a release (k-anonymity, ARX's attacker
  and population-uniqueness models, l-diversity, t-closeness).

Nothing in this package imports Flask or SQLAlchemy: plain values, dataclasses and numpy
arrays in, the same out. A room's private modules (``_name``) are for that room alone.
"""
