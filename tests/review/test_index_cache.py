"""The anonymity-set index is built once per source and rebuilt when records change."""

from unittest import mock

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


def test_the_import_stores_each_source_index_and_a_process_without_it_loads_it(app):
    from app.core.kapr import Evidence
    from app.models import SourceIndex
    from app.review.grid import indexes

    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        (stored,) = db.session.scalars(sa.select(SourceIndex)).all()
        assert stored.project_id == project.id and stored.records_version == 1
        source_id = stored.source_id
        app.extensions.pop("mindfirl_indexes", None)  # another process: nothing in memory
        with mock.patch.object(indexes, "build_index", side_effect=AssertionError("built")):
            loaded = source_index(project, source_id)
        built = indexes.build_index(project.identifying, source_id)
        for row in ({}, {"name": Evidence.partial("Mary", [3])}, {"dob": Evidence.full("x")}):
            assert loaded.candidates(row).tolist() == built.candidates(row).tolist()

        # a stored index of other records is never read: the index is built again
        project.records_version += 1
        db.session.commit()
        with mock.patch.object(indexes, "build_index", wraps=indexes.build_index) as build:
            source_index(project, source_id)
        assert build.call_count == 1
        assert _storage_of_index_data() in ("e", None)  # out of line, never compressed


def _storage_of_index_data() -> str | None:
    """PostgreSQL's storage of ``source_indexes.data`` (``e``: uncompressed; None: SQLite)."""
    if db.engine.dialect.name != "postgresql":
        return None
    query = sa.text(
        "SELECT attstorage FROM pg_attribute"
        " WHERE attrelid = 'source_indexes'::regclass AND attname = 'data'"
    )
    return db.session.scalar(query)


def test_deleting_a_project_deletes_its_stored_indexes(app):
    from app.models import SourceIndex
    from app.projects.lifecycle import delete_project

    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        delete_project(project)
        db.session.commit()
        assert db.session.scalar(sa.select(sa.func.count(SourceIndex.source_id))) == 0


def test_a_pair_projects_index_is_stored_with_its_count_tables(app):
    """The ``pair`` model's tables are made at import and loaded with the index, so a
    worker's first page never builds them (issue 39.5); a ``row`` project stores none."""
    from app.core.kapr._pair_tables import PairTables
    from app.models import SourceIndex

    with app.app_context():
        manager = make_user("max", "manager")
        for model, stored in (("pair", True), ("row", False)):
            project = paper_project(manager, evidence_model=model, name=f"paper {model}")
            query = sa.select(SourceIndex.source_id).where(SourceIndex.project_id == project.id)
            source_id = db.session.scalars(query).first()
            app.extensions.pop("mindfirl_indexes", None)  # another process: nothing in memory
            with mock.patch.object(PairTables, "__init__", side_effect=AssertionError("built")):
                loaded = source_index(project, source_id)
                assert ("pair_tables" in loaded.__dict__) is stored
