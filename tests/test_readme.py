"""The README's commands are the ones that exist, run with the project's interpreter, and it
says what a newcomer needs: where the server listens and which date layouts an import reads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.core.disclosure import COMMON_FORMATS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md")))


def code_lines(text: str) -> list[str]:
    blocks = re.findall(r"```(?:sh)?\n(.*?)```", text, re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_commands_use_the_projects_flask():
    lines = [line for line in code_lines(README) if re.match(r"^(\S*/)?flask\b", line)]
    assert lines and all(line.startswith(".venv/bin/flask --app app ") for line in lines)
    prose = re.findall(r"`(flask --app app [^`]*)`", README)
    assert not prose, prose


# "users create", "demo", "analytics rl", ...: the command words after the app option.
COMMANDS = sorted(
    {
        tuple(
            re.findall(
                r"^((?:[a-z][a-z-]*(?: |$)){1,2})", line[len(".venv/bin/flask --app app ") :]
            )[0].split()
        )
        for line in code_lines(README)
        if line.startswith(".venv/bin/flask --app app ")
    }
)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_readme_command_exists(runner, command):
    result = runner.invoke(args=[*command, "--help"])
    assert result.exit_code == 0, (command, result.output)
    assert "Usage:" in result.output


def test_host_port_and_date_layouts_are_stated():
    assert "PORT" in README and "HOST" in README
    for label in COMMON_FORMATS.values():
        assert label in README + DOCS, label
    assert "%Y%m%d" in README


def test_no_document_names_a_token_command_that_does_not_exist():
    assert "tokens create" not in README + DOCS
    assert "users token NAME" in README
