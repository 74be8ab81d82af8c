"""One scoring run: the project's records into Splink, a model trained and/or its predictions
out as Parquet, every working file removed at the end (on failure and on a cancel too: a
cancelled job's running query is interrupted within a poll, :mod:`app.jobs`).

The predictions file has Splink's predict columns — ``source_dataset_l, unique_id_l,
source_dataset_r, unique_id_r, match_weight, match_probability, match_key`` — with the
records' ids from their files and the sources as ``A``/``B``: the scored-pairs format the
project imports. No identifying value is in it. Before predicting, the run estimates what
it will compute (:mod:`..model.budget`: candidate pairs, the work of one pair at the records'
longest values) and predicts nothing past its bounds (:attr:`Outcome.refused`).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
from flask import current_app

from app.jobs import current_job_id, interrupt_on_cancel
from app.jobs.status import report_step
from app.models import Project, ProjectKind
from app.projects.blocking import Rule
from app.projects.scoring.menu import Training
from app.projects.scoring.model.budget import estimate, note_lengths, refusal
from app.projects.scoring.model.definition import Comparison, Model
from app.projects.scoring.runs.backends import DuckDBBackend, SparkBackend, backend_name
from app.projects.scoring.runs.output import OUTPUT_SCHEMA, Ids, write_predictions
from app.projects.scoring.runs.recovery import (
    claim_work_dir,
    sweep_work_dirs,
    work_dir_prefix,
    work_root,
)
from app.projects.scoring.runs.working import BATCH, Layout, rule_sql, run_settings, working_rows

__all__ = ["OUTPUT_SCHEMA", "Outcome", "run_scoring", "work_root"]

log = logging.getLogger(__name__)

OUT_BATCH = 200_000
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Outcome:
    model: Model  # trained when training was asked, else the model given
    pairs: int | None  # predictions written (None: no prediction asked)
    backend: str
    seconds: float
    phases: dict = dataclasses.field(default_factory=dict)  # seconds per phase
    estimate: dict | None = None  # what predicting would compute (budget.Estimate)
    refused: str | None = None  # why nothing was predicted: past a bound of budget


def _backend(name: str, work_dir: Path):
    config = current_app.config
    if name == "spark":
        return SparkBackend(
            work_dir,
            master=config.get("SPARK_MASTER"),
            checkpoint_dir=config.get("SPARK_CHECKPOINT_DIR")
            or os.environ.get("SPARK_CHECKPOINT_DIR"),
            output_dir=config.get("SPARK_OUTPUT_DIR") or os.environ.get("SPARK_OUTPUT_DIR"),
            partitions=int(
                config.get("SPARK_PARTITIONS") or os.environ.get("SPARK_PARTITIONS") or 8
            ),
            lineage=config.get("SPARK_BREAK_LINEAGE")
            or os.environ.get("SPARK_BREAK_LINEAGE")
            or "parquet",
        )
    return DuckDBBackend(
        work_dir,
        threads=config.get("SCORING_DUCKDB_THREADS"),
        memory=config.get("SCORING_DUCKDB_MEMORY"),
    )


def run_scoring(
    project: Project,
    model: Model,
    *,
    training: tuple[Training, list[Rule], list[Rule]] | None = None,
    predict_to: Path | None = None,
    progress: Progress = lambda done, total: None,
    backend: str | None = None,
) -> Outcome:
    """Train ``model`` (``training``: choices, EM rules, deterministic rules) and/or write its
    predictions to ``predict_to``; progress counts record batches, training steps and
    output batches."""
    name = backend or backend_name(current_app.config)
    started = time.monotonic()
    em_rules, deterministic = (training[1], training[2]) if training else ([], [])
    layout = Layout.of(project, [*model.rules, *em_rules, *deterministic], model)
    labels = ["A", "B"] if project.kind == ProjectKind.LINK else ["A"]
    load_steps = max(1, -(-sum(s.record_count for s in project.sources) // BATCH))
    steps = Steps(progress, load_steps + (2 + len(em_rules) if training else 0) + bool(predict_to))
    root = work_root()
    sweep_work_dirs(root)  # what a dead run left behind goes before anything else is written
    prefix = work_dir_prefix(current_job_id(), os.getpid())
    work = claim_work_dir(root, f"{prefix}project{project.id}-")
    engine = None
    phases: dict[str, float] = {}
    clock = time.monotonic()
    longest: dict[str, int] = {}
    found = refused = None

    def phase(name: str) -> None:
        nonlocal clock
        now = time.monotonic()
        phases[name] = round(now - clock, 2)
        clock = now

    try:
        engine = _backend(name, work.path)
        with interrupt_on_cancel(progress, engine.interrupt):  # a cancel stops a query
            ids = Ids(labels)
            stored = Stored(
                labels, {k.attribute for r in model.rules for k in r.keys + r.right_keys}
            )
            steps.begin(f"reading the records into {name}")
            columns = {a: layout.column(a) for a in layout.attributes}
            for rows in working_rows(project, layout):
                note_lengths(longest, rows.working, columns)
                engine.append(rows.label, rows.working)
                ids.add(rows.label, rows.working.column(0), rows.ids)
                stored.add(rows)
                steps.advance(limit=load_steps)
            steps.reach(load_steps)
            phase("load")
            steps.begin("starting Splink on the records")
            from splink import Linker

            tables = engine.tables(labels, layout.schema(with_source=len(labels) == 2))
            settings = run_settings(model, layout, engine.dialect)
            linker = Linker(tables if len(tables) > 1 else tables[0], settings, log_level=None)
            phase("start")
            if training:
                model = _train(linker, model, training[0], em_rules, deterministic, layout, steps)
                phase("train")
            pairs = None
            if predict_to is not None:
                steps.begin("estimating the candidate pairs and their work")
                config = current_app.config
                found, exact = estimate(
                    model, longest, *stored.columns(), dedupe=len(labels) == 1, config=config
                )
                refused = refusal(found, config) if exact else None
                phase("estimate")
            if predict_to is not None and refused is None:
                rules = len(model.rules)
                steps.begin(f"predicting: scoring the candidate pairs of {rules} blocking rule(s)")
                predictions = linker.inference.predict()
                steps.advance()
                phase("predict")
                steps.begin("writing the predictions")
                batches = engine.batches(predictions, OUT_BATCH)
                pairs = write_predictions(batches, ids, predict_to, dedupe=len(labels) == 1)
                if not exact:  # a bound: the exact count is Splink's
                    found = dataclasses.replace(found, pairs=pairs)
                phase("write")
            linker.table_management.delete_tables_created_by_splink_from_db()
    finally:
        if engine is not None:
            engine.close()
        work.release()
    seconds = time.monotonic() - started
    return Outcome(model, pairs, name, seconds, phases, found and found.as_dict(), refused)


class Stored:
    """The stored values of the attributes the model's rules read, kept for the estimate."""

    def __init__(self, labels, attributes) -> None:
        self.parts = {label: {a: [] for a in attributes} for label in labels}

    def add(self, rows) -> None:
        for attribute, parts in self.parts[rows.label].items():
            parts.append(rows.stored[attribute])

    def columns(self) -> tuple[dict[str, pa.Array], int]:
        """Per attribute its values, source A's then B's; and how many are A's."""
        first = self.parts["A"]
        n_a = sum(len(p) for p in next(iter(first.values()), []))
        columns = {
            a: pa.chunked_array(
                [p for parts in self.parts.values() for p in parts[a]], pa.string()
            ).combine_chunks()
            for a in first
        }
        return columns, n_a


class Steps:
    """Progress as steps done of a known number (record batches, training steps, predict)."""

    def __init__(self, progress: Progress, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0

    def advance(self, limit: int | None = None) -> None:
        self.done = self.done + 1 if limit is None else min(self.done + 1, limit)
        self.progress(self.done, self.total)

    def begin(self, text: str) -> None:
        """Say which step runs now (the job's page shows it; nothing outside a job)."""
        report_step(self.progress, text)

    def reach(self, done: int) -> None:
        self.done = done


def _train(linker, model: Model, training: Training, em_rules, deterministic, layout, steps):
    """λ from the deterministic rules, u by random sampling, m by one EM session per rule."""
    dialect = linker._db_api.sql_dialect.sql_dialect_str
    if deterministic:
        steps.begin(
            "estimating λ (the probability that two random records match) from "
            f"{len(deterministic)} deterministic rule(s) at recall {training.recall:g}"
        )
        linker.training.estimate_probability_two_random_records_match(
            [rule_sql(r, layout, dialect) for r in deterministic], recall=training.recall
        )
    steps.advance()
    steps.begin(f"estimating u by random sampling of {int(training.u_pairs):,} pairs")
    linker.training.estimate_u_using_random_sampling(max_pairs=training.u_pairs, seed=training.seed)
    steps.advance()
    for i, rule in enumerate(em_rules, start=1):
        steps.begin(f"estimating m by EM, session {i} of {len(em_rules)} (blocked on {rule.sql()})")
        linker.training.estimate_parameters_using_expectation_maximisation(
            rule_sql(rule, layout, dialect, mention_sources=True)
        )
        steps.advance()
    return with_parameters(model, linker.misc.save_model_to_json())


def with_parameters(model: Model, trained: dict) -> Model:
    """``model`` with λ and every level's m and u taken from Splink's saved settings (the
    comparisons and levels are in the same order: the application wrote them)."""
    comparisons = []
    for comparison, saved in zip(model.comparisons, trained["comparisons"], strict=True):
        levels = tuple(
            dataclasses.replace(level, m=s.get("m_probability"), u=s.get("u_probability"))
            for level, s in zip(comparison.levels, saved["comparison_levels"], strict=True)
        )
        comparisons.append(Comparison(comparison.name, levels, comparison.description))
    return dataclasses.replace(
        model,
        comparisons=tuple(comparisons),
        probability=float(trained["probability_two_random_records_match"]),
    )
