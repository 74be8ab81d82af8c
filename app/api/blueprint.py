"""The API's Blueprint, alone so that every route module can register on it."""

from flask import Blueprint

bp = Blueprint("api", __name__)
