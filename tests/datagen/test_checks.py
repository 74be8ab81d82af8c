"""Synthetic checks (app.datagen.checks): a check misses a value only where the project can."""

from __future__ import annotations

import dataclasses
from unittest import mock

import numpy as np

from app.datagen import checks
from app.datagen.checks import Profile, make_checks


def test_a_name_swap_never_moves_a_missing_first_name_into_the_surname():
    # first names are missing in half the project's records, surnames never; every check is
    # a duplicate, and every duplicate has its names swapped where it can
    first = Profile("first_name", "string", missing=0.5, pool={"ANNA": "rare", "BOB": "rare"})
    last = Profile("last_name", "string", missing=0.0, pool={"SMITH": "rare", "JONES": "rare"})
    always = dataclasses.replace(checks._DEFAULTS, name_swap=1.0)
    with mock.patch.object(checks, "_DEFAULTS", always):
        made = make_checks([first, last], 400, np.random.default_rng(5), same_share=1.0)
    assert all(pair.a["last_name"] is not None for pair in made)
    assert all(pair.b["last_name"] is not None for pair in made)  # failed before the fix
    swapped = [p for p in made if p.a["first_name"] and p.b["first_name"] == p.a["last_name"]]
    assert swapped  # the swap still happens where both names are there
