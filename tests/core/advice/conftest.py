"""The CHI 2018 data in the repository, read once per session."""

from __future__ import annotations

import pytest

from app.core.advice.study import fit, read_answers, read_samples, stored


@pytest.fixture(scope="session")
def study_pairs():
    return read_samples(stored.DATA / "samples")


@pytest.fixture(scope="session")
def study_answers():
    return read_answers(stored.DATA / "answers_given.csv")


@pytest.fixture(scope="session")
def fitted():
    return stored.load()


@pytest.fixture(scope="session")
def study_readings(study_pairs):
    return fit.readings(study_pairs)
