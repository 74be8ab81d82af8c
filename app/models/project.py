"""A linkage project: its attribute schema, sources and settings."""

from __future__ import annotations

import datetime as dt
import enum

from sqlalchemy import CheckConstraint, DateTime, ForeignKey, String, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.core.disclosure import AttributeType
from app.extensions import db
from app.models.base import Timestamped


class ProjectKind(enum.StrEnum):
    LINK = "link"  # two files, pairs across them
    DEDUPE = "dedupe"  # one file, pairs within it
    PAIRFILE = "pairfile"  # a ready pair file (MINDFIRL layout)


class EvidenceModel(enum.StrEnum):
    ROW = "row"
    PAIR = "pair"


class ProjectState(enum.StrEnum):
    IMPORTING = "importing"  # records still arriving: listed nowhere, removed if abandoned
    READY = "ready"
    # The synthetic known-truth checks of the project ``checks_of`` (app.projects.quality):
    # their records and pairs live here, so no reader of the real project ever meets them.
    # Listed nowhere and nobody's to open (app.projects.ownership).
    CHECKS = "checks"


class ConflictPolicy(enum.StrEnum):
    MANAGER = "manager"  # the manager decides
    REVIEWER = "reviewer"  # an additional reviewer, then the manager on a tie


class Project(Timestamped, db.Model):
    __tablename__ = "projects"
    __table_args__ = (
        CheckConstraint("kappa >= 1", name="kappa_positive"),
        CheckConstraint("state IN ('importing', 'ready', 'checks')", name="state_known"),
        CheckConstraint(
            "alert_error_rate > 0 AND alert_error_rate < 1", name="alert_error_rate_in_range"
        ),
        CheckConstraint("break_minutes IS NULL OR break_minutes >= 1", name="break_minutes"),
        CheckConstraint("break_decisions IS NULL OR break_decisions >= 1", name="break_decisions"),
        CheckConstraint("auto_close_days IS NULL OR auto_close_days >= 0", name="auto_close_days"),
        CheckConstraint("page_size >= 1", name="page_size_positive"),
        CheckConstraint("conflict_policy IN ('manager', 'reviewer')", name="conflict_policy_known"),
        CheckConstraint(
            "resolver_budget >= 0 AND resolver_budget <= 1", name="resolver_budget_in_range"
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(16))
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    kappa: Mapped[int] = mapped_column(default=1)
    default_budget: Mapped[float] = mapped_column(default=0.1)
    evidence_model: Mapped[str] = mapped_column(String(8), default=EvidenceModel.ROW.value)
    page_size: Mapped[int] = mapped_column(default=10)
    allow_unsure: Mapped[bool] = mapped_column(default=False)
    # Who settles a pair double-coders disagree on: the manager, or an additional reviewer
    # whose answer makes a majority of three (a remaining tie goes to the manager).
    conflict_policy: Mapped[str] = mapped_column(
        String(16), default=ConflictPolicy.MANAGER.value, server_default="manager"
    )
    # Whether workers see a pair's linker scores and rule (match probability, weight, key).
    # Off by default: reviewers decide blind (docs/triage.md); purpose and round never show.
    show_scores: Mapped[bool] = mapped_column(default=False, server_default=false())
    # The disclosure advisor's hint on the worker's page (docs/advice.md): off by default; the
    # reviewer model it advises for (``human``: fitted to the CHI 2018 study, or ``evidence``).
    advice_hint: Mapped[bool] = mapped_column(default=False, server_default=false())
    advice_reviewer: Mapped[str] = mapped_column(String(8), default="human", server_default="human")
    # The KAPR budget of the manager's own resolver assignment (reveals while resolving).
    resolver_budget: Mapped[float] = mapped_column(default=0.05, server_default="0.05")
    # Bumped whenever records change, so cached anonymity-set indexes know they are stale.
    records_version: Mapped[int] = mapped_column(default=1)
    # A project becomes visible only when its import is complete. While ``importing``, the
    # import's process (``host:pid``), job and staged upload say who may still finish it;
    # ``app.projects.importing.recovery`` removes the project when none can.
    state: Mapped[str] = mapped_column(
        String(12), default=ProjectState.READY.value, server_default="ready"
    )
    import_owner: Mapped[str | None] = mapped_column(String(120))
    import_token: Mapped[str | None] = mapped_column(String(64))
    import_job_id: Mapped[int | None] = mapped_column(ForeignKey("jobs.id", ondelete="SET NULL"))
    # Close-out (app.projects.custody): when the identifying values and the vault rows were
    # destroyed (None: open), and the days after completion to do it automatically (None: never).
    closed_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    auto_close_days: Mapped[int | None]
    # Reviewer quality (docs/quality.md): the project whose synthetic checks this one holds
    # (state ``checks``); the error rate above which a reviewer is flagged; the session
    # length (minutes) and the decisions after which a reviewer is reminded to take a break.
    checks_of: Mapped[int | None] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    alert_error_rate: Mapped[float] = mapped_column(default=0.2, server_default="0.2")
    break_minutes: Mapped[int | None]
    break_decisions: Mapped[int | None]

    owner = relationship("User")
    attributes: Mapped[list[ProjectAttribute]] = relationship(
        back_populates="project",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by="ProjectAttribute.position",
    )
    sources: Mapped[list[Source]] = relationship(
        back_populates="project",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by="Source.label",
    )

    @property
    def closed(self) -> bool:
        """Whether the project was closed out: no identifying or vault value is left."""
        return self.closed_at is not None

    @property
    def identifying(self) -> list[ProjectAttribute]:
        return [a for a in self.attributes if a.identifying]

    @property
    def sensitive(self) -> list[ProjectAttribute]:
        return [a for a in self.attributes if not a.identifying]


class ProjectAttribute(db.Model):
    """One column of the project's schema: identifying (shown masked) or sensitive (vault)."""

    __tablename__ = "project_attributes"
    __table_args__ = (
        UniqueConstraint("project_id", "name"),
        UniqueConstraint("project_id", "position"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    position: Mapped[int]
    name: Mapped[str] = mapped_column(String(100))
    kind: Mapped[str] = mapped_column(String(16), default=AttributeType.STRING.value)
    identifying: Mapped[bool] = mapped_column(default=True)
    # The project's ground truth (e.g. ``cluster_id``): a sensitive (vault) column that risk
    # against utility scores workers against; never identifying, at most one per project.
    truth: Mapped[bool] = mapped_column(default=False, server_default=false())

    project: Mapped[Project] = relationship(back_populates="attributes")

    @property
    def type(self) -> AttributeType:
        return AttributeType(self.kind)


class Source(db.Model):
    """One input dataset of a project: ``A`` (and ``B`` when linking two files)."""

    __tablename__ = "sources"
    __table_args__ = (UniqueConstraint("project_id", "label"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    label: Mapped[str] = mapped_column(String(8))
    filename: Mapped[str | None] = mapped_column(String(255))
    record_count: Mapped[int] = mapped_column(default=0)
    # The source's name in a linker's files (Splink's ``source_dataset``), kept as imported
    # so that exported labels join to the linker's own input tables; None: use ``label``.
    dataset: Mapped[str | None] = mapped_column(String(100))

    @property
    def name(self) -> str:
        """The name exports give the source: the linker's dataset name, else the label."""
        return self.dataset or self.label

    project: Mapped[Project] = relationship(back_populates="sources")
