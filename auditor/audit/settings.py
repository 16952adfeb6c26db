"""Audit configuration: rule settings with documented defaults, the clock, rule selection.

Read from ``auditor.toml`` (top level) or the ``[tool.auditor]`` table of ``pyproject.toml``, looked up
from the current directory upwards, or from ``--config FILE``. Every key is documented in
``docs/configuration.md``; an unknown key or a value of the wrong type is an input error (exit 2)
naming the file and the key.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditor.audit.findings import SEVERITIES, Severity
from auditor.errors import InputError, describe_value, shown_name
from auditor.expr.glob import Dialect, glob_match

CONFIG_FILE = "auditor.toml"
PYPROJECT = "pyproject.toml"

TOP_LEVEL_KEYS = {
    "fail-on": "Severity at or above which a failing finding fails the run (default high).",
    "as-of": "The audit's clock (ISO date), for TOK-001 and waiver expiry (default: today, UTC).",
    "check": "Rules to run: ids, globs (RBAC-*) or severities (default: every rule).",
    "skip-check": "Rules not to run: ids, globs or severities (default: none).",
    "waivers": "Waivers file used when --waivers is not given (default: none).",
    "history": "History database audit and gate runs are recorded in (default: none; --history).",
    "cache": "The cache of loaded snapshots: false, true or a folder (default: ~/.cache/auditor).",
    "settings": "Table of rule settings (see the settings list).",
    "framework": "Frameworks whose rules to run (mcsb, cis; default: every rule; --framework).",
    "ruleset": "The rule catalogue version the run needs (refused when another is installed).",
    "rules": "Folders of the user's rule packs (rules = ['policies/'], relative to the file), "
    "or tables of settings by rule id ([rules.DOM-003] ipv4MinPrefixLength = 24).",
}


def coerce_setting(kind: str, value: Any) -> Any:
    """``value`` as a setting of type ``kind``; ValueError with a reason when it is not one."""
    if kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected an integer, found {describe_value(value)}")
        return value
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"expected a number, found {describe_value(value)}")
        return float(value)
    if kind == "boolean":
        if not isinstance(value, bool):
            raise ValueError(f"expected true or false, found {describe_value(value)}")
        return value
    if kind == "string":
        if not isinstance(value, str):
            raise ValueError(f"expected a string, found {describe_value(value)}")
        return value
    if kind == "date":
        if isinstance(value, dt.datetime):
            return value.date()
        if isinstance(value, dt.date):
            return value
        if isinstance(value, str):
            try:
                return dt.date.fromisoformat(value)
            except ValueError:
                raise ValueError(
                    f"expected a date (YYYY-MM-DD), found {describe_value(value)}"
                ) from None
        raise ValueError(f"expected a date (YYYY-MM-DD), found {describe_value(value)}")
    if kind == "list":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"expected a list of strings, found {describe_value(value)}")
        return tuple(value)
    raise ValueError(f"unknown setting type {kind!r}")


def parse_date(text: str, *, source: str = "--as-of") -> dt.date:
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        try:
            return dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00")).date()
        except ValueError:
            raise InputError(
                f"expected a date (YYYY-MM-DD), found {describe_value(text)}", source=source
            ) from None


def today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


@dataclass
class AuditConfig:
    """What one run is configured with (file values, then command-line overrides)."""

    settings: dict[str, Any] = field(default_factory=dict)
    """Only the values given; defaults come from the catalogue."""
    fail_on: Severity | None = None
    as_of: dt.date | None = None
    checks: list[str] = field(default_factory=list)
    skip_checks: list[str] = field(default_factory=list)
    waivers: str | None = None
    history: str | None = None
    """The audit history file (``history`` key), relative paths resolved against the file's
    folder."""
    cache: str | bool | None = None
    """``cache``: False (off), True (the default folder) or a folder (see :func:`cache_setting`)."""
    rule_packs: list[str] = field(default_factory=list)
    """Folders of the user's rule packs (``rules = ["DIR", ...]``), resolved against the file's
    folder."""
    frameworks: list[str] = field(default_factory=list)
    """``framework``: run only the rules these frameworks map (``--framework``)."""
    ruleset: str | None = None
    """``ruleset``: the catalogue version pinned (``--ruleset``)."""
    source: str | None = None


def find_config(start: Path | None = None) -> Path | None:
    """The nearest ``auditor.toml``, or ``pyproject.toml`` with ``[tool.auditor]``, from ``start``
    (default: the current directory) upwards."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_FILE
        if candidate.is_file():
            return candidate
        py = folder / PYPROJECT
        if py.is_file():
            try:
                data = tomllib.loads(py.read_text("utf-8"))
            except (OSError, UnicodeDecodeError, ValueError, RecursionError):
                continue  # not ours to judge: a pyproject.toml without [tool.auditor] is skipped
            if isinstance(data.get("tool"), dict) and "auditor" in data["tool"]:
                return py
    return None


def _config_table(
    path: str | os.PathLike[str] | None,
) -> tuple[dict[str, Any], str, str] | None:
    """The configuration file ``path`` (None: looked up from the current directory) read: its
    table of auditor's keys (``[tool.auditor]`` in a pyproject.toml), the file's name and the
    prefix its keys are named with in messages; None when there is no file."""
    file = Path(path) if path is not None else find_config()
    if file is None:
        return None
    where = str(file)
    data = _read_toml(where)
    prefix = ""
    if file.name == PYPROJECT:
        tool = data.get("tool")
        section = tool.get("auditor") if isinstance(tool, dict) else None
        data = section if isinstance(section, dict) else {}
        prefix = "tool.auditor."
    return data, where, prefix


def load_config(path: str | os.PathLike[str] | None, known: Mapping[str, Any]) -> AuditConfig:
    """Read the configuration ``path`` (None: look it up; nothing found: all defaults).

    ``known`` maps setting names to their :class:`~auditor.audit.packs.Setting` (for types).
    """
    found = _config_table(path)
    if found is None:
        return AuditConfig()
    data, where, prefix = found
    return parse_config(data, known, source=where, prefix=prefix)


CONFIG_MAX_BYTES = 4 << 20
"""Bytes of a configuration file, at most."""
_TOML_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def _read_toml(where: str) -> dict[str, Any]:
    """The TOML of the configuration file ``where``: a regular UTF-8 file; every problem an
    InputError with line and column; nesting and numbers within the limits of every input."""
    from auditor.estate import check_value, read_input_text

    text = read_input_text(where, what="configuration file", limit=CONFIG_MAX_BYTES)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        m = _TOML_AT.search(message)
        location = f"line {m.group(1)}, column {m.group(2)}" if m else None
        problem = _TOML_AT.sub("", message)
        raise InputError(
            f"the configuration file is not valid TOML: {problem[:1].lower() + problem[1:]}",
            source=where,
            location=location,
        ) from None
    except ValueError:  # an integer of more than 4,300 digits
        raise InputError(
            "the configuration file holds a number out of range", source=where
        ) from None
    except RecursionError:
        from auditor.estate import MAX_DEPTH

        raise InputError(
            f"the configuration file nests deeper than {MAX_DEPTH} levels (the limit)",
            source=where,
        ) from None
    check_value(data, source=where)
    return data


def parse_config(
    data: Mapping[str, Any], known: Mapping[str, Any], *, source: str, prefix: str = ""
) -> AuditConfig:
    cfg = AuditConfig(source=source)
    for key, value in data.items():
        where = prefix + key
        if key == "fail-on":
            if value not in SEVERITIES:
                raise InputError(
                    f"expected one of {', '.join(SEVERITIES)}, found {describe_value(value)}",
                    source=source,
                    location=where,
                )
            cfg.fail_on = value
        elif key == "as-of":
            if isinstance(value, dt.date):
                cfg.as_of = value if not isinstance(value, dt.datetime) else value.date()
            elif isinstance(value, str):
                cfg.as_of = parse_date(value, source=f"{source}: {where}")
            else:
                raise InputError(
                    f"expected a date, found {describe_value(value)}", source=source, location=where
                )
        elif key in ("check", "skip-check"):
            items = [value] if isinstance(value, str) else value
            if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
                raise InputError(
                    f"expected a string or a list of strings, found {describe_value(value)}",
                    source=source,
                    location=where,
                )
            (cfg.checks if key == "check" else cfg.skip_checks).extend(items)
        elif key == "framework":
            items = [value] if isinstance(value, str) else value
            if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
                raise InputError(
                    f"expected a string or a list of strings, found {describe_value(value)}",
                    source=source,
                    location=where,
                )
            cfg.frameworks.extend(items)
        elif key == "ruleset":
            if not isinstance(value, str):
                raise InputError(
                    f"expected a version string, found {describe_value(value)}",
                    source=source,
                    location=where,
                )
            cfg.ruleset = value
        elif key == "cache":
            cfg.cache = _cache_value(value, source, where)
        elif key in ("waivers", "history"):
            if not isinstance(value, str):
                raise InputError(
                    f"expected a path, found {describe_value(value)}", source=source, location=where
                )
            path = str(Path(source).parent / value) if not os.path.isabs(value) else value
            setattr(cfg, key, path)
        elif key == "rules" and isinstance(value, list):
            cfg.rule_packs = _pack_dirs(value, source, where)
        elif key == "rules":
            if not isinstance(value, dict):
                raise InputError(
                    "expected a list of folders of rule packs or a table of rule ids",
                    source=source,
                    location=where,
                )
            for rule_id, table in value.items():
                if not isinstance(table, dict):
                    raise InputError(
                        "expected a table", source=source, location=f"{where}.{rule_id}"
                    )
                for name, setting_value in table.items():
                    spec = known.get(name)
                    if spec is None or rule_id.upper() not in spec.rules:
                        mine = sorted(n for n, s in known.items() if rule_id.upper() in s.rules)
                        raise InputError(
                            f"{shown_name(rule_id)} has no setting {shown_name(name)!r}; "
                            "its settings: "
                            f"{', '.join(mine) if mine else 'none'}",
                            source=source,
                            location=f"{where}.{rule_id}.{name}",
                        )
                    _set(cfg, spec, name, setting_value, source, f"{where}.{rule_id}.{name}")
        elif key == "settings":
            if not isinstance(value, dict):
                raise InputError("expected a table", source=source, location=where)
            for name, setting_value in value.items():
                spec = known.get(name)
                if spec is None:
                    raise InputError(
                        f"unknown setting {shown_name(name)!r}; known: {', '.join(sorted(known))}",
                        source=source,
                        location=f"{where}.{name}",
                    )
                _set(cfg, spec, name, setting_value, source, f"{where}.{name}")
        else:
            raise InputError(
                f"unknown key {shown_name(key)!r}; known: {', '.join(TOP_LEVEL_KEYS)}",
                source=source,
                location=where,
            )
    return cfg


def _pack_dirs(value: list[Any], source: str, where: str) -> list[str]:
    if not all(isinstance(v, str) and v for v in value):
        raise InputError(
            f"expected a list of folders of rule packs, found {describe_value(value)}",
            source=source,
            location=where,
        )
    return [str(Path(source).parent / v) if not os.path.isabs(v) else v for v in value]


def config_rule_packs(path: str | os.PathLike[str] | None) -> list[str]:
    """The folders of user rule packs the configuration file names (``rules = ["DIR", ...]``,
    relative to the file), read before the catalogue (whose settings the rest of the file sets):
    ``path``, or the file looked up from the current directory when None."""
    found = _config_table(path)
    if found is None:
        return []
    data, where, prefix = found
    value = data.get("rules")
    if not isinstance(value, list):
        return []
    folders = _pack_dirs(value, where, prefix + "rules")
    for given, folder in zip(value, folders, strict=True):
        if not os.path.exists(folder):
            raise InputError(
                f"no such folder of rule packs: {given!r} (relative to the file's folder)",
                source=where,
                location=prefix + "rules",
            )
    return folders


def _cache_value(value: Any, source: str, where: str) -> str | bool:
    if isinstance(value, bool):
        return value
    if not isinstance(value, str) or not value:
        raise InputError(
            f"expected false, true or a folder, found {describe_value(value)}",
            source=source,
            location=where,
        )
    path = os.path.expanduser(value)
    return path if os.path.isabs(path) else str(Path(source).parent / path)


def cache_setting(path: str | os.PathLike[str] | None) -> str | bool | None:
    """The ``cache`` key of the configuration file ``path`` (None: the one looked up from the
    current directory): False (off), True (the default folder), a folder (relative to the file),
    or None when no file sets it. Only that key is read (commands without rules use it)."""
    found = _config_table(path)
    if found is None:
        return None
    data, where, prefix = found
    if "cache" not in data:
        return None
    return _cache_value(data["cache"], where, prefix + "cache")


def _set(cfg: AuditConfig, spec: Any, name: str, value: Any, source: str, where: str) -> None:
    try:
        cfg.settings[name] = coerce_setting(spec.type, value)
    except ValueError as exc:
        raise InputError(str(exc), source=source, location=where) from None


def split_patterns(values: Iterable[str]) -> list[str]:
    """``--check A,B --check C`` -> ``[A, B, C]``."""
    return [p.strip() for v in values for p in v.split(",") if p.strip()]


def pattern_matches(pattern: str, rule_id: str, severity: str) -> bool:
    """A selection pattern: a severity name, or an id or glob (case-insensitive)."""
    p = pattern.strip().lower()
    if p in SEVERITIES:
        return severity == p
    return glob_match(p, rule_id.lower(), Dialect.SHELL)


def check_patterns(rules: Sequence[Any], patterns: Sequence[str], *, source: str) -> None:
    """Refuse a pattern that matches no rule at all (a typo would otherwise silently run nothing),
    naming where it was given (``--check``, or the configuration file and its key)."""
    for pattern in patterns:
        if not any(pattern_matches(pattern, r.id, r.severity) for r in rules):
            raise InputError(
                f"{pattern!r} matches no rule; use a rule id (DOM-001), a glob (RBAC-*) or a "
                f"severity ({', '.join(SEVERITIES)})",
                source=source,
            )


def select_rules(
    rules: Sequence[Any], checks: Sequence[str], skips: Sequence[str], *, source: str = "--check"
) -> list[Any]:
    """The rules ``checks`` selects (all when empty) minus those ``skips`` names. A pattern that
    matches no rule at all is an input error (:func:`check_patterns`)."""
    check_patterns(rules, checks, source=source)
    check_patterns(rules, skips, source="--skip-check")
    out = [
        r
        for r in rules
        if (not checks or any(pattern_matches(p, r.id, r.severity) for p in checks))
        and not any(pattern_matches(p, r.id, r.severity) for p in skips)
    ]
    return out
