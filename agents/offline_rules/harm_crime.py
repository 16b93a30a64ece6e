"""Harm categories: illegal access, drugs, fraud and forgery."""

from __future__ import annotations

from agents.offline_rules.patterns import (
    _DOCUMENTS,
    _RELATION,
    _THIRD_PARTY,
    Category,
    _rules,
    _topic,
)

CRIME: tuple[Category, ...] = (
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
)
