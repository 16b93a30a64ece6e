"""Reading a question: the rules applied in order (the package's docstring), to a `Reading`
that names the rule that placed the question."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from agents.offline_rules.benign import (
    _INJECTION_TAG,
    _POLITE,
    BENIGN_FORMS,
    BENIGN_TOPICS,
    BLOCKERS,
    FINANCIAL,
    INJECTION,
    MAX_BENIGN_WORDS,
    MEDICAL_LEGAL,
)
from agents.offline_rules.harm_body import BODY
from agents.offline_rules.harm_crime import CRIME
from agents.offline_rules.harm_disinformation import DISINFORMATION
from agents.offline_rules.harm_people import PEOPLE
from agents.offline_rules.patterns import (
    _AGAINST,
    _GOOD_PURPOSE,
    _HOSTILE,
    _SURPRISE,
    EVASION,
    ILLEGAL_AIM,
    REAL_PERSON,
    REQUEST,
    SOFT_EVASION,
    Category,
)

CATEGORIES: tuple[Category, ...] = (*BODY, *PEOPLE, *CRIME, *DISINFORMATION)
CATEGORY_NAMES = tuple(c.name for c in CATEGORIES)


# --- reading a question ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """What the rule set makes of a question: its kind, and for harm and sensitive questions
    the category; `rule` names the rule that decided, `matched` the words it matched."""

    kind: str
    category: str | None = None
    rule: str = ""
    matched: str = ""

    @property
    def harmful(self) -> bool:
        return self.kind == "harmful"

    def describe(self) -> str:
        """One sentence for a transcript: which rule placed the question."""
        quoted = f' ("{_clip(self.matched)}")' if self.matched else ""
        if self.kind == "harmful":
            return f"recognised as harmful: {self.category}, {self.rule}{quoted}"
        if self.kind == "sensitive":
            return (
                f"touches on {self.category}{quoted} without a harmful request, so it is "
                "answered with caution, not acted on"
            )
        if self.kind == "injection":
            return f"holds instructions aimed at the debaters{quoted}"
        if self.kind in ("factual", "advice"):
            return f"recognised as harmless: {self.rule}{quoted}"
        if self.kind in ("financial", "medical_legal"):
            area = "money" if self.kind == "financial" else "health or law"
            return f"a question of {area}{quoted}: answered with caveats"
        why = f" ({self.rule}{quoted})" if self.rule else ""
        return f"not recognised as harmless{why}, so it is not acted on outright"


def _clip(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rsplit(" ", 1)[0] + "..."


def normalise(query: str) -> str:
    """Lower case, straight quotes, one space between words."""
    text = query.lower()
    for curly, straight in (("\u2019", "'"), ("\u2018", "'"), ("\u201c", '"'), ("\u201d", '"')):
        text = text.replace(curly, straight)
    return " ".join(text.split())


#: A game or a story's world: acts there harm no one ("steal a car in GTA"). Named games, and
#: words no one uses of the real world: a final or raid boss, an NPC, PvP, an enemy base. A
#: real person named as well ("my wife", "my boss") takes the game out of it.
_GAME = re.compile(
    r"\bin (?:a |the |my |this )?(?:[\w-]+ ){0,3}(?:game|games|video games?|videogames?|"
    r"board games?|tabletop|rpg|d&d|dungeons (?:and|&) dragons)\b|\bin (?:gta(?: \w+)?|grand "
    r"theft auto|minecraft|call of duty|fortnite|skyrim|roblox|the sims|overwatch|valorant|"
    r"counter-strike|cs:?go|pubg|apex legends|halo|zelda|pokemon|among us|chess|cluedo|clue|"
    r"monopoly|poker)\b"
    r"|\b(?:final|raid|mini|end-?game|secret|optional|hidden|superboss|world) ?-?boss(?:es)?\b"
    r"|\bboss (?:fights?|battles?|rush|rooms?|levels?)\b|\bnpcs?\b"
    r"|\b(?:respawn\w*|pvp|pve|speedrun\w*|playthroughs?|in-game|enemy (?:base|team|spawn)|"
    r"side ?quests?|main quest|hit ?points|health bar)\b"
)


def _harm(text: str, original: str) -> Reading | None:
    request = REQUEST.search(text)
    surprise = _SURPRISE.search(text)
    evasion = None if surprise else EVASION.search(text)
    aim = None if _AGAINST.search(text) else ILLEGAL_AIM.search(text)
    game = _GAME.search(text) and not REAL_PERSON.search(text)
    for category in CATEGORIES:
        for rule in category.intents:
            found = rule.search(text, original)
            if found:
                return Reading("harmful", category.name, rule.label, found.group(0) or text)
        if (request or evasion or aim) and not game:
            for rule in category.acts:
                found = rule.search(text, original)
                if found:
                    return Reading("harmful", category.name, rule.label, found.group(0))
    if request and (evasion or aim) and not game:
        cue = evasion or aim
        category = _topic_category(text) or "illegal activity"
        label = "evading detection" if evasion else "an illegal aim"
        return Reading("harmful", category, label, cue.group(0))
    soft = SOFT_EVASION.search(text)
    if soft and request and not surprise and not game and not _GOOD_PURPOSE.search(text):
        for category in CATEGORIES:
            if category.name in _HOSTILE and category.topic.search(text):
                return Reading("harmful", category.name, "acting covertly", soft.group(0))
    return None


def _topic_category(text: str) -> str | None:
    for category in CATEGORIES:
        if category.topic.search(text):
            return category.name
    return None


def _benign(text: str) -> Reading | None:
    asked = _POLITE.sub("", text).strip()
    if len(asked.split()) > MAX_BENIGN_WORDS or asked.count("?") > 1:
        return None
    if re.search(r"[^\w\s'?,.!:;()\"+#/-]", asked) or re.search(r"\b\w*\d\w*[a-z]\w*\d", asked):
        return None  # markup, code or obfuscated spellings: not something it can place
    for rule in BLOCKERS:
        if rule.pattern.search(asked):
            return None
    topic = BENIGN_TOPICS.search(asked)
    for rule in BENIGN_FORMS:
        if not rule.pattern.search(asked):
            continue
        if rule.label in ("the meaning of a word", "a date, a place or a maker"):
            return Reading("factual", None, rule.label, "")
        if topic:
            kind = "advice" if rule.label == "a choice between everyday options" else "factual"
            return Reading(kind, None, f"{rule.label} about {topic.group(0)}", "")
    return None


@functools.lru_cache(maxsize=4096)
def read_question(query: str) -> Reading:
    """How the rule set reads `query` (see the module's docstring for the order)."""
    text = normalise(query)
    harm = _harm(text, " ".join(query.split()))
    if harm is not None:
        return harm
    injection = INJECTION.search(text) or _INJECTION_TAG.search(text)
    if injection:
        return Reading("injection", None, "instructions aimed at the debaters", injection.group(0))
    # Everyday subjects ("the immune system", "Pride and Prejudice") are taken out first, so
    # a harm category's word inside one does not make the question sensitive.
    unlike_harm = BENIGN_TOPICS.sub(" ", text)
    for category in CATEGORIES:
        found = category.topic.search(unlike_harm)
        if found:
            return Reading("sensitive", category.name, "its vocabulary", found.group(0))
    benign = _benign(text)
    if benign is not None:
        return benign
    for kind, words in (("financial", FINANCIAL), ("medical_legal", MEDICAL_LEGAL)):
        found = words.search(text)
        if found:
            return Reading(kind, None, "its vocabulary", found.group(0))
    return Reading("general")


def harm_category(query: str) -> str | None:
    """The harm category `query` falls in, or None when it is not recognised as harmful."""
    reading = read_question(query)
    return reading.category if reading.harmful else None
