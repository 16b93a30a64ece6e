"""Replay: re-apply the current decision rules to stored final votes (no LLM call) and report
the debates whose decision would differ. With unchanged rules, every debate is identical."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from debates.models import Debate, Vote
from protocols import evaluation


@dataclass(frozen=True)
class ReplayReport:
    """`checked` debates replayed (`identical` of them decided the same); `skipped` finished
    debates whose protocol is not decided from final votes (moderated) or that have no votes;
    `differing` the others; `by_rules_version` how many were checked per recorded version."""

    checked: int = 0
    identical: int = 0
    skipped: int = 0
    differing: tuple[evaluation.ReplayDifference, ...] = ()
    by_rules_version: dict[str, int] = field(default_factory=dict)

    @property
    def identical_share(self) -> float | None:
        return round(self.identical / self.checked, 4) if self.checked else None

    def as_json(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "identical": self.identical,
            "identical_share": self.identical_share,
            "skipped": self.skipped,
            "by_rules_version": self.by_rules_version,
            "differing": [d.as_json() for d in self.differing],
        }


def replay_rules(*, protocol: str = "", batch_size: int = 2000) -> ReplayReport:
    """Replay every completed debate (of `protocol`, or all): two queries per batch."""
    qs = Debate.objects.filter(status=Debate.Status.COMPLETED).order_by("id")
    if protocol:
        qs = qs.filter(protocol=protocol)
    checked = identical = skipped = 0
    differing: list[evaluation.ReplayDifference] = []
    versions: dict[str, int] = defaultdict(int)
    last_id = None
    while True:
        page = qs if last_id is None else qs.filter(id__gt=last_id)
        batch = list(
            page.values_list("id", "protocol", "options", "decision", "rules_version")[:batch_size]
        )
        if not batch:
            break
        last_id = batch[-1][0]
        votes: dict[Any, list[evaluation.Answer]] = defaultdict(list)
        for debate_id, slug, decision, confidence, risk, parse_failed in Vote.objects.filter(
            debate_id__in=[b[0] for b in batch]
        ).values_list(
            "debate_id",
            "participant__slug",
            "decision",
            "confidence",
            "risk",
            "statement__parse_failed",
        ):
            votes[debate_id].append(
                evaluation.Answer(slug, decision, confidence, risk, bool(parse_failed))
            )
        for debate_id, protocol_name, options, decision, version in batch:
            if not evaluation.replayable(protocol_name) or not votes[debate_id]:
                skipped += 1
                continue
            replayed = evaluation.replay_decision(protocol_name, votes[debate_id], options)
            checked += 1
            versions[version or "unrecorded"] += 1
            if replayed == decision:
                identical += 1
            else:
                differing.append(
                    evaluation.ReplayDifference(
                        str(debate_id), protocol_name, version, decision, replayed
                    )
                )
    return ReplayReport(checked, identical, skipped, tuple(differing), dict(versions))
