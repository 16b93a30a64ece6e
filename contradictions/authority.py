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

#: The seed's example ranking, installed by a data migration: GCC-STAT > World Bank > others.
DEFAULT_SOURCES: tuple[dict, ...] = (
    {
        "name": "GCC-STAT",
        "aliases": ["GCC Statistical Center", "GCCSTAT", "GCC Stat"],
        "note": "Regional statistical authority for the Gulf states (seed 002).",
    },
    {
        "name": "World Bank",
        "aliases": ["World Bank Group", "WDI", "World Development Indicators"],
        "note": "Global estimates, often modelled or annual (seed 002).",
    },
)


@dataclass(frozen=True)
class Authority:
    name: str
    aliases: tuple[str, ...] = ()


def _contains(words: Sequence[str], phrase: Sequence[str]) -> bool:
    n = len(phrase)
    return n > 0 and any(tuple(words[i:i + n]) == tuple(phrase) for i in range(len(words) - n + 1))


@dataclass(frozen=True)
class Ranking:
    """Sources, most authoritative first (rank 1)."""

    sources: tuple[Authority, ...] = ()

    @classmethod
    def from_snapshot(cls, snapshot: Iterable[dict]) -> Ranking:
        return cls(tuple(
            Authority(str(s["name"]), tuple(str(a) for a in s.get("aliases", ())))
            for s in snapshot
        ))

    def snapshot(self) -> list[dict]:
        return [{"name": a.name, "aliases": list(a.aliases)} for a in self.sources]

    def rank_of(self, source: str) -> int | None:
        words = normalise_source(source).split()
        squashed = "".join(words)
        if not words:
            return None
        for rank, authority in enumerate(self.sources, start=1):
            for name in (authority.name, *authority.aliases):
                phrase = normalise_source(name).split()
                if _contains(words, phrase) or (squashed and squashed == "".join(phrase)):
                    return rank
        return None

    def name_of(self, source: str) -> str | None:
        rank = self.rank_of(source)
        return None if rank is None else self.sources[rank - 1].name

    def describe(self) -> str:
        if not self.sources:
            return "No source ranking is configured: weigh the sources on their merits."
        listed = ", ".join(f"{i}. {a.name}" for i, a in enumerate(self.sources, start=1))
        return f"{listed}; any other source ranks below these."

    def sort_key(self, source: str) -> int:
        """For sorting, most authoritative first; unranked sources last."""
        rank = self.rank_of(source)
        return rank if rank is not None else len(self.sources) + 1
