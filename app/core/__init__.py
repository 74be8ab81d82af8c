"""Framework-free mathematics: disclosure rendering, KAPR, trajectories, belief functions.

Nothing in this package imports Flask or SQLAlchemy: plain values, dataclasses and numpy
arrays in, the same out.
"""
