"""Managers: import, blocking, pairs, assignments, conflicts and exports.

One sub-package per job (see the README's "Layout"); the pages live in ``views/``, which
imports the services and is never imported by them. The app registers ``views.bp``.
"""
