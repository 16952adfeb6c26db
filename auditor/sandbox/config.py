"""The sandbox's settings (``auditor sandbox serve`` options) and its fault injection."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Literal

FaultKind = Literal["429", "500", "503", "slow"]
SandboxNamespace = Literal["seed", "vendor", "both"]

ALL_FAULTS: tuple[FaultKind, ...] = ("429", "500", "503")

DEFAULT_PAGE_SIZE = 200
"""Items per list page unless ``--page-size`` says otherwise: small enough that a realistic listing
pages (so clients' paging is exercised), as the real service's listings do."""


@dataclass(frozen=True)
class FaultConfig:
    """Faults for testing clients (nothing is injected with the defaults).

    - ``rate``: the share of API requests (0..1) that get a fault instead of an answer.
    - ``kinds``: which faults are drawn, uniformly: ``429`` (with ``Retry-After``), ``500``,
      ``503`` (with ``Retry-After``), ``slow`` (the right answer, but ``slow_delay`` seconds late).
    - ``seed``: the draws come from ``random.Random(seed)`` in request-arrival order, so a sequential
      client sees the same faults on every run.
    - ``max_consecutive``: a request (method and URL) is faulted at most this many times in a row,
      so a client with enough retries always gets through (0 = no limit).
    - ``latency``: seconds added to every API response (models a real network; never blocks the
      server: other requests are served meanwhile).
    - ``retry_after``: the ``Retry-After`` value of 429 and 503 faults, in seconds.
    - ``only``: a regular expression; when given, only requests whose path it finds (searched,
      case-insensitive) can get a fault.
    """

    rate: float = 0.0
    kinds: tuple[FaultKind, ...] = ALL_FAULTS
    seed: int | None = None
    max_consecutive: int = 3
    latency: float = 0.0
    slow_delay: float = 2.0
    retry_after: int = 1
    only: str | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError("the fault rate must lie between 0 and 1")
        if not self.kinds:
            raise ValueError("at least one fault kind is needed")
        if self.latency < 0 or self.slow_delay < 0:
            raise ValueError("delays cannot be negative")


class FaultInjector:
    """Draws the fault (or none) for each request; deterministic for a given seed."""

    def __init__(self, config: FaultConfig) -> None:
        self.config = config
        self._random = random.Random(config.seed)
        self._only = re.compile(config.only, re.IGNORECASE) if config.only else None
        self._streak: dict[str, int] = {}
        self.injected: dict[str, int] = {}

    def draw(self, key: str, path: str = "") -> FaultKind | None:
        cfg = self.config
        if cfg.rate <= 0.0:
            return None
        if self._only is not None and not self._only.search(path):
            return None
        streak = self._streak.get(key, 0)
        hit = self._random.random() < cfg.rate
        if not hit or (cfg.max_consecutive and streak >= cfg.max_consecutive):
            self._streak.pop(key, None)
            return None
        kind = cfg.kinds[self._random.randrange(len(cfg.kinds))]
        self._streak[key] = streak + 1
        self.injected[kind] = self.injected.get(kind, 0) + 1
        return kind


@dataclass(frozen=True)
class SandboxConfig:
    """Everything ``auditor sandbox serve`` can set, besides the snapshot itself.

    ``bearer_tokens`` maps a bearer token value to the principal id it authenticates (areas A-D);
    ``api_tokens`` maps a developer-tooling token value to the id of a token of the snapshot's
    ``devTooling.tokens``. Token values are hashed when the server starts and never kept in clear.
    ``reader_token`` (a bearer token) reads everything at ``/`` without appearing in the estate.
    ``page_size``: items per page of every paged listing (:data:`DEFAULT_PAGE_SIZE`).
    ``namespace``: the paths and names served: the seed's (``Cloud.*``), the vendor's
    (``Microsoft.*``; :mod:`auditor.sandbox.vendor`) or both.
    """

    bearer_tokens: dict[str, str] = field(default_factory=dict)
    api_tokens: dict[str, str] = field(default_factory=dict)
    reader_token: str | None = None
    page_size: int = DEFAULT_PAGE_SIZE
    async_delay: float = 1.0
    faults: FaultConfig = field(default_factory=FaultConfig)
    persist_path: str | None = None
    max_body_bytes: int = 4 << 20
    max_api_tokens: int = 5000
    namespace: SandboxNamespace = "seed"

    def __post_init__(self) -> None:
        if self.namespace not in ("seed", "vendor", "both"):
            raise ValueError("the namespace must be seed, vendor or both")
        if self.page_size < 1:
            raise ValueError("the page size must be at least 1")
        if self.async_delay < 0:
            raise ValueError("the asynchronous-operation delay cannot be negative")
