"""Instructions aimed at the debaters, money, health and law, and what the offline model
recognises as positively harmless (`BENIGN_FORMS`, `BENIGN_TOPICS`, `BLOCKERS`)."""

from __future__ import annotations

import re

from agents.offline_rules.patterns import TARGET, _rules, _topic

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
