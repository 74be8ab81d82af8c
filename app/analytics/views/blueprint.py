"""The admins' Blueprint, alone so that every page module can register on it."""

from flask import Blueprint

bp = Blueprint("analytics", __name__)
