"""Write febrl4_model.json: a Splink 5 model trained on FEBRL4 by Splink alone (DuckDB),
and febrl4_model_levenshtein.json: the same with edit distances instead of Jaro-Winkler
(Splink's Spark UDF and DuckDB compute Jaro-Winkler differently near some thresholds:
the Spark test compares backends on the second).

The columns are the FEBRL4 test project's attributes (``tests/projects/scoring/febrl.py``):
dates as ISO strings. Run from the repository root:
``.venv/bin/python tests/data/splink/make_febrl4_model.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import splink.comparison_library as cl
from splink import DuckDBAPI, Linker, SettingsCreator, block_on

sys.path.insert(0, str(Path(__file__).parents[3]))
from tests.projects.scoring.febrl import febrl4_records  # noqa: E402

SWAPPED = "l.given_name = r.surname AND l.surname = r.given_name"


def main() -> None:
    write("febrl4_model.json", cl.NameComparison("given_name"), cl.NameComparison("surname"))
    write(
        "febrl4_model_levenshtein.json",
        cl.LevenshteinAtThresholds("given_name", [1, 2]),
        cl.LevenshteinAtThresholds("surname", [1, 2]),
    )


def write(name: str, given_name, surname) -> None:
    db = DuckDBAPI()
    frames = []
    for label, rows in zip("AB", febrl4_records(), strict=True):
        frame = pd.DataFrame(rows).rename(columns={"id": "unique_id"}).drop(columns="soc_sec_id")
        frames.append(db.register(frame, dataset_display_name=label))
    settings = SettingsCreator(
        link_type="link_only",
        blocking_rules_to_generate_predictions=[
            block_on("given_name"), block_on("surname"), SWAPPED,
            block_on("substr(surname, 1, 2)", "date_of_birth"),
        ],
        comparisons=[
            given_name,
            surname.configure(term_frequency_adjustments=True),
            cl.DateOfBirthComparison("date_of_birth", input_is_string=True),
            cl.ExactMatch("suburb").configure(term_frequency_adjustments=True),
            cl.LevenshteinAtThresholds("postcode", [1, 2]),
        ],
    )  # fmt: skip
    linker = Linker(frames, settings, log_level=None)
    linker.training.estimate_probability_two_random_records_match(
        [block_on("given_name", "surname", "date_of_birth")], recall=0.8
    )
    linker.training.estimate_u_using_random_sampling(max_pairs=1e6, seed=1)
    linker.training.estimate_parameters_using_expectation_maximisation(block_on("date_of_birth"))
    linker.training.estimate_parameters_using_expectation_maximisation(block_on("postcode"))
    model = linker.misc.save_model_to_json()
    out = Path(__file__).with_name(name)
    out.write_text(json.dumps(model, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
