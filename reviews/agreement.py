"""How far reviewers agree with each other, and with the machine: Cohen's kappa.

For two raters labelling the same n things, kappa = (p_o - p_e) / (1 - p_e): p_o is the share
they agree on, p_e the share they would agree on by chance, each labelling at their own rates
(the sum over labels of the product of both raters' shares). 1 is perfect agreement, 0 what
chance gives, below 0 worse than chance; it is undefined (None) when chance alone agrees on
everything (both raters gave one and the same label throughout) or with nothing to compare.

A reviewer's verdict is labelled by what it amounts to (`ReviewerVerdict.outcome`: the decision
it leaves in effect, or the value it keeps). The report compares:

- reviewers with each other: the first and second reviews of each item reviewed twice;
- reviewers with each agent role: every verdict on a debate's item against that agent's final
  vote (a VETO counts as REFUSE), per role;
- reviewers with each protocol: every verdict against the machine's decision, per protocol.

`cohen_kappa` is pure; `agreement_report` reads the newest `MAX_VERDICTS` verdicts (3 queries,
and what each subject reads: 2 for debates) and asks each subject what the machine and its
agents said (`ReviewSubject.judged`). See docs/analysts/review-queue.md.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from reviews import subjects
from reviews.models import ReviewerVerdict, ReviewItem

MAX_VERDICTS = 10_000


@dataclass(frozen=True)
class Kappa:
    kappa: float | None
    n: int
    observed: float | None  # the share of pairs that agree

    def as_json(self) -> dict[str, Any]:
        return {
            "kappa": None if self.kappa is None else round(self.kappa, 4),
            "n": self.n,
            "observed_agreement": None if self.observed is None else round(self.observed, 4),
        }


def cohen_kappa(pairs: Iterable[tuple[str, str]]) -> Kappa:
    """Cohen's kappa of two raters over `pairs` (one label from each rater per thing)."""
    pairs = list(pairs)
    n = len(pairs)
    if not n:
        return Kappa(None, 0, None)
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    chance = sum(first[label] * second[label] for label in first) / (n * n)
    if chance >= 1:
        return Kappa(None, n, observed)
    return Kappa((observed - chance) / (1 - chance), n, observed)


def _subject_keys() -> list[str]:
    return [f"{kind.name}_id" for kind in subjects.all_subjects()]


def agreement_report(*, limit: int = MAX_VERDICTS) -> dict[str, Any]:
    """Kappa with n between reviewers, between reviewers and each agent role, and between
    reviewers and each protocol, over the newest `limit` verdicts."""
    rows = list(
        ReviewerVerdict.objects.exclude(outcome="")
        .order_by("-created_at", "-id")
        .values_list("item_id", "stage", "outcome")[:limit]
    )
    by_item: dict[Any, dict[str, str]] = defaultdict(dict)
    for item_id, stage, outcome in rows:
        by_item[item_id][stage] = outcome
    reviewers = cohen_kappa(
        (stages[ReviewItem.Stage.FIRST], stages[ReviewItem.Stage.SECOND])
        for stages in by_item.values()
        if ReviewItem.Stage.FIRST in stages and ReviewItem.Stage.SECOND in stages
    )
    # What the machine and its agents said, asked of each item's subject.
    keys = _subject_keys()
    owners: dict[str, list] = defaultdict(list)
    for item_id, *subject_ids in ReviewItem.objects.filter(pk__in=list(by_item)).values_list(
        "pk", *keys
    ):
        for kind, subject_id in zip(subjects.all_subjects(), subject_ids, strict=True):
            if subject_id is not None:
                owners[kind.name].append(item_id)
    judged: dict[Any, subjects.Judged] = {}
    for name, item_ids in owners.items():
        judged.update(subjects.named(name).judged(item_ids))
    by_role: dict[str, list[tuple[str, str]]] = defaultdict(list)
    by_protocol: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for item_id, _, outcome in rows:
        seen = judged.get(item_id)
        if seen is None:
            continue
        if seen.machine:
            by_protocol[seen.protocol].append((outcome, seen.machine))
        for role, decision in seen.agents.items():
            by_role[role].append((outcome, decision))
    return {
        "verdicts": len(rows),
        "limit": limit,
        "reviewers": reviewers.as_json(),
        "agent_roles": [
            {"role": role, **cohen_kappa(pairs).as_json()}
            for role, pairs in sorted(by_role.items())
        ],
        "protocols": [
            {"protocol": protocol, **cohen_kappa(pairs).as_json()}
            for protocol, pairs in sorted(by_protocol.items())
        ],
    }
