"""Parse rate of auditor's $filter parser against the odata-query package, in the same run.

    .venv/bin/python benchmarks/bench_filter_parse.py [--rounds N] [--quick]

The corpus is benchmarks/data/filters.txt (realistic filters that both parsers accept).  Every
contender parses the whole corpus once per round, contenders interleaved, timed in CPU time of this
thread (so time the machine gives to other processes does not count), and the best round counts.  auditor's figure is the uncached parser
(``auditor.expr.filter.parser.parse``): every text is really parsed; the rate of ``parse_filter``
(which keeps an LRU cache of ASTs by text) is printed separately and is not the result.

Goal (the issue): at least 2x odata-query.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CORPUS = Path(__file__).resolve().parent / "data" / "filters.txt"
GOAL = 2.0


def load_corpus() -> list[str]:
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


def contenders() -> dict[str, Callable[[str], Any]]:
    from lark import Lark
    from odata_query.grammar import ODataLexer, ODataParser

    from auditor._resources import data_dir
    from auditor.expr.filter import parse_filter
    from auditor.expr.filter.parser import _builder, build_parser, parse

    lexer, parser = ODataLexer(), ODataParser()

    def odata_query(text: str) -> Any:
        return parser.parse(lexer.tokenize(text))

    lark_lexer, _ = build_parser(fast_lexer=False)
    tree_parser = Lark(
        (data_dir("grammar") / "filter.lark").read_text(encoding="utf-8"),
        parser="lalr",
        lexer="contextual",
    )
    builder = _builder()

    def tree_then_transform(text: str) -> Any:
        return builder.transform(tree_parser.parse(text))

    return {
        "odata-query (sly)": odata_query,
        "auditor parse": parse,
        "auditor parse, lark's own lexer loop": lark_lexer.parse,
        "auditor grammar, tree then transform": tree_then_transform,
        "auditor parse_filter (LRU-cached)": parse_filter,
    }


def measure(
    functions: dict[str, Callable[[str], Any]], corpus: list[str], rounds: int
) -> dict[str, float]:
    best = dict.fromkeys(functions, float("inf"))
    for _ in range(rounds):
        for name, function in functions.items():
            start = time.thread_time()
            for text in corpus:
                function(text)
            best[name] = min(best[name], time.thread_time() - start)
    return {name: len(corpus) / seconds for name, seconds in best.items()}


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--rounds", type=int, default=60)
    options.add_argument("--quick", action="store_true", help="a smoke run: 5 rounds")
    args = options.parse_args()
    if args.quick:
        args.rounds = 5

    corpus = load_corpus()
    functions = contenders()
    for name, function in functions.items():  # every contender accepts every filter, and warms up
        for text in corpus:
            try:
                function(text)
            except Exception as exc:
                print(f"{name} rejects {text!r}: {exc}", file=sys.stderr)
                return 1

    rates = measure(functions, corpus, args.rounds)
    baseline = rates["odata-query (sly)"]
    print(
        f"corpus: {len(corpus)} filters ({CORPUS.relative_to(ROOT)}), "
        f"best of {args.rounds} rounds, thread CPU time"
    )
    for name, rate in rates.items():
        print(f"  {name:40s} {rate:10,.0f} filters/s   {rate / baseline:5.2f}x odata-query")
    ratio = rates["auditor parse"] / baseline
    verdict = "met" if ratio >= GOAL else "NOT met"
    print(f"result: auditor parses {ratio:.2f}x as fast as odata-query (goal {GOAL}x: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
