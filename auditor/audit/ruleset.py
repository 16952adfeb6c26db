"""The shipped catalogue's version and changelog (``rules/catalogue/version.yaml``), and pinning.

A team pins the rule set its gate runs with ``--ruleset VERSION`` (or ``ruleset = "..."`` in the
configuration): :func:`check_pin` refuses to run (an input error, exit 2) when the installed
catalogue is another version, so a gate does not change under the team without notice. The
changelog lists, per version, the rules added, changed and removed; ``docs/rules-changelog.md`` is
:func:`changelog_markdown` of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator

from auditor._resources import data_dir
from auditor.audit._yaml import read_yaml_file
from auditor.audit.frameworks import _Strict, _text
from auditor.errors import InputError

VERSION_FILE = Path("catalogue") / "version.yaml"
"""Where the version lives, under the shipped ``rules/`` folder."""


class _Change(_Strict):
    version: str
    date: str
    summary: str
    added: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)

    _texts = field_validator("version", "date", mode="before")(_text)


class _VersionFile(_Strict):
    version: str
    changes: list[_Change] = Field(min_length=1)

    _texts = field_validator("version", mode="before")(_text)


@dataclass(frozen=True)
class Change:
    """One version's entry in the changelog."""

    version: str
    date: str
    summary: str
    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "date": self.date,
            "summary": self.summary,
            "added": list(self.added),
            "changed": list(self.changed),
            "removed": list(self.removed),
        }


@dataclass(frozen=True)
class Ruleset:
    """The catalogue's version and its changelog, newest first."""

    version: str
    changes: tuple[Change, ...]
    source: str

    def rule_ids(self) -> set[str]:
        """The rules the changelog says the catalogue holds (added and not removed since)."""
        ids: set[str] = set()
        for change in reversed(self.changes):
            ids.update(change.added)
            ids.difference_update(change.removed)
        return ids


def load_ruleset(path: Path | None = None) -> Ruleset:
    """Read the version file (default: the shipped one); InputError naming the file and key."""
    file = path if path is not None else data_dir("rules") / VERSION_FILE
    where = str(file)
    document = read_yaml_file(where, what="catalogue version file")
    try:
        spec = _VersionFile.model_validate(document)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise InputError(
            f"invalid catalogue version file: {err['msg']}", source=where, location=loc
        ) from None
    if spec.changes[0].version != spec.version:
        raise InputError(
            f"the newest changelog entry is {spec.changes[0].version}, the version {spec.version}",
            source=where,
            location="changes[0].version",
        )
    changes = tuple(
        Change(
            version=c.version,
            date=c.date,
            summary=" ".join(c.summary.split()),
            added=tuple(c.added),
            changed=tuple(c.changed),
            removed=tuple(c.removed),
        )
        for c in spec.changes
    )
    return Ruleset(version=spec.version, changes=changes, source=where)


@cache
def shipped_ruleset() -> Ruleset:
    """The shipped catalogue's version and changelog (read once per process)."""
    return load_ruleset()


def catalogue_version() -> str:
    """The installed catalogue's version (``2026.11.0``)."""
    return shipped_ruleset().version


def check_pin(asked: str | None, *, source: str = "--ruleset") -> None:
    """Refuse (InputError, exit 2) when ``asked`` is given and is not the installed version."""
    if asked is None:
        return
    installed = catalogue_version()
    if asked.strip() != installed:
        raise InputError(
            f"the installed rule catalogue is {installed}, but {asked.strip()!r} was asked for: "
            "the rules would not be the ones pinned. Install the auditor release that ships "
            f"catalogue {asked.strip()}, or move the pin to {installed} after reading what changed "
            "(docs/rules-changelog.md, `auditor rules changelog`)",
            source=source,
        )


def changelog_markdown(ruleset: Ruleset | None = None) -> str:
    """``docs/rules-changelog.md``: every version, newest first, with its rules."""
    ruleset = ruleset or shipped_ruleset()
    lines = [
        "# Rule catalogue changelog",
        "",
        "<!-- Generated from rules/catalogue/version.yaml by "
        "`auditor rules changelog --out docs/rules-changelog.md`; do not edit. -->",
        "",
        f"The installed catalogue is **{ruleset.version}** (`auditor rules list` shows it). Pin it "
        f'with `--ruleset {ruleset.version}` or `ruleset = "{ruleset.version}"` in the '
        "configuration: a run with another installed catalogue refuses to start (exit 2).",
        "",
    ]
    for change in ruleset.changes:
        lines += [f"## {change.version} ({change.date})", "", change.summary, ""]
        for label, ids in (
            ("Added", change.added),
            ("Changed", change.changed),
            ("Removed", change.removed),
        ):
            if ids:
                lines.append(f"- {label} ({len(ids)}): " + ", ".join(f"`{i}`" for i in ids))
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
