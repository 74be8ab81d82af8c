"""A project's life: create one (schema, pseudonymised records, vault, pairs) and delete it."""

from app.projects.lifecycle.create import create_project
from app.projects.lifecycle.delete import delete_project
from app.projects.lifecycle.spec import ProjectSpecError

__all__ = ["ProjectSpecError", "create_project", "delete_project"]
