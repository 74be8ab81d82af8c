"""Commands that compute on files alone start without the web application (issue 39.3).

``flask --app app analytics rl|belief|links|release-risk`` builds an app of its configuration
and that one command: no model, no SQLAlchemy, no blueprint; its answer is the one the whole
app's command gives. Every other command line builds the whole app.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import pure_command

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "tests" / "data" / "belief" / "example_23.json"


@pytest.mark.parametrize(
    "argv, pure",
    [
        (["--app", "app", "analytics", "rl", "--original", "a.csv"], "rl"),
        (["-A", "app", "--debug", "analytics", "belief", "f.json"], "belief"),
        (["--app=app", "analytics", "links", "out.csv"], "links"),
        (["-e", ".env", "analytics", "release-risk", "x.csv", "--qi", "zip"], "release-risk"),
        (["--app", "app", "analytics", "rl", "--help"], "rl"),
        (["--app", "app", "analytics", "audit", "--project", "1"], None),
        (["--app", "app", "analytics", "--help"], None),
        (["--app", "app", "users", "list"], None),
        (["--app", "app", "db", "upgrade"], None),
        (["--app", "app"], None),
    ],
)
def test_which_command_lines_are_pure(monkeypatch, argv, pure):
    monkeypatch.setenv("FLASK_RUN_FROM_CLI", "true")
    assert pure_command(argv) == pure


def test_outside_the_flask_command_nothing_is_pure(monkeypatch):
    monkeypatch.delenv("FLASK_RUN_FROM_CLI", raising=False)  # gunicorn, a test, a script
    assert pure_command(["--app", "app", "analytics", "rl"]) is None


PROBE = """
import json, sys
from flask.cli import main
try:
    main()
except SystemExit as end:
    code = end.code
loaded = sorted({m.split(".")[0] for m in sys.modules} & {"sqlalchemy", "flask_sqlalchemy",
    "alembic", "flask_migrate", "scipy", "numba", "splink", "duckdb"})
models = sorted(m for m in sys.modules if m.startswith(("app.models", "app.api", "app.review")))
print(json.dumps({"code": code, "loaded": loaded, "app": models}), file=sys.stderr)
"""


def test_a_pure_command_imports_no_model_and_answers_as_the_whole_app(runner):
    args = ["analytics", "belief", str(EXAMPLE), "--json"]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "--app", "app", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    probe = json.loads(done.stderr.strip().splitlines()[-1])
    assert probe == {"code": 0, "loaded": [], "app": []}, done.stderr
    assert json.loads(done.stdout) == json.loads(runner.invoke(args=args).output)


def test_compile_kernels_calls_every_kernel_once(runner):
    from app.core.trajectory.fast.warm import cache_counts

    result = runner.invoke(args=["analytics", "compile-kernels"])
    assert result.exit_code == 0 and "loaded from the cache" in result.output, result.output
    counts = cache_counts()  # this process: each top-level kernel compiled or loaded
    assert counts["hits"] + counts["misses"] >= 2
