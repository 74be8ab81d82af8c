"""Two 4,000-character values in one pair stay interactive: the alignment work is bounded.

Values this long cannot come in through the JSON API or the CSV import any more
(``MAX_VALUE_CHARS``), but a database may hold some from before; the alignment behind the
masked and partial displays computes at most ``MAX_CELLS`` cells whatever the length. The
timing is printed (``-s``), not asserted: the machine is shared.
"""

from __future__ import annotations

import random
import time

import pytest

from app.core.disclosure import alignment
from app.extensions import db
from app.projects.lifecycle import create_project
from app.projects.staffing import assign_pairs
from tests.api.conftest import Worker
from tests.factories import make_token, make_user


@pytest.fixture
def app_overrides():
    # the values a database may hold from before the bounds: made here with the bounds raised
    return {"MAX_VALUE_CHARS": 5_000, "MAX_RECORD_CHARS": 20_000}


def test_a_pair_of_4000_character_values(app, client, monkeypatch):
    rng = random.Random(4000)
    long_a = "".join(rng.choice("ABCDEFGHIJ ") for _ in range(4000))
    chars = list(long_a)
    for _ in range(20):
        chars[rng.randrange(4000)] = "Z"
    long_b = "".join(chars)
    unrelated = "".join(rng.choice("KLMNOPQRST ") for _ in range(4000))
    cells = []
    real = alignment.align_bounded

    def counting(a, b, max_cells=alignment.MAX_CELLS):
        result = real(a, b, max_cells)
        cells.append(result.cells)
        return result

    monkeypatch.setattr(alignment, "align_bounded", counting)
    started = time.perf_counter()
    with app.app_context():
        manager, worker = make_user("mia", "manager"), make_user("wes", "worker")
        spec = {
            "name": "long values",
            "kind": "dedupe",
            "attributes": [{"name": "note", "type": "string"}],
            "records": [
                {"id": "1", "note": long_a},
                {"id": "2", "note": long_b},
                {"id": "3", "note": unrelated},
            ],
        }
        project = create_project(spec, manager)
        assignment = assign_pairs(project, worker, 1.0)
        db.session.commit()
        created = time.perf_counter()
        w = Worker(client, make_token(worker), assignment.id)
    page = w.page()
    assert page.status_code == 200
    pair_id, row, attribute, _ = next(w.cells())
    assert w.reveal(pair_id, row, attribute).status_code == 200
    done = time.perf_counter()
    assert cells and max(cells) <= alignment.MAX_CELLS
    print(
        f"\n3 pairs of 4,000-character values: assignment {created - started:.2f} s, "
        f"page + reveal {done - created:.2f} s, {len(cells)} alignments, "
        f"at most {max(cells):,} cells each (a full table: {4001 * 4001:,})"
    )
