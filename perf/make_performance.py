#!/usr/bin/env python3
"""Generate docs/performance.md from the measurements kept in docs/perf-data/.

    python3 perf/make_performance.py > docs/performance.md
    python3 perf/make_performance.py --output docs/performance.md
    python3 perf/make_performance.py --check     # exit 1 when docs/performance.md is out of date

Run from anywhere; paths are taken relative to the repository (this file's parent's parent).
Only the Python standard library is used. The output depends on nothing but the manifest and
the data files, so the same inputs always give the same file.

The manifest, perf/performance_manifest.json
--------------------------------------------
    {
      "title": "Performance",
      "data_dir": "docs/perf-data",          # where every "files" entry lives
      "intro": ["markdown paragraph", ...],   # printed under the generated-file notice
      "machines": {"H200": "description", "2-core VM": "description"},
      "areas": [                              # one section and one table each, in this order
        {
          "title": "Connected components and region statistics",
          "intro": ["markdown", ...],         # optional, printed above the table
          "runs": {                           # one entry per program run (or device job)
            "h200": {
              "machine": "H200",              # a key of "machines"
              "command": "bash scripts/device-measure-label.sh",
              "files": ["label-....json", "label-...-report.txt"],
              "runs": "one run"               # optional: how many runs, when a figure is not
            }                                 #   a Google Benchmark median (which says itself)
          },
          "rows": [
            {
              "id": "label_random",           # for references from notes and other text
              "run": "h200",                  # gigaseg's figure and the peer's come from this run
              "operation": "label, 8-connected, tuned CUDA path",
              "size": "20000 x 20000, random mask",
              "gigaseg": VALUE,
              "peer": VALUE plus "name": "CuPy `ndimage.label`",   # optional
              "hidden": false                 # optional: true keeps the row out of the table
            }                                 #   (its figures stay usable in notes)
          ],
          "notes": ["markdown with {placeholders}", ...]   # printed below the table
        }
      ]
    }

A VALUE says where a figure comes from, inside the files of the row's run:
    {"bench": "BM_Label<Kokkos::Cuda>/20000/0/1"}
        Google Benchmark JSON: the "median" aggregate whose run_name, without its trailing
        /iterations:N, /repeats:N, /manual_time or /real_time parts, is exactly this name.
        real_time is converted to milliseconds from time_unit. The run's JSON files are searched
        in the order listed; the first that holds the benchmark wins. The entry's counters
        (components, edt_ms, TB_s for "TB/s": characters other than letters, digits, "_"
        and "." become "_") are available to placeholders. A JSON file cut short (a job
        that stopped mid-write) is read up to its last complete benchmark entry.
    {"regex": "cupy 20000\\^2 random: label ([0-9.]+) ms"}
        The run's text files (not .json), searched in order: the group named "value", else the
        first group, in milliseconds. Other named groups become counters.
    {"json": "batch-....json", "key": "images_per_second", "unit": "images/s"}
        A plain JSON document (a `gigaseg --json` report): the value at a dotted key; every
        field of the document is a counter (nested keys joined with dots).
    {"table": {"after": "# SECOND RUN", "section": "point", "key": "65536", "column": 2}}
        A text table: after the first line containing "after", the first line equal to
        "section", then the first following line whose first field is "key"; its field number
        "column" (0 = the key).
    {"literal": 68.4, "source": "file named as the figure's origin"}
        Only for a figure no data file holds in a parseable form; prefer the others.
    Optional in any VALUE: "file" (only that file of the run is read), "unit" ("ms", the
    default, or a rate such as "images/s", for which higher is better) and "runs" (how many
    runs the figure summarises, shown in the data column; a benchmark median states its own,
    other values default to the run's "runs").

Ratios are peer / gigaseg for times and gigaseg / peer for rates: above 1, gigaseg is faster.

Placeholders, in notes, intros and the operation and size texts: {EXPR} or {EXPR:FORMAT}.
EXPR is arithmetic (+ - * / and parentheses) over numbers and references ROW.gigaseg,
ROW.peer, ROW.ratio, ROW.gigaseg.COUNTER and ROW.peer.COUNTER (ROW a row id of any area).
FORMAT is a Python format specification (",.0f", ".1%"); without one a number is shown with
three significant digits.

Pointing an area at new measurements
------------------------------------
1. Copy the new Google Benchmark JSON and the job's report (peers' figures) into
   docs/perf-data/ under new names (keep the old ones: they are what the older commits quote).
2. In the manifest, change the "files" of the area's run to the new names, and its "command"
   and "machine" if those changed. Every row of the run then reads the new files.
3. Run `python3 perf/make_performance.py --output docs/performance.md`. A row whose benchmark
   or pattern the new files lack is an error naming the area and the row, so renamed or dropped
   benchmarks show up at once; fix the row's name or delete the row.
To add a measurement, add a run (or reuse one) and a row. Benchmark names are printed by
`python3 perf/report.py FILE.json`.
"""
import argparse
import ast
import json
import math
import operator
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "perf" / "performance_manifest.json"
DEFAULT_OUTPUT = ROOT / "docs" / "performance.md"
TIME_TO_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
RUN_SUFFIX = re.compile(r"^(iterations:\d+|repeats:\d+|manual_time|real_time|process_time|threads:\d+)$")


class ManifestError(Exception):
    pass


class Figure:
    """A number with where it came from."""

    def __init__(self, value, unit, files, counters=None, runs=None):
        self.value = value
        self.unit = unit
        self.files = files
        # Counter names become identifiers for placeholders: "TB/s" is TB_s.
        self.counters = {re.sub(r"[^A-Za-z0-9_.]", "_", k): v for k, v in (counters or {}).items()}
        self.runs = runs


# ---------------------------------------------------------------- reading the data files

_cache = {}


def read_text(path):
    if path not in _cache:
        if not path.is_file():
            raise ManifestError(f"missing data file {path.relative_to(ROOT)}")
        _cache[path] = path.read_text()
    return _cache[path]


def load_benchmark_json(path):
    """The "benchmarks" list of a Google Benchmark file, tolerating a file cut short."""
    key = ("benchmarks", path)
    if key in _cache:
        return _cache[key]
    text = read_text(path)
    try:
        entries = json.loads(text).get("benchmarks", [])
    except json.JSONDecodeError:
        start = text.find('"benchmarks"')
        if start < 0:
            raise ManifestError(f"{path.name}: not JSON and no benchmarks list")
        pos = text.index("[", start) + 1
        decoder = json.JSONDecoder()
        entries = []
        while True:
            pos = re.compile(r"[\s,]*").match(text, pos).end()
            try:
                entry, pos = decoder.raw_decode(text, pos)
            except json.JSONDecodeError:
                break
            entries.append(entry)
    _cache[key] = entries
    return entries


def bench_key(run_name):
    parts = run_name.split("/")
    while parts and RUN_SUFFIX.match(parts[-1]):
        parts.pop()
    return "/".join(parts)


def flatten(obj, prefix=""):
    out = {}
    for k, v in obj.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, name + "."))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out[name] = float(v)
    return out


def run_files(data_dir, run, spec):
    names = [spec["file"]] if "file" in spec else run["files"]
    return [data_dir / n for n in names]


def resolve_value(spec, run, data_dir):
    unit = spec.get("unit", "ms")
    files = run_files(data_dir, run, spec)
    if "bench" in spec:
        for path in (p for p in files if p.suffix == ".json"):
            for entry in load_benchmark_json(path):
                if entry.get("aggregate_name") == "median" and bench_key(entry["run_name"]) == spec["bench"]:
                    scale = TIME_TO_MS[entry.get("time_unit", "ns")]
                    counters = {k: float(v) for k, v in entry.items()
                                if isinstance(v, (int, float)) and not isinstance(v, bool)}
                    return Figure(entry["real_time"] * scale, unit, [path.name], counters,
                                  f"median of {entry.get('repetitions', '?')}")
        raise ManifestError(f"benchmark {spec['bench']!r} not in {[p.name for p in files]}")
    if "regex" in spec:
        pattern = re.compile(spec["regex"], re.M)
        for path in (p for p in files if p.suffix != ".json"):
            m = pattern.search(read_text(path))
            if m:
                groups = {k: float(v) for k, v in m.groupdict().items() if v is not None}
                value = groups.pop("value", None)
                if value is None:
                    value = float(m.group(1))
                return Figure(value, unit, [path.name], groups, spec.get("runs", run.get("runs")))
        raise ManifestError(f"pattern {spec['regex']!r} not found in {[p.name for p in files]}")
    if "json" in spec:
        path = data_dir / spec["json"]
        counters = flatten(json.loads(read_text(path)))
        if spec["key"] not in counters:
            raise ManifestError(f"{path.name}: no numeric key {spec['key']!r}")
        return Figure(counters[spec["key"]], unit, [path.name], counters, spec.get("runs", run.get("runs")))
    if "table" in spec:
        t = spec["table"]
        for path in (p for p in files if p.suffix != ".json"):
            lines = read_text(path).splitlines()
            i = next((n for n, line in enumerate(lines) if t.get("after", "") in line), None)
            if i is None:
                continue
            i = next((n for n in range(i, len(lines)) if lines[n].strip() == t["section"]), None)
            if i is None:
                continue
            for line in lines[i + 1:]:
                fields = line.split()
                if not fields:
                    break
                if fields[0] == t["key"]:
                    return Figure(float(fields[t["column"]]), unit, [path.name], {},
                                  spec.get("runs", run.get("runs")))
        raise ManifestError(f"table row {t} not found in {[p.name for p in files]}")
    if "literal" in spec:
        return Figure(float(spec["literal"]), unit, [spec["source"]], {}, spec.get("runs", run.get("runs")))
    raise ManifestError(f"a value needs bench, regex, json, table or literal: {spec}")


# ---------------------------------------------------------------- formatting

def sig3(x):
    """Three significant digits, never in exponent form (1283, 44.5, 5.00, 0.223, 0.0452)."""
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return str(x)
    digits = max(0, 2 - int(math.floor(math.log10(abs(x)))))
    s = f"{x:.{digits}f}"
    # rounding may have added a digit (9.996 -> 10.00): redo from the rounded value
    digits2 = max(0, 2 - int(math.floor(math.log10(abs(float(s))))))
    return f"{x:.{digits2}f}"


def figure_text(fig):
    return f"{sig3(fig.value)} {fig.unit}"


def ratio_of(gig, peer):
    if gig.unit != peer.unit:
        raise ManifestError(f"units differ: {gig.unit} and {peer.unit}")
    if gig.unit in TIME_TO_MS:
        return peer.value / gig.value
    return gig.value / peer.value


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def code(text):
    tick = "``" if "`" in text else "`"
    pad = " " if tick == "``" else ""
    return f"{tick}{pad}{text}{pad}{tick}"


# ---------------------------------------------------------------- placeholders

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
REF = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\.(gigaseg|peer|ratio)((?:\.[A-Za-z0-9_]+)*)")


class Resolver:
    def __init__(self):
        self.rows = {}

    def ref(self, row_id, side, counter):
        if row_id not in self.rows:
            raise ManifestError(f"placeholder names unknown row {row_id!r}")
        row = self.rows[row_id]
        if side == "ratio":
            if row["ratio"] is None:
                raise ManifestError(f"row {row_id!r} has no ratio")
            return row["ratio"]
        fig = row[side]
        if fig is None:
            raise ManifestError(f"row {row_id!r} has no {side}")
        if not counter:
            return fig.value
        key = counter[1:]
        if key not in fig.counters:
            raise ManifestError(f"row {row_id!r}: {side} has no counter {key!r} (has {sorted(fig.counters)})")
        return fig.counters[key]

    def evaluate(self, expr):
        names = {}

        def sub(m):
            name = f"_r{len(names)}"
            names[name] = self.ref(m.group(1), m.group(2), m.group(3))
            return name

        tree = ast.parse(REF.sub(sub, expr.strip()), mode="eval")

        def ev(node):
            if isinstance(node, ast.Expression):
                return ev(node.body)
            if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
                return _OPS[type(node.op)](ev(node.left), ev(node.right))
            if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
                return -ev(node.operand)
            if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
                return float(node.value)
            if isinstance(node, ast.Name) and node.id in names:
                return names[node.id]
            raise ManifestError(f"placeholder {expr!r}: only numbers, row references and + - * /")

        return ev(tree)

    def fill(self, text):
        def sub(m):
            body = m.group(1)
            expr, _, spec = body.partition(":")
            value = self.evaluate(expr)
            return format(value, spec) if spec else sig3(value)

        return re.sub(r"\{([^{}]+)\}", sub, text)


# ---------------------------------------------------------------- the document

HEADER = """<!-- Generated by `python3 perf/make_performance.py > docs/performance.md` from
perf/performance_manifest.json and the files in docs/perf-data/. Do not edit by hand: change the
manifest (or add data) and run the command again. -->"""


def generate(manifest):
    data_dir = ROOT / manifest.get("data_dir", "docs/perf-data")
    machines = manifest["machines"]
    resolver = Resolver()
    areas = []
    # First resolve every row of every area, so that text anywhere can name any row.
    for area in manifest["areas"]:
        rows = []
        for row in area["rows"]:
            where = f"area {area['title']!r}, row {row.get('id', row.get('operation'))!r}"
            try:
                run = area["runs"][row["run"]]
                if run["machine"] not in machines:
                    raise ManifestError(f"unknown machine {run['machine']!r}")
                gig = resolve_value(row["gigaseg"], run, data_dir)
                peer = resolve_value(row["peer"], run, data_dir) if "peer" in row else None
                ratio = ratio_of(gig, peer) if peer else None
            except (ManifestError, KeyError) as e:
                raise ManifestError(f"{where}: {e}") from None
            entry = {"spec": row, "run": run, "gigaseg": gig, "peer": peer, "ratio": ratio}
            if "id" in row:
                if row["id"] in resolver.rows:
                    raise ManifestError(f"{where}: duplicate row id")
                resolver.rows[row["id"]] = entry
            rows.append(entry)
        areas.append((area, rows))

    data_link = manifest.get("data_link", "perf-data")
    out = [f"# {manifest.get('title', 'Performance')}", "", HEADER, ""]
    for para in manifest.get("intro", []):
        out += [resolver.fill(para), ""]
    out += ["Machines:", ""]
    for name, text in machines.items():
        out.append(f"- **{name}**: {text}")
    out.append("")
    for area, rows in areas:
        out += [f"## {area['title']}", ""]
        for para in area.get("intro", []):
            out += [resolver.fill(para), ""]
        out.append("| operation | size | machine | gigaseg | peer (same run) | ratio | command | data |")
        out.append("|---|---|---|---|---|---|---|---|")
        for r in rows:
            spec, run, gig, peer = r["spec"], r["run"], r["gigaseg"], r["peer"]
            if spec.get("hidden"):
                continue
            files = []
            for fig in (gig, peer):
                if fig is None:
                    continue
                for f in fig.files:
                    text = f"[{f}]({data_link}/{f})" if (data_dir / f).is_file() else f
                    if fig.runs:
                        text += f" ({fig.runs})"
                    if text not in files:
                        files.append(text)
            out.append("| " + " | ".join(cell(c) for c in [
                resolver.fill(spec["operation"]),
                resolver.fill(spec["size"]),
                run["machine"],
                f"**{figure_text(gig)}**",
                f"{spec['peer']['name']}: {figure_text(peer)}" if peer else "—",
                sig3(r["ratio"]) if peer else "—",
                code(run["command"]),
                ", ".join(files),
            ]) + " |")
        out.append("")
        for para in area.get("notes", []):
            out += [resolver.fill(para), ""]
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--manifest", default=str(MANIFEST), help="manifest (default: %(default)s)")
    ap.add_argument("--output", help="write here instead of standard output")
    ap.add_argument("--check", action="store_true",
                    help="compare with docs/performance.md (or --output) and exit 1 if it differs")
    args = ap.parse_args()
    try:
        manifest = json.loads(Path(args.manifest).read_text())
        text = generate(manifest)
    except ManifestError as e:
        sys.exit(f"make_performance.py: {e}")
    if args.check:
        target = Path(args.output) if args.output else DEFAULT_OUTPUT
        if not target.is_file() or target.read_text() != text:
            sys.exit(f"make_performance.py: {target} is out of date; run "
                     f"python3 perf/make_performance.py --output {target}")
        return
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
