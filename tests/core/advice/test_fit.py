"""The human model fitted to ``answers_given.csv``: the stored file is up to date, it
reproduces the study's table, and it predicts left-out scenario types better than the
evidence model."""

from __future__ import annotations

import json

import pytest

from app.core.advice import respond, study_reviewer
from app.core.advice.models import features
from app.core.advice.study import fit, stored

# The paper's table (all 104 participants; tests/data/chi2018/README.md): accuracy, recall,
# specificity by mode.
TABLE = {
    1: (84.83, 0.826, 0.877),
    2: (84.17, 0.779, 0.923),
    3: (84.49, 0.811, 0.890),
    4: (78.10, 0.681, 0.912),
    5: (74.50, 0.674, 0.838),
}


def test_the_stored_coefficients_are_the_fit_of_the_data(
    study_pairs, study_readings, study_answers, fitted
):
    """Refit with the stored penalty (the penalty search is ``test_the_whole_file``)."""
    assert fitted["data"] == stored.data_digest(stored.DATA)
    answers = fit.scored_answers(study_answers)
    read = study_readings
    rows = [features(read[a.mode, a.sample, a.question], fit.ROLES, a.same) for a in answers]
    model = fit.fit_logistic(rows, [a.chosen_same for a in answers], fitted["penalty"])
    assert model.weights.keys() == fitted["weights"].keys()
    for name, weight in model.weights.items():
        assert weight == pytest.approx(fitted["weights"][name], abs=1e-8), name
    world = json.loads(json.dumps(stored._rounded(fit.study_world(study_pairs).as_json())))
    assert world == fitted["world"]


@pytest.mark.slow
def test_the_whole_file_is_up_to_date(fitted):
    """What ``flask --app app advice fit --check`` checks: penalty search and validation too."""
    assert stored.agrees(dict(fitted), json.loads(json.dumps(stored.fit_stored(stored.DATA))))


def test_up_to_date_means_equal_to_the_last_bits_a_processor_rounds():
    """The same fit on another processor differs in the 16th digit, not in what it says."""
    file = {"penalty": 0.5, "cells": [[1, "a", 0.8383481653862072]], "fixed": True}
    assert stored.agrees(
        file, {"penalty": 0.5, "cells": [[1, "a", 0.838348165386207]], "fixed": True}
    )
    assert not stored.agrees(file, {**file, "cells": [[1, "a", 0.8383491653862072]]})
    assert not stored.agrees(file, {**file, "cells": [[1, "b", 0.8383481653862072]]})
    assert not stored.agrees(file, {**file, "fixed": 1})
    assert not stored.agrees(file, {**file, "more": 1})
    assert not stored.agrees(file, {**file, "cells": []})


def _by_mode(reviewer, world, answers, read, mode):
    chosen = [a for a in answers if a.mode == mode]
    p = [
        respond(reviewer, world, read[mode, a.sample, a.question], a.same).p_correct for a in chosen
    ]
    accuracy = 100 * sum(p) / len(p)
    recall = sum(x for x, a in zip(p, chosen, strict=True) if a.same) / sum(a.same for a in chosen)
    specificity = sum(x for x, a in zip(p, chosen, strict=True) if not a.same) / sum(
        not a.same for a in chosen
    )
    return accuracy, recall, specificity


@pytest.mark.parametrize(
    "mode",
    [
        1,
        2,
        3,
        4,
        5,
    ],
)
def test_the_human_model_reproduces_each_mode(study_readings, study_answers, fitted, mode):
    reviewer = study_reviewer("human", fitted)
    answers = fit.scored_answers(study_answers)
    accuracy, recall, specificity = _by_mode(reviewer, fitted.world, answers, study_readings, mode)
    table = TABLE[mode]
    assert abs(accuracy - table[0]) <= 2
    assert abs(recall - table[1]) <= 0.05 and abs(specificity - table[2]) <= 0.05


def test_the_evidence_model_stays_high_in_every_mode(study_readings, study_answers, fitted):
    """A reviewer weighing only the display's evidence barely loses when masked (the README)."""
    reviewer = study_reviewer("evidence", fitted)
    answers = fit.scored_answers(study_answers)
    read = study_readings
    accuracies = [_by_mode(reviewer, fitted.world, answers, read, m)[0] for m in range(2, 6)]
    assert max(accuracies) - min(accuracies) < 3


def test_left_out_types_are_predicted_better_by_the_human_model(fitted):
    human, evidence = fitted["validation"]["human"], fitted["validation"]["evidence"]
    assert human["correlation"] > evidence["correlation"] + 0.3
    assert human["mean_absolute_error"] < evidence["mean_absolute_error"]
    assert len(human["cells"]) == 30 * 5  # every scored type in every mode
