"""Project-wide configuration defaults.

Loaded by ``create_app`` after the built-in defaults and before ``instance/config.py`` and
``FLASK_``-prefixed environment variables. Nothing secret belongs here.
"""

# Rows per page of the worker's grid.
PAGE_SIZE = 10
# Dedupe projects created without explicit pairs get all pairs up to this many records.
ALL_PAIRS_MAX_RECORDS = 200
# Largest request body (uploads included), in bytes; larger ones get a clear 413.
MAX_CONTENT_LENGTH = 512 * 2**20
# Imports of more rows than this run as a background job with a progress page.
IMPORT_JOB_THRESHOLD = 50_000
# Assigning more pairs than this from the browser runs as a job with a progress page.
ASSIGN_JOB_PAIRS = 100_000
# The browser's import of more scored pairs than this runs as a job with a progress page.
TRIAGE_JOB_THRESHOLD = 200_000
# Staged uploads not imported within this many seconds are deleted on the next upload.
UPLOAD_MAX_AGE_SECONDS = 24 * 3600
# Session cookies only over HTTPS (the README's gunicorn command, behind TLS). `make run`
# serves plain HTTP on 127.0.0.1 and turns them off (FLASK_SESSION_COOKIE_SECURE=false), as
# the tests do; nothing else should.
SESSION_COOKIE_SECURE = True
REMEMBER_COOKIE_SECURE = True
# Database connections each process keeps open (PostgreSQL; SQLite keeps its own pool). At
# least gunicorn's --threads: a busy worker otherwise closes the connections past the pool
# after every request and opens new ones (a server process forked per request).
DATABASE_POOL_SIZE = 10

# --- Bounds on the work one request can cause (issue 13). The JSON API checks them before a
# view runs (and documents them in /api/v1/openapi.json); the CSV import uses the same names.
# One record value (a cell), in characters. Longer values are refused with the row and column.
MAX_VALUE_CHARS = 1_000
# All values of one record together, in characters.
MAX_RECORD_CHARS = 10_000
# Attributes (columns) of one project.
MAX_ATTRIBUTES = 100
# A record id, as stored (records.external_id is VARCHAR(100)).
MAX_RECORD_ID_CHARS = 100
# A project name (projects.name is VARCHAR(200)).
MAX_NAME_CHARS = 200
# An attribute name (project_attributes.name is VARCHAR(100)).
MAX_ATTRIBUTE_NAME_CHARS = 100
# A username (users.username is VARCHAR(80)).
MAX_USERNAME_CHARS = 80
# Records in one JSON project description (larger projects go through the CSV import);
# pairs and pair ids in one JSON request.
MAX_JSON_RECORDS = 50_000
MAX_JSON_PAIRS = 200_000
# Scored pairs in one predictions file (Splink's predict output; docs/triage.md).
MAX_SCORED_PAIRS = 20_000_000
# A scoring run in the application predicts at most this many candidate pairs and this many
# character operations (its comparisons at the records' longest values), both estimated
# before Splink predicts (docs/scoring.md, app/projects/scoring/model/budget.py).
SCORING_MAX_PAIRS = MAX_SCORED_PAIRS
SCORING_MAX_WORK = 10**12
# Nesting depth of a JSON body (objects and arrays); deeper bodies are refused before parsing
# finishes. Integers must fit in 64 bits and numbers be finite (no NaN or Infinity).
MAX_JSON_DEPTH = 32
# The alignment behind masked/partial displays computes at most
# app.core.disclosure.alignment.MAX_CELLS table cells per value pair (banded above it; see that
# module), whatever the value lengths.

# How passwords are hashed (werkzeug's notation): scrypt with N = 2**15, r = 8, p = 1, about
# 0.1 s of one core per hash or check. The test suite lowers N (tests/conftest.py): thousands
# of test users would otherwise spend minutes hashing one password.
PASSWORD_HASH_METHOD = "scrypt:32768:8:1"

# --- Login and token throttling (the limits library; app/auth/throttle.py says how they combine).
# Several processes (gunicorn) must share one store: RATELIMIT_STORAGE_URI = "redis://host:6379"
# (memory:// counts per process: fine for one process and for tests). RATELIMIT_ENABLED = False
# turns throttling off (never in production).
RATELIMIT_STORAGE_URI = "memory://"
# Every login attempt, per client address.
LOGIN_LIMIT_PER_ADDRESS = "10 per minute; 100 per hour"
# Failed logins per account name (existing or not). Past it the account is not locked: only
# addresses that failed on it must wait, so strangers cannot lock the owner out.
LOGIN_LIMIT_PER_ACCOUNT = "20 per minute; 200 per hour"
# Failed bearer tokens per address (tokens are 32 random bytes; this stops scanning). Past it
# only failing tokens get 429: valid tokens from the same address are still served.
TOKEN_FAILURE_LIMIT_PER_ADDRESS = "30 per minute"
# Requests per signed-in account, browser session and bearer token alike (generous: a
# worker's script may reveal quickly).
REQUEST_LIMIT_PER_ACCOUNT = "6000 per minute"
# Reveals of one account in progress at once in one server process; one more gets 429 at once
# (0: no bound). Its reveals are charged one after the other anyway; the bound keeps one
# script's burst from holding every thread while other workers' reveals wait behind it.
REVEALS_IN_FLIGHT_PER_ACCOUNT = 2

# --- Reviewer quality (docs/quality.md). The alert's sequential test weighs the project's
# error-rate threshold (Project.alert_error_rate) against ALERT_P0_SHARE of it, with Wald's
# error rates ALERT_ALPHA (a false alert per test) and ALERT_BETA (a miss per test).
ALERT_P0_SHARE = 0.25
ALERT_ALPHA = 0.05
ALERT_BETA = 0.05
# A pause of at least BREAK_GAP_MINUTES between two decisions ends a reviewing session.
BREAK_GAP_MINUTES = 10
# Synthetic checks' words outside the generator's name lists come from the project's own
# values only if at least this many records share the word (never a rarer, telling one).
CHECK_WORD_MIN_RECORDS = 5
