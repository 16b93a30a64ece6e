"""Harm categories: violence and weapons, self-harm, sexual content and non-consent."""

from __future__ import annotations

from agents.offline_rules.patterns import (
    _ANIMAL,
    _HARM_VERBS,
    _HELP,
    _MASS_AGENT,
    _NOT_A_GAME,
    _PERSON,
    _RELATION,
    _WEAPON,
    Category,
    _rules,
    _topic,
)

BODY: tuple[Category, ...] = (
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
                "putting something in a person's food or drink",
                r"\b(?:slip|put|add|mix|drop|pour|sneak|stir|spike|lace|hide)\w* (?:[\w'-]+ )"
                r"{0,2}?(?:laxatives?|poisons?|drugs?|pills?|bleach|antifreeze|chemicals?|"
                r"sedatives?|sleeping (?:pills|tablets)|tranquili[sz]ers?|eye ?drops|rat poison|"
                r"medications?|meds|xanax|valium|ambien|ghb|ketamine|crushed glass|glass|urine|"
                r"pee|feces|poo|spit|saliva|semen|bodily fluids) (?:[\w'-]+ ){0,2}?(?:in|into) "
                r"(?:her|his|their|someone(?: else)?'s|somebody'?s|everyone'?s|a (?:girl|woman|"
                rf"guy|man|person|stranger)'s|(?:my|our|the|an?) (?:[\w-]+ ){{0,2}}?{_RELATION}'s?|"
                r"the (?:office|staff|team|break ?room|company|school|party|shared|communal)) "
                r"(?:[\w'-]+ ){0,2}?(?:food|drinks?|lunch|dinner|breakfast|meals?|coffee|tea|"
                r"water|juice|smoothie|soup|wine|beer|cocktail|soda|milk|snacks?|cake|cookies|"
                r"sandwich|punch|pot)\b",
                r"\b(?:my own|myself|for me|prescribed|doctor|vet|safe(?:ly)?|baby|babies|"
                r"toddler|refuses?|won't take|will not take|doesn't take|does not take|"
                r"recipe|cooking|bake|baking|(?:his|her|their|\w+'s) (?:medication|medicine|"
                r"meds)|(?:cat|dog|pet|puppy|kitten|horse|parrot|rabbit|hamster)'?s?)\b",
            ),
            (
                "harming a person",
                rf"\b{_HARM_VERBS}(?! (?:a |an |the )?(?:photos?|pictures?|portraits?|videos?|"
                rf"films?|movies?|scenes?|footage|hoops|the breeze|emails?|messages?|fleas|ticks|"
                rf"lice|worms|bacteria|germs|parasites|weeds|bugs|mites|mou?ld|time|process\w*|"
                rf"test\w*|out\b|off\b|of\b)) (?:[\w'-]+ ){{0,3}}?{_PERSON}\b{_NOT_A_GAME}",
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
                # Anchored: the lookahead's `.*` reaches every later start, and a search from
                # each start would read the question once per character.
                r"\A(?=.*\b(?:kill|murder|tortur|beat|stab|shoot|blood|gore|violen|death|dying|"
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
                "recording a person undressed",
                r"\b(?:record|film|photograph|videotape|video|tape|watch|spy on|peep (?:on|at)|"
                r"take (?:photos?|pictures?|videos?|pics) of|get (?:photos?|pictures?|videos?|"
                rf"pics) of) (?:[\w'-]+ ){{0,2}}?{_PERSON} (?:(?:in|while in|while (?:she|he|"
                r"they)(?:'s|'re| is| are) in) (?:the |a |her |his |their )?(?:shower|bath|"
                r"bathtub|bathroom|toilet|restroom|changing rooms?|locker rooms?|fitting rooms?|"
                r"dressing rooms?)|(?:while |when |as )?(?:(?:she|he|they)(?:'s|'re| is| are) )?"
                r"(?:undress\w*|naked|nude|changing(?: (?:her|his|their))? clothes|getting "
                r"(?:changed|undressed)|showering|bathing))\b",
                r"\b(?:my own|myself|report\w*|protect\w*|prevent\w*|detect\w*|find hidden|"
                r"is it (?:legal|illegal)|law)\b|\bmy (?:baby|babies|toddlers?|newborn|infant|"
                r"kids?|children|son|daughter) (?:in the bath(?:tub)?|bathing|in the tub)\b",
            ),
            (
                "sharing intimate images",
                r"\b(?:share|post|leak|distribute|spread|send|upload|sell|publish|circulate|"
                r"expose) (?:[\w'-]+ ){0,4}?(?:nudes|nude (?:photos?|pictures?|images?)|"
                r"explicit (?:photos?|pictures?|images?|content|videos?)|intimate (?:photos?|"
                r"pictures?|images?|videos?|content)|sex tapes?|naked (?:photos?|pictures?))\b",
                r"\b(?:my own|of myself|remove|take down|report)\b",
            ),
            (
                "sexualising a minor",
                r"\bsexuali[sz]\w* (?:[\w'-]+ ){0,3}?(?:child|children|kids?|minors?|underage|"
                r"preteens?|pre-teens?|teens?|teenagers?|schoolgirls?|schoolboys?|(?:young|"
                r"little) (?:girls?|boys?)|(?:an? )?(?:\d+|one|two|three|four|five|six|seven|"
                r"eight|nine|ten|eleven|twelve|\w+teen)[- ]years?[- ]olds?(?: (?:girls?|boys?))?)"
                r"\b",
                r"\b(?:why|harm\w*|effects?|impacts?|problem\w*|critic\w*|counter\w*|prevent\w*|"
                r"stop\w*|against|protect\w*|report\w*|media|advertis\w*|fashion)\b",
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
                r"\bdate[- ]rape\b|\b(?:slip|put|add|mix|drop|pour|spike|lace)\w* "
                r"(?:[\w'-]+ ){0,2}?(?:something|anything|stuff|drugs?|pills?|roofies?|ghb|"
                r"ketamine|rohypnol|xanax|valium|ambien|sedatives?|sleeping (?:pills|tablets)|"
                r"tranquili[sz]ers?|powders?|eye ?drops|(?:a |some )?few drops|alcohol|vodka|"
                r"liquor|spirits|molly|mdma|ecstasy|poison|laxatives?) "
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
)
