"""The project's documentation (``docs/*.md``) as pages of the application, so every page
that cites one links to it instead of naming a file.

Markdown is rendered by markdown-it-py with raw HTML off (a ``<script>`` in a document is
shown as text); a link to another document (``closeout.md``, ``docs/closeout.md``) points to
its page, and so does one cited as code. Any signed-in user may read them (they hold no
data); only the files of ``docs/`` are served, by name.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from flask import Blueprint, abort, current_app, render_template
from markdown_it import MarkdownIt
from markupsafe import Markup

from app.auth.decorators import roles_required
from app.models import Role

__all__ = ["bp", "doc_url"]

bp = Blueprint("docs", __name__)
_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,60}")
_DOC_LINK = re.compile(r'href="(?:\.\./)?(?:docs/)?([a-z0-9-]+)\.md(#[^"]*)?"')
_CODE_DOC = re.compile(r"<code>((?:docs/)?([a-z0-9-]+)\.md)</code>")  # a cited document


def _folder() -> Path:
    return Path(current_app.root_path).parent / "docs"


@lru_cache(maxsize=64)
def _render(path: Path, mtime: float) -> tuple[str, str]:
    """(title, HTML) of one document (cached per modification time)."""
    text = path.read_text(encoding="utf-8")
    html = MarkdownIt("commonmark", {"html": False}).enable("table").render(text)
    html = _DOC_LINK.sub(lambda m: f'href="{m.group(1)}{m.group(2) or ""}"', html)
    known = {p.stem for p in path.parent.glob("*.md")}
    html = _CODE_DOC.sub(
        lambda m: f'<a href="{m.group(2)}">{m.group(0)}</a>' if m.group(2) in known else m.group(0),
        html,
    )
    first = next((line for line in text.splitlines() if line.startswith("# ")), path.stem)
    return first.removeprefix("# ").strip(), html


def doc_url(name: str, anchor: str = "") -> str:
    """The URL of document ``name`` (``release-risk``), for templates: ``doc_url('triage')``."""
    from flask import url_for

    return url_for("docs.page", name=name) + (f"#{anchor}" if anchor else "")


@bp.get("/docs/<name>")
@roles_required(*(r.value for r in Role))
def page(name: str):
    path = _folder() / f"{name}.md"
    if not _NAME.fullmatch(name) or not path.is_file():
        abort(404, "no such document")
    title, html = _render(path, path.stat().st_mtime)
    return render_template("docs.html", title=title, body=Markup(html), name=name)


bp.add_app_template_global(doc_url)
