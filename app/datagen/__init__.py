"""Synthetic person records with ground truth, for record-linkage tests and benchmarks.

Framework-free: numpy in, numpy and CSV out. :func:`generate` returns columns in
memory; :func:`write_csv` streams the same records to a file block by block.
"""

from app.datagen.export import write_csv
from app.datagen.generator import COLUMNS, TRUTH_COLUMNS, Config, generate

__all__ = ["COLUMNS", "TRUTH_COLUMNS", "Config", "generate", "write_csv"]
