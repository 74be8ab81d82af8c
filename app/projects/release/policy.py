"""A project's release thresholds, the gate on its ``linked`` export, and confirmations.

The policy keeps the check's parameters (so the page, the API default and the gate measure
the same thing) and up to four limits: ``min_k``, ``max_records_at_risk`` (prosecutor, at
the policy's threshold), ``max_average_risk`` (prosecutor) and ``min_l`` (distinct l of every
sensitive attribute). :func:`release_gate` measures the export; when a limit is exceeded the
export is refused (``on_exceed = refuse``) or leaves only with a recorded
:class:`~app.models.ReleaseConfirmation` (who, when, why, which limits), made by
:func:`confirm_release`. Functions flush; the request or CLI boundary commits.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import select

from app.core.release import ReleaseRisk
from app.extensions import db
from app.models import Project, ReleaseConfirmation, ReleasePolicy, User
from app.models.base import utcnow
from app.projects.release.request import ReleaseRequest, ReleaseRequestError, columns_of
from app.projects.release.service import release_risk_of_project

__all__ = [
    "ON_EXCEED",
    "ReleaseGate",
    "confirm_release",
    "confirmations_of",
    "exceeded_limits",
    "policy_of",
    "policy_request",
    "release_gate",
    "requested_release",
    "save_policy",
]

ON_EXCEED = ("confirm", "refuse")
_MAX_REASON = 2000
_MAX_WHOLE = 2**31 - 1  # an INTEGER column


def policy_of(project: Project) -> ReleasePolicy | None:
    """The project's policy, or None when the manager has set none (no limit applies)."""
    return db.session.scalar(select(ReleasePolicy).where(ReleasePolicy.project_id == project.id))


def policy_request(policy: ReleasePolicy | None) -> ReleaseRequest:
    """The check's parameters a policy keeps (the defaults without one)."""
    if policy is None:
        return ReleaseRequest()
    return ReleaseRequest(
        qi=columns_of(policy.qi, "qi"),
        sensitive=columns_of(policy.sensitive, "sensitive"),
        population=policy.population,
        threshold=policy.threshold,
        suppressed=policy.suppressed,
        missing=policy.missing,
    )


def requested_release(project: Project, args: Mapping[str, str]) -> ReleaseRequest:
    """The check a page or API query asks for: its parameters over the saved policy's.

    One function for both, so the API measures what the page shows; a parameter the query
    leaves out comes from the policy (or the default without one).
    """
    return ReleaseRequest.of(args, base=policy_request(policy_of(project)))


def _limit(raw: str | None, name: str, *, whole: bool, upper: float | None) -> float | None:
    if raw is None or not str(raw).strip():
        return None
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        raise ReleaseRequestError(f"'{name}' must be a {'whole ' if whole else ''}number") from None
    upper = _MAX_WHOLE if upper is None else upper
    if not math.isfinite(value) or value < (1 if whole else 0) or value > upper:
        bound = f"from 1 to {upper:,}" if whole else f"from 0 to {upper:g}"
        raise ReleaseRequestError(f"'{name}' must be {bound}")
    return value


def save_policy(project: Project, form: Mapping[str, str], by: User) -> ReleasePolicy:
    """Create or replace the project's policy from form fields (strings); flush."""
    request = ReleaseRequest.of(form)
    on_exceed = form.get("on_exceed") or "confirm"
    if on_exceed not in ON_EXCEED:
        raise ReleaseRequestError("'on_exceed' must be confirm or refuse")
    limits = {
        "min_k": _limit(form.get("min_k"), "min_k", whole=True, upper=None),
        "max_records_at_risk": _limit(
            form.get("max_records_at_risk"), "max_records_at_risk", whole=False, upper=1
        ),
        "max_average_risk": _limit(
            form.get("max_average_risk"), "max_average_risk", whole=False, upper=1
        ),
        "min_l": _limit(form.get("min_l"), "min_l", whole=True, upper=None),
    }
    release_risk_of_project(project, request)  # the columns must exist in the export
    policy = policy_of(project) or ReleasePolicy(project_id=project.id)
    policy.qi = ",".join(request.qi) if request.qi else None
    policy.sensitive = ",".join(request.sensitive) if request.sensitive is not None else None
    policy.population = request.population
    policy.suppressed, policy.missing = request.suppressed, request.missing
    policy.threshold, policy.on_exceed = request.threshold, on_exceed
    for name, value in limits.items():
        setattr(policy, name, value)
    policy.updated_by, policy.updated_at = by.id, utcnow()
    db.session.add(policy)
    db.session.flush()
    return policy


def exceeded_limits(policy: ReleasePolicy | None, risk: ReleaseRisk) -> list[str]:
    """The limits ``risk`` exceeds, each as a sentence of measures (never a record value)."""
    if policy is None:
        return []
    s, out = risk.sample, []
    if policy.min_k is not None and s.k < policy.min_k:
        out.append(f"k = {s.k} is below the minimum {policy.min_k}")
    at_risk = s.prosecutor.records_at_risk
    if policy.max_records_at_risk is not None and at_risk > policy.max_records_at_risk:
        out.append(
            f"records at risk {at_risk:.4g} (risk above {policy.threshold:g}) exceed "
            f"{policy.max_records_at_risk:g}"
        )
    average = s.prosecutor.average
    if policy.max_average_risk is not None and average > policy.max_average_risk:
        out.append(f"average prosecutor risk {average:.4g} exceeds {policy.max_average_risk:g}")
    if policy.min_l is not None:
        for d in risk.diversity:
            if d.l_distinct < policy.min_l:
                out.append(f"{d.attribute}: distinct l = {d.l_distinct} is below {policy.min_l}")
    return out


@dataclass(frozen=True)
class ReleaseGate:
    """What the gate found: the measured risk, the exceeded limits and what then happens."""

    risk: ReleaseRisk | None  # None: no policy, nothing measured
    exceeded: list[str]
    on_exceed: str  # confirm | refuse

    @property
    def open(self) -> bool:
        return not self.exceeded

    @property
    def refused(self) -> bool:
        return bool(self.exceeded) and self.on_exceed == "refuse"


def release_gate(
    project: Project, measured: tuple[ReleaseRequest, ReleaseRisk] | None = None
) -> ReleaseGate:
    """Measure the linked export under the project's policy (a bad policy closes the gate);
    without a policy nothing is measured. ``measured``: a check already made (the Release
    risk page's), used when its parameters are the policy's, so the export is read once."""
    policy = policy_of(project)
    if policy is None:
        return ReleaseGate(None, [], "confirm")
    request = policy_request(policy)
    if measured is not None and measured[0] == request:
        risk = measured[1]
    else:
        risk = release_risk_of_project(project, request)
    return ReleaseGate(risk, exceeded_limits(policy, risk), policy.on_exceed)


def confirm_release(
    project: Project, gate: ReleaseGate, reason: str, by: User
) -> ReleaseConfirmation:
    """Record that ``by`` takes the export above the limits, and why; flush."""
    reason = (reason or "").strip()
    if not reason:
        raise ReleaseRequestError("say why the export may leave above the thresholds ('reason')")
    if len(reason) > _MAX_REASON:
        raise ReleaseRequestError(f"'reason' is at most {_MAX_REASON} characters")
    if gate.refused:
        raise ReleaseRequestError("this project refuses an export above its thresholds")
    row = ReleaseConfirmation(
        project_id=project.id, confirmed_by=by.id, reason=reason, exceeded="; ".join(gate.exceeded)
    )
    db.session.add(row)
    db.session.flush()
    return row


def confirmations_of(project: Project) -> list[tuple[ReleaseConfirmation, str]]:
    """The project's confirmations, newest first, with who made each."""
    rows = db.session.execute(
        select(ReleaseConfirmation, User.username)
        .join(User, User.id == ReleaseConfirmation.confirmed_by)
        .where(ReleaseConfirmation.project_id == project.id)
        .order_by(ReleaseConfirmation.at.desc(), ReleaseConfirmation.id.desc())
    ).all()
    return [(row, name) for row, name in rows]
