"""The building blocks of the offline model's rules: the request and evasion cues, the
people and things a harmful request aims at, and `Rule` / `Category` themselves."""

from __future__ import annotations

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
    r"nurse|surgeon|therapist|patients?|secretary|assistant|teammates?|guests?|"
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
    r"(?:an? |the |our |their )?(?:prisoners?(?!'?s? dilemma)|inmates?|detainees?|hostages?|"
    r"captives?|prisoners? of war)|"
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
#: A person named by how the asker knows them ("my boss", "her husband").
_BY_RELATION = r"\b(?:my|his|her|their|our) (?:[\w-]+ ){0,2}" + _RELATION + r"\b"
#: A person acted on.
TARGET = re.compile(
    _BY_RELATION + r"|\b(?:someone|somebody|a person|a stranger|people|other people|him|her|"
    r"them)\b|\b" + _OWNER
)
#: Takes a question out of a game's world: a real person named by relation.
REAL_PERSON = re.compile(_BY_RELATION)
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
