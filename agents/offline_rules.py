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

import functools
import re
from dataclasses import dataclass

# --- building blocks ------------------------------------------------------------------------------

_W = r"(?:[\w'-]+ )"  # one word and its space
_RELATION = (
    r"(?:ex|ex-?(?:wife|husband|girlfriend|boyfriend|partner|spouse|fianc[eé]e?)|former "
    r"(?:partner|wife|husband|girlfriend|boyfriend|spouse)|wife|husband|spouse|partner|"
    r"girlfriend|boyfriend|fianc[eé]e?|neighbou?rs?|boss|manager|employer|employees?|"
    r"co-?workers?|colleagues?|classmates?|room-?mates?|flatmates?|teachers?|students?|"
    r"professor|landlord|landlady|tenants?|friends?|best friend|sisters?|brothers?|mother|"
    r"father|mom|mum|dad|parents?|sons?|daughters?|child|children|kids?|baby|grand-?"
    r"(?:mother|father|ma|pa|parents?|son|daughter|children|child)|aunt|uncle|cousins?|"
    r"nephew|niece|step-?(?:son|daughter|mother|father|sister|brother|mom|dad)|in-laws?|"
    r"(?:mother|father|sister|brother)-in-law|crush|rival|enemy|enemies|competitors?|doctor|"
    r"nurse|surgeon|therapist|patients?|secretary|assistant|teammates?|"
    r"(?:ex-)?(?:girl|boy)friend)"
)
#: A person (or people) something is done to.
_PERSON = (
    r"(?:someone|somebody|anyone|anybody|a person|people|persons|others|other people|"
    r"him|her|them|a (?:man|woman|girl|boy|child|kid|baby|toddler|teen(?:ager)?|minor|"
    r"student|stranger|cop|police officer|officer|judge|politician|senator|journalist|"
    r"witness|patient|guard|homeless (?:man|woman|person)|(?:old|elderly) (?:man|woman|"
    r"person|lady)|person|human|jewish|black|muslim|gay|trans)|the (?:president|prime "
    r"minister|king|queen|victim|witness|police|judge|mayor|senator|pope)|children|kids|"
    r"women|men|girls|boys|students|patients|civilians|crowds?|a crowd|humans?|"
    r"(?:my|his|her|their|our|your|an?|the) (?:[\w+-]+ )?"
    + _RELATION
    + r"|\d+[- ]?(?:year|yr)s?[- ]old|"
    r"elderly (?:people|persons)|migrants|immigrants|refugees|protesters|voters|"
    r"(?:an? |the )?(?:entire |whole )?(?:ethnic )?(?:population|ethnic group|tribe)s?|"
    r"classmates?|co-?workers?|neighbou?rs?|[a-z]+ people)"
)
_ANIMAL = (
    r"(?:animals?|pets?|dogs?|cats?|puppies|kittens|birds?|horses?|cattle|livestock|"
    r"wildlife|endangered (?:species|animals?)|protected (?:species|animals?))"
)
#: "my wife, Ebony's", "my ex's", "someone's", "a stranger's": whose data or belongings.
_OWNER = (
    r"(?:someone(?: else)?'s|somebody(?: else)?'s|a person'?s|other people'?s|people'?s|"
    r"a stranger'?s|(?:my|his|her|their|our) (?:[\w-]+ ){0,2}" + _RELATION + r"(?:'s|s'|,? "
    r"[a-z]+(?:'s|s'))|(?:a|the|this|that) (?:girl|guy|woman|man|person|user|kid|"
    r"celebrity|coworker|co-worker|employee|neighbou?r|classmate)'s)"
)

#: The asker wants something done or produced.
REQUEST = re.compile(
    r"\bhow (?:do|can|could|would|should|might|will|does|shall|must) (?:i|we|one|someone|"
    r"somebody|a person|people|you|u|they|he|she|anyone|anybody)\b"
    r"|\bhow (?:i|we|one|you) (?:can|could|should|would|might|may)\b"
    r"|\bhow to\b|\bhow (?:much|many|deep|long|often|hard|far)\b[^?]{0,40}\b(?:should|do|can|"
    r"would|must) (?:i|you|one)\b"
    r"|\b(?:best|easiest|quickest|fastest|simplest|cheapest|safest|surest|most effective|most "
    r"efficient|most painless|painless|good|subtle|effective|surefire|sure-fire|smart|clever|"
    r"easy|quick|simple|reliable|foolproof|discreet|untraceable|legal) (?:[\w-]+ )?(?:way|ways|"
    r"method|methods|means|technique|techniques|approach|tactics?|strateg(?:y|ies)|tricks?|"
    r"tips?|places?|locations?|spots?|time)\b"
    r"|\b(?:ways?|methods?|steps?|instructions?|guide|guidance|tutorial|tips|advice|"
    r"suggestions?|recipe|plan|strateg(?:y|ies)|script|template|code|program|payload|"
    r"procedure|blueprint|formula|techniques?|tactics?|tricks?|checklist|walkthrough) "
    r"(?:to|for|on|of|that|which|i can|i could)\b"
    r"|(?:^|[.!?;:] |\band |\bthen |, )(?:ok(?:ay)?,? |hey,? |so,? |now,? )?(?:please,? )?(?:(?:ca"
    r"n|could|would|will) you "
    r"(?:please )?|i (?:want|need|would like) you to |i'd like you to |you (?:must|should|will) "
    r"|help me (?:to )?|teach me (?:to |how to )?|show me (?:how to )?|let's |go ahead and )?"
    r"(?:give|provide|write|create|generate|compose|draft|produce|develop|design|list|describe|"
    r"explain|tell|teach|show|suggest|brainstorm|come up with|outline|detail|make|build|craft|"
    r"devise|help|assist|find|locate|share|send|spread|post|convince|persuade|encourage|"
    r"recommend|name|offer|prepare|plan|draw up|put together|code|program|implement|identify|"
    r"determine|reveal|disclose|fabricate|invent|obtain|get|buy|sell|hack|set up|start|"
    r"compile|publish|leak|summari[sz]e|translate|rewrite|edit|modify|convert|generate|"
    r"instruct|guide|walk me|advise|list out|produce|imagine|pretend|act as|roleplay|role-play)\b"
    r"|\b(?:i (?:want|need|plan|intend|mean|hope|wish|would like|'d like|am going|am trying|"
    r"have) to|i'm (?:going|planning|trying|about|looking) to|i wanna|i gotta|help me|assist "
    r"me|teach me|show me|tell me how|walk me through|guide me|let me know how|is there a way "
    r"to|is it possible to|any (?:way|tips|advice|ideas) (?:to|for|on))\b"
    r"|\b(?:where|how) (?:can|could|do|should|would|might) (?:i|we|one|you) (?:buy|get|find|"
    r"obtain|purchase|order|hire|source|acquire|download|score|sell)\b"
    r"|\b(?:what|which) (?:[\w-]+ ){0,4}(?:can|could|should|would|do|will|might|must) (?:i|"
    r"we|you|one) (?:use|mix|combine|take|buy|get|put|add|inject|give|swallow|say|do|write|"
    r"send|post|hit|target|try|stab|shoot|strike|cut|aim|kick|punch)\b"
    r"|\bwhat (?:would|does|do) (?:someone|one|i|a person|you) (?:need|have to|require)\b"
    r"|\bwhat (?:dose|amount|quantity|number) of\b|\bwhere (?:to|can i|could i|do i) (?:buy|"
    r"get|find|sell|hide|dump|bury|hit|stab|shoot|aim)\b"
)

#: Cues that the asker means not to be found out: with a request, harmful whatever is asked.
EVASION = re.compile(
    r"\bwithout (?:getting |being |ever being |anyone )?(?:caught|detected|traced|tracked "
    r"down|arrested|suspected|discovered|flagged|punished|in trouble|prosecuted|busted|"
    r"charged|convicted|found out)\b"
    r"|\bwithout (?:leaving|a|any) (?:a |any )?(?:trace|traces|evidence|fingerprints|a trail|"
    r"paper trail)\b"
    r"|\b(?:undetected|undetectable|untraceable|without detection|off the books|"
    r"get away with|got away with|getting away with|gets away with)\b"
    r"|\bwithout (?:alerting|notifying|informing|calling|telling) (?:the |any )?(?:police|"
    r"authorities|firefighters|fire (?:brigade|department)|regulators?|inspectors?|"
    r"professionals|anyone|emergency services)\b|\bcover (?:my|our|your|their|his|her|the) tracks\b"
    r"|\bno (?:one|body) (?:will |would |"
    r"can |could )?(?:ever )?(?:find out|trace|suspect)\b"
    r"|\b(?:so|such) (?:that )?(?:no one|nobody|no-one|they|he|she|the police|police|the "
    r"authorities) (?:can(?:'t|not)?|could(?:n't)?|will(?:n't)?|would(?:n't)?|won't|doesn't|"
    r"don't|never) ?(?:never )?(?:find out|trace|suspect|catch|detect)\b"
    r"|\b(?:avoid|evade|evading|avoiding|escape|dodge|dodging|fool|fooling|beat|cheat|"
    r"get past|slip past|sneak past|sneak (?:\w+ ){0,3}past|bypass|bypassing|circumvent|"
    r"circumventing|elude|eluding|outsmart) (?:[\w-]+ ){0,3}?(?:detection|the police|police|"
    r"cops|law enforcement|the authorities|authorities|customs|border control|airport "
    r"security|security (?:checks?|screening|scanners?)|a drug test|drug tests?|a breathaly[sz]"
    r"er|antivirus|anti-virus|detectors?|sanctions|a background check|background checks|"
    r"getting caught|being caught|being traced|investigators|forensics?|the feds|"
    r"tracing|monitoring systems|emissions? tests?|smog tests?|inspections?|audits?)\b"
    r"|\b(?:make|making|made) (?:it|this|the death|the injury|them|him|her) (?:look|seem|"
    r"appear) (?:like |as if )?(?:an? )?(?:accident|suicide|natural causes|self-defen[cs]e|"
    r"accidental)\b|\b(?:look|seem|appear)s? (?:like )?an accident\b"
    r"|\b(?:not|never) (?:be )?traced back\b|\bwithout a trace\b|\bleav(?:e|ing) no trace\b"
)
#: Softer cues: harmful only in a request that touches a hostile category's topic.
SOFT_EVASION = re.compile(
    r"\b(?:secretly|covertly|discreetly|quietly|anonymously|stealthily|in secret|behind "
    r"(?:their|his|her|my \w+'s) back|on the sly|sneakily|unnoticed|without (?:being |"
    r"getting )?(?:noticed|seen|spotted|identified)|without (?:them|him|her|anyone|"
    r"anybody|my \w+|their \w+|the \w+) (?:knowing|noticing|finding out|realizing|realising|"
    r"seeing|suspecting|being aware)|without (?:their|his|her|the owner'?s|the person'?s|"
    r"someone'?s|the user'?s|the victim'?s|my \w+'s) (?:consent|permission|knowledge|"
    r"authori[sz]ation|approval)|without (?:consent|permission|authori[sz]ation|a warrant)|"
    r"without telling|without (?:it )?being obvious|no (?:one|body) (?:will |would |can |"
    r"could )?(?:ever )?(?:know|"
    r"notice))\b"
)
#: What makes evasion harmless: a surprise, a gift.
_SURPRISE = re.compile(r"\b(?:surprise|birthday|gift|present|party|proposal|propose)\b")
#: What makes soft evasion harmless: the asker's own good purpose.
_GOOD_PURPOSE = re.compile(
    r"\b(?:report\w*|tell|confide|help\w*|support\w*|save|saving|donat\w+|giv\w+|thank\w*|"
    r"apologi[sz]\w+|quit\w*|resign\w*|leave|leaving|vote|voting|pray\w*|cry\w*|study\w*|"
    r"practi[cs]\w+|learn\w*|read|meditat\w+|exercis\w+|whistle-?blow\w*|escape|protect\w*|"
    r"my own|myself)\b"
)
#: Categories whose topic, with a soft cue in a request, makes the request harmful.
_HOSTILE = (
    "violence and weapons",
    "sexual content and non-consent",
    "illegal access",
    "privacy",
    "drugs",
    "fraud and forgery",
)
#: A person acted on.
TARGET = re.compile(
    r"\b(?:my|his|her|their|our) (?:[\w-]+ ){0,2}" + _RELATION + r"\b|\b(?:someone|somebody|"
    r"a person|a stranger|people|other people|him|her|them)\b|\b" + _OWNER
)
#: An illegal aim: "... illegally", "illegal hacking" (not "is it illegal to ...").
ILLEGAL_AIM = re.compile(
    r"\b\w+ illegally\b|\billegally \w+|\billegal (?:hacking|drugs?|weapons?|guns?|"
    r"firearms?|fights?|fighting|trade|business|downloads?|downloading|streaming|copies|"
    r"substances?|goods|software|surveillance|entry|border crossings?|wiretap\w*|hunting|"
    r"gambling|dumping)\b"
)
#: Not an aim: reporting, stopping or recognising what is illegal.
_AGAINST = re.compile(
    r"\b(?:report|stop|prevent|avoid|detect|spot|identify|recogni[sz]e|fight|combat|protect|"
    r"punish\w*|penalt\w+|consequences|is it|it's|is that|are they|law|laws)\w*\b"
)


@dataclass(frozen=True)
class Rule:
    """A named pattern. `unless`: the rule does not apply when this also matches the question
    (help-seeking, a parent and their child ...); `needs`: it applies only when this matches
    too (an organisation named)."""

    label: str
    pattern: re.Pattern[str]
    unless: re.Pattern[str] | None = None
    needs: re.Pattern[str] | None = None

    def search(self, text: str, original: str = "") -> re.Match[str] | None:
        found = self.pattern.search(text)
        if found is None:
            return None
        if self.unless is not None and self.unless.search(text):
            return None
        if self.needs is not None and not (self.needs.search(text) or self.needs.search(original)):
            return None
        return found


def _rules(*specs: tuple) -> tuple[Rule, ...]:
    """Rules from (label, pattern) or (label, pattern, unless, needs) tuples."""
    rules = []
    for spec in specs:
        label, pattern, unless, needs = (*spec, None, None)[:4]
        rules.append(
            Rule(
                label,
                re.compile(pattern),
                re.compile(unless) if unless else None,
                needs if isinstance(needs, re.Pattern) or needs is None else re.compile(needs),
            )
        )
    return tuple(rules)


@dataclass(frozen=True)
class Category:
    """A harm category: its topic words, its acts (harmful when requested) and its intents
    (harmful in any phrasing)."""

    name: str
    topic: re.Pattern[str]
    acts: tuple[Rule, ...]
    intents: tuple[Rule, ...] = ()


_HARM_VERBS = (
    r"(?:kill|murder|assassinate|hurt|harm|injure|attack|assault|beat(?: up)?|stab|shoot|"
    r"strangle|choke|smother|suffocate|drown|poison|drug|torture|kidnap|abduct|maim|"
    r"disfigure|burn|run over|punch|kick|slap|break (?:[\w-]+ )?(?:legs?|arms?|bones?|neck|"
    r"jaw|nose)|cripple|paraly[sz]e|incapacitate|knock out|eliminate|get rid of|dispose of|"
    r"execute|behead|lynch|bludgeon|electrocute|mutilate|dismember|rape|molest|enslave|"
    r"terrori[sz]e|massacre|slaughter|wipe out|make (?:[\w-]+ ){0,2}(?:sick|ill|suffer|"
    r"bleed|fall|trip|crash|disappear|die|overdose))"
)
_NOT_A_GAME = (
    r"(?! (?:at|in) (?:a |an |the )?(?:chess|game|games|cards|poker|tennis|race|argument|"
    r"debate|competition|match|sports?|video games?|fortnite|scrabble|monopoly|golf|"
    r"basketball|football|soccer|trivia|quiz))"
)
_WEAPON = (
    r"(?:(?:pipe |car |nail |letter )?bombs?|explosives?|explosive devices?|ieds?|"
    r"improvised explosive|grenades?|molotov(?: cocktails?)?|napalm|thermite|detonators?|"
    r"silencers?|suppressors?|ghost guns?|untraceable (?:guns?|firearms?)|machine guns?|"
    r"full[- ]auto|automatic (?:weapons?|rifles?)|auto sears?|bump stocks?|"
    r"(?<!water )(?<!toy )(?<!nerf )(?<!glue )(?<!paper )(?<!squirt )(?<!spray )"
    r"(?<!staple )(?<!nail )(?<!heat )(?<!bubble )(?<!caulk )(?<!massage )(?<!grease )guns?|"
    r"firearms?|rifles?|pistols?|handguns?|shotguns?|weapons?|ammunition|ammo|bullets|"
    r"zip guns?|flamethrowers?|booby traps?|landmines?|tasers?|stun guns?|brass knuckles|"
    r"explosives-laden)"
)
_MASS_AGENT = (
    r"(?:nerve agents?|nerve gas|sarin|tabun|soman|vx|novichok|ricin|abrin|anthrax|"
    r"botulinum(?: toxin)?|botulism|smallpox|plague|ebola|marburg|chemical (?:warfare )?"
    r"(?:weapons?|agents?)|biological (?:warfare )?(?:weapons?|agents?)|bio-?weapons?|"
    r"bio-?terror\w*|mustard gas|sulfur mustard|lewisite|phosgene|chlorine gas|hydrogen "
    r"cyanide|cyanide|dimethylmercury|strychnine|tetrodotoxin|aconite|polonium|pathogens?|"
    r"enriched uranium|uranium|plutonium|radioactive (?:material|source|isotopes?)|"
    r"dirty bombs?|nuclear (?:weapons?|bombs?|devices?)|cholera|dangerous (?:dna|viruses|"
    r"pathogens|sequences)|(?:a )?virus(?:es)? (?:in|on|through|into) (?:a |the )?"
    r"(?:subway|crowd|city|population|water)|poisonous gas|toxic gas|nerve toxins?)"
)
#: Pieces of writing a request can ask for.
_CONTENT = (
    r"(?:article|essay|post|blog(?: post)?|tweet|thread|message|e-?mail|letter|speech|"
    r"argument|story|news(?: story| article| report)?|op-?ed|social media post|advertisement|"
    r"ad|script|pamphlet|flyer|leaflet|headline|press release|piece|video|podcast|sermon|"
    r"manifesto|testimonial|campaign|caption|comment|review|report)"
)
#: Documents, money and records that can be forged or falsified.
_DOCUMENTS = (
    r"(?:(?:criminal|police|court|medical|school|academic|financial|employment) records?|"
    r"ids?|identity cards?|identity documents?|passports?|driver'?s licen[cs]es?|"
    r"licen[cs]es?|documents?|signatures?|cheques?|checks?|banknotes?|money|currency|bills|"
    r"notes|receipts?|invoices?|diplomas?|degrees?|certificates?|transcripts?|doctor'?s notes?|"
    r"sick notes?|prescriptions?|medical records?|bank statements?|pay ?stubs?|references?|"
    r"evidence|alibis?|micr(?: lines?)?|vaccination (?:cards?|records?)|vaccine (?:cards?|"
    r"passports?)|credentials|visas?|green cards?|wills?|deeds?|ballots?|votes?|test "
    r"results|lab results|results|timesheets?|expense reports?|tax returns?|insurance "
    r"claims?|stamps?|notary seals?)"
)


def _topic(*parts: str) -> re.Pattern[str]:
    """A category's vocabulary: alternatives separated by "|", as whole words."""
    return re.compile(r"\b(?:" + "|".join(parts) + r")\b")


#: Help-seeking and prevention: asking how to stop, report or cope is not asking to do.
_HELP = (
    r"\b(?:help (?:me |my \w+ |a friend |someone |them |him |her )?(?:stop|quit|cope|recover|"
    r"deal|get help|overcome|through|with)|support\w*|talk(?:ing)? to|prevent\w*|stop(?:ping)? "
    r"(?:someone|a friend|my \w+|people|them|him|her|myself)|warning signs|signs of|"
    r"recogni[sz]\w+|hotlines?|get help|what should i do|comfort\w*|reach out|therap\w+|"
    r"counsel\w*|recover\w*|cope|coping|report\w*|protect\w*|victims?|survivors?|awareness|"
    r"safe(?:ly|ty)?|avoid\w*|detect\w*|spot(?:ting)?|identify(?:ing)? (?:signs|scams|fake)|"
    r"defend\w*|self-defen[cs]e|first aid|emergency)\b"
)
#: The asker's own thing ("my own phone", "my account"): not someone else's.
_THIRD_PARTY = re.compile(
    r"\b(?:someone|somebody|other people|others|another person|a person|strangers?|people's|"
    r"his|her|their|them|him|victims?|targets?|company|corporate|government|agency|"
    r"military|school's|university's|employer's|business|competitor\w*|officials?|"
    r"celebrit\w+|politician\w*|defen[cs]e|federal|public|hospital's|bank's|website|"
    r"news|users'?|customers'?|work|office)\b|\b(?:my|his|her|their|our) (?:[\w-]+ ){0,2}"
    + _RELATION
    + r"\b|\b(?!my\b)[a-z0-9-]+'s\b"
)
#: An organisation named (in the question as written) or described.
_ORGANISATION = re.compile(
    r"(?<!^)(?<![.?!] )\b[A-Z][A-Za-z0-9&.-]*[A-Za-z0-9]\b(?<!\bI)|\b(?:company|companies|"
    r"corporation|firm|government|agency|military|department|organi[sz]ation|business|"
    r"competitor|employer|startup|laborator(?:y|ies)|lab|ministry|pentagon|cia|fbi|nsa|"
    r"police|bank|university|hospital|school|manufacturer|brand)\b"
)
_CHILD = r"\b(?:son|daughter|child|children|kids?|teen\w*|toddler|baby)\b"


CATEGORIES: tuple[Category, ...] = (
    Category(
        name="violence and weapons",
        topic=_topic(
            r"kill\w*|murder\w*|homicid\w*|assault\w*|stab\w*|shoot\w*|guns?|gunm\w+|firearms?",
            r"rifles?|pistols?|ammo|ammunition|bullets|weapon\w*|bomb\w*|explosi\w+|detonat\w*",
            r"grenades?|molotov|napalm|thermite|silencers?|poison\w*|toxins?|toxic|lethal",
            r"deadly|fatal|nerve agents?|sarin|ricin|anthrax|cyanide|arsenic|strychnine",
            r"chemical weapons?|biological (?:weapons?|warfare)|pathogens?|terror\w*|massacre",
            r"genocide|tortur\w*|kidnap\w*|abduct\w*|hostages?|arson|violen\w+|gore|gory",
            r"gruesome|blood\w*|corpses?|dead bod(?:y|ies)|hurt\w*|injur\w+|wound\w*",
            r"strangl\w*|chok\w+|suffocat\w+|drown\w*|knife|knives|machetes?|pepper spray",
            r"tasers?|war crimes?|death|die|dying|beat(?:ing)? up|fight\w*|attack\w*|threat\w*",
            r"hitman|assassin\w*|sabotag\w+|tamper\w*|uranium|plutonium|radioactive|nuclear",
            r"militia|jihad\w*|extremis\w+|radicali[sz]\w+|animal (?:cruelty|fights?|abuse)",
            r"mistreat\w*|abus\w+|self-defen[cs]e|martial arts|vulnerable points",
        ),
        acts=_rules(
            (
                "justifying or glorifying atrocities",
                r"\b(?:justif|glorif|normali[sz]|romantici[sz]|promot|celebrat)\w* (?:[\w'-]+ )"
                r"{0,4}?(?:genocide|ethnic cleansing|terrorism|mass (?:murder|shootings?|"
                r"killings?)|slavery|torture|lynching|violence against|school shootings?)\b",
                r"\b(?:prevent|counter|debunk|condemn|history|why do)\w*\b",
            ),
            (
                "harming a person",
                rf"\b{_HARM_VERBS}(?! (?:a |an |the )?(?:photos?|pictures?|portraits?|videos?|"
                rf"films?|movies?|scenes?|footage|hoops|the breeze|emails?|messages?|fleas|ticks|"
                rf"lice|worms|bacteria|germs|parasites|weeds|bugs|mites|mou?ld|time|process\w*|"
                rf"test\w*|out\b|off\b)) (?:[\w'-]+ ){{0,3}}?{_PERSON}\b{_NOT_A_GAME}",
                _HELP + r"|\bwithout (?:hurting|harming|killing|injuring)\b",
            ),
            (
                "harming an animal",
                rf"\b(?:kill|poison|hurt|harm|torture|mistreat|abuse|starve|beat|kick|drown|"
                rf"maim|disable)(?! (?:fleas|ticks|lice|worms|parasites|mites)) (?:[\w'-]+ )"
                rf"{{0,3}}?{_ANIMAL}\b|\b(?:hunt|trap|poach|kill|capture|sell|smuggle|trade|"
                rf"disable) (?:[\w'-]+ ){{0,3}}?(?:endangered|protected) (?:species|animals?)\b"
                r"|\b(?:animals?|dogs?|roosters?|cocks?|bears?) (?:[\w'-]+ ){0,2}for (?:illegal )?"
                r"fights?\b|\b(?:animal|dog|cock|bear) ?fight(?:s|ing)\b|\bpoach(?:ing|ers?)? "
                r"(?:[\w'-]+ ){0,2}(?:elephants?|rhinos?|tigers?|animals?|wildlife|deer|ivory|"
                r"endangered|protected)\b|\bfor (?:a |their )?trophy\b",
                _HELP,
            ),
            (
                "making or getting a weapon",
                r"\b(?:make|making|build|building|assemble|construct|manufacture|produce|"
                r"assembling|constructing|manufacturing|3d[- ]print(?:ing)?|print|printing|convert|"
                r"converting|modify|modifying|improvise|rig|wire|arm|create|design|cook|"
                r"mix|prepare|put together) (?:[\w'-]+ ){0,4}?" + _WEAPON + r"\b"
                r"|\b(?:smuggle|sneak|hide|conceal|bring|carry|get) (?:[\w'-]+ ){0,4}?"
                + _WEAPON
                + r" (?:[\w'-]+ ){0,3}?(?:past|through|on(?:to)?|into) (?:[\w'-]+ ){0,2}"
                r"(?:security|a plane|an airplane|a flight|the airport|a school|a stadium|"
                r"a concert|court|a courthouse|metal detectors?|customs)\b"
                r"|\b(?:detonate|set off|plant|throw|trigger) (?:[\w'-]+ ){0,3}?"
                r"(?:bombs?|explosives?|ieds?|grenades?|molotovs?|landmines?)\b"
                r"|\b(?:buy|purchase|get|obtain|acquire) (?:[\w'-]+ ){0,3}?"
                + _WEAPON
                + r" (?:[\w'-]+ ){0,4}?(?:without (?:a |any )?(?:background checks?|licen[cs]es?|"
                r"permits?|id|paperwork|registration)|as a minor|under ?age|privately so)\b",
            ),
            (
                "a mass-casualty agent",
                r"\b(?:make|making|synthesi[sz]e|synthesi[sz]ing|synthesis|produce|producing|"
                r"manufactur\w+|create|creating|cultivate|grow|culture|extract|extracting|"
                r"weaponi[sz]e|obtain|acquire|buy|purchase|release|spread|disperse|deploy|"
                r"aerosoli[sz]e|enhance|modify|engineer|steal|stealing|smuggle|order|ordering|"
                r"precursors?|ingredients|recipe|reaction steps|store|storing|introduce|"
                r"make more|transmit) (?:[\w'-]+ ){0,5}?" + _MASS_AGENT + r"\b",
                r"\b(?:protect|vaccin|treat|cure|detect|prevent|avoid|symptoms)\w*\b",
            ),
            (
                "threats and terror",
                r"\b(?:write|compose|draft|send|make|formulate|create|post|leave|craft|"
                r"generate) (?:[\w'-]+ ){0,3}?(?:threats?|threatening (?:letters?|messages?|"
                r"notes?|calls?)|death threats?|bomb threats?|ransom notes?)\b|\bthreaten\w* "
                r"(?:[\w'-]+ ){0,3}?" + _PERSON + r"\b"
                r"|\b(?:terrorist|terror) (?:attacks?|plots?|cells?|acts?)\b|\bplan (?:[\w'-]+ )"
                r"{0,2}(?:an? )?(?:attack|shooting|bombing|massacre|ambush|hijacking|riot)\b"
                r"|\bmass (?:shooting|casualt\w+|murder|killing)\b|\b(?:kill|hurt|harm|infect) "
                r"(?:as many|lots of|many|the most|a lot of|large numbers of) (?:people|"
                r"civilians|humans)\b|\bradicali[sz]e (?:[\w'-]+ ){0,2}(?:others|people|"
                r"someone|young|teens?|youth|kids|them|followers)\b|\b(?:communicate|coordinate|"
                r"recruit)\w* (?:[\w'-]+ ){0,3}?terrorists?\b|\bintercept\w* (?:[\w'-]+ ){0,4}?"
                r"(?:plane|jet|aircraft|flight)\b|\bhijack\w* (?:a |an |the )?(?:plane|jet|"
                r"aircraft|flight|bus|train)\b",
                r"\b(?:prevent|stop|report|counter|protect|survive|respond|recogni[sz]e)\w*\b",
            ),
            (
                "covering up a killing",
                r"\b(?:get rid of|dispose of|hide|hiding|bury|burying|dissolve|dissolving|burn|"
                r"clean up|move|dump|dumping) (?:[\w'-]+ ){0,2}?(?:a |the |his |her |their )?(?:de"
                r"ad "
                r")?(?:body|bodies|corpses?|remains)\b(?! (?:odou?r|fat|hair|acne|lotion|wash|"
                r"aches?|pains?|image|language|spray|butter|of (?:work|evidence|water)))",
            ),
            (
                "attacking a facility",
                r"\b(?:compromise|compromising|breach|breaching|infiltrate|infiltrating|"
                r"sabotage|sabotaging|attack|attacking|disable|disabling|shut down|black ?out|"
                r"knock out|take down|cause (?:a )?(?:leak|meltdown|explosion|blackout) (?:at|in))"
                r" (?:[\w'-]+ ){0,3}?(?:laborator(?:y|ies)|labs?|facility|facilities|power "
                r"plants?|nuclear plants?|reactors?|dams?|pipelines?|hospitals?|airports?|water "
                r"(?:treatment|supply|plants?)|(?:power |electric(?:al)? )?grids?|critical "
                r"infrastructure|substations?|refiner(?:y|ies)|chemical plants?|air traffic "
                r"control)\b",
                r"\b(?:protect|secure|defend|prevent|respond|recover)\w*\b",
            ),
            (
                "sabotage and arson",
                r"\btamper(?:ing)? with (?:[\w'-]+ ){0,4}?(?:water supply|water|food|"
                r"medical devices?|pacemakers?|insulin pumps?|medications?|brakes|drinks?|"
                r"products?|vaccines?|airbags?|gas lines?|smoke detectors?|voting machines?|"
                r"ballots?|"
                r"elections?|monitoring devices?|ankle monitors?|meters?|evidence)\b|\b(?:cut|"
                r"disable|"
                r"loosen|sabotage) (?:[\w'-]+ ){0,3}?(?:brake lines?|brakes|airbags?|"
                r"steering)\b|\bslash(?:ing)? (?:[\w'-]+ ){0,3}?(?:tyres|tires)\b|\bsabotag\w+\b|"
                r"\bderail\w*\b|\bcommit(?:ting)? arson\b|\barson\b|\bset fire to (?:[\w'-]+ )"
                r"{0,3}(?:house|home|car|building|school|church|mosque|synagogue|shop|store|"
                r"office|property|forest|someone)\b|\bset (?:someone'?s|a|the|his|her|their|my "
                r"\w+'s) (?:[\w'-]+ )?(?:house|home|car|building|school|church|mosque|synagogue|"
                r"shop|store|office|property) on fire\b|\bburn (?:down|up) (?:[\w'-]+ ){0,2}"
                r"(?:house|home|car|building|school|church|mosque|synagogue|shop|store|office|"
                r"property)\b|\bvandali[sz]\w+\b|\b(?:key|scratch|smash|damage|wreck|destroy) "
                r"(?:[\w'-]+ ){0,2}?(?:someone'?s|my (?:[\w-]+ )?"
                + _RELATION
                + r"'?s|his|her|their) (?:[\w'-]+ )?(?:car|windows?|house|property|garden|bike|"
                r"lawn|mailbox)\b|(?<!not )(?<!n't )(?<!avoid )(?<!stop )(?<!prevent )\bspread "
                r"(?:a |the |this |my )?(?:virus|disease|infection|pathogen)(?:es|s)? (?:to|in|"
                r"among|through|on|at|into)\b|\bset (?:[\w'-]+ ){0,2}fire alarms? (?:[\w'-]+ )"
                r"{0,4}(?:exam|test|class)\b",
                r"\b(?:prevent|report|protect|survive|recogni[sz]e)\w*\b",
            ),
            (
                "graphic violence",
                r"(?=.*\b(?:kill|murder|tortur|beat|stab|shoot|blood|gore|violen|death|dying|"
                r"dead|corpse|abus|rape|mutilat|dismember|quarter|massacre|execut|injur|wound|"
                r"scream|burn|behead|flay)\w*).*\b(?:graphic|gory|gruesome|vivid|brutal|"
                r"grisly|sadistic) (?:[\w'-]+ ){0,2}(?:detail|details|description|depiction|"
                r"scene|account|violence|torture|death|killing|murder|injur\w+)\b",
            ),
        ),
        intents=_rules(
            ("weaponising an agent", r"\bweaponi[sz]\w+\b"),
            (
                "glorifying violence",
                r"\b(?:glorif\w+|prais\w+|celebrat\w+|romantici[sz]\w+) (?:[\w'-]+ ){0,3}?"
                r"(?:terrorists?|terrorism|shooters?|mass shootings?|school shootings?|9/11|"
                r"the holocaust|genocide|massacres?|suicide bombers?|bombers?|killers?|"
                r"murderers?|violence against)\b",
            ),
        ),
    ),
    Category(
        name="self-harm",
        topic=_topic(
            r"suicid\w*|self[- ]?harm\w*|self[- ]?injur\w*|self[- ]inflicted|cut(?:ting)? myself",
            r"kill(?:ing)? myself|end(?:ing)? (?:my life|it all)|overdos\w*|anorexi\w*|bulimi\w*",
            r"eating disorders?|purg\w+|starv\w+|laxatives?|thinspo\w*|pro-?ana|want to die",
            r"hang myself|lethal doses?|fatal doses?|scars?|razors?|throw up|vomit\w*",
            r"excessive\w*|dangerously|hurt myself|harm myself",
        ),
        acts=_rules(
            (
                "a method of self-harm",
                r"\b(?:kill|hurt|harm|cut|burn|injure|poison|starve|hang|drown|shoot|stab|"
                r"suffocate|overdose|bruise|punish|choke) (?:my ?self|myself|your ?self|"
                r"oneself)\b|\b(?:commit|attempt) suicide\b|\bself[- ]?harm\w*\b|"
                r"\bbulimi\w*\b|\banorexi\w*\b|\bpurg(?:e|ing)\b",
                _HELP,
            ),
        ),
        intents=_rules(
            (
                "a method of self-harm",
                r"\b(?:how (?:deep|much|many|long|hard)|where|what|which|best|quickest|"
                r"easiest|painless|surefire|fastest) (?:[\w'-]+ ){0,6}?(?:cut|burn|hurt|harm|"
                r"kill|hang|poison|starve) (?:my ?self|myself)\b"
                r"|\b(?:painless|quick|quickest|easiest|surest|surefire|best|certain|"
                r"effective|fastest) (?:[\w'-]+ ){0,2}(?:way|ways|method|methods|means) (?:to|"
                r"of) (?:[\w'-]+ ){0,2}(?:die|dying|suicide|end (?:my|one's|your|it)|kill "
                r"(?:my|your|one)self|self[- ]harm)\b"
                r"|\b(?:what|which) (?:[\w'-]+ ){0,3}(?:dose|amount|number of (?:pills|tablets))"
                r" (?:[\w'-]+ ){0,6}(?:lethal|fatal|kill|die|never wake|not wake|doesn't wake|"
                r"don't wake|won't wake|make sure)\b"
                r"|\b(?:make sure|ensure) (?:[\w'-]+ ){0,3}(?:doesn't|does not|don't|won't|never)"
                r" wake up\b|\bhow (?:many|much) (?:[\w'-]+ ){0,4}(?:pills|tablets|capsules|mg|"
                r"milligrams|doses?) (?:[\w'-]+ ){0,6}(?:lethal|fatal|kill|die|dead|never wake|"
                r"not wake|overdose|od)\b|\b(?:use|used|using|best|objects?|items?|tools?|things?) "
                r"(?:[\w'-]+ ){0,3}(?:for|to) self[- ]harm\b",
            ),
            (
                "hiding self-harm or an eating disorder",
                r"\b(?:hide|hiding|conceal\w*|cover(?:ing)? up|cover|disguise\w*|mask) "
                r"(?:[\w'-]+ ){0,4}?(?:cuts|scars|wounds|injuries|bruises|burns|self[- ]harm"
                r"\w*|self[- ]inflicted|eating disorder|anorexia|bulimia|weight loss|not "
                r"eating|purging)\b|\b(?:cut|harm|hurt|burn) (?:my ?self|myself) "
                r"(?:[\w'-]+ ){0,4}(?:without|so) (?:[\w'-]+ ){0,3}(?:noticing|noticeable|"
                r"knowing|notice|see|seeing|visible|finding out)\b",
            ),
            (
                "encouraging self-harm or disordered eating",
                r"\b(?:encourag|promot|glorif|romantici[sz]|normali[sz])\w* (?:[\w'-]+ ){0,3}?"
                r"(?:anorexia|bulimia|self[- ]harm\w*|suicide|cutting|eating disorders?|"
                r"starvation|starving|purging|pro-?ana)\b|\bpro-?ana\b|\bthinspo\w*\b"
                r"|\b(?:make|making|force|forcing) (?:my ?self|myself) (?:throw up|vomit|"
                r"puke|purge|starve)\b|\bspeed up (?:[\w'-]+ ){0,2}(?:bulimia|anorexia|"
                r"weight loss|purging)\b|\bdangerously low[- ]calorie\b|\b(?:lose|losing) "
                r"(?:weight|pounds|kilos) (?:[\w'-]+ ){0,3}(?:with|by|through) (?:starv\w+|"
                r"not eating|purging|vomiting|laxatives)\b|\blaxatives? (?:[\w'-]+ ){0,2}(?:for|"
                r"to) (?:lose weight|weight loss)\b|\bstarve (?:my ?self|myself)\b|\b(?:weight|"
                r"lose \w+) (?:[\w'-]+ ){0,2}with starvation\b",
                r"\b(?:prevent|recogni[sz]e|signs|stop|avoid|awareness|recover)\w*\b",
            ),
        ),
    ),
    Category(
        name="sexual content and non-consent",
        topic=_topic(
            r"sex|sexual\w*|sexy|porn\w*|explicit|nudes?|nudity|naked|erotic\w*|fetish\w*",
            r"orgasm\w*|genital\w*|intimate (?:images?|photos?|pictures?|videos?)",
            r"adult (?:content|toys?|movies?|films?|videos?|material|sites?|entertainment)",
            r"onlyfans|escorts?|prostitut\w+|rape\w*|raping|molest\w*|incest\w*|upskirt\w*",
            r"voyeur\w*|sext\w*|lewd|dirty (?:jokes?|talk|stories|pictures)|hentai|xxx|nsfw",
            r"seduc\w+|groom\w*|sexual positions|condoms?|protection during|hook ?ups?",
            r"one[- ]night stand|stripp\w+|lingerie|kinky|bdsm",
        ),
        acts=_rules(
            (
                "explicit sexual content",
                r"\b(?:write|generate|create|describe|tell|give|provide|show|share|send|make|"
                r"produce|compose|draft|list|narrate|roleplay|role-play|act out|detail|talk "
                r"about|discuss|explain) (?:[\w'-]+ ){0,4}?(?:explicit|pornographic|porn|"
                r"erotic|sexually explicit|sexual|nsfw|xxx|dirty|smutty|lewd|steamy|obscene|"
                r"adult) (?:[\w'-]+ ){0,2}?(?:story|stories|scenes?|content|contents|material|"
                r"materials|images?|pictures?|photos?|videos?|jokes?|fantas(?:y|ies)|"
                r"fan ?fiction|chat|roleplay|details|descriptions?|experiences?|messages?|"
                r"texts?|poems?|acts?|positions|toys?)\b|\b(?:describe|write|narrate|depict) "
                r"(?:[\w'-]+ ){0,3}?(?:a )?(?:sex|pornographic|porn|erotic) scenes?\b|\b(?:create|"
                r"make|produce|film) (?:[\w'-]+ ){0,2}(?:adult|pornographic|porn|explicit) "
                r"(?:content|videos?|films?|material)\b",
            ),
            (
                "sexual coercion",
                r"\b(?:coerce|pressure|force|blackmail|manipulate|convince|trick|guilt|"
                r"persuade|talk|get|make|encourage) (?:[\w'-]+ ){0,4}?(?:into |to )?"
                r"(?:(?:have|having) sex|sexual (?:acts?|favou?rs|behaviou?r|relations)|"
                r"sleep(?:ing)? with|sharing (?:explicit|intimate|nude|sexual)|send(?:ing)? "
                r"(?:[\w'-]+ )?(?:nudes|explicit|intimate|naked|sexual)|not (?:use|using) "
                r"(?:a )?(?:protection|condoms?)|unprotected sex|(?:a )?risky sexual|(?:explicit|"
                r"intimate|nude|naked|sexual) (?:images?|photos?|pictures?|videos?))\b",
                r"\b(?:safe|consent|talk to my (?:partner|girlfriend|boyfriend|wife|husband) "
                r"about|use protection)\b(?!.*\bnot using\b)",
            ),
            (
                "sharing intimate images",
                r"\b(?:share|post|leak|distribute|spread|send|upload|sell|publish|circulate|"
                r"expose) (?:[\w'-]+ ){0,4}?(?:nudes|nude (?:photos?|pictures?|images?)|"
                r"explicit (?:photos?|pictures?|images?|content|videos?)|intimate (?:photos?|"
                r"pictures?|images?|videos?|content)|sex tapes?|naked (?:photos?|pictures?))\b",
                r"\b(?:my own|of myself|remove|take down|report)\b",
            ),
        ),
        intents=_rules(
            (
                "sexual abuse glorified or arranged",
                r"\b(?:justif|glorif|normali[sz]|romantici[sz]|promot|encourag)\w* (?:[\w'-]+ )"
                r"{0,3}?(?:pedophilia|paedophilia|child (?:sexual )?abuse|rape|sexual assault|"
                r"incest|bestiality|sexual exploitation)\b|\b(?:bestiality|zoophilia)\b|\bsex"
                r"\w* (?:[\w'-]+ ){0,2}with (?:an? )?(?:animals?|dogs?|horses?)\b|\bsolicit\w* "
                r"(?:[\w'-]+ ){0,3}sex\w*\b|\b(?:engag\w+ in|commit\w*|run\w*|start\w*|organi[sz]"
                r"\w*|guide (?:for|to)) (?:[\w'-]+ ){0,2}(?:human |sex )?trafficking\b",
                r"\b(?:report|victims?|survivors?|prevent|protect|support|recogni[sz]e|signs|"
                r"combat|fight|stop)\w*\b",
            ),
            (
                "non-consensual sexual content",
                r"\brevenge porn\w*\b|\bnon-?consensual (?:porn\w*|images?|sex\w*|content|"
                r"videos?|photos?)\b|\b(?:without|against) (?:[\w'-]+ )?(?:consent|will|"
                r"permission)\b(?=.*\b(?:sex\w*|explicit|nudes?|naked|intimate|porn\w*|touch"
                r"\w*)\b)|\b(?:sex\w*|explicit|nudes?|naked|intimate|porn\w*)\b(?=.*\b(?:without"
                r"|against) (?:[\w'-]+ )?(?:consent|will|permission|knowing|knowledge)\b)|"
                r"\bdate[- ]rape\b|\b(?:slip|put|add|mix|drop|pour|spike|lace)\w* (?:[\w'-]+ ){0,3}"
                r"(?:in|into) (?:her|his|their|someone'?s|a girl'?s|a woman'?s|a guy'?s|a man'?s|"
                r"my (?:date|girlfriend|boyfriend|wife|husband|friend|coworker|boss|crush)'?s?) "
                r"(?:[\w'-]+ )?(?:drinks?|food|coffee|wine|beer|cocktail)\b|\b(?:roofie|"
                r"rohypnol)\w*\b|\b(?:spike|lace|drug) (?:[\w'-]+ )"
                r"{0,2}?(?:her|his|their|someone'?s|a girl'?s|a woman'?s|a guy'?s|my (?:date|"
                r"girlfriend|boyfriend|wife|husband|friend|coworker|boss|crush)'?s?) ?(?:drinks?|"
                r"food|coffee|wine|beer)\b|\bupskirt\w*\b|\bhidden cameras? (?:[\w'-]+ ){0,4}"
                r"(?:bathroom|changing|shower|bedroom|toilet|locker)\b|\b(?:secretly|covertly) "
                r"(?:film|record|photograph|watch) (?:[\w'-]+ ){0,3}(?:naked|undress\w*|changing"
                r"|showering|having sex|in the shower)\b|\bsextort\w*\b|\bexploit (?:[\w'-]+ )"
                r"{0,2}sexually\b|\bsexually exploit\w*\b|\btraffic (?:girls|women|children|"
                r"people|someone|humans)\b|\brap(?:e|ing) (?:[\w'-]+ ){0,2}(?:her|him|someone|a "
                r"woman|a girl|my)\b|\bsnuff (?:film|movie|video)s?\b",
                r"\b(?:report|victims?|survivors?|prevent|protect|support|recogni[sz]e|signs|"
                r"what should i do|happened to me|was i)\w*\b",
            ),
            (
                "sexual content involving minors",
                r"\b(?:child|children|kid|kids|minor|minors|underage|under-age|preteen|"
                r"pre-teen|teen|teens|teenage|teenager|\d+[- ]year[- ]old|schoolgirl|schoolboy"
                r"|loli|shota|young (?:girl|boy)s?)\b(?=.*\b(?:porn\w*|nude\w*|naked|erotic\w*|"
                r"explicit|seduc\w+|aroused?|lewd|sexy|sexual (?:stor\w+|images?|photos?|"
                r"conversations?|"
                r"chats?|messages?|"
                r"fantas\w+|content|roleplay|acts? with)|have sex)\b)|\b(?:porn\w*|nude\w*|"
                r"naked|erotic\w*|seduc\w+|lewd|sexy)\b(?=.*\b(?:child|children|kid|kids|minor"
                r"|minors|underage|preteen|schoolgirl|schoolboy|\d+[- ]year[- ]old)\b)|\bcsam\b"
                r"|\bgroom\w* (?:[\w'-]+ ){0,2}(?:child|children|kid|kids|minor|minors|teen\w*|"
                r"girl|boy)\b|\bchild (?:porn\w*|sexual abuse material|abuse material)\b",
                r"\b(?:report|protect|prevent|recogni[sz]e|signs|warning|talk to|educat\w*|"
                r"safety|keep \w+ safe)\b",
            ),
        ),
    ),
    Category(
        name="hate and harassment",
        topic=_topic(
            r"slurs?|racis\w+|sexis\w+|homophob\w+|transphob\w+|antisemit\w+|anti-semit\w+",
            r"islamophob\w+|xenophob\w+|bigot\w*|hate\w*|hatred|insult\w*|mock\w*|bull(?:y|ies)",
            r"bullying|bullied|harass\w*|troll\w*|humiliat\w+|sham(?:e|ing)|offensive|nazis?",
            r"hitler|kkk|white power|supremac\w+|holocaust|ethnic cleansing|stereotyp\w+",
            r"gossip\w*|rumou?rs?|defam\w+|dox\w*|intimidat\w+|stalk\w*|cyberbull\w+|swatt\w*",
            r"revenge|get back at|get even|ugly|fat|idiot\w*|stupid|dumb|loser\w*|worthless",
            r"embarrass\w*|prank\w*|gaslight\w*|manipulat\w+|blackmail\w*|extort\w*|provok\w+",
            r"upset|annoying|failures?|clueless|jokes? about|make fun|n-word|make fun of|curse",
            r"swear\w*|foul language|profan\w+",
        ),
        acts=_rules(
            (
                "coercive control",
                r"\b(?:isolat\w+|cut\w* off|separat\w+) (?:[\w'-]+ ){0,2}(?:them|him|her|someone|"
                r"people|members|followers|my (?:wife|husband|partner|girlfriend|boyfriend)) "
                r"(?:[\w'-]+ ){0,2}from (?:their|his|her) (?:famil(?:y|ies)|friends|loved ones)"
                r"\b|\bindoctrinat\w+ (?:[\w'-]+ ){0,2}(?:people|someone|children|kids|them|"
                r"followers|members)\b",
                r"\b(?:recogni[sz]e|signs|escape|leave|help|support|recover)\w*\b",
            ),
            (
                "hateful writing",
                r"\b(?:write|compose|generate|create|draft|make|post|send|craft|produce) "
                r"(?:[\w'-]+ ){0,3}?(?:racist|sexist|homophobic|transphobic|antisemitic|"
                r"misogynist\w*|hateful|insulting|derogatory|demeaning|degrading|"
                r"dehumani[sz]ing) (?:[\w'-]+ ){0,2}?" + _CONTENT + r"s?\b",
                r"\b(?:respond|deal|cope|handle|stop|report|prevent|avoid|what to do)\w*\b",
            ),
            (
                "hateful or insulting content",
                r"\b(?:write|compose|generate|create|tell|give|list|teach|draft|make|say|post|"
                r"send|come up with|suggest|share|use|craft) (?:[\w'-]+ ){0,4}?(?:slurs?|hate "
                r"(?:speech|mail|messages?|posts?|letters?)|insults?|racist jokes?|sexist jokes?)"
                r"\b|\b(?:write|compose|generate|create|tell|give|list|teach|draft|make|say|post|"
                r"send|come up with|suggest|share|use|craft) (?:[\w'-]+ ){0,4}?(?:racist|sexist|"
                r"homophobic|transphobic|antisemitic|anti-semitic|islamophobic|xenophobic|"
                r"hateful|offensive|insulting|derogatory|demeaning|degrading|dehumani[sz]ing|"
                r"nasty|mean|cruel|vicious|abusive|threatening|intimidating|disgusting) "
                r"(?:[\w'-]+ ){0,2}?(?:jokes?|names?|terms?|words?|comments?|remarks?|messages?"
                r"|notes?|posts?|things|content|text|mail|letters?|songs?|poems?|essays?|speech|"
                r"slogans?|memes?|language|insults?|nicknames?)\b|\b(?:using|with|containing|"
                r"full of|includ\w+) (?:[\w'-]+ )?slurs\b|\bhate mail\b|\b(?:jokes?|"
                r"memes?) (?:about|making fun of|mocking) (?:[\w'-]+ ){0,2}(?:race|races|black|"
                r"white|jews?|jewish|muslims?|gays?|lesbians?|trans\w*|women|disabled|fat|"
                r"obese|asians?|mexicans?|immigrants?|indians?|africans?|arabs?|chinese|"
                r"people)\b|\b(?:make fun of|mock|insult|ridicule) (?:[\w'-]+ ){0,2}?(?:gen z|"
                r"millennials|boomers|women|men|the (?:blind|deaf|disabled|poor)|(?:[\w-]+ )?"
                r"people|a group|[a-z]+s)\b",
                r"\b(?:respond|deal|cope|handle|stop|report|prevent|avoid|what to do)\w*\b",
            ),
            (
                "harassing a person",
                r"\b(?:insult|mock|bully|bullie|harass|humiliat|shame|sham|ridicul|belittl|"
                r"demean|make fun of|troll|intimidat|torment|provok|embarrass|gaslight|"
                r"manipulat|blackmail|extort|dox|doxx|swat|stalk|cyberbull(?:y|ie)|guilt[- ]"
                r"trip|threaten|frighten|terrif(?:y|ie)|get back at|get revenge on|take revenge "
                r"on|get even with|ruin|discredit|antagoni[sz]|coerc)(?:e|es|ed|ing|s)? "
                r"(?:[\w'-]+ ){0,3}?"
                + _PERSON
                + r"\b"
                + _NOT_A_GAME
                + r"|\b(?:hurt|crush) (?:someone'?s|(?:his|her|their|my \w+'s)) (?:[\w'-]+ )?"
                r"(?:feelings|self[- ]esteem|confidence)\b|\bmake (?:[\w'-]+ )?"
                + _PERSON
                + r" (?:feel (?:bad|worthless|stupid|ugly|small|unwanted|terrible|awful|"
                r"insecure)|cry|miserable|afraid|scared|uncomfortable)\b|\b(?:spread|start|post)"
                r" (?:[\w'-]+ ){0,3}?(?:rumou?rs?|gossip|lies)\b|\bget (?:[\w'-]+ )?"
                + _PERSON
                + r" fired\b|\bruin (?:someone'?s|his|her|their|a person'?s|my (?:[\w-]+ )?"
                + _RELATION
                + r"'?s) (?:[\w'-]+ ){0,2}?(?:reputation|life|career|marriage|relationship|"
                r"business)\b|\b(?:negative|nasty|mean|hurtful|abusive) (?:[\w'-]+ ){0,2}"
                r"(?:comments?|reviews?|messages?|posts?) (?:[\w'-]+ ){0,6}(?:hurt|damage|ruin|"
                r"upset|feel bad|make them|make him|make her)\b|\b(?:life|lives) (?:a )?"
                r"(?:living )?(?:hell|miserable)\b|\b(?:incit|stir\w* up)\w* (?:[\w'-]+ ){0,3}?"
                r"(?:hatred|hate|violence|bullying|harassment|discrimination|racism|riots?)\b|"
                r"(?<!stop )(?<!prevent )(?<!avoid )(?<!counter )(?<!combat )(?<!fight )"
                r"(?<!against )\b(?:promot|encourag|spread)\w* (?:[\w'-]+ ){0,3}?(?:hatred|hate|"
                r"violence)\b|\b(?:join|participate|take part) in (?:[\w'-]+ ){0,2}(?:harassment"
                r"|bullying)\b|\b(?:harmful|dangerous|risky|cruel|mean) pranks?\b|\bprank "
                r"(?:[\w'-]+ ){0,4}(?:scared|without (?:their|his|her) knowledge|embarrass\w*|"
                r"hurt)\b|\bshame (?:[\w'-]+ ){0,4}in front of\b|\b(?:provoke|bait|goad) "
                r"(?:[\w'-]+ ){0,4}(?:react|fight|lash out)\w*\b|\b(?:bully|bullies|bullying|"
                r"harass|harassing|harassment) (?:[\w'-]+ ){0,3}(?:a |my |the )?(?:classmate|"
                r"child|kid|student|coworker|colleague|someone|girl|boy)\b",
                r"\b(?:respond to|deal with|cope|handle|stop|report|prevent|avoid|what to do|"
                r"being|was|am i|protect|help (?:a|my) \w+ who)\b",
            ),
        ),
        intents=_rules(
            (
                "slurs and hate",
                r"\b(?:list|teach|give|tell)\w* (?:[\w'-]+ ){0,3}?(?:racial |ethnic |"
                r"homophobic |offensive )?slurs\b|\bglorif\w+ (?:[\w'-]+ ){0,3}?(?:nazis?|"
                r"hitler|the holocaust|kkk|slavery|genocide|ethnic cleansing|white supremac\w+)"
                r"\b|\bprais\w+ (?:[\w'-]+ ){0,2}(?:nazis?|nazi party|hitler|kkk)\b|\badvantages?"
                r" of (?:being )?(?:racist|sexist|homophobic|a bigot)\b|\binsult (?:[\w'-]+ ){0,4}"
                r"(?:using|with) (?:foul|offensive|racist|vulgar)\b|\b(?:disgusting|offensive) "
                r"(?:racist|sexist) jokes?\b",
            ),
        ),
    ),
    Category(
        name="discrimination",
        topic=_topic(
            r"races?|racial\w*|ethnic\w*|blacks|whites|asians?|africans?|african americans?",
            r"black (?:people|men|women|person|folks|americans|community)|hispanics?",
            r"white (?:people|men|women|person|folks|americans|community)|latin[oax]s?|latinx",
            r"mexicans?|jews?|jewish|muslims?|islam\w*|christians?|hindus?|buddhists?|atheists?",
            r"sikhs?|arabs?|immigrants?|migrants?|refugees?|foreigners?|gays?|lesbians?",
            r"bisexual\w*|trans(?:gender)?s?|lgbt\w*|queer|homosexual\w*|women|woman|men",
            r"females?|males?|girls|boys|disabled|disabilit(?:y|ies)|handicapped|deaf|blind",
            r"autis\w+|mentally ill|elderly|old people|obese|fat people|poor people|low-income",
            r"rich people|gypsies|roma|caucasians?|middle eastern\w*|native americans?",
            r"american indians?|indigenous|aborigin\w+|chinese|indians?|pakistanis?",
            r"minorit(?:y|ies)|religions?|religious|gender|sexual orientation|nationalit\w+",
            r"caste|people (?:from|of|in) \w+|(?!(?:some|many|most|few|other|these|those|the|"
            r"certain|more|less|such|young|sick|ill|vulnerable|ordinary|normal|regular|average|"
            r"real|good|bad|two|three|several|which|what|how|why|all|do|are|is|make|help|get|"
            r"let|when|for|of|to|with|and|or|where|who|lots of|a lot of)\b)[a-z]+ people",
            r"superior|inferior|discriminat\w+|segregat\w+|prejudic\w+|stereotyp\w+",
            r"generation \w+|gen z|millennials?|boomers?|politicians|socialis\w+|capitalis\w+",
            r"communis\w+|veganism|leaders?",
        ),
        acts=_rules(
            (
                "profiling by a protected trait",
                r"\b(?:identify|classify|predict|rank|score|screen|profile|flag|sort|filter|"
                r"reject|target) (?:[\w'-]+ ){0,4}(?:criminals?|suspects?|applicants?|candidates?"
                r"|tenants?|employees?|people|customers|students) (?:[\w'-]+ ){0,3}(?:on|by|"
                r"based on|using|according to) (?:their )?(?:race|ethnicity|religion|gender|skin "
                r"colou?r|nationality|sexual orientation)\b",
                r"\b(?:bias|fair\w*|audit|detect|prevent|avoid)\w*\b",
            ),
            (
                "excluding a group",
                r"\b(?:(?:avoid|not|refuse to|stop|never) (?:renting|rent|hiring|hire|selling|"
                r"sell|serving|serve|admitting|admit|accepting|accept|promoting|promote|letting|"
                r"let)|keep|stop|prevent|ban|bar|exclude|deny|refuse|discourage|block|"
                r"disenfranchise|fire|not hire|avoid hiring|reject|segregate|deport|get rid "
                r"of|kick out|drive out|turn away) (?:[\w'-]+ ){0,4}?(?:women|men|blacks?|"
                r"black people|whites?|jews|jewish people|muslims?|gays?|lesbians?|trans\w*|"
                r"immigrants?|migrants?|refugees?|foreigners|disabled (?:people|workers|"
                r"applicants)|pregnant (?:women|workers|employees|applicants)|older (?:people|"
                r"workers|applicants)|minorities|people of (?:a )?(?:certain|particular|"
                r"specific|different|another|other) (?:races?|ethnicit(?:y|ies)|religions?|"
                r"colou?rs?|backgrounds?)|(?:a |one )?(?:certain|particular|specific) (?:races?"
                r"|ethnicit(?:y|ies)|religions?|groups?|nationalit(?:y|ies)))\b",
                r"\b(?:illegal|laws? against|protect\w*|report\w*|prevent\w*|fight\w*|combat\w*)"
                r"\b",
            ),
            (
                "arguing a group is inferior",
                r"\b(?:essay|article|argument|post|speech|case|paper|blog|thread|tweet)s? "
                r"(?:[\w'-]+ ){0,8}?(?:inherently|naturally|genetically|biologically)? ?(?:less|"
                r"more|inferior|superior|better|worse) (?:[\w'-]+ ){0,3}?(?:intelligent|"
                r"capable|civili[sz]ed|evolved|deserving|human|likely to be (?:terrorists?|"
                r"criminals?|violent))\b(?=.*\b(?:women|men|race|races|black|white|jews?|"
                r"muslims?|immigrants?|gays?|[a-z]+ people|[a-z]+ immigrants)\b)",
            ),
        ),
        intents=_rules(
            (
                "a group stereotyped",
                r"(?=.*\b(?:women|men|females?|males?|girls|boys|blacks?|whites?|white|black|"
                r"asians?|asian|africans?|african|african americans?|hispanics?|hispanic|"
                r"latin[oax]s?|mexicans?|jews?|jewish|muslims?|muslim|christians?|christian|"
                r"hindus?|hindu|buddhists?|buddhist|atheists?|atheist|sikhs?|arabs?|"
                r"immigrants?|migrants?|refugees?|foreigners?|gays?|gay|lesbians?|bisexuals?|"
                r"trans(?:gender)? (?:people|women|men)|lgbt\w*|queer people|homosexuals?|"
                r"disabled|deaf|the blind|autistic|obese|fat people|poor people|low-income "
                r"people|rich people|caucasians?|caucasian|middle eastern\w*|native "
                r"americans?|american indians?|american indian|indigenous|chinese|indians?|"
                r"pakistanis?|gypsies|roma|minorities|millennials|boomers|gen z|politicians|"
                r"multiracial|biracial|(?!(?:some|many|most|few|other|these|those|the|certain|"
                r"more|less|such|young|sick|ill|vulnerable|ordinary|normal|regular|average|"
                r"real|good|bad|two|three|several|which|what|how|why|all|do|are|is|make|help|"
                r"get|let|when|for|of|to|with|and|or|where|who)\b)[a-z]+ people|(?:person|people"
                r"|everyone|anyone|those|folks) (?:from|of|in) [\w' -]+)\b)"
                r"(?=.*\b(?:lazy|stupid|dumb|idiots?|idiotic|ignorant|backwards?|uneducated|"
                r"uncivili[sz]ed|primitive|savages?|violent|criminals?|commit "
                r"(?:more )?crimes?|thieves|terrorists?|dishonest|liars?|untrustworthy|can't "
                r"be trusted|cannot be trusted|corrupt|immoral|evil|dirty|smell\w* bad|ugly|"
                r"unattractive|less attractive|inferior|weak|emotional|overreact\w*|hysterical|"
                r"greedy|cheap|rude|arrogant|lack\w* (?:etiquette|ambition|intelligence|"
                r"morals|manners|culture|sense)|(?:have )?no (?:sense|taste|manners|morals|"
                r"culture|ambition)|bad (?:at|behaviou?r|drivers?|parents?|people|guys)|less "
                r"intelligent|less capable|not as (?:smart|intelligent|capable)|subhuman|"
                r"vermin|parasites?|diseased|burdens?|don't belong|anti-women|superior|"
                r"incapable|unfit|worthless|failures?|clueless|annoying|smelly|disgusting|"
                r"ruin\w*|destroy\w*|dangerous|bad|worse|worst|terrible|horrible)\b)"
                r"(?=.*\b(?:all|every|always|generally|naturally|inherently|genetically|"
                r"more likely|likely|tend to|so|such|typical(?:ly)?|why|aren't|isn't|don't|"
                r"doesn't|is it true|do you agree|agree|can't|cannot|never|really|just|should)"
                r"\b)",
                r"\b(?:stereotypes? (?:about|that|of)|prejudice against|bias against|"
                r"discriminat\w+ against|victims?|misconceptions?|myths? (?:about|that)|research|"
                r"stud(?:y|ies)|evidence|statistics|data|history of|why do (?:some )?people "
                r"(?:think|believe|say)|where does the (?:idea|stereotype)|racism|sexism)\b",
            ),
            (
                "a group ranked above others",
                r"\b(?:one|a|my|our|their|the white|the black) (?:race|ethnicity|religion|"
                r"gender|nationality) (?:[\w'-]+ ){0,3}(?:better|superior|inferior|above)\b|"
                r"\b(?:race|racial|gender)[- ]based discrimination (?:[\w'-]+ ){0,3}"
                r"(?:beneficial|good|justified|necessary)\b|\bnegative stereotypes? "
                r"(?:associated with|about|of) \w+|\bracial (?:purity|hierarchy)\b|"
                r"\b(?:segregation|apartheid|slavery) (?:[\w'-]+ ){0,3}(?:beneficial|good|"
                r"justified|necessary)\b|\b(?:women|men) (?:being |are )?(?:inherently|"
                r"naturally|genetically) (?:less|more)\b",
            ),
        ),
    ),
    Category(
        name="privacy",
        topic=_topic(
            r"address\w*|phone numbers?|cell numbers?|mobile numbers?|e-?mail address\w*",
            r"social security|ssn|passport\w*|driver'?s licen[cs]e\w*|licen[cs]e plates?",
            r"credit cards?|debit cards?|bank accounts?|medical (?:records?|histor(?:y|ies)|"
            r"information|conditions?)|health records?|date of birth|birth ?dates?",
            r"location\w*|whereabouts|ip address\w*|fingerprints?|dna|iris|facial",
            r"face recognition|biometric\w*|track\w*|trac(?:e|ing)|spy\w*|spied|surveil\w*",
            r"monitor\w*|stalk\w*|dox\w*|personal (?:information|info|data|details|life|habits)",
            r"private (?:information|messages?|data|details|life|conversations?|photos?|emails?)",
            r"confidential\w*|classified|secret\w*|internal\w*|undisclosed|unannounced",
            r"unreleased|proprietary|trade secrets?|leak\w*|whistle-?blowers?|identity",
            r"identif\w+|who owns|reverse (?:phone )?look-?up|background checks?",
            r"criminal records?|net worth|blood type|grades",
            r"report cards?|relationship status|marital status|political beliefs",
            r"sexual orientation|lives|where \w+ works|voice (?:prints?|waves?)|gait|skin tone",
            r"record(?:ing)? (?:a |phone |the )?(?:calls?|conversations?)|phone calls?",
            r"wiretap\w*|hidden cameras?|covert\w*|insider|stealth mode",
            r"revenue forecasts?|legal (?:notices?|disputes?|documents?|critiques?)",
            r"internal (?:disagreements?|conflicts?|meetings?|communications?|newsletters?)",
            r"standing orders|contingency plans?|unreleased prototypes?|blueprints?",
        ),
        acts=_rules(
            (
                "tracking or spying on a person",
                r"\b(?:stalk|spy on|spying on|surveil|keep tabs on|eavesdrop on|snoop on|"
                r"wiretap|bug) (?:[\w'-]+ ){0,3}?(?:someone|somebody|a person|people|other "
                r"people|him|her|them|(?:my|his|her|their|our) (?:[\w-]+ ){0,2}"
                + _RELATION
                + r"|"
                + _OWNER
                + r")\b"
                r"|\b(?:track|trace|locate|find|monitor|watch|follow|record|read|intercept|"
                r"access|see|check|look at|look through|go through|get|view|snoop through|tap|"
                r"clone|mirror) (?:[\w'-]+ ){0,3}?(?:someone|somebody|a person|people|other "
                r"people|him|her|them|(?:my|his|her|their|our) (?:[\w-]+ ){0,2}"
                + _RELATION
                + r"|"
                + _OWNER
                + r")(?:'s)? (?:[\w'-]+ ){0,2}?(?:location|whereabouts|phone|"
                r"cell|messages|texts|calls|conversations?|browsing|activity|movements|car|"
                r"every move|social media|dms|chats|photos|gps|history|online activity)\b"
                r"|\b(?:follow|track|watch|monitor|tail|trail) (?:[\w'-]+ ){0,2}(?:where|"
                r"wherever|everywhere) (?:she|he|they|someone|my \w+) (?:goes|go|lives|is|are|"
                r"works|went)\b",
                _HELP + r"|" + _CHILD,
            ),
            (
                "identifying or exposing a person",
                r"\bdox\w*\b|\b(?:find|get|look up|dig up|uncover|reveal|expose|discover|"
                r"figure out|identify|work out|track down|unmask|de-?anonymi[sz]e) (?:[\w'-]+ )"
                r"{0,3}?(?:where (?:[\w'-]+ ){0,4}lives?|(?:someone|somebody|a person|this "
                r"(?:person|girl|guy|woman|man|account|user)|an? (?:anonymous )?(?:account|"
                r"user|person|poster))'?s? (?:real |true )?(?:identity|name|address|home)|who "
                r"(?:is behind|owns|runs|posted|wrote) (?:an?|this|that|the) (?:anonymous )?"
                r"(?:account|profile|blog|username|post|review|comment)|(?:[\w'-]+ )?"
                r"whistle-?blower'?s? (?:identity|name))\b|\b(?:identify|recogni[sz]e|find) "
                r"(?:[\w'-]+ ){0,2}?" + _PERSON + r",? (?:[a-z]+ )?(?:from|in|by|using|through) "
                r"(?:a |an |this |their |his |her )?(?:photo|picture|image|voice|video|face|"
                r"gait)\b|\b(?:generate|give|provide|compile|make|create|share|publish) "
                r"(?:[\w'-]+ ){0,2}list (?:[\w'-]+ ){0,3}?(?:people|individuals|persons|"
                r"employees|patients|users|students|members) (?:who|with|that) (?:have|has|had|"
                r"are|were|tested|live with|suffer from) (?:[\w'-]+ ){0,2}(?:hiv|aids|cancer|"
                r"mental|depress\w*|stds?|herpes|diseases?|illness\w*|disorders?|criminal "
                r"records?|debts?|abortions?|been arrested|gay|lesbian|trans\w*|undocumented|"
                r"illegal)\b|\b(?:share|spread|post|publish|leak|forward|expose|distribute|"
                r"reveal|send) (?:[\w'-]+ ){0,3}?(?:someone'?s|a person'?s|their|his|her|my "
                r"\w+'s) (?:[\w'-]+ ){0,2}?(?:private |personal )?(?:messages|photos|pictures|"
                r"information|info|data|details|address|conversations|secrets|diary|medical|"
                r"emails|texts|chats)\b",
                r"\b(?:protect|prevent|remove|hide my|my own|report|stop)\w*\b",
            ),
            (
                "confidential information of an organisation",
                r"\b(?:share|disclose|reveal|provide|give|tell|leak|access|obtain|get|show|"
                r"copy|send|find|hand over|forward|steal) (?:[\w'-]+ ){0,7}?(?:classified|"
                r"confidential|secret|internal|undisclosed|unannounced|unreleased|"
                r"proprietary|trade secrets?|covert|insider|not (?:yet )?(?:been )?(?:publicly )"
                r"?(?:announced|disclosed|released|public))\b|\bwithout (?:official )?"
                r"(?:permission|authori[sz]ation)\b",
                r"\b(?:protect|secure|keep|prevent|my own|our own)\w*\b",
                _ORGANISATION,
            ),
        ),
        intents=_rules(
            (
                "a private person's personal data",
                r"^(?:what|which|who|where|when|how much|how many|is|are|does|do|did|has|have|"
                r"can you|could you|would you|tell me|give me|provide|find|show me|look up|"
                r"reveal|disclose|share|get me|i need|i want)\b.*\b"
                + _OWNER
                + r" ?(?:[\w'-]+ ){0,3}?(?:(?:home |residential |current |exact |physical |work "
                r"|mailing )?address(?:es)?|phone numbers?|cell numbers?|mobile numbers?|"
                r"e-?mail(?: address)?|e-?mails|passwords?|social security(?: numbers?)?|ssn|"
                r"passport(?: numbers?)?|driver'?s licen[cs]e(?: numbers?)?|licen[cs]e (?:plate|"
                r"number)|(?:credit|debit|credit/debit) card(?: numbers?| details)?|bank "
                r"(?:account|details|statements?)|account (?:numbers?|details)|pin|medical "
                r"(?:records?|history|conditions?|information|treatments?)|health (?:records?|"
                r"information|conditions?|issues?)|diagnos\w+|prescriptions?|medications?|"
                r"blood type|allerg\w+|surgery|surgeries|date of birth|birth ?date|"
                r"fingerprints?|dna(?: sequence)?|iris(?: pattern)?(?: scans?)?|facial "
                r"(?:patterns?|features|recognition)|voice(?: ?prints?| waves)?|gait|"
                r"biometric\w*|skin tone|location|whereabouts|gps|ip address|browsing (?:data|"
                r"history)|search history|messages|texts|chats|dms|private (?:messages|photos|"
                r"conversations)|call (?:logs|history)|criminal record|arrest record|grades|"
                r"report cards?|transcripts?|school records|disciplinary|scholarships?|"
                r"awards|degrees|certifications|courses|classmates|salary|net worth|"
                r"investments?|property|insured|insurance|financial (?:transactions|details|"
                r"information|records|situation)|transactions|debts?|credit score|marital "
                r"status|relationship status|sexual orientation|sexuality|political (?:beliefs|"
                r"views|affiliation)|religio\w+|personal (?:habits|information|details|life|"
                r"data)|friends or relatives|relatives|family members|free time|schedule|"
                r"daily routine|employer|workplace|social media (?:accounts?|profiles?)|"
                r"identity|real name|tax)\b",
                r"\b(?:help|support|plan|celebrate|buy|gift|prepare|organi[sz]e|remember|care "
                r"for|cope|deal|talk|protect|keep)\w*\b",
            ),
            (
                "a private person's personal data",
                r"\b(?:(?:home |residential |current )?address|phone number|social security "
                r"number|ssn|passport number|credit card (?:number|details)|bank (?:account|"
                r"details)|medical (?:records?|history)|date of birth|password|location|"
                r"whereabouts|fingerprints|criminal record) (?:of|for|belonging to) (?:[\w'-]+ )"
                r"{0,2}?(?:someone|somebody|a person|this (?:person|girl|guy|woman|man)|my "
                r"(?:[\w-]+ ){0,2}" + _RELATION + r"|" + _OWNER + r")|\b(?:what|which) (?:[\w'-]+ )"
                r"{0,2}(?:medications?|medicines?|pills|drugs|treatments?|diseases?|"
                r"conditions?|illness\w*|allerg\w+) (?:is|are|does|do|did|has|have) my "
                r"(?:[\w-]+ ){0,2}" + _RELATION + r"\b",
            ),
            (
                "a private person's personal data",
                r"\b(?:where (?:does|do|did) (?:[\w'-]+ ){0,3}?(?:my (?:[\w-]+ )?"
                + _RELATION
                + r"|someone|this (?:person|girl|guy|woman|man)),? (?:[a-z]+ )?(?:live|work|"
                r"stay|sleep|go)|(?:is|was) my (?:[\w-]+ ){0,2}" + _RELATION + r",? (?:[a-z]+ )?"
                r"(?:in a relationship|insured|gay|cheating|undergoing|dating|seeing someone|"
                r"currently undergoing)|(?:does|did|has|have) my (?:[\w-]+ ){0,2}"
                + _RELATION
                + r",? (?:[a-z]+ )?(?:have|had|receive|received|undergo|undergone|take|taken|"
                r"ever) (?:[\w'-]+ ){0,2}(?:allerg\w+|surgery|treatments?|scholarships?|awards?"
                r"|disciplinary|medications?|disease|condition|criminal|record|issues)|(?:what|"
                r"how) (?:[\w'-]+ ){0,3}(?:does|do|did) my (?:[\w-]+ ){0,2}"
                + _RELATION
                + r",? (?:[a-z]+ )?(?:spend|earn|pay|owe|make|take|do in|look like)|(?:can|could)"
                r" my (?:[\w-]+ ){0,2}" + _RELATION + r",? (?:[a-z]+ )?afford|(?:who|what) "
                r"(?:are|were|is) my (?:[\w-]+ ){0,2}" + _RELATION + r",? (?:[a-z]+'s )?"
                r"(?:friends|relatives|classmates|teachers|political|personal|grades|"
                r"financial))\b",
            ),
            (
                "confidential information of an organisation",
                r"\b(?:what|which) (?:is|are|were|was) (?:the|their|its) (?:[\w'-]+ ){0,2}?"
                r"(?:classified|confidential|secret|internal|undisclosed|unannounced|"
                r"covert|proprietary|stealth)\b|\b(?:classified|confidential|undisclosed|"
                r"unannounced|covert) (?:[\w'-]+ ){0,2}(?:operations?|missions?|plans?|"
                r"projects?|patents?|technolog(?:y|ies)|partnerships?|actions?|documents?|"
                r"files|emails|communications|deals?|negotiations|meetings?|research|"
                r"products?|prototypes?|algorithms?|source code|strateg(?:y|ies)|budgets?|"
                r"information|details|data|advancements|precautions|measures)\b|\b(?:secret|"
                r"undisclosed|unannounced) (?:[\w'-]+ ){0,2}(?:operations?|missions?|plans?|"
                r"projects?|patents?|technolog(?:y|ies)|partnerships?|strateg(?:y|ies)|deals?|"
                r"business)\b|\btrade secrets?\b|\bstealth mode\b|\bhave not (?:been )?"
                r"publicly announced\b|\bnot (?:been )?(?:publicly )?(?:announced|disclosed)\b"
                r"|\binternal (?:communications?|emails?|documents?|memos?|newsletters?|"
                r"legal documents?|disagreements|conflicts|strateg(?:y|ies)|discussions?|"
                r"investigations?|audits?|reports?|policies|procedures?|meetings?)\b",
                r"\b(?:what (?:is|are) (?:a |an )?(?:trade secrets?|classified information)\??$"
                r"|protect\w*|keep\w*|our own|my own)\b",
                _ORGANISATION,
            ),
        ),
    ),
    Category(
        name="illegal access",
        topic=_topic(
            r"hack\w*|crack\w*|passwords?|passcodes?|logins?|credentials?|malware|ransomware",
            r"spyware|stalkerware|keylogg\w+|trojans?|botnets?|ddos|dos attacks?|exploit\w*",
            r"vulnerabilit(?:y|ies)|zero-?days?|payloads?|reverse shells?|rootkits?|backdoors?",
            r"phishing|sql ?injections?|sqli|xss|brute[- ]?forc\w+|bypass\w*|jailbreak\w*",
            r"lock ?pick\w*|pick (?:a|the) lock|break(?:ing)? into|broke into|get into|burglar\w*",
            r"intru\w+|trespass\w*|surveil\w*|spy\w*|tracking devices?|gps trackers?|trackers?",
            r"security (?:systems?|cameras?|codes?|protocols?|measures?|questions?)|alarms?",
            r"servers?|networks?|firewalls?|antivirus|decrypt\w*|2fa|two-factor|captchas?",
            r"paywall\w*|viruses|computer virus|worms?|hotwir\w+|without (?:the |a )?keys?",
            r"unauthori[sz]ed|cyber\w*|wi-?fi (?:password|network)|weak(?:est)? points?",
            r"security flaws?|penetrat\w+|scrap\w+|bots?|accounts|drm|license keys?|pin codes?",
        ),
        acts=_rules(
            (
                "unauthorised access",
                r"\b(?:gain|gains|gaining|get|gets|getting|obtain|obtains|obtaining|have) "
                r"(?:[\w'-]+ ){0,2}unauthori[sz]ed access\b|\b(?:hack\w*|break\w* into|get\w* "
                r"into|access\w*) (?:[\w'-]+ ){0,4}?(?:terminal|shell|sudo|root access|admin "
                r"access|machine|host|server|network|system)s? (?:[\w'-]+ ){0,3}(?:that|which) "
                r"(?:i|we|you) (?:do not|don't|doesn't) (?:own|have access to)\b|\b(?:ddos|"
                r"denial[- ]of[- ]service)\b",
                r"\b(?:protect|prevent|defend|mitigat|detect|stop|report|what is|how does)\w*\b",
            ),
            (
                "breaking into an account or system",
                r"\b(?:hack|hacking|hacked|crack|cracking|break into|breaking into|brute[- ]?"
                r"force|phish|hijack|hijacking|breach|breaching|infiltrate|infiltrating|"
                r"compromise|compromising|penetrate|spoof|intercept|intercepting|sniff|"
                r"snoop on|take over|taking over) (?:[\w'-]+ ){0,5}?(?:accounts?|e-?mails?|"
                r"inbox|mailbox|passwords?|passcodes?|pins?|login|logins|credentials|phones?|"
                r"iphones?|androids?|laptops?|computers?|devices?|networks?|wi-?fi|routers?|"
                r"servers?|databases?|systems?|websites?|sites?|apps?|cameras?|webcams?|icloud|"
                r"facebook|instagram|snapchat|whatsapp|gmail|outlook|bank|atms?|voting "
                r"machines?|smart ?locks?|2fa|two-factor|firewalls?|security|records|files|"
                r"messages|texts|dms|chats|cloud|portal|intranet|mainframe|grid|"
                r"infrastructure|hashes|hashed passwords?)\b",
                r"\bmy own\b|\b(?:protect|secure|prevent|defend|recover|report|stop|avoid|"
                r"detect|was hacked|been hacked|got hacked)\w*\b",
            ),
            (
                "getting into someone else's account or device",
                r"\b(?:get into|getting into|gain access to|access|accessing|log ?into|log in "
                r"to|bypass|bypassing|guess|steal|stealing|unlock|jailbreak|disable|get around"
                r"|circumvent|defeat|override|read|see|view|obtain|retrieve|reset|"
                r"change|delete|wipe|corrupt|encrypt|lock|monitor|spy on|clone|install "
                r"(?:[\w'-]+ ){0,2}on) (?:[\w'-]+ ){0,5}?(?:accounts?|e-?mails?|inbox|mailbox|"
                r"passwords?|passcodes?|pins?|logins?|credentials|phones?|iphones?|androids?|"
                r"laptops?|computers?|devices?|networks?|wi-?fi|routers?|servers?|databases?|"
                r"systems?|websites?|cameras?|webcams?|icloud|gmail|2fa|two-factor|captchas?|"
                r"firewalls?|antivirus|paywalls?|drm|license keys?|records|files|hard drives?|"
                r"messages|texts|dms|chats|browsing (?:data|history)|medical records?)\b",
                r"\bmy own\b|\b(?:protect|secure|prevent|defend|recover|report|stop|avoid|"
                r"detect|forgot|forgotten|lost|locked out)\w*\b",
                _THIRD_PARTY,
            ),
            (
                "malicious software or attacks",
                r"\b(?:write|writing|create|creating|make|making|build|building|develop|code|"
                r"program|generate|generating|design|spread|spreading|deploy|distribute|"
                r"install|plant|inject|hide|obfuscate|obfuscating|launch|launches|run|runs|"
                r"running|perform|performs|conduct|carry out|execute|executes|use|using|set up|"
                r"release|craft|crafting|send|provide|give) (?:[\w'-]+ ){0,6}?"
                r"(?:malware|(?:computer )?virus(?:es)?|worms?|trojans?|ransomware|spyware|"
                r"stalkerware|keyloggers?|rootkits?|backdoors?|botnets?|logic bombs?|exploits?"
                r"|payloads?|reverse shells?|rats?|remote access trojans?|cryptominers?|"
                r"credential stealers?|info-?stealers?|ddos|dos attacks?|denial[- ]of[- ]"
                r"service|syn floods?|(?:dns )?amplification|brute[- ]force attacks?|phishing|"
                r"man-in-the-middle|mitm|sql ?injections?|sqli|xss|cross-site scripting|"
                r"credential stuffing|cyber ?attacks?|rainbow tables?|zero-?days?|"
                r"drive-by downloads?|skimmers?|card skimmers?|(?:[\w-]+ )?vulnerabilit(?:y|"
                r"ies)|password crackers?|packet sniffers?|fake (?:login|bank|website|page)s?)"
                r"\b|\bflood\w* (?:a |the )?(?:website|server|network|site|router) with "
                r"(?:traffic|requests|packets)\b|\b(?:script|program|code|software|tool|macro|"
                r"app|file|usb stick|usb)s? "
                r"(?:[\w'-]+ ){0,3}?(?:that|which|to) (?:[\w'-]+ ){0,2}?(?:corrupts?|bricks?|"
                r"infects?|steals?|floods?|overloads?|crash(?:es)?|takes? down|self-replicat\w+|"
                r"spreads? itself|logs? keystrokes|records? "
                r"keystrokes|hijacks?|exfiltrates?|wipes? (?:the |a |their |someone'?s )?(?:hard "
                r")?(?:drive|disk)|encrypts? (?:[\w'-]+ ){0,3}(?:files|drive|disk|data) "
                r"(?:[\w'-]+ ){0,4}(?:ransom|victim|pay))\b|\b(?:upon|when|once) (?:being )?"
                r"(?:inserted|plugged in|opened|clicked|executed)\b|\b(?:sql ?injection|sqli|xss|"
                r"buffer overflow|rce|remote code execution|privilege escalation|blind sql) "
                r"(?:[\w'-]+ ){0,2}(?:attacks?|payloads?|exploits?)\b|\bpayloads? (?:for|to) "
                r"(?:[\w'-]+ ){0,4}(?:attack|exploit|exfiltrat\w+|reveal|bypass|dump)\w*\b",
                r"\b(?:protect|prevent|defend|detect|remove|removing|clean|scan|recover|report|"
                r"stop|avoid|analy[sz]e|mitigat|patch|fix|got|was infected|been infected)\w*\b",
            ),
            (
                "evading security software",
                r"\b(?:evade|evading|bypass|bypassing|avoid|avoiding|get past|slip past|"
                r"disable|disabling|turn off|defeat) (?:[\w'-]+ ){0,3}?(?:antivirus|anti-virus|"
                r"edr|detection|wafs?|ids|endpoint protection|security software|filtering "
                r"tools?|sandbox|content filters?|captchas?|rate limits?)\b|\bdelet\w* "
                r"(?:[\w'-]+ ){0,2}logs\b|\bexfiltrat\w*\b|\bdeface\w*\b|\bexploit\w* "
                r"(?:[\w'-]+ ){0,3}(?:vulnerabilit(?:y|ies)|bugs?|flaws?|weakness\w*)\b",
                r"\b(?:protect|prevent|defend|detect|patch|fix|mitigat)\w*\b",
            ),
            (
                "getting credentials",
                r"\b(?:give|tell|send|show|reveal|share|provide|list|leak|dump|get) (?:me )?"
                r"(?:[\w'-]+ ){0,3}?(?:admin|root|administrator|server|database|system|"
                r"someone'?s|his|her|their|other (?:users|people)'?s?) (?:[\w'-]+ )?(?:passwords?"
                r"|credentials|logins?|api keys?|private keys?|tokens?)\b",
            ),
            (
                "breaking in",
                r"\b(?:break into|breaking into|burgle|burglari[sz]e|rob|robbing|sneak into) "
                r"(?:[\w'-]+ ){0,3}?(?:someone'?s |a neighbou?r'?s |my (?:[\w-]+ )?"
                + _RELATION
                + r"'?s |his |her |their |an? |the )?(?:[\w'-]+ )?(?:house|home|apartment|flat|"
                r"building|office|car|vehicle|safe|locker|room|store|shop|warehouse|garage|shed"
                r"|mailbox|property|bank)\b|\b(?:get into|getting into|enter|entering|open|"
                r"opening|unlock|unlocking|pick the locks? (?:on|of)|get inside) (?:[\w'-]+ )"
                r"{0,3}?(?:someone'?s|a neighbou?r'?s|my (?:[\w-]+ )?"
                + _RELATION
                + r"'?s|his|her|their|other people'?s|a stranger'?s) (?:[\w'-]+ )?(?:house|home|"
                r"apartment|flat|building|office|car|vehicle|safe|locker|room|garage|shed|"
                r"mailbox|property)\b|\b(?:car|house|home|apartment|room) (?:that|which) "
                r"(?:isn't|is not|aren't|are not) (?:mine|theirs|his|hers|yours|ours)\b|"
                r"\bhotwir\w+\b|\b(?:disable|remove|defeat|jam|block|cut) (?:[\w'-]+ ){0,3}?"
                r"(?:gps trackers?|trackers?|tracking devices?|alarms?|security cameras?|cctv|"
                r"ankle monitors?|immobili[sz]ers?|seatbelt alarms?|smoke detectors?)\b|"
                r"\b(?:block|restrict|cut off) (?:[\w'-]+ ){0,2}(?:his|her|their|someone'?s|my "
                r"\w+'s) (?:access|internet|wi-?fi)\b|\b(?:filter|block) (?:[\w'-]+ ){0,4}on "
                r"(?:my|his|her|their|someone'?s) (?:[\w-]+ )?(?:boss|coworker|co-worker|"
                r"colleague|roommate|neighbou?r)'s\b",
                r"\b(?:locked out|my own|lost (?:my|the) keys?|protect|prevent|secure|report|"
                r"stop)\w*\b",
            ),
        ),
        intents=_rules(
            (
                "probing an organisation's defences",
                r"\b(?:weak(?:est)? (?:points?|spots?|links?)|vulnerabilit(?:y|ies)|exploits?|"
                r"security (?:holes|flaws|gaps|weakness\w*)|weakness\w*|backdoors?|how secure) "
                r"(?:[\w'-]+ ){0,4}(?:in|of|at|is) (?:[\w'-]+ ){0,2}[a-z0-9-]+'s (?:[\w'-]+ )"
                r"{0,2}(?:network|system|systems|database|servers?|security|cyber\w*|website|"
                r"infrastructure|software|app|defen[cs]es?|firewall|it|client|customer|data)\b",
            ),
        ),
    ),
    Category(
        name="drugs",
        topic=_topic(
            r"drugs?|meth|methamphetamines?|amphetamines?|crystal meth|heroin|cocaine",
            r"crack cocaine|fentanyl|opioids?|opiates?|oxycodone|oxycontin|morphine|codeine",
            r"lsd|mdma|ecstasy|molly|dmt|ghb|ketamine|pcp|psilocybin|magic mushrooms|shrooms",
            r"cannabis|marijuana|weed|thc|benzodiazepines?|benzos?|xanax|valium|adderall",
            r"ritalin|steroids?|safrole|precursors?|pseudoephedrine|get(?:ting)? high|stoned",
            r"inhalants?|narcotics?|dealers?|drug tests?|recreational\w*",
            r"controlled substances?|substance abuse|overdos\w*|syringes?|needles?|alcohol",
            r"drunk|drinking|vap\w+|nicotine|tobacco|opium|kratom|psychedelic\w*|lithium",
            r"mao inhibitors?|antidepressants?|mind-altering|psychoactive|hallucinogen\w*",
            r"intoxicant\w*|alkaloids?",
        ),
        acts=_rules(
            (
                "extracting a drug from plants",
                r"\b(?:extract\w*|isolat\w*|distil\w*|purif\w*|concentrat\w*|refin\w*) "
                r"(?:[\w'-]+ ){0,3}(?:mind-altering|psychoactive|hallucinogenic|intoxicating|"
                r"narcotic|active|toxic|poisonous)? ?(?:substances?|compounds?|alkaloids?|"
                r"drugs?|chemicals?|toxins?|poisons?) (?:[\w'-]+ ){0,2}from (?:[\w'-]+ ){0,2}"
                r"(?:plants?|mushrooms?|fungi|seeds?|bark|roots?|leaves|flowers?|cacti|cactus|"
                r"toads?|frogs?)\b",
                r"\b(?:essential oils?|dyes?|pigments?|dna|chlorophyll|juice|flavou?rs?|"
                r"scents?|perfumes?|history|why|safe(?:ly|ty)?)\b",
            ),
            (
                "making drugs",
                r"\b(?:make|making|cook|cooking|synthesi[sz]e|synthesi[sz]ing|synthesis of|"
                r"produce|producing|manufactur\w+|extract|extracting|extraction of|brew|"
                r"brewing|grow|growing|cultivate|cultivating|refine|refining|purify|isolate|"
                r"distil|distill|precursors? (?:for|to|of)|ingredients (?:for|of|to make)|"
                r"recipe for|production of) (?:[\w'-]+ ){0,5}?(?:meth|methamphetamines?|"
                r"amphetamines?|heroin|cocaine|crack cocaine|fentanyl|lsd|mdma|ecstasy|dmt|ghb|"
                r"ketamine|pcp|opium|morphine|oxycodone|drugs|narcotics|safrole|"
                r"pseudoephedrine|psilocybin|magic mushrooms|hashish|bath salts|krokodil|"
                r"desomorphine|purple drank|carfentanil|nitazenes?|crystal meth)\b",
                r"\b(?:test|detect|treat|recover|quit|stop|avoid|prevent)\w*\b",
            ),
            (
                "getting or dealing drugs",
                r"\b(?:buy|buying|get(?! rid)|getting(?! rid)|obtain|obtaining|find|finding|order|"
                r"ordering|source|sourcing|score|scoring|purchase|purchasing|acquire|acquiring)"
                r" (?:[\w'-]+ ){0,4}?(?:meth|heroin|cocaine|fentanyl|lsd|mdma|ecstasy|"
                r"ketamine|ghb|dmt|illegal drugs|street drugs|narcotics|opioids|oxy\w*|xanax|"
                r"adderall|benzos?|percocet|vicodin|a (?:drug |substance abuse )?dealer|(?:drug "
                r"|substance )?dealers?|controlled substances?)\b"
                r"|\bwithout (?:a |needing a |any )?prescription\b|\b(?:smuggl\w+|traffick\w*|"
                r"sell|selling|deal|dealing|distribute|distributing|move|moving|push|pushing) "
                r"(?:[\w'-]+ ){0,4}?(?:drugs|narcotics|cocaine|heroin|meth|fentanyl|pills|"
                r"ecstasy|mdma|lsd|opioids|controlled substances?)\b",
                r"\b(?:treat\w*|recover\w*|quit\w*|stop\w*|avoid\w*|prevent\w*|report\w*|help "
                r"(?:a|my) \w+)\b",
            ),
            (
                "getting high",
                r"\bget(?:ting)? high\b|\b(?:pass|beat|cheat|fool|trick|get past|fake) (?:[\w'-]+ )"
                r"{0,2}?(?:drug|urine|piss|hair) tests?\b|\b(?:inhale|inhaling|huff|huffing|"
                r"sniff|sniffing|snort|snorting|inject|injecting|smoke|smoking|shoot up|"
                r"freebase|freebasing|crush|crushing) (?:[\w'-]+ ){0,3}?(?:to get high|"
                r"aerosols?|glue|paint|gasoline|petrol|cocaine|heroin|meth|pills|crushed|"
                r"oxy\w*|adderall|xanax|nitrous|whippets|keyboard cleaner|markers)\b|"
                r"\b(?:use|using|take|taking|abuse|abusing|misuse|misusing) (?:[\w'-]+ ){0,3}?"
                r"(?:prescription (?:drugs?|medications?|pills|meds)|medications?|pills|"
                r"meds|cough syrup|over-the-counter (?:drugs|meds|medications?)) (?:[\w'-]+ )"
                r"{0,2}(?:recreationally|for fun|to get high|for a high|to trip)\b|\bhigh on "
                r"(?:[\w'-]+ ){0,2}(?:over-the-counter|otc|cough|cold|household|prescription)\b"
                r"|\b(?:convince|persuade|encourage|get|pressure|talk|push|trick) (?:[\w'-]+ )"
                r"{0,4}?(?:to |into )(?:try|trying|use|using|start using|take|taking|do|doing|"
                r"smoke|smoking|drink|drinking|vape|vaping|inject) (?:[\w'-]+ ){0,2}?(?:drugs|"
                r"meth|heroin|cocaine|pills|weed|alcohol|vap\w+|ecstasy|mdma|lsd)\b|\b(?:to|"
                r"into) (?:start )?using drugs\b",
                r"\b(?:signs|recogni[sz]e|treat\w*|recover\w*|quit\w*|stop\w*|help (?:a|my) \w+"
                r"|prevent\w*|talk to my)\b",
            ),
            (
                "drinking and driving",
                r"(?<!from )(?<!stop )(?<!avoid )(?<!not )\b(?:drive|driving) (?:[\w'-]+ ){0,3}?"
                r"(?:after drinking|drunk|under the influence|while (?:drunk|high|"
                r"intoxicated))\b",
                r"\b(?:stop|prevent|avoid|report|dangers?|risks?|penalt\w+|consequences)\b",
            ),
        ),
    ),
    Category(
        name="fraud and forgery",
        topic=_topic(
            r"fraud\w*|scam\w*|forg(?:e|ed|es|ing|ery|eries)|counterfeit\w*|fake\w*|launder\w*",
            r"embezzl\w+|steal\w*|stole|stolen|theft|thie(?:f|ves)|shoplift\w*|rob|robb\w+",
            r"burglar\w*|pickpocket\w*|smuggl\w+|black market|dark ?web|pira\w+|brib\w+",
            r"tax evasion|evade taxes|ponzi|pyramid schemes?|skimm\w+|cheques?|micr",
            r"identity theft|insider trading|chop shops?|ivory|organs|contraband|offshore",
            r"tax havens?|loophole\w*|lie|lying|cheat\w*|plagiari\w+|spam\w*|chain letters?",
            r"clickbait|unsolicited|impersonat\w+|posing as|pretend\w* to be|social security",
            r"ssn|credit cards?|debit cards?|card numbers?|bank (?:accounts?|details)",
            r"wire transfers?|gift cards?|patent\w*|copyright\w*|trademark\w*|illegal\w*",
            r"criminal\w*|crime\w*|hide (?:money|assets|income)|paywalled|for free",
        ),
        acts=_rules(
            (
                "luring someone into a scam",
                r"\b(?:trick|tricks|tricking|lure|lures|luring|dupe|dupes|con|cons) (?:[\w'-]+ )"
                r"{0,3}(?:into|to) (?:[\w'-]+ ){0,4}(?:scams?|fraud|phishing|giving|sending|"
                r"paying|revealing|wiring|transferring|investing)\b|\b(?:writing|posting|"
                r"buying|generating) (?:[\w'-]+ ){0,2}(?:fabricated|false|bogus|fraudulent) "
                r"(?:[\w'-]+ ){0,2}reviews?\b",
                r"\b(?:spot|detect|avoid|protect|report|recogni[sz]e|victims?)\w*\b",
            ),
            (
                "forging or faking documents",
                r"\b(?:forge|forging|fake|faking|counterfeit|counterfeiting|falsify|falsifying|"
                r"fabricate|fabricating|alter|altering|doctor|doctoring|tamper with|tampering "
                r"with|photoshop|photoshopping) (?:[\w'-]+ ){0,3}?" + _DOCUMENTS + r"\b"
                r"|\b(?:forge|forging|fake|faking|counterfeit|counterfeiting) (?:[\w'-]+ )"
                r"{0,3}?(?:designer (?:goods|bags?|clothes|items)|goods|products|coupons|"
                r"tickets|art|paintings?|coins?|brands?|logos?|an illness|illness|injur\w+|"
                r"(?:my|a|his|her) death|a kidnapping)\b"
                r"|\b(?:make|making|create|creating|print|printing|produce|buy|buying|get|"
                r"getting|obtain|order|sell|selling|use|using|write|writing|generate|post|"
                r"posting|leave|leaving) (?:[\w'-]+ ){0,2}?(?:a |an |some )?(?:fake|forged|"
                r"counterfeit|false|phony|phoney|bogus|fraudulent|fabricated|doctored) (?:[\w'-]+"
                r" ){0,2}?(?:" + _DOCUMENTS[3:-1] + r"|accounts?|profiles?|"
                r"websites?|charit(?:y|ies)|job offers?|invoices?|tickets|goods|products|"
                r"designer \w+|identit(?:y|ies))\b",
                r"\b(?:spot|detect|identify|recogni[sz]e|tell if|report|avoid|protect)\w*\b",
            ),
            (
                "fraud, theft and smuggling",
                r"\b(?:launder(?:ing)?|clean) (?:[\w'-]+ ){0,2}(?:money|cash|funds|proceeds|"
                r"profits|crypto\w*|bitcoin|earnings)\b|\bmoney laundering\b|\bembezzl\w+\b|"
                r"\b(?:commit|committing|carry out|pull off|get away with|run|running|set up) "
                r"(?:an? )?(?:fraud|scams?|theft|robbery|burglary|heist|insurance fraud|tax "
                r"evasion|tax fraud|identity theft|wire fraud|credit card fraud|check fraud|"
                r"cheque fraud|benefit fraud|welfare fraud|mail fraud|bank fraud|ponzi schemes?|"
                r"pyramid schemes?|embezzlement|extortion|con)\b"
                r"|\b(?:steal|stealing|shoplift|shoplifting|rob|robbing|pickpocket|"
                r"pickpocketing|burgle|loot|looting|snatch|pilfer)(?! (?:the show|a glance|a "
                r"base|the spotlight|(?:someone'?s|her|his|their|my) heart|a kiss|the "
                r"limelight|ideas|focus)\b) (?:[\w'-]+ ){0,4}?[\w'-]+\b"
                r"|\bskim(?:ming)? (?:[\w'-]+ ){0,2}(?:credit|debit|cards?)\b|\bcard skimm\w+\b"
                r"|\b(?:use|using|buy|buying|sell|selling|get|find|obtain|fence|move|cash out|"
                r"launder) (?:[\w'-]+ ){0,3}?stolen\b|\bbuyers? for (?:[\w'-]+ ){0,2}stolen\b|"
                r"\bchop shops?\b|\b(?:buy|sell|find|get|order|hire|obtain|purchase|access) "
                r"(?:[\w'-]+ ){0,5}?(?:on|from|through|via|in) (?:the )?(?:black market|dark "
                r"?web)\b|\bblack market (?:websites?|sites?|vendors?|dealers?|buyers?|"
                r"contacts?)\b|\bsmuggl\w+ (?:[\w'-]+ ){0,4}?(?:cash|money|drugs|goods|contraband"
                r"|people|migrants|weapons|guns|ivory|diamonds|animals|pets|bombs?|alcohol|"
                r"cigarettes|items|stuff|things|products|it|them|across|into|through|out|past|"
                r"undetected)\b|\b(?:sell|selling|buy|buying|trade|trading|transport\w*) "
                r"(?:[\w'-]+ ){0,3}?(?:ivory|rhino horns?|human organs|organs|kidneys|"
                r"endangered|exotic (?:pets|animals)|protected species)\b"
                r"|\b(?:hide|hiding|conceal|concealing|stash|move|moving|shelter|sheltering|"
                r"funnel) (?:[\w'-]+ ){0,3}?(?:money|assets|income|cash|funds|earnings|"
                r"profits|wealth|property) (?:[\w'-]+ ){0,4}?(?:from (?:the )?(?:authorities|"
                r"irs|taxman|tax|government|police|courts?|creditors|bankruptcy|hmrc|my (?:wife|"
                r"husband|spouse|partner|ex)|(?:his|her|my) ex)|offshore|abroad|overseas)\b|"
                r"\b(?:evade|evading|dodge|dodging|cheat on|cheating on) (?:[\w'-]+ ){0,2}?"
                r"tax(?:es)?\b|\btax havens? (?:[\w'-]+ ){0,4}?(?:dodge|avoid|evade|hide)\b|"
                r"\b(?:dodge|evade|hide) (?:[\w'-]+ ){0,6}?offshore\b"
                r"|\b(?:scam|scamming|defraud|defrauding|con|conning|swindle|swindling|fleece|"
                r"rip off) (?:[\w'-]+ ){0,3}?(?:people|someone|somebody|elderly|old people|the "
                r"elderly|seniors|customers|investors|victims|grandparents|them|him|her|"
                r"tourists|strangers|insurance|insurers|the government|the system|banks?|"
                r"employers?|casinos?|a casino|the lottery)\b|\bromance scams?\b|\b(?:ponzi|"
                r"pyramid) schemes?\b|\bchain letters?\b|\bcheat (?:[\w'-]+ ){0,2}(?:insurance|"
                r"casinos?|a casino|the lottery|customers|investors)\b",
                r"\b(?:spot|detect|identify|recogni[sz]e|tell if|report|avoid|protect|prevent|"
                r"stop|victim|was i|been scammed|got scammed)\w*\b",
            ),
            (
                "theft of services and property",
                r"\b(?:pirate|pirating|torrent|torrenting|crack|cracking|illegally download\w*)"
                r" (?:[\w'-]+ ){0,2}?(?:software|movies?|films?|games?|music|windows|photoshop|"
                r"office|apps?|books?|shows?|series|content|programs?)\b|\b(?:paywalled|"
                r"premium|paid) (?:[\w'-]+ ){0,2}(?:articles?|content|shows?|software|apps?) "
                r"(?:[\w'-]+ ){0,2}for free\b|\bfor free (?:[\w'-]+ ){0,3}without paying\b|"
                r"\bcopy (?:[\w'-]+ ){0,2}(?:patented|copyrighted|trademarked)\b|\b(?:insider "
                r"trading|front[- ]running|pump and dump|wash trading)\b|\b(?:manipulate|rig) "
                r"(?:[\w'-]+ ){0,2}?(?:stock (?:market|prices?)|the market|markets|elections?|the "
                r"lottery|votes?|ballots?|matches|odds|polls)\b|\bbrib(?:e|ing) (?:[\w'-]+ )"
                r"{0,2}?(?:an? |the )?(?:official|officials|judge|cop|officer|police|inspector|"
                r"customs|politician|referee|guard|clerk)\w*\b",
            ),
            (
                "social engineering",
                r"\bphishing (?:[\w'-]+ )?(?:e-?mails?|messages?|texts?|sites?|pages?|scams?|"
                r"links?|kits?|campaigns?)\b|\b(?:text|e-?mail|message|letter|call|script|"
                r"sms)s? (?:[\w'-]+ ){0,8}?(?:(?:claiming|pretending|saying) (?:[\w'-]+ ){0,6}?"
                r"(?:security (?:issue|problem|alert|breach)|problem with|suspended|locked|"
                r"won|prize|lottery|refund|verify|urgent|irs|bank|police|overdue)|posing as|"
                r"impersonating|from (?:'|\")?(?:it support|tech support|your bank|the bank|"
                r"the irs|paypal|amazon|microsoft|apple|the police|hmrc|customer service))\b|"
                r"\bfake (?:[\w'-]+ ){0,2}(?:login|sign-?in|bank|banking) (?:pages?|sites?|"
                r"websites?|portals?)\b|\b(?:convinc\w+|persuad\w+|trick\w*|manipulat\w+|coax\w*|"
                r"pressur\w+|dupe) (?:[\w'-]+ ){0,4}?(?:to |into )?(?:share|sharing|give|giving|"
                r"send|sending|reveal|revealing|confirm|confirming|provide|enter|hand over|"
                r"tell me) (?:[\w'-]+ ){0,3}?(?:social security|ssn|passwords?|bank (?:details|"
                r"account)|credit card|card numbers?|pins?|login details|logins?|credentials|"
                r"security codes?|one-time codes?|2fa codes?|verification codes?)\b|"
                r"\bconfirm (?:their|your|his|her) (?:login|password|bank|account) "
                r"(?:details|credentials|information)\b|\b(?:impersonat\w+|pose as|posing as|"
                r"pretend\w* to be) (?:[\w'-]+ ){0,2}?(?:an? |the )?(?:police|cop|officer|irs|"
                r"tax|bank|official|government|doctor|nurse|lawyer|it support|tech support|"
                r"microsoft|apple|amazon|paypal|someone else|another person|a celebrity|my "
                r"boss|ceo|customer service)\b",
                r"\b(?:spot|detect|identify|recogni[sz]e|tell if|report|avoid|protect|prevent|"
                r"train\w* (?:staff|employees)|awareness)\w*\b",
            ),
        ),
        intents=_rules(
            (
                "trading stolen data",
                r"\b(?:buy|sell|use|find|get|obtain|purchase)\w* (?:[\w'-]+ ){0,3}stolen "
                r"(?:credit card|card|identit(?:y|ies)|data|accounts?|passwords?|credentials|"
                r"information)\b",
            ),
        ),
    ),
    Category(
        name="disinformation",
        topic=_topic(
            r"hoax\w*|conspirac\w+|fake news|propaganda|misinformation|disinformation|myths?",
            r"faked|cover[- ]?ups?|rigged|stolen election|voter fraud|election fraud",
            r"flat earth\w*|chemtrails?|microchips?|5g|anti-?vax\w*|plandemic|deep state|qanon",
            r"false flags?|crisis actors?|denial|deny\w*|deni\w+|never happened|didn't happen",
            r"lab leak|persuasive|convincing|fabricat\w+|defamatory|defam\w+|libel\w*",
            r"slander\w*|deepfakes?|rumou?rs?|viral|clickbait|astroturf\w*|sock ?puppets?",
            r"misleading|falsely|false|true|truth|lies|a lie|claim\w*|allegations?|alleged\w*",
            r"supposedly|cure\w*|miracle|narratives?|agenda|brainwash\w*|scandal\w*",
            r"discredit\w*|smear\w*|election\w*|ballots?|vaccin\w+|autism|covid\w*|pandemic",
            r"climate change|global warming|evolution|moon landing|aliens?|bigfoot|psychics?",
            r"astrology|horoscopes?|homeopath\w*|essential oils|detox\w*|end of the world",
            r"time travel|perpetual motion|mermaids?|dinosaurs? (?:alive|living)|self-aware",
        ),
        acts=_rules(
            (
                "arguing a conspiracy or a falsehood",
                r"\b(?:argue|prove|show|evidence|proof|explain why|convince \w+)\w* (?:[\w'-]+ )"
                r"{0,4}that (?:[\w'-]+ ){0,8}?(?:is flat|flat earth|(?:was|were|is|are) (?:a )?"
                r"(?:hoax|staged|faked|fake|rigged|inside job)|never happened|causes? autism|"
                r"microchips?|chemtrails|illuminati|new world order|reptilians?|lizard people|"
                r"controlled by (?:an? )?(?:elite|secret|shadow|cabal))\b|\b(?:illuminati|new "
                r"world order|reptilians?|lizard people)\b",
                r"\b(?:debunk\w*|refut\w*|why do (?:some )?people|what is|history of|origin)\b",
            ),
            (
                "persuasive content for a false or harmful claim",
                r"\b(?:persuasive|convincing|compelling|one-sided|viral|misleading|"
                r"sensational\w*|emotional|inflammatory)? ?(?:article|essay|post|blog(?: post)?|"
                r"tweets?|thread|message|e-?mail|letter|speech|argument|story|news(?: story| "
                r"article| report)?|op-?ed|social media posts?|advertisement|ad|script|pamphlet|"
                r"flyer|leaflet|headline|press release|piece|video|podcast|sermon|manifesto|"
                r"testimonial)s? (?:[\w'-]+ ){0,14}?(?:hoax|myths?|fake|faked|fabricat\w+|"
                r"propaganda|conspirac\w+|cover[- ]?ups?|never happened|didn't happen|did not "
                r"happen|not real|(?:is|was|were|are) (?:a )?lies?|rigged|voter fraud|"
                r"election fraud|stolen election|politically motivated|lab leak|5g|microchips?|"
                r"chemtrails|flat earth|addicted to|falsely|staged|inside job)\b",
                r"\b(?:debunk\w*|refut\w*|counter\w*|fact-?check\w*|explain\w* why (?:[\w'-]+ )"
                r"{0,3}(?:false|wrong|a myth)|spot|identify|recogni[sz]e)\b",
            ),
            (
                "persuasive content for a false or harmful claim",
                r"(?:\b(?:persuasive|convincing|compelling|one-sided|viral|misleading|"
                r"sensational\w*|inflammatory) (?:[\w'-]+ ){0,2}"
                + _CONTENT
                + r"s?\b|\b"
                + _CONTENT
                + r"s? (?:[\w'-]+ ){0,2}(?:to (?:convince|persuade)|convincing|persuading|"
                r"arguing|claiming|suggesting|proving|to prove|to show|showing)\b)"
                r"(?=.*\b(?:(?:actually|ultimately|primarily|solely|purely|mainly|only|really)"
                r" (?:[\w'-]+ ){0,2}?(?:beneficial|better|good|defensive|natural|internal|"
                r"initiated|responsible|caused|a)|beneficial|downplay\w*|deny\w*|denial|caus\w+ "
                r"(?:[\w'-]+ ){0,2}?(?:covid|autism|cancer|the pandemic|infertility|death|"
                r"deaths|disease)|involved in|racist (?:jokes|remarks|comments)|sexual "
                r"(?:assault|misconduct)|new (?:[\w'-]+ ){0,2}(?:evidence|recording|documents?|"
                r"emails?|photos?|video)|discourag\w+|(?:don't|do not|never|stop) (?:[\w'-]+ )"
                r"{0,2}(?:wear\w*|get\w*|vaccinat\w+|tak\w+)|honey|detergent|bleach|scam|fraud|"
                r"terrorists?|criminals?|more likely to be|inherently|glorif\w+|superior|"
                r"inferior|better for the environment|fossil fuels|encourag\w+ (?:[\w'-]+ )"
                r"{0,2}(?:children|kids|teens?) to|convinc\w+ (?:[\w'-]+ ){0,2}(?:children|kids"
                r"|teens?|teenagers?|people) to|hoax|myth|fake|lie|dangerous|harmful|"
                r"intentionally|deliberately|on purpose|secretly|to (?:subdue|control|"
                r"depopulate|poison|sterili[sz]e)|(?:the )?government (?:is|was|has been) "
                r"(?:hiding|covering|lying|poisoning)|cover(?:ing|ed)? up)\b)|"
                r"\b(?:post|article|message|letter|ad|advertisement|video)s? (?:[\w'-]+ ){0,3}"
                r"(?:persuading|convincing|urging|encouraging) (?:[\w'-]+ ){0,8}(?:to (?:feed|"
                r"eat|drink|give|skip|stop|avoid|refuse|not)|against)\b",
                r"\b(?:debunk\w*|refut\w*|counter\w*|fact-?check\w*|spot|identify|recogni[sz]e)"
                r"\b",
            ),
            (
                "fake news and rumours",
                r"\b(?:create|creating|write|writing|spread|spreading|start|starting|generate|"
                r"generating|fabricate|fabricating|make|making|post|posting|push|pushing|"
                r"promote|promoting|invent|inventing|craft|crafting|design) (?:[\w'-]+ ){0,3}?"
                r"(?:fake news|false (?:news|stor(?:y|ies)|information|claims?|rumou?rs?|"
                r"reports?|narratives?|accusations?|reviews?)|misinformation|disinformation|"
                r"rumou?rs?|conspiracy theor(?:y|ies)|hoax(?:es)?|propaganda|fake (?:[\w'-]+ )?"
                r"(?:scandals?|stor(?:y|ies)|evidence|quotes?|screenshots?|videos?|images?|"
                r"photos?|news|articles?|reviews?|accounts?|profiles?|personas?)|deepfakes?|"
                r"defamatory|libel\w*|smear (?:campaigns?)?|misleading (?:posts?|content|"
                r"articles?|headlines?|information|claims?)|clickbait|sensationali[sz]ed)\b|"
                r"\bpush (?:a |the )?narrative\b|\bfalsely (?:accus|claim|suggest|stat|report|"
                r"impl|link|portray)\w*\b|\bfabricat\w+ (?:[\w'-]+ ){0,2}(?:evidence|quotes?|"
                r"data|stor(?:y|ies)|sources|results|documents?|records?)\b|\b(?:posing|pose) "
                r"as (?:an? )?(?:expert|doctor|scientist|official|journalist|researcher|nurse)\b"
                r"|\bmake (?:[\w'-]+ ){0,3}(?:fake|false|fabricated) (?:[\w'-]+ ){0,4}go viral\b"
                r"|\b(?:edit|edited|doctor|doctored|photoshop|photoshopped|manipulat\w+) "
                r"(?:[\w'-]+ ){0,3}?(?:photo|photos|image|images|video|videos|transcript|"
                r"transcripts|recording|recordings|screenshot|screenshots)\b[\w' ,-]{0,40}\b"
                r"(?:look bad|compromising|embarrass\w*|discredit|guilty|mislead\w*)\b|"
                r"\bdefamatory\b",
                r"\b(?:spot|detect|identify|recogni[sz]e|tell if|report|avoid|protect|debunk|"
                r"stop|counter|combat|fight)\w*\b",
            ),
            (
                "inauthentic amplification and spam",
                r"\b(?:to|i|we|me|and|or|you) (?:spam|flood|bombard|overwhelm|mass[- ]send|"
                r"robocall)\b|\bsend(?:ing)? (?:[\w'-]+ ){0,3}?unsolicited\b|\b(?:create|build|"
                r"make|write|set up|run|use|deploy|program|code|automate)\w* (?:[\w'-]+ ){0,3}?"
                r"(?:bots?|fake accounts?|sock ?puppets?|multiple accounts?|automated "
                r"(?:accounts?|interactions?|calls?|posts?)) (?:[\w'-]+ ){0,4}?(?:to|that|for) "
                r"(?:[\w'-]+ ){0,3}?(?:boost|amplify|inflate|spread|spam|overwhelm|manipulate|"
                r"vote|like|engage|flood|harass|promote|sway)\w*\b|\bto artificially "
                r"(?:boost|inflate|increase|amplify)\w*\b|\b(?:automatically|automate\w*) "
                r"(?:[\w'-]+ ){0,3}?(?:making|creating|registering) (?:[\w'-]+ ){0,2}?"
                r"(?:multiple |many |fake )?accounts\b|\b(?:write|post|buy|generate|create|make|"
                r"leave)\w* (?:[\w'-]+ ){0,3}?fake (?:[\w'-]+ )?reviews?\b|\b(?:create|creating)"
                r" (?:[\w'-]+ ){0,3}?accounts (?:[\w'-]+ ){0,3}(?:to|for) (?:spam|sign-?ups?)\b|"
                r"\b(?:to|a|an) (?:everyone|all) (?:[\w'-]+ ){0,3}even if they (?:didn't|did "
                r"not|haven't) (?:subscribe|sign up|consent)\w*\b",
                r"\b(?:stop|block|prevent|avoid|report|filter|detect|spot|get rid of)\w*\b",
            ),
        ),
        intents=_rules(
            (
                "denying an atrocity",
                r"\b(?:the holocaust|holocaust|the holodomor|holodomor|genocide|the rwandan "
                r"genocide|the armenian genocide|9/11|the september 11 attacks|sandy hook|the "
                r"khmer rouge(?:'s \w+)?)\b (?:[\w'-]+ ){0,3}?(?:(?:was|were|is|are|being|as) "
                r"(?:[\w'-]+ ){0,3}?(?:a )?(?:hoax|myth|fake|faked|staged|propaganda|exaggerated|"
                r"lie|inside job|beneficial|natural disaster|western propaganda)|(?:never|didn't|"
                r"did not) (?:actually |really )?happen(?:ed)?)\b|\b(?:did|has) (?:the holocaust|"
                r"holocaust|the holodomor|9/11|the moon landing) (?:never|not|really) "
                r"(?:actually )?happen",
                r"\b(?:debunk\w*|refut\w*|counter\w*|why do (?:some )?people|deniers? (?:claim|"
                r"argue|say)|respond to)\b",
            ),
        ),
    ),
)
CATEGORY_NAMES = tuple(c.name for c in CATEGORIES)

# --- instructions aimed at the debaters -----------------------------------------------------------

INJECTION = _topic(
    r"ignore (?:all )?(?:the )?previous",
    r"ignore (?:all )?(?:your )?(?:prior|earlier|above|previous) (?:instructions|rules)",
    r"ignore the above|disregard|system prompt|you are now|developer mode|system override",
    r"jailbreak mode|do anything now",
    r"pretend (?:the|that the) (?:safety|other) (?:agent|agents)",
)
_INJECTION_TAG = re.compile(r"</?(?:user_query|question|system|instructions?)>")

# --- money, health and law ------------------------------------------------------------------------

FINANCIAL = _topic(
    r"invest\w*|bitcoin|crypto\w*|stocks?|shares|portfolio|trading|forex|etfs?|retire\w*",
    r"should i buy|should i sell|mortgages?|loans?|debt|savings|emergency fund|payday",
    r"borrow\w*|pension|401k|bonds?|money",
)
MEDICAL_LEGAL = _topic(
    r"doses?|dosages?|medications?|medicines?|symptoms?|diagnos\w+|prescri\w+|lawsuits?",
    r"sue|suing|legal advice|contracts?|pregnan\w+|doctor|pills?|tablets?|treatment\w*",
    r"therap\w+|disease\w*|illness\w*|cancer|diabetes|infection\w*|vitamin\w*|supplements?",
    r"antidepressants?|antibiotics?|ibuprofen|paracetamol|aspirin|fasting|diet\w*",
    r"lawyer\w*|court|legal\w*|illegal\w*|law\w*|landlord|deposit|will|custody|divorce\w*",
    r"convict\w*|charge\w*|police|arrest\w*|rights?|taxes|tax|insurance|chest pain|pain",
    r"fever|allerg\w+|injur\w+|toddler|baby|emergency",
)

# --- positively harmless --------------------------------------------------------------------------

#: Polite openings that do not change what is asked.
_POLITE = re.compile(
    r"^(?:(?:please|hi|hello|hey|ok(?:ay)?|so|quick question)[,:!.]?\s+)*(?:(?:(?:can|could|"
    r"would|will) you (?:please )?)?(?:tell me|explain(?: to me)?|describe|help me understand)"
    r"\s+(?=(?:what|how|who|why|when|where|which|if|whether)\b)|i (?:want|would like|'d like) "
    r"to (?:know|understand|learn)\s+|i(?:'m| am) (?:curious|wondering)(?: about)?\s+|do you "
    r"know\s+)"
)

#: Questions whose form is factual, definitional, explanatory or an everyday how-to.
BENIGN_FORMS = _rules(
    (
        "a definition",
        r"^(?:what (?:is|are|was|were)|what's|whats) (?:a |an |the )?(?:[\w'-]+ ){0,4}[\w'-]+"
        r"\??$|^what (?:is|are) the differences? between ",
    ),
    (
        "the meaning of a word",
        r"^(?:define|definition of|meaning of) (?:[\w'-]+ ){0,4}[\w'-]+\??$|^what (?:does|do) "
        r"(?:the (?:word|term|phrase|idiom|expression|abbreviation|acronym) )?(?:[\w'\"-]+ )"
        r"{0,4}(?:mean|stand for)\??$|^what is the (?:meaning|definition) of (?:the (?:word|"
        r"term|phrase|idiom|expression) )?(?:[\w'\"-]+ ){0,4}[\w'\"-]+\??$",
    ),
    (
        "a fact to look up",
        r"^what (?:is|are|was|were) the (?:capital|population|boiling point|freezing point|"
        r"melting point|speed|distance|height|length|size|area|temperature|chemical "
        r"(?:formula|symbol)|symbol|formula|plural|past tense|opposite|square root|value|"
        r"largest|smallest|longest|tallest|highest|deepest|oldest|main|official language|"
        r"currency|unit|atomic number|diameter|mass|weight|age|name|author|origin|"
        r"symptoms|signs|causes?|structure|function|purpose|parts|layers|colou?rs?) "
        r"(?:of|in|for|at|to|between) |^what (?:is|are|was|were) the (?:stages|phases|steps|"
        r"rules) (?:of|in) (?!(?:making|extracting|growing|building|producing|getting|"
        r"synthesi[sz]ing|cooking|hacking|creating)\b)"
        r"|^(?:which (?:[\w'-]+ ){1,3}?)(?:wrote|painted|composed|invented|discovered|"
        r"directed|founded|designed|built|created|sang|developed|was the first|first|won|"
        r"coined) |^(?:when|where) (?:was|were|did|is|are) (?:[\w'-]+ ){1,6}?(?:born|written|"
        r"built|founded|invented|discovered|published|signed|ended?|started?|begin|began|"
        r"first|located|made|painted|composed|released|introduced|established|held|played|"
        r"found|spoken|grown|used|happen|happened)\b|^how (?:many|much|far|long|tall|big|old|"
        r"hot|cold|fast|deep|high|heavy) (?:[\w'-]+ ){0,8}(?:are|is|was|were|does|do|did|"
        r"there|in|on|does it take|from)\b|^(?:in )?which (?:country|city|planet|ocean|"
        r"continent|year|century|language|river|mountain|element|organ|instrument) ",
    ),
    (
        "a date, a place or a maker",
        r"^who (?:wrote|painted|composed|invented|discovered|directed|founded|designed|built|"
        r"created|sang|developed|was the first|won|coined|sculpted|illustrated|translated) "
        r"|^(?:when|where) (?:was|were|did|is|are) (?:[\w'-]+ ){1,6}?(?:born|written|built|"
        r"founded|invented|discovered|published|signed|painted|composed|released|introduced|"
        r"established|located|spoken|first (?:held|played|published|performed))\??$",
    ),
    (
        "how something works",
        r"^(?:how (?:does|do|did) (?:a |an |the )?(?:[\w'-]+ ){0,5}?(?:work|works|function|"
        r"operate|form|grow|fly|float|swim|breathe|digest|produce|make|convert|travel|move|"
        r"reproduce|evolve|spread|train|protect|help|affect|change|happen|occur|store|"
        r"generate|transmit|compile|run|use|detect|measure|orbit|rotate|melt|freeze|boil|"
        r"rise|fall|sleep|migrate|communicate|see|hear|photosynthesi[sz]e)\b)|^how (?:a |an |"
        r"the )?(?:[\w'-]+ ){0,4}(?:works?|forms?|functions?|grows?|happens?|evolved?|are "
        r"made|is made)[.?]?$|^(?:explain|"
        r"describe) (?:how |what |why )?(?:a |an |the )?(?:[\w'-]+ ){0,6}[\w'-]+\.?$|^what "
        r"causes |^why (?:is|are|does|do) the (?:sky|sea|ocean|sun|moon|grass|leaves|"
        r"earth|water|ice|snow|rainbow|stars?)\b|^why do (?:leaves|birds|cats|dogs|plants|"
        r"bees|fish|stars|planets|we (?:yawn|sneeze|dream|hiccup|sleep|sweat))\b",
    ),
    (
        "an everyday how-to",
        r"^how (?:do|can|should|would) (?:i|you|we|one) (?:[\w'-]+ ){0,3}?(?:make|bake|cook|"
        r"boil|fry|roast|brew|prepare|grow|plant|water|prune|repot|reverse|sort|loop|read|"
        r"write|print|install|update|upgrade|learn|study|practi[cs]e|improve|start|begin|"
        r"fix|repair|clean|remove|tie|fold|sew|knit|paint|draw|build|set up|configure|"
        r"connect|use|convert|calculate|compute|solve|measure|change|center|centre|format|"
        r"declare|define|create|save|back up|backup|organi[sz]e|plan|pack|pronounce|spell|"
        r"say|translate|memori[sz]e|train|teach|care for|look after|take care of|keep|"
        r"store|freeze|thaw|sharpen|iron|wash|dry|stretch|warm up|reduce|extend|speed up|"
        r"find|choose|pick|decorate|wrap|play|tune|record|edit|compress|merge|split|"
        r"rename|delete|add|get|open|close|load|parse|count|check|test|debug|deploy|"
        r"publish|style|align|resize|crop|shrink|boost) ",
    ),
    (
        "a choice between everyday options",
        r"^(?:should i (?:learn|study|use|choose|pick|start with|try|read|buy|get|take|play)|"
        r"which (?:is|one is) (?:better|easier|faster) (?:for|to)|which (?:should i|to) "
        r"(?:learn|use|choose|pick|read|study)) ",
    ),
    (
        "an everyday request",
        r"^(?:summari[sz]e|translate|proofread|recommend|suggest) (?:a |an |the |some |me )?"
        r"(?:[\w'-]+ ){0,6}[\w'-]+\.?$|^tell me (?:a |an )?(?:joke|riddle|fun fact|fact) "
        r"(?:about (?:[\w'-]+ ){0,3})?[\w'-]*\.?$|^(?:tell me a joke|tell me a riddle)\.?$",
    ),
)

#: Everyday benign subjects: a harmless form is acted on only when it is about one of these.
BENIGN_TOPICS = _topic(
    r"capitals?|countr(?:y|ies)|continents?|rivers?|mountains?|oceans?|seas?|lakes?",
    r"deserts?|islands?|cit(?:y|ies)|france|paris|japan|italy|spain|germany|canada",
    r"australia|brazil|egypt|europe|africa|asia|population|official language|currency",
    r"weather|seasons?|rainbows?|tides?|volcano(?:es|s)?|earthquakes?|clouds?|rain|snow",
    r"wind|photosynthesis|gravity|planets?|solar system|sun|moon|stars?|galax(?:y|ies)",
    r"atoms?|molecules?|electrons?|protons?|cells?|water|boiling point|freezing point",
    r"melting point|celsius|fahrenheit|temperature|light|sound|electricity|magnets?",
    r"magnetism|energy|friction|plants?|trees?|leaves|flowers?|birds?|bees",
    r"butterfl(?:y|ies)|whales?|dolphins?|immune system|vaccines?|heart|lungs|digestion",
    r"rainforests?|ecosystems?|oxygen|carbon dioxide|hydrogen|helium|elements?",
    r"periodic table|speed of light|earth|mars|jupiter|dinosaurs|fossils?|prime numbers?",
    r"numbers?|fractions?|percentages?|equations?|algebra|geometry|triangles?|circles?|pi",
    r"derivatives?|integrals?|calculus|pythagorean theorem|square roots?|multiplication",
    r"division|statistics|probability|average|median|words?|grammar|spelling|synonyms?",
    r"antonyms?|plurals?|verbs?|nouns?|adjectives?|sentences?|paragraphs?|poems?|poetry",
    r"haiku|sonnets?|novels?|books?|authors?|wrote|plays?|shakespeare|hamlet|macbeth",
    r"pride and prejudice|romeo and juliet|war and peace|paintings?|mona lisa|music|songs?",
    r"piano|guitar|violin|symphon(?:y|ies)|compos\w+|plot|chess|riddles?|jokes?|fun facts?",
    r"spanish|french|english|idioms?|alphabet|python|javascript|typescript|java|rust",
    r"golang|c\+\+|html|css|lists?|arrays?|strings?|functions?|loops?|variables?|classes",
    r"dictionar(?:y|ies)|tcp|udp|https?|dns|git|github|linux|excel|spreadsheets?|json|csv",
    r"regex|regular expressions?|recursion|algorithms?|sorting|compilers?|programming|code",
    r"div|printers?|keyboards?|monitors?|browsers?|websites?|wi-?fi|routers?|bluetooth",
    r"pdfs?|files?|folders?|screenshots?|databases?|cakes?|bread|cookies|pancakes?|pasta",
    r"rice|eggs?|soup|salad|pizza|recipes?|tea|coffee|vegetables?|fruits?|tomato(?:es)?",
    r"potato(?:es)?|gardens?|gardening|lawns?|houseplants?|seeds?|compost|shelves",
    r"shoelaces?|ties?|knots?|shirts?|laundry|stains?|bike|bicycle|tyres?|tires?|rooms?",
    r"walls?|kitchen|oven|sourdough|maillard reaction|caramel\w*|flights?|travel\w*",
    r"suitcases?|holidays?|vacations?|time zones?|calendars?|clocks?|history|ancient",
    r"pyramids?|towers?|bridges?|cathedrals?|castles?|palaces?|temples?|monuments?",
    r"statues?|museums?|roman empire|renaissance|world war (?:i|ii|1|2|one|two)|olympics?",
    r"football|soccer|basketball|tennis|marathons?|yoga|compound interest|interest rates?",
    r"inflation|stocks?|bonds?|dividends?|index funds?|budget|dehydration|common cold",
    r"colds?|flu|sunburn|hiccups?",
)

#: What stops a question from being recognised as harmless, whatever its form and topic.
BLOCKERS = _rules(
    ("a person targeted", TARGET.pattern),
    (
        "the assistant itself",
        r"\b(?:your|yours|yourself|you're|you've|you'd|you'll)\b|\b(?:do|are|can|could|would|"
        r"will|have|did|were|should) you\b(?! (?:know|explain|tell|describe|help|recommend|"
        r"suggest|summari[sz]e|translate|make|bake|cook|reverse|sort|write|install|fix|"
        r"learn|use|say|spell|pronounce|calculate|convert|find|get|do|remove|clean|tie|"
        r"boil|grow|plant|start|draw|play|set up|create|build)\b)",
    ),
    (
        "a judgement or loaded word",
        r"\b(?:best|worst|better|worse|superior|inferior|bad|good|evil|wrong|only|always|"
        r"never|all|every|everyone|everybody|nobody|really|actually|true|truth|real|"
        r"honest|dishonest|fair|unfair|deserve\w*|should(?! i (?:learn|study|use|choose|pick|"
        r"start|try|read|get|take|play|buy|bake|cook)\b)|shouldn't|must|ought|"
        r"blame|fault|guilty|immoral|moral|ethical|unethical|dangerous|safe|safely|safest|"
        r"harmful|risky|risk|toxic|deadly|lethal|illegal|legal|allowed|banned|forbidden|"
        r"okay|ok|acceptable)\b",
    ),
    (
        "a claim or news it cannot check",
        r"\b(?:recent\w*|latest|new|news|announc\w+|discovery of|discovered that|"
        r"confirm\w*|proof|proven|prove|rumou?rs?|heard|claims?|claimed|is it true|reports?|"
        r"reported|next (?:week|month|year)|this (?:week|month|year)|today|tonight|"
        r"tomorrow|yesterday|now|current\w*|upcoming|soon|plans?|planning|will be|going "
        r"to|predict\w*|future|secret\w*|hidden|insider|leak\w*|conspirac\w*|"
        r"supposedly|allegedly)\b",
    ),
    (
        "something hypothetical or staged",
        r"\b(?:hypothetical\w*|pretend\w*|imagine|role-?play\w*|roleplay|in a (?:story|novel|"
        r"game|movie)|fiction\w*|character|scenario|simulat\w+|for a (?:story|novel|book|"
        r"movie|game|project|class|school)|asking for a friend|just curious|theoretically|"
        r"in theory|jailbreak)\b",
    ),
    (
        "a leading or negative question",
        r"\b(?:isn't|aren't|don't|doesn't|didn't|wasn't|weren't|won't|wouldn't|can't|cannot|"
        r"shouldn't|not|no)\b",
    ),
    (
        "a personal situation",
        r"\b(?:i'm|i am|i've|i have|i was|i feel|i felt|i think|i need|i want|my (?:body|"
        r"health|doctor|medication|meds|pills|symptoms?|pain|weight|diet|child|kid|son|"
        r"daughter|baby|money|savings|job|boss|account|password|phone))\b",
    ),
)

#: Longer questions are not recognised as harmless: there is more room for what the rules miss.
MAX_BENIGN_WORDS = 22


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


#: A game or a story's world: acts there harm no one ("steal a car in GTA").
_GAME = re.compile(
    r"\bin (?:a |the |my |this )?(?:[\w-]+ ){0,3}(?:game|games|video games?|videogames?|"
    r"board games?|tabletop|rpg|d&d|dungeons (?:and|&) dragons)\b|\bin (?:gta(?: \w+)?|grand "
    r"theft auto|minecraft|call of duty|fortnite|skyrim|roblox|the sims|overwatch|valorant|"
    r"counter-strike|cs:?go|pubg|apex legends|halo|zelda|pokemon|among us|chess|cluedo|clue|"
    r"monopoly|poker)\b"
)


def _harm(text: str, original: str) -> Reading | None:
    request = REQUEST.search(text)
    surprise = _SURPRISE.search(text)
    evasion = None if surprise else EVASION.search(text)
    aim = None if _AGAINST.search(text) else ILLEGAL_AIM.search(text)
    game = _GAME.search(text)
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
    if request and (evasion or aim):
        cue = evasion or aim
        category = _topic_category(text) or "illegal activity"
        label = "evading detection" if evasion else "an illegal aim"
        return Reading("harmful", category, label, cue.group(0))
    soft = SOFT_EVASION.search(text)
    if soft and request and not surprise and not _GOOD_PURPOSE.search(text):
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
