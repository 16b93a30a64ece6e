"""Harm category: disinformation."""

from __future__ import annotations

from agents.offline_rules.patterns import _CONTENT, Category, _rules, _topic

DISINFORMATION: tuple[Category, ...] = (
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
