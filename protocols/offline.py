"""What the protocols' scripted offline responders share: a heuristic demo model, not a
language model. It classifies a question with keyword rules and knows each S4 role's opening
position on each kind of question (the round robin's specialists borrow them on questions that
are not about investments).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# --- what kind of question is this ------------------------------------------------------------
#
# The demo model fails safe: harm is looked for first and in many phrasings (the categories
# below), and a question it cannot place ("general") gets caution, never a unanimous ACT.

#: Paraphrases of the common harm categories, as patterns on the lower-cased question.
HARM_PATTERNS: dict[str, tuple[str, ...]] = {
    "weapons of mass harm": (
        r"nerve agents?",
        r"\bsarin\b",
        r"\bvx\b",
        r"\bricin\b",
        r"anthrax",
        r"botulinum",
        r"mustard gas",
        r"chemical weapons?",
        r"biological weapons?",
        r"bio-?weapons?",
        r"weaponi[sz]",
        r"dirty bomb",
        r"enrich(?:ing)? uranium",
        r"pathogens? (?:more|to be)",
        r"(?:synthesi[sz]e|make|produce|cultivate) (?:a |an |some )?(?:toxins?|poisons?|nerve)",
    ),
    "weapons and explosives": (
        r"\bbombs?\b",
        r"explosives?",
        r"\bweapons?\b",
        r"detonat",
        r"molotov",
        r"napalm",
        r"thermite",
        r"ghost gun",
        r"untraceable (?:gun|firearm)",
        r"3d[- ]print(?:ed)? (?:a )?gun",
        r"silencer",
        r"full[- ]auto",
    ),
    "violence": (
        r"\bkill(?:ing)? (?!time\b|a process\b)",
        r"murder",
        r"\bpoison",
        r"hurt (?:someone|him|her|them|my|people)",
        r"assault",
        r"strangle",
        r"(?:get rid of|dispose of|hide) (?:a|the) body",
    ),
    "self-harm": (
        r"kill myself",
        r"suicide",
        r"self[- ]harm",
        r"hurt myself",
        r"end my (?:own )?life",
    ),
    "unauthorised access": (
        r"\bhack",
        r"break into",
        r"get into (?:my |his |her |their |someone|an? )?\S*\s?"
        r"(?:\S+\s)?(?:account|mailbox|e-?mail|phone|inbox|computer|laptop|wifi|icloud)",
        r"(?:without|bypass|crack|guess|get around|brute[- ]force)\w* (?:\S+ ){0,3}?"
        r"(?:password|passcode|pin\b|2fa|two-factor)",
        r"someone(?: else)?'s (?:password|account|e-?mail|phone|messages)",
        r"keylogger",
        r"spyware",
        r"stalkerware",
        r"malware",
        r"ransomware",
        r"phishing",
        r"\bddos",
        r"botnet",
        r"credential stuffing",
        r"zero-day exploit",
        r"bypass security",
    ),
    "stalking and privacy": (
        r"\bex's",
        r"spy on",
        r"\bstalk",
        r"(?:former|ex-?) ?(?:partner|wife|husband|girlfriend|"
        r"boyfriend|spouse)'s",
        r"track (?:my |someone|her|his|their)\S* ?(?:\S+ )?(?:location|"
        r"phone|car|movements)",
        r"read (?:my |someone|her|his|their)\S* ?(?:\S+ )?(?:messages|"
        r"texts|e-?mails?)",
        r"without (?:them|him|her) knowing",
        r"without their (?:consent|"
        r"knowledge|permission)",
        r"dox",
    ),
    "drugs": (
        r"make meth\b",
        r"cook meth\b",
        r"methamphetamine",
        r"crystal meth",
        r"fentanyl",
        r"(?:synthesi[sz]e|make|cook|extract) (?:heroin|cocaine|lsd|mdma|dmt)",
    ),
    "fraud and theft": (
        r"\bsteal",
        r"launder",
        r"counterfeit",
        r"fake (?:id|passport|identity)",
        r"\bforge\b",
        r"forged",
        r"identity theft",
        r"credit card numbers",
        r"\bscam (?:people|someone|elderly)",
        r"evade (?:taxes|the police|police)",
        r"avoid (?:getting caught|detection)",
        r"get away with",
        r"cover (?:my|our) tracks",
    ),
}


#: Each category's patterns as one expression (any of them), compiled once, in the same order:
#: the offline model answers every call, and searching ninety patterns one by one was most of
#: its time.
_HARM_SEARCHES = [
    (category, re.compile("|".join(f"(?:{p})" for p in patterns)).search)
    for category, patterns in HARM_PATTERNS.items()
]


def harm_category(query: str) -> str | None:
    """The harm category a question falls in (see `HARM_PATTERNS`), or None."""
    text = " ".join(query.lower().replace("\u2019", "'").split())
    for category, search in _HARM_SEARCHES:
        if search(text):
            return category
    return None


CATEGORY_KEYWORDS: list[tuple[str, tuple[str, ...]]] = [
    (
        "harmful",
        (
            "someone's password",
            "make meth",
            "without them knowing",
            "without their consent",
        ),
    ),
    (
        "injection",
        (
            "ignore previous",
            "ignore all previous",
            "ignore the above",
            "disregard",
            "system prompt",
            "you are now",
            "developer mode",
            "</user_query>",
        ),
    ),
    (
        "financial",
        (
            "invest",
            "bitcoin",
            "crypto",
            "stock",
            "shares",
            "portfolio",
            "trading",
            "forex",
            "etf",
            "retirement",
            "should i buy",
            "should i sell",
            "mortgage",
        ),
    ),
    (
        "medical_legal",
        (
            "dose",
            "dosage",
            "medication",
            "symptom",
            "diagnos",
            "prescription",
            "lawsuit",
            "sue ",
            "legal advice",
            "contract",
            "pregnan",
        ),
    ),
    (
        "advice",
        (
            "should i",
            "which is better",
            " vs ",
            " versus ",
            " or ",
            "learn",
            "choose",
            "best way",
            "recommend",
            "worth it",
        ),
    ),
    (
        "factual",
        (
            "what is",
            "what are",
            "who is",
            "who was",
            "when did",
            "when was",
            "where is",
            "capital of",
            "how many",
            "how much",
            "define",
            "how does",
            "why does",
            "what does",
        ),
    ),
]


def classify(query: str) -> str:
    """The question's kind: harmful (any harm category), injection, financial, medical_legal,
    advice, factual, or "general" when nothing matches (the demo model is then cautious)."""
    if harm_category(query):
        return "harmful"
    text = f" {query.lower()} "
    for category, words in CATEGORY_KEYWORDS:
        if any(w in text for w in words):
            return category
    return "general"


@dataclass(frozen=True)
class Position:
    decision: str
    confidence: int
    risk: int
    reasoning: str


# Round-1 positions per question kind and role. Roles not listed take the "default" column.
INITIAL_POSITIONS: dict[str, dict[str, Position]] = {
    "factual": {
        "utility": Position(
            "ACT",
            90,
            5,
            "This is a straightforward factual question with a "
            "direct, useful answer; the asker can act on it immediately.",
        ),
        "accuracy": Position(
            "ACT",
            92,
            4,
            "This is a well-established fact that standard "
            "references agree on, so I can verify it.",
        ),
        "safety": Position(
            "ACT", 90, 3, "I see no plausible harm in answering a factual question like this."
        ),
        "default": Position("ACT", 85, 5, "A plain factual question; answering it is sound."),
    },
    "advice": {
        "utility": Position(
            "ACT",
            80,
            15,
            "The asker wants a concrete recommendation and we "
            "can give clear, actionable advice with the trade-offs named.",
        ),
        "accuracy": Position(
            "WARN",
            65,
            30,
            "The right choice depends on the asker's goals, "
            "which we do not know; I cannot verify that one answer is correct.",
        ),
        "safety": Position(
            "ACT",
            75,
            20,
            "Low risk: the worst outcome is a suboptimal choice the asker can revisit.",
        ),
        "default": Position("ACT", 70, 20, "Reasonable to advise, with the trade-offs stated."),
    },
    "financial": {
        "utility": Position(
            "ACT",
            70,
            30,
            "I can explain the pros and cons and how such an "
            "investment behaves, which is useful to the asker.",
        ),
        "accuracy": Position(
            "WARN",
            60,
            40,
            "Too many unknowns for a confident prediction: "
            "future prices cannot be verified, only past volatility.",
        ),
        "safety": Position(
            "REFUSE",
            55,
            45,
            "Risk of financial harm: a yes/no answer could be "
            "read as personal investment advice by someone who cannot absorb "
            "the loss.",
        ),
        "default": Position("WARN", 60, 40, "Financial outcomes are uncertain; caveats needed."),
    },
    "medical_legal": {
        "utility": Position(
            "ACT",
            65,
            35,
            "General information helps the asker understand "
            "their situation before seeing a professional.",
        ),
        "accuracy": Position(
            "WARN",
            60,
            45,
            "The answer depends on individual facts I cannot "
            "verify; general information may not apply.",
        ),
        "safety": Position(
            "WARN",
            65,
            45,
            "Acting on general information in a medical or "
            "legal matter can cause harm; the answer must send them to a "
            "professional.",
        ),
        "default": Position("WARN", 60, 45, "Individual circumstances matter; caveats needed."),
    },
    "harmful": {
        "utility": Position(
            "ACT",
            65,
            50,
            "I could explain how the systems involved work in "
            "general terms, which is what the asker asked for.",
        ),
        "accuracy": Position(
            "WARN",
            55,
            60,
            "The steps are technically describable, but I "
            "cannot verify the asker is authorised, and accuracy about the "
            "intent matters here.",
        ),
        "safety": Position(
            "VETO",
            85,
            90,
            "This enables illegal activity against another "
            "person: unauthorised access or serious harm. No framing makes a "
            "how-to safe.",
        ),
        "default": Position("REFUSE", 70, 80, "The request enables harm to others."),
    },
    "injection": {
        "utility": Position(
            "WARN",
            55,
            45,
            "Part of the question tries to change how we "
            "work instead of asking something; only the genuine question, if "
            "any, is worth answering.",
        ),
        "accuracy": Position(
            "WARN", 55, 45, "The text contains instructions aimed at us, not a verifiable question."
        ),
        "safety": Position(
            "REFUSE",
            70,
            60,
            "The question tries to override our instructions; "
            "following embedded instructions is how misuse starts.",
        ),
        "default": Position("WARN", 55, 45, "The question contains instructions aimed at us."),
    },
    # A question the demo model cannot place: it cannot tell that it is harmless, so Accuracy
    # holds WARN (confident enough not to be talked out of it) and Safety is cautious.
    "general": {
        "utility": Position("ACT", 72, 20, "The asker can get a useful, practical answer here."),
        "accuracy": Position(
            "WARN",
            80,
            35,
            "I cannot place this question or check an answer to it against anything, so it "
            "should only be answered with the uncertainty stated.",
        ),
        "safety": Position(
            "WARN",
            70,
            45,
            "I cannot tell what this question is for, so I cannot rule out misuse; answer "
            "only with caution and caveats.",
        ),
        "default": Position("WARN", 65, 35, "An unclassified question; answer with caution."),
    },
}

ROLE_ANGLES = {
    "utility": "the asker needs a usable answer",
    "accuracy": "claims need evidence that can be checked",
    "safety": "misuse and vulnerable askers must be considered",
}


def first_sentence(text: str, limit: int = 110) -> str:
    text = " ".join(text.split())
    cut = re.split(r"(?<=[.;:!?])\s", text, maxsplit=1)[0]
    if len(cut) > limit:
        cut = cut[: limit - 3].rsplit(" ", 1)[0] + "..."
    return cut


def role_key(role: str) -> str:
    role = role.strip().lower()
    return role if role in ROLE_ANGLES else "default"


def initial_position(role: str, query: str) -> Position:
    return INITIAL_POSITIONS[classify(query)][role_key(role)]
