"""The CHI 2018 study: its pairs, answers and displays; the human model's fit and its file."""

from app.core.advice.study import fit, stored
from app.core.advice.study.data import (
    ATTRIBUTES,
    DISPLAYS,
    Answer,
    StudyPair,
    display_levels,
    read_answers,
    read_pair_file,
    read_samples,
)

__all__ = [
    "ATTRIBUTES",
    "DISPLAYS",
    "Answer",
    "StudyPair",
    "display_levels",
    "fit",
    "read_answers",
    "read_pair_file",
    "read_samples",
    "stored",
]
