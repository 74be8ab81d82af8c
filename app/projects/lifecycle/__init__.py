"""A project's life: create one (schema, pseudonymised records, vault, pairs) and delete it."""

from app.projects.lifecycle.service import ProjectSpecError, create_project, delete_project

__all__ = ["ProjectSpecError", "create_project", "delete_project"]
