"""The ground-truth role: chosen on the mapping form (or ``"truth": true`` in a project
spec), recorded on the project, and used by risk against utility without being named."""

from __future__ import annotations

import copy

import pytest

from app.analytics.utility import TruthError, default_truth_column, resolve_truth, truth_from_vault
from app.core.disclosure import CLUSTER_COLUMNS
from app.demo import PAPER_EXAMPLE
from app.projects.importing import default_role
from app.projects.lifecycle import ProjectSpecError
from app.projects.lifecycle.spec import parse_attributes
from app.projects.views.forms import FormError, parse_columns
from tests.factories import make_user, paper_project

LABELS = {"1": "p", "2": "q", "3": "r", "4": "r"}  # only records 3 and 4 are one person
DECOY = {"1": "x", "2": "x", "3": "y", "4": "z"}  # a cluster-named column that is not the truth


def project_with(owner, *columns: tuple[str, dict, dict]):
    spec = copy.deepcopy(PAPER_EXAMPLE)
    for name, flags, values in columns:
        spec["attributes"].append({"name": name, "type": "string", **flags})
        for record in spec["records"]:
            record[name] = values[record["id"]]
    return paper_project(owner, attributes=spec["attributes"], records=spec["records"])


@pytest.mark.parametrize("column", [*CLUSTER_COLUMNS, "Cluster_ID", "TRUE_ID"])
def test_cluster_like_columns_start_as_ground_truth(column):
    assert default_role(column, with_id=True) == "truth"
    assert default_role(column, with_id=False) == "truth"


@pytest.mark.parametrize("column", ["income", "cluster_size", "id_truthful", "first_name"])
def test_other_columns_do_not_start_as_ground_truth(column):
    assert default_role(column, with_id=True) != "truth"


def test_the_form_records_one_truth_column_as_sensitive():
    header = ["id", "name", "income", "cluster_id"]
    form = {"role-0": "id", "role-1": "identifying", "role-2": "sensitive", "role-3": "truth"}
    plan = parse_columns(form, header, with_id=True)
    assert plan["truth"] == "cluster_id"
    assert plan["sensitive"] == ["income", "cluster_id"]
    with pytest.raises(FormError, match="only one ground-truth column"):
        parse_columns({**form, "role-2": "truth"}, header, with_id=True)


def test_project_spec_truth_flag():
    specs = parse_attributes(
        [{"name": "name"}, {"name": "label", "truth": True}, {"name": "income", "sensitive": True}]
    )
    assert [(s.name, s.identifying, s.truth) for s in specs] == [
        ("name", True, False),
        ("label", False, True),
        ("income", False, False),
    ]
    with pytest.raises(ProjectSpecError, match="never identifying"):
        parse_attributes([{"name": "name"}, {"name": "label", "truth": True, "sensitive": False}])
    with pytest.raises(ProjectSpecError, match="at most one"):
        parse_attributes(
            [{"name": "name"}, {"name": "a", "truth": True}, {"name": "b", "truth": True}]
        )


def test_the_recorded_truth_column_wins_over_names(app):
    with app.app_context():
        project = project_with(
            make_user("max", "manager"),
            ("cluster_id", {"sensitive": True}, DECOY),  # named like truth, but not marked
            ("study_label", {"truth": True}, LABELS),  # marked, with no telling name
        )
        assert default_truth_column(project) == "study_label"
        truth, source = resolve_truth(project)
        assert "study_label" in source
        assert truth == truth_from_vault(project, "study_label")
        assert sorted(truth.values()) == [False] * 5 + [True]
        # The form may still name another column.
        other, source = resolve_truth(project, "cluster_id")
        assert "cluster_id" in source and other != truth


def test_projects_without_the_flag_keep_the_name_heuristic(app):
    with app.app_context():
        project = project_with(
            make_user("max", "manager"), ("true_id", {"sensitive": True}, LABELS)
        )
        assert not any(a.truth for a in project.attributes)
        assert default_truth_column(project) == "true_id"
        truth, _ = resolve_truth(project)
        assert sorted(truth.values()) == [False] * 5 + [True]


def test_no_marked_and_no_named_truth_is_a_clear_error(app):
    with app.app_context():
        project = project_with(make_user("max", "manager"), ("label", {"sensitive": True}, LABELS))
        with pytest.raises(TruthError, match="none was marked on import"):
            resolve_truth(project)
