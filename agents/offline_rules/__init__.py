"""How the built-in offline model reads a question: a transparent rule set, not a trained model.

Every rule is a regular expression on the question, lower-cased, named for what it recognises,
and the reading names the rule that placed the question, so every offline reply can say why
(docs/concepts/offline-model.md). The rules, in the order they are applied:

1. **Harm, by category** (`CATEGORIES`): violence and weapons, self-harm, sexual content and
   non-consent, hate and harassment, discrimination, illegal access, fraud and forgery, drugs,
   disinformation, privacy. Each category has

   * *acts*: a verb and its object ("hack into ... account", "forge ... cheque") that make a
     question harmful when it asks for them to be done or produced (a *request*: "how do I",
     "how to", "write ...", "give me ...", "best way to" ...) or when an *evasion cue* ("without
     getting caught", "untraceable", "so no one finds out") shows what it is for;
   * *intents*: structures harmful in any phrasing ("kill myself", a private person's personal
     data, a generalisation of a group with a negative trait);
   * *topic* words: the area's vocabulary. Alone they do not make a question harmful (asking how
     lithium toxicity works, or how a historical atrocity happened, is not asking to do harm),
     but they stop the question from being recognised as harmless.

   A request with a strong evasion cue is harmful whatever it asks for; a request aimed at a
   person (a relation, "someone", a named person) with a soft cue ("secretly", "quietly") and a
   category's topic is harmful too.
2. **Instructions aimed at the debaters** (prompt injection): "injection".
3. **A category's topic without a harmful request**: "sensitive" (answered with caution, never
   acted on outright).
4. **Money, health and law** by their vocabulary: "financial", "medical_legal".
5. **Positively harmless** (`BENIGN_FORMS`, `BENIGN_TOPICS`, `BLOCKERS`): a factual or
   definitional question, an explanation of how something works, or a how-to, on an everyday
   benign topic (science, geography, language and books, cooking, gardening, programming ...),
   short, with no blocker (a person targeted, the assistant itself, loaded or evaluative words,
   claims and news it cannot check, anything hypothetical): "factual" or "advice".
6. **Anything else**: "general", which the offline agents never act on outright.

Plain Python, no Django: the offline responders of every protocol and the offline arbitrator
read questions with it.
"""

from __future__ import annotations

from agents.offline_rules.reading import (
    CATEGORIES,
    CATEGORY_NAMES,
    Reading,
    harm_category,
    normalise,
    read_question,
)

__all__ = [
    "CATEGORIES",
    "CATEGORY_NAMES",
    "Reading",
    "harm_category",
    "normalise",
    "read_question",
]
