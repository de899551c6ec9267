"""`span-client fragmentation`: the Date Fragments paper's Tables 2 and 4 for any tokenizers, offline.

    span-client fragmentation                                   # baseline, o200k_base, cl100k_base, qwen3, llama3
    span-client fragmentation --tokenizer qwen3 --tokenizer o200k_base --json
    span-client fragmentation --tokenizer http://127.0.0.1:8080/v1   # the served model's own (POST /tokenize)
    span-client fragmentation --tokenizer o200k_base --annotate dateaug.jsonl --out annotated.jsonl

Mean F over sample dates of the four periods written in every form of the dateaug family: overall, by
period, by form, and the pieces of the paper's Table 4 date "10271606". ``--annotate`` records in each
dateaug instance of a file the F of its date strings (``fragmentation``: {tokenizer: {"F", "strings"}}).
Bad input (an unknown or unavailable tokenizer, an endpoint without /tokenize): one line, nothing written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from .argtypes import any_int, positive_int

DEFAULT_TOKENIZERS = ("baseline", "o200k_base", "cl100k_base", "qwen3", "llama3")
MAX_PER_PERIOD = 1000


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tokenizer", "-t", action="append", metavar="NAME",
                        help="a tokenizer: baseline, o200k_base, cl100k_base, qwen3 (qwen2.5), llama3, or the served "
                             "model's endpoint URL (http://HOST:PORT/v1; needs POST /tokenize: llama.cpp, vLLM); "
                             f"repeat for several (default: {', '.join(DEFAULT_TOKENIZERS)})")
    parser.add_argument("--json", action="store_true", help="print JSON: {\"tokenizers\": {NAME: {mean, by_period, "
                                                            "by_format, sample, ...}}}")
    parser.add_argument("--per-period", type=positive_int, default=25, metavar="N",
                        help=f"sample dates per period (default 25, at most {MAX_PER_PERIOD}; each is written in all "
                             f"16 forms)")
    parser.add_argument("--seed", type=any_int, default=0, metavar="S", help="seed of the sample dates (default 0)")
    parser.add_argument("--annotate", metavar="INSTANCES",
                        help="instead of the tables: record the F of every dateaug instance's date strings in a copy "
                             "of this JSONL file (--out)")
    parser.add_argument("--out", "-o", metavar="PATH", help="with --annotate: the file to write (not the input)")
    parser.add_argument("--force", action="store_true", help="with --annotate: overwrite --out if it exists")


def _err(msg: str) -> int:
    print(f"span-client fragmentation: error: {msg}", file=sys.stderr)
    return 2


def run(args) -> int:
    from span_toolkit.client.date_fragmentation import table
    from span_toolkit.client.tokenizers import TokenizerError, get_tokenizer

    names = list(dict.fromkeys(args.tokenizer or DEFAULT_TOKENIZERS))
    if args.per_period > MAX_PER_PERIOD:
        return _err(f"--per-period {args.per_period} is more than {MAX_PER_PERIOD} dates per period")
    if args.annotate is not None and args.out is None:
        return _err("--annotate needs --out PATH (the annotated copy)")
    if args.annotate is None and args.out is not None:
        return _err("--out goes with --annotate")
    toks = []
    for n in names:
        try:
            toks.append(get_tokenizer(n))
        except TokenizerError as e:
            if args.tokenizer:          # named by the user: an error
                return _err(str(e))
            print(f"span-client fragmentation: note: {n} skipped: {e}", file=sys.stderr)   # a default one
    try:
        if args.annotate is not None:
            return _annotate(args, toks)
        tables = {t.name: table(t, args.per_period, args.seed) for t in toks}
    except (TokenizerError, ValueError) as e:   # an endpoint that stops answering, pieces that do not spell the text
        return _err(str(e).splitlines()[0] if str(e) else type(e).__name__)
    if args.json:
        print(json.dumps({"tokenizers": tables, "per_period": args.per_period, "seed": args.seed}, indent=2))
        return 0
    print(render_tables(tables, args.per_period))
    return 0


def render_tables(tables: dict, per_period: int) -> str:
    from span_toolkit.span.benchmark.dateaug import PERIODS
    from span_toolkit.span.benchmark.dateaug.formats import FORMATS

    first = next(iter(tables.values()))
    lines = ["Date fragmentation ratio F (Date Fragments eq. 1-2; 0.00 = the baseline's split, higher = more "
             "fragmented)",
             f"{per_period * len(PERIODS)} dates ({per_period} per period) x {len(first['by_format'])} forms = "
             f"{first['n_strings']} strings per tokenizer; docs/date-fragments.md says how each term is read", ""]
    w = max(10, *(len(n) for n in tables))
    lines.append(f"{'tokenizer':<{w}}  " + "  ".join(f"{p:>9}" for p in PERIODS) + f"  {'mean':>6}   "
                 f"pieces of \"{first['sample']['text']}\" (MMDDYYYY, Table 4)        F")
    for name, t in tables.items():
        pieces = " | ".join(t["sample"]["pieces"])
        lines.append(f"{name:<{w}}  " + "  ".join(f"{t['by_period'][p]:>9.2f}" for p in PERIODS) +
                     f"  {t['mean']:>6.2f}   {pieces:<44} {t['sample']['F']:.2f}")
    lines += ["", "by form:", f"{'form':<24}{'example':<18}" + "".join(f"{n[:12]:>13}" for n in tables)]
    for fmt in first["by_format"]:
        lines.append(f"{fmt:<24}{FORMATS[fmt][1]:<18}" + "".join(f"{t['by_format'][fmt]:>13.2f}"
                                                                   for t in tables.values()))
    return "\n".join(lines)


def _annotate(args, toks) -> int:
    from span_toolkit.client.date_fragmentation import fragmentation_of

    out = os.path.realpath(args.out)
    if os.path.realpath(args.annotate) == out:
        return _err("--out must be another file than --annotate")
    if os.path.exists(out) and not args.force:
        return _err(f"--out {args.out!r} exists; add --force to overwrite it")
    if not os.path.isdir(os.path.dirname(out)):
        return _err(f"output directory {os.path.dirname(out)!r} does not exist")
    try:
        with open(args.annotate, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        return _err(f"cannot read {args.annotate!r}: {e.strerror or e}")
    rows, n = [], 0
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            inst = json.loads(line)
        except ValueError:
            return _err(f"{args.annotate}:{i} is not JSON")
        v = inst.get("variables") if isinstance(inst, dict) else None
        strings = v.get("date_strings") if isinstance(v, dict) else None
        if strings is not None and not (isinstance(strings, list) and all(isinstance(x, str) for x in strings)):
            return _err(f"{args.annotate}:{i}: variables.date_strings must be a list of date strings")
        if strings:
            forms = v.get("formats") or [v.get("format")] * len(strings)
            if not isinstance(forms, list) or len(forms) != len(strings):
                forms = [None] * len(strings)      # forms unknown: the baseline reads the strings themselves
            forms = [f if isinstance(f, str) else None for f in forms]
            rec = inst.get("fragmentation")
            if not isinstance(rec, dict):
                rec = inst["fragmentation"] = {}
            for t in toks:
                fs = [round(fragmentation_of(s, t, fm).F, 6) for s, fm in zip(strings, forms)]
                rec[t.name] = {"F": round(sum(fs) / len(fs), 6), "strings": fs}
            n += 1
        rows.append(json.dumps(inst, ensure_ascii=False))
    fd, tmp = tempfile.mkstemp(prefix=".span-fragmentation-", dir=os.path.dirname(out))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("\n".join(rows) + ("\n" if rows else ""))
        os.replace(tmp, out)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    print(f"span-client fragmentation: recorded F ({', '.join(t.name for t in toks)}) in {n} of {len(rows)} "
          f"instances -> {args.out}", file=sys.stderr)
    return 0
