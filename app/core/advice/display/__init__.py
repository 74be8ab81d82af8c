"""What a display lets a reader make of a pair: classes of attributes, the displayed state."""

from app.core.advice.display.perception import CLASSES, IDENTICAL, MISSING, SWAP, classify
from app.core.advice.display.state import (
    AttributeShown,
    Read,
    Reading,
    Shown,
    SideShown,
    shown_pair,
)

__all__ = [
    "CLASSES",
    "IDENTICAL",
    "MISSING",
    "SWAP",
    "AttributeShown",
    "Read",
    "Reading",
    "Shown",
    "SideShown",
    "classify",
    "shown_pair",
]
