"""Harm categories: hate and harassment, discrimination, privacy."""

from __future__ import annotations

from agents.offline_rules.patterns import (
    _CHILD,
    _CONTENT,
    _HELP,
    _NOT_A_GAME,
    _ORGANISATION,
    _OWNER,
    _PERSON,
    _RELATION,
    Category,
    _rules,
    _topic,
)

PEOPLE: tuple[Category, ...] = (
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
                # Anchored: each lookahead's `.*` reaches every later start, and a search from
                # each start would read the question once per character.
                r"\A(?=.*\b(?:women|men|females?|males?|girls|boys|blacks?|whites?|white|black|"
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
)
