"""An import's larger SQLite page cache goes back with the connection it was set on."""

from sqlalchemy import create_engine

from app.projects.lifecycle import bulk


def _cache_size(connection) -> int:
    return connection.exec_driver_sql("PRAGMA cache_size").scalar()


def test_the_cache_is_enlarged_inside_and_restored_on_checkin(tmp_path):
    engine = create_engine(f"sqlite:///{tmp_path / 'import.db'}")
    with engine.connect() as connection:
        default = _cache_size(connection)
        bulk._enlarge_cache(connection)  # outside large_cache: nothing happens
        assert _cache_size(connection) == default
    with bulk.large_cache():
        with engine.connect() as connection:
            bulk._enlarge_cache(connection)
            bulk._enlarge_cache(connection)  # once per connection: the old size is kept
            assert _cache_size(connection) == -bulk._IMPORT_CACHE_KIB
        with engine.connect() as connection:  # the same pooled connection, checked in since
            assert _cache_size(connection) == default
    engine.dispose()
