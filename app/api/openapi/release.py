"""JSON Schemas of the release-risk check (``app/api/release.py``, docs/release-risk.md)."""

from __future__ import annotations

NULLABLE_NUMBER = {"type": ["number", "null"]}
_SAVED = "; left out: the project's saved release thresholds' value, else "
_COLUMNS = {
    "type": "string",
    "maxLength": 5100,
    "description": "column names of the linked export, comma-separated" + _SAVED + "roles",
}

# No "default": a parameter the query leaves out takes the saved policy's value first.
RELEASE_QUERY = {
    "qi": _COLUMNS,
    "sensitive": _COLUMNS,
    "population": {
        "type": "integer", "minimum": 1, "maximum": 2**53, "description": "size" + _SAVED + "none",
    },
    "estimate": {
        "enum": ["sample", "scaled"],
        "description": "journalist and marketer risk: sample (ARX: the sample as its own "
        "population) or scaled (F = f N / n, needs population; never saved); default sample",
    },
    "threshold": {
        "type": "number", "minimum": 2.0**-53, "maximum": 1,
        "description": "records-at-risk threshold" + _SAVED + "0.2",
    },
    "suppressed": {
        "enum": ["exclude", "wildcard"], "description": "convention" + _SAVED + "exclude",
    },
    "missing": {
        "type": "string", "maxLength": 20, "description": "suppressed token" + _SAVED + "*",
    },
}  # fmt: skip

_ATTACKER = {
    "type": "object",
    "required": ["records_at_risk", "highest", "lowest", "average"],
    "properties": {
        "records_at_risk": {"type": "number", "description": "a fraction of the records"},
        "highest": {"type": "number"},
        "lowest": {"type": "number"},
        "average": {"type": "number"},
    },
}

RELEASE_RISK = {
    "type": "object",
    "required": [
        "qi",
        "sensitive",
        "suppressed",
        "records",
        "records_in_classes",
        "k",
        "sample_uniques",
        "records_below_k",
        "prosecutor",
        "journalist",
        "marketer",
        "population_uniqueness",
        "attributes",
        "histogram",
        "drivers",
    ],  # fmt: skip
    "properties": {
        "qi": {"type": "array", "items": {"type": "string"}},
        "sensitive": {"type": "array", "items": {"type": "string"}},
        "suppressed": {"enum": ["exclude", "wildcard"]},
        "threshold": {"type": "number"},
        "records": {"type": "integer"},
        "records_in_classes": {"type": "integer"},
        "k": {"type": "integer"},
        "k_target": {"type": "integer"},
        "records_below_k": {"type": "integer"},
        "sample_uniques": {"type": "integer"},
        "prosecutor": _ATTACKER,
        "journalist": _ATTACKER,
        "marketer": {"type": "number"},
        "population_size": NULLABLE_NUMBER,
        "population_classes": {
            "enum": ["sample", "population_table", "scaled_estimate"],
            "description": "where the journalist and marketer risks' population class sizes F "
            "come from",
        },
        "population_uniqueness": {
            "type": "object",
            "required": ["zayatz", "pitman", "snb", "dankar"],
            "properties": {
                name: {**NULLABLE_NUMBER, "description": "fraction of the population unique"}
                for name in ("zayatz", "pitman", "snb", "dankar")
            },
        },
        "attributes": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["l_distinct", "l_entropy", "recursive_c", "t_closeness"],
                "properties": {
                    "l_distinct": {"type": "integer"},
                    "l_entropy": {"type": "number"},
                    "recursive_c": {
                        **NULLABLE_NUMBER,
                        "description": "(c,2)-diverse for every c above; null: for no c",
                    },
                    "t_closeness": {"type": "number"},
                },
            },
        },
        "histogram": {"type": "array", "items": {"type": "object"}},
        "drivers": {"type": "array", "items": {"type": "object"}},
    },
}

CONFIRM_BODY = {
    "type": "object",
    "required": ["reason"],
    "properties": {"reason": {"type": "string", "minLength": 1, "maxLength": 2000}},
}
