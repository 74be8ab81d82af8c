"""The anonymity-set index is built once per source and rebuilt when records change."""

import sqlalchemy as sa

from app.extensions import db
from app.models import Project, Record, Source
from app.review.grid import source_index
from tests.factories import make_user, paper_project


def test_index_is_cached_per_source_and_invalidated_by_a_new_records_version(app):
    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        source = db.session.scalar(sa.select(Source).where(Source.project_id == project.id))
        first = source_index(project, source.id)
        assert source_index(project, source.id) is first
        assert first.count({}) == 4

        record = db.session.scalar(sa.select(Record).where(Record.position == 3))
        record.values = {**record.values, "name": "Maya"}
        project.records_version += 1
        db.session.commit()

        project = db.session.get(Project, project.id)
        rebuilt = source_index(project, source.id)
        assert rebuilt is not first
        from app.core.kapr import Evidence

        assert rebuilt.count({"name": Evidence.full("Maya")}) == 1
        assert first.count({"name": Evidence.full("Maya")}) == 0
