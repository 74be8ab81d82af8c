"""Project-wide configuration defaults.

Loaded by ``create_app`` after the built-in defaults and before ``instance/config.py`` and
``FLASK_``-prefixed environment variables. Nothing secret belongs here.
"""

# Rows per page of the worker's grid.
PAGE_SIZE = 10
# A login is refused for LOGIN_LOCK_SECONDS after LOGIN_MAX_FAILURES failures in a row.
LOGIN_MAX_FAILURES = 5
LOGIN_LOCK_SECONDS = 300
# Dedupe projects created without explicit pairs get all pairs up to this many records.
ALL_PAIRS_MAX_RECORDS = 200
# Largest request body (uploads included), in bytes; larger ones get a clear 413.
MAX_CONTENT_LENGTH = 512 * 2**20
# Imports of more rows than this run as a background job with a progress page.
IMPORT_JOB_THRESHOLD = 50_000
# Staged uploads not imported within this many seconds are deleted on the next upload.
UPLOAD_MAX_AGE_SECONDS = 24 * 3600

# --- Per-value bounds on the CSV import (issue 13; the JSON API's limits use the same names).
# One record value (a cell), in characters. Longer values are refused with the row and column.
MAX_VALUE_CHARS = 1_000
# A record id, as stored (records.external_id is VARCHAR(100)).
MAX_RECORD_ID_CHARS = 100
