"""Disclosure policies side by side under both reviewer models (issue 37, docs/advice.md §5).

    .venv/bin/python bench/advisor.py [--quick] [--cache DIR] [--write]

Three datasets: the CHI 2018 study's pairs (``tests/data/chi2018``, attention checks left out;
each sample one assignment of 36 pairs), MINDFIRL's user-study pair files
(``tests/data/mindfirl/section2.csv`` and ``ppirl.csv``, one assignment each) and FEBRL4's
uncertain band after Splink triage (``tests/febrl.py``'s documented model, the pairs scored in
[0.05, 0.95], one assignment). Policies: reveal all, the study's five displays, cheapest
first and random order with a per-pair budget, the advisor without and with that budget; the
budget is the Low display's mean KAPR per pair on the same data. Under the human model
(fitted to the study) and the evidence model (Fellegi-Sunter: the study's world model on the
study's pairs and MINDFIRL's; on FEBRL4 EM over a seeded sample of 3,000 scored pairs with
``u`` from 2,000 random pairs, then Splink's exact-match levels). Prints accuracy (mean
P(correct) against the truth), the share of characters shown, mean KAPR per pair (percent of
the maximum) and reveals per pair, and the issue's targets. ``--write`` stores the figures
for the admins' report
(``app/analytics/advice/figures.json``, with the date and machine).

Paths that must agree (exit status 1 otherwise, ``bench/_check.py``): every policy's charged
previews sum to the KAPR of the state it ends in (a preview is the charge, and KAPR does not
depend on the order of reveals); ``flask advice simulate``'s core path gives the bench's
CHI 2018 rows. ``--quick``: FEBRL4's first 400 people, MINDFIRL's small file only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import random
import subprocess
import sys
import tempfile
from collections import Counter
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _check import agree, finish  # noqa: E402

from app.core.advice import (  # noqa: E402
    POLICIES,
    Case,
    EvidenceReviewer,
    HumanReviewer,
    fit_em,
    raw_columns,
    roles_of,
    run_policy,
    simulate_study,
    study_cases,
    with_splink,
)
from app.core.advice.display.state import levels_of  # noqa: E402
from app.core.advice.study import read_pair_file, read_samples, stored  # noqa: E402
from app.core.advice.study.fit import ROLES, study_world  # noqa: E402
from app.core.disclosure import (  # noqa: E402
    AttributeType,
    Level,
    compare,
    frequency_class,
    name_swap,
    next_level,
)
from app.core.disclosure import normalize as normalise  # noqa: E402
from app.core.kapr import AnonymityIndex  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "app" / "analytics" / "advice" / "figures.json"
MINDFIRL = ROOT / "tests" / "data" / "mindfirl"
BUDGETED = ("cheapest", "random", "advisor+budget")
FRONTIER = (0.01, 0.02, 0.05)  # the advisor's threshold besides its default (MIN_GAIN)
FEBRL_KINDS = {
    "given_name": AttributeType.STRING,
    "surname": AttributeType.STRING,
    "date_of_birth": AttributeType.DATE,
    "address_1": AttributeType.STRING,
    "suburb": AttributeType.STRING,
    "postcode": AttributeType.STRING,
    "soc_sec_id": AttributeType.ID,
}
BAND = (0.05, 0.95)
SCORED_SAMPLE = 3000
# The paper's table (all 104 participants): mode, characters shown (%), accuracy (%).
STUDY = [("baseline", 100.0, 84.83), ("full", 100.0, 84.17), ("moderate", 30.4, 84.49),
         ("low", 7.6, 78.10), ("masked", 0.0, 74.50)]  # fmt: skip


def run(cases, reviewer, world, policy, budget=None):
    """One policy over ``cases``: the row of the table, and whether its charges agree."""
    name = "advisor" if policy == "advisor+budget" else policy
    outs = [run_policy(c, name, reviewer, world, budget=budget) for c in cases]
    return _row(outs, policy, reviewer.name), outs


def _row(outs, policy, reviewer, dataset=None):
    n = len(outs)
    row = {
        "policy": policy,
        "reviewer": reviewer,
        "accuracy": 100 * sum(o.p_correct for o in outs) / n,
        "characters": 100 * sum(o.chars_shown for o in outs) / sum(o.chars_total for o in outs),
        "kapr": 100 * float(sum(o.kapr for o in outs) / n),
        "reveals": sum(o.reveals for o in outs) / n,
        "pairs": n,
    }
    if dataset is not None:
        row["dataset"] = dataset
    return row


def table(name, cases, reviewers, world_of):
    """Every policy under every reviewer on one dataset (the budget from the Low display)."""
    rows = []
    for reviewer in reviewers:
        world = world_of(reviewer)
        low, _ = run(cases, reviewer, world, "low")
        budget = Fraction(low["kapr"] / 100).limit_denominator(10**12)
        for policy in [*POLICIES, "advisor+budget"]:
            row, outs = run(cases, reviewer, world, policy, budget if policy in BUDGETED else None)
            row["dataset"] = name
            rows.append(row)
            if policy in ("advisor", "advisor+budget", "cheapest"):
                _check_charges(cases, outs, f"{name} {reviewer.name} {policy}")
        for gain in FRONTIER:  # the advisor's threshold: disclosure against accuracy
            outs = [run_policy(c, "advisor", reviewer, world, min_gain=gain) for c in cases]
            rows.append(_row(outs, f"advisor, gain >= {gain}", reviewer.name, name))
    _print(name, rows)
    return rows


def _check_charges(cases, outs, what):
    """The previews charged along the walk sum to the KAPR of the final state."""
    for case, out in list(zip(cases, outs, strict=True))[:40]:
        levels, spent = {}, Fraction(0)
        for (row, attribute), level in sorted(out.levels.items()):
            cmp = case.comparisons[attribute]
            current = Level.MASKED
            while current is not level:
                cost = case.costs(levels)[row, attribute]
                current = next_level(cmp, row, current)
                levels[row, attribute] = current
                spent += cost
        if not agree(spent == out.kapr, f"{what}: previews charged = final KAPR ({case.key})"):
            return


def _print(name, rows):
    print(f"\n{name}: {rows[0]['pairs']} pairs")
    head = ("reviewer", "policy", "accuracy", "chars %", "KAPR/pair %", "reveals")
    print("{:9} {:21} {:>9} {:>8} {:>12} {:>8}".format(*head))
    for r in rows:
        print(f"{r['reviewer']:9} {r['policy']:21} {r['accuracy']:9.1f} {r['characters']:8.1f} "
              f"{r['kapr']:12.4f} {r['reveals']:8.2f}")  # fmt: skip


def chi2018(fitted):
    pairs = read_samples(stored.DATA / "samples")
    attention = _attention()
    cases = [c for c in study_cases(pairs) if c.key not in attention]
    reviewers = [HumanReviewer(fitted.human, ROLES, fitted.world), EvidenceReviewer(fitted.world)]
    name = "CHI 2018 (300 scored pairs)"
    rows = table(name, cases, reviewers, lambda r: fitted.world)
    # The world model is counted on these pairs: the advisor again with, for each pair, the
    # world counted without its scenario type (what it knows of the design is not its own).
    by_key = {c.key: c for c in cases}
    outs = []
    for scenario in sorted({p.scenario for p in pairs}):
        world = study_world([p for p in pairs if p.scenario != scenario])
        human = HumanReviewer(fitted.human, ROLES, world)
        chosen = [
            by_key[k]
            for k in ((p.sample, p.question) for p in pairs if p.scenario == scenario)
            if k in by_key
        ]
        outs += [run_policy(c, "advisor", human, world) for c in chosen]
    rows.append(_row(outs, "advisor, world without its type", "human", name))
    last = rows[-1]
    print(
        f"human     advisor, world without its type: {last['accuracy']:.1f} % at "
        f"{last['characters']:.1f} %, KAPR/pair {last['kapr']:.4f} %"
    )
    # The CLI's core path gives the same rows (one policy, both reviewers).
    for reviewer in ("human", "evidence"):
        cli = [r for r in simulate_study(pairs, reviewer, "moderate", fitted)
               if (r["sample"], r["question"]) not in attention]  # fmt: skip
        mine = next(r for r in rows if r["reviewer"] == reviewer and r["policy"] == "moderate")
        accuracy = 100 * sum(r["p_correct"] for r in cli) / len(cli)
        agree(abs(accuracy - mine["accuracy"]) < 1e-3, f"simulate CLI = bench ({reviewer})")
    return rows


def _attention():
    import csv

    with (stored.DATA / "answers_given.csv").open(newline="", encoding="utf-8") as handle:
        return {(int(r["sample"]), int(r["question"])) for r in csv.DictReader(handle)
                if r["is_attention"] == "1"}  # fmt: skip


def mindfirl(fitted, quick):
    files = ["ppirl.csv"] if quick else ["section2.csv", "ppirl.csv"]
    cases = []
    for number, name in enumerate(files):
        cases += study_cases(read_pair_file(MINDFIRL / name, sample=number))
    reviewers = [HumanReviewer(fitted.human, ROLES, fitted.world), EvidenceReviewer(fitted.world)]
    label = f"MINDFIRL pair files ({' + '.join(files)})"
    return table(label, cases, reviewers, lambda r: fitted.world)


def febrl_band(fitted, quick, cache):
    if cache:
        return _febrl_band(fitted, quick, Path(cache))
    with tempfile.TemporaryDirectory(prefix="advisor-febrl-") as directory:  # left nothing behind
        return _febrl_band(fitted, quick, Path(directory))


def _febrl_band(fitted, quick, directory: Path):
    from tests import febrl

    data = febrl.load(directory, entities=400 if quick else None)
    settings = data.linker.misc.save_model_to_json() if data.linker is not None else None
    import pandas as pd

    predictions = pd.read_parquet(
        data.parquet, columns=["unique_id_l", "unique_id_r", "match_probability"]
    )
    band = predictions[predictions.match_probability.between(*BAND)]
    a = {r["id"]: _febrl_values(r) for r in data.records_a}
    b = {r["id"]: _febrl_values(r) for r in data.records_b}
    index_a = AnonymityIndex.build(raw_columns(list(a.values()), FEBRL_KINDS), FEBRL_KINDS)
    index_b = AnonymityIndex.build(raw_columns(list(b.values()), FEBRL_KINDS), FEBRL_KINDS)
    counts = [
        Counter(v[n] for v in side.values()) for side in (a, b) for n in ("given_name", "surname")
    ]
    scale = {"kappa": 1, "n_rows": 2 * len(band), "n_attributes": len(FEBRL_KINDS), "model": "row"}
    cases = [
        _febrl_case((x, y), a[x], b[y], (index_a, index_b), scale, (x, y) in data.truth, counts)
        for x, y in zip(band.unique_id_l, band.unique_id_r, strict=True)
    ]
    rng = random.Random(1)
    ids_a, ids_b = list(a), list(b)
    random_pairs = [
        levels_of({n: compare(k, a[x][n], b[y][n]) for n, k in FEBRL_KINDS.items()})
        for x, y in ((rng.choice(ids_a), rng.choice(ids_b)) for _ in range(2000))
    ]
    # EM over a seeded sample of every scored pair (the band alone is too few to estimate m).
    scored = predictions.sample(n=min(SCORED_SAMPLE, len(predictions)), random_state=1)
    levels = [
        levels_of({n: compare(k, a[x][n], b[y][n]) for n, k in FEBRL_KINDS.items()})
        for x, y in zip(scored.unique_id_l, scored.unique_id_r, strict=True)
    ]
    world = fit_em(levels, FEBRL_KINDS, nonmatches=random_pairs)
    if settings:
        world = with_splink(world, settings, FEBRL_KINDS)
    roles = roles_of(FEBRL_KINDS)
    reviewers = [HumanReviewer(fitted.human, roles, world), EvidenceReviewer(world)]
    label = (
        f"FEBRL4 band [{BAND[0]}, {BAND[1]}] after Splink triage{' (400 people)' if quick else ''}"
    )
    return table(label, cases, reviewers, lambda r: world)


def _febrl_values(record):
    out = {}
    for name, kind in FEBRL_KINDS.items():
        raw = record.get(name)
        if kind is AttributeType.DATE and raw:
            raw = f"{raw[4:6]}/{raw[6:8]}/{raw[0:4]}" if len(raw) == 8 else None
        try:
            out[name] = normalise(kind, raw)
        except ValueError:  # FEBRL has impossible birth dates: read as missing
            out[name] = None
    return out


def _febrl_case(key, left, right, indexes, scale, truth, counts):
    comparisons = {n: compare(k, left[n], right[n]) for n, k in FEBRL_KINDS.items()}
    swapped = (
        frozenset({"given_name", "surname"})
        if name_swap(left["given_name"], left["surname"], right["given_name"], right["surname"])
        else frozenset()
    )
    rare = set()
    for i, name in enumerate(("given_name", "surname")):
        classes = {
            frequency_class(counts[i][left[name]]),
            frequency_class(counts[2 + i][right[name]]),
        }
        if left[name] is not None and classes <= {"unique", "rare"}:
            rare.add(name)
    return Case(key, comparisons, indexes, scale, truth, swapped, frozenset(rare))


def targets(rows):
    """The issue's 'done when' lines, from this run."""
    chi = {(r["reviewer"], r["policy"]): r for r in rows if r["dataset"].startswith("CHI")}
    advisor, moderate = chi["human", "advisor"], chi["human", "moderate"]
    met = advisor["accuracy"] >= 84 and advisor["characters"] <= 15
    met = met and advisor["kapr"] < moderate["kapr"]
    print("\nTargets (issue 37):")
    print(
        f"  CHI 2018, human model: advisor {advisor['accuracy']:.1f} % correct at "
        f"{advisor['characters']:.1f} % of the characters, KAPR/pair {advisor['kapr']:.4f} % "
        f"(Moderate {moderate['accuracy']:.1f} %, {moderate['characters']:.1f} %, "
        f"{moderate['kapr']:.4f} %): >= 84 %, <= 15 %, below Moderate: "
        f"{'met' if met else 'NOT met'}"
    )
    band = {(r["reviewer"], r["policy"]): r for r in rows if r["dataset"].startswith("FEBRL")}
    if band:
        adv, everything = band["evidence", "advisor"], band["evidence", "reveal-all"]
        met = adv["accuracy"] >= everything["accuracy"] - 1e-9 and adv["characters"] <= 8
        print(
            f"  FEBRL4 band, evidence model: advisor {adv['accuracy']:.1f} % at "
            f"{adv['characters']:.1f} % of the characters (reveal all "
            f"{everything['accuracy']:.1f} %): reveal-all accuracy at <= 8 %: "
            f"{'met' if met else 'NOT met'}"
        )


def machine() -> str:
    try:
        found = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
        name = next(
            line.split(":", 1)[1].strip() for line in found.splitlines() if "Model name" in line
        )
    except (OSError, StopIteration):
        name = platform.processor() or platform.machine()
    return name


def _rounded(value):
    return round(value, 6) if isinstance(value, float) else value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--cache", help="folder keeping FEBRL4's predictions between runs")
    parser.add_argument(
        "--write", action="store_true", help=f"store the figures in {FIGURES.relative_to(ROOT)}"
    )
    args = parser.parse_args(argv)
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    fitted = stored.load()
    rows = (
        chi2018(fitted) + mindfirl(fitted, args.quick) + febrl_band(fitted, args.quick, args.cache)
    )
    targets(rows)
    if args.write:
        if args.quick:
            print("--write needs a full run (not --quick): nothing written")
        else:
            FIGURES.parent.mkdir(parents=True, exist_ok=True)
            study = [dict(zip(("mode", "characters", "accuracy"), s, strict=True)) for s in STUDY]
            payload = {
                "date": dt.date.today().isoformat(),
                "machine": machine(),
                "study": study,
                "rows": [{k: _rounded(v) for k, v in r.items()} for r in rows],
            }
            FIGURES.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
            print(f"wrote {FIGURES.relative_to(ROOT)}")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
