"""Source authority: which sources are trusted most, as a ranked list. Plain Python.

The list itself is data (`SourceAuthority` rows, edited in the admin); a run takes a snapshot
of it when it starts, gives it to the arbitrator and uses it in the consensus. A source matches
an entry when its words contain the entry's name or one of its aliases as whole words, after
normalisation ("GCC-STAT Labour Force Survey" is GCC-STAT; "gcc stat" too). Sources that match
no entry rank below every listed one ("others").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from contradictions.detection import normalise_source


@dataclass(frozen=True)
class Authority:
    name: str
    aliases: tuple[str, ...] = ()
    rank: int = 1


def _contains(words: Sequence[str], phrase: Sequence[str]) -> bool:
    n = len(phrase)
    return n > 0 and any(
        tuple(words[i : i + n]) == tuple(phrase) for i in range(len(words) - n + 1)
    )


@dataclass(frozen=True)
class Ranking:
    """Sources, most authoritative first. Rank 1 is the highest; equal ranks are equally
    trusted. A source matching several entries takes the best rank among them."""

    sources: tuple[Authority, ...] = ()

    @classmethod
    def from_snapshot(cls, snapshot: Iterable[dict]) -> Ranking:
        entries = [
            Authority(
                str(s["name"]), tuple(str(a) for a in s.get("aliases", ())), int(s.get("rank", i))
            )
            for i, s in enumerate(snapshot, start=1)
        ]
        return cls(tuple(sorted(entries, key=lambda a: (a.rank, a.name.lower()))))

    def snapshot(self) -> list[dict]:
        return [{"name": a.name, "aliases": list(a.aliases), "rank": a.rank} for a in self.sources]

    @property
    def lowest(self) -> int:
        return max((a.rank for a in self.sources), default=0)

    def match(self, source: str) -> Authority | None:
        words = normalise_source(source).split()
        if not words:
            return None
        squashed = "".join(words)
        for authority in self.sources:  # best rank first
            for name in (authority.name, *authority.aliases):
                phrase = normalise_source(name).split()
                if _contains(words, phrase) or squashed == "".join(phrase):
                    return authority
        return None

    def rank_of(self, source: str) -> int | None:
        found = self.match(source)
        return None if found is None else found.rank

    def describe(self) -> str:
        if not self.sources:
            return "No source ranking is configured: weigh the sources on their merits."
        listed = ", ".join(f"{a.rank}. {a.name}" for a in self.sources)
        return f"{listed}; any other source ranks below these."

    def sort_key(self, source: str) -> int:
        """For sorting, most authoritative first; unranked sources last."""
        rank = self.rank_of(source)
        return rank if rank is not None else self.lowest + 1
