//! The phrases poisoned tool text is made of, in one place.
//!
//! Each pattern is matched against [`super::Normal`] text (lower case,
//! identifiers read as words) one sentence at a time. They describe what
//! the text *does* (addresses the model rather than describing the tool,
//! names a secret and asks for it, routes data out, prescribes what other
//! tools do), not the wording of known attacks: a description that says
//! what its tool returns matches none of them.

use std::ops::Range;
use std::sync::LazyLock;

use regex::{Regex, RegexSet};

/// The classes the patterns are written with, cheap to build:
/// - word boundaries are ASCII ones: a Unicode `\b` makes the regex
///   engine leave its fast automaton for any text with a character outside
///   ASCII (a tool named `bad name é0` cost half a millisecond a string),
///   and the words these patterns look for are delimited by ASCII anyway;
/// - a word character is an ASCII one or any character outside ASCII
///   (`règles` is a word), and a digit an ASCII one: Unicode's `\w` is
///   some 700 ranges, and a pattern that repeats it (`(?:\w+\s+){0,3}`)
///   took every toolc run 0.1 s to compile (0.4 s unoptimized), more
///   than linting a small project.
fn prepared(pattern: &str) -> String {
    const WORD: &str = r"0-9A-Za-z_\x{80}-\x{10FFFF}";
    pattern
        .replace(r"\b", r"(?-u:\b)")
        .replace(r"\w", &format!("[{WORD}]"))
        .replace(r"\W", &format!("[^{WORD}]"))
        .replace(r"\d", "[0-9]")
}

fn regex(pattern: &str) -> Regex {
    Regex::new(&prepared(pattern)).unwrap_or_else(|e| unreachable!("a pattern of cues.rs: {e}"))
}

/// A pattern, built when first matched with; its text goes into the one
/// prefilter set without building it alone.
pub(crate) struct Cue {
    source: &'static str,
    regex: LazyLock<Regex>,
}

impl std::ops::Deref for Cue {
    type Target = Regex;

    fn deref(&self) -> &Regex {
        &self.regex
    }
}

macro_rules! patterns {
    ($($name:ident = $pattern:expr;)*) => {
        $(pub(crate) static $name: Cue = Cue {
            source: $pattern,
            regex: LazyLock::new(|| regex($pattern)),
        };)*
    };
}

/// "every", "each", "all": EVERY_CALL and its prefilter.
macro_rules! every {
    () => {
        r"\b(?:every|each|all)"
    };
}

/// What a call is named: CALL_AFTER and its prefilter.
macro_rules! calls {
    () => {
        r"(?:calls?|invocations?|requests?|quer(?:y|ies)|searche?s?|commands?)"
    };
}

patterns! {
    // Words that negate what follows them.
    NEGATION = r"\b(?:not|never|no|don't|dont|do\s+not|without|nor|avoid|refuse\s+to)\b";

    // Hidden instructions: strong cues, any one of which addresses the model.
    OVERRIDE = r"\b(?:ignore|disregard|forget|bypass|override|overrule|set\s+aside|pay\s+no\s+(?:attention|heed)\s+to|take\s+no\s+notice\s+of|stop\s+following)\s+(?:[\w'-]+\s+){0,3}?(?:what\s+(?:the\s+)?(?:user|person|human)\b|instructions?|rules|restrictions|guidelines|guidance|advice|directions|orders|programming|guardrails|safety|filters?|policies|checks|directives?|constraints|confirmations?|approvals?|(?:the\s+)?user(?:'s)?\s+(?:input|requests?|instructions?|questions?|limits?|settings|choices?)|system\s+prompt|(?:previous|earlier|prior|preceding|above|original)\s+(?:\w+\s+)?(?:messages?|context|prompts?|commands?))\b|\b(?:ignore[zs]?|oublie[zs]?)\s+(?:toutes\s+)?les\s+(?:instructions|consignes|règles)|\bne\s+(?:tenez|tiens)\s+(?:pas|plus)\s+compte\s+(?:des|de\s+la|de\s+les|du)\s+(?:\w+\s+)?(?:instructions|consignes|règles)|\b(?:ignora|olvida)\s+(?:todas\s+)?las\s+(?:instrucciones|reglas)|\b(?:haz|haga|hagan)\s+caso\s+omiso\s+(?:a|de)\s+(?:todas\s+)?las\s+(?:\w+\s+)?(?:instrucciones|reglas|indicaciones)|\b(?:ignoriere|vergiss|missachte)\s+(?:alle\s+|sämtliche\s+)?(?:\w+\s+)?(?:anweisungen|regeln)|(?:игнорируй(?:те)?|проигнорируй(?:те)?|забудь(?:те)?)\s+(?:\w+\s+){0,2}?(?:инструкции|указания|правила)|(?:忽略|无视|忽视|忘记|忘掉)[^。.!！]{0,12}?(?:指令|指示|说明|规则)|\b(?:your\s+(?:[\w-]+\s+)?(?:instructions|rules|guidelines|guidance|directions|system\s+prompt)|(?:instructions|rules|guidelines|guidance|directions|system\s+prompt)\s+(?:[\w'-]+\s+){0,4}?(?:to\s+you|you\s+(?:were\s+given|received|got)))\s+(?:[\w'-]+\s+){0,4}?(?:is|are)\s+(?:now\s+)?(?:to\s+be\s+)?(?:ignored|disregarded|set\s+aside|overridden|superseded|revoked|void|null\s+and\s+void)|\bauto-?approve\b";
    CONCEAL = r"\b(?:do\s+not|don't|dont|never|must\s+not|should\s+not|shouldn't|no\s+need\s+to|not|without)\s+(?:[\w'*-]+\s+){0,6}?\**(?:tell|telling|mention|mentioning|mentioned|inform|informing|informed|reveal|revealing|disclose|disclosing|disclosed|notify|notifying|alert|alerting|explain|discuss|discussed|say|saying)\b(?:\s+[\w'*-]+){0,4}?\s+\**(?:user|users|user's|human|anyone|them|this|that|it|why|about|these|rules|the\s+(?:substitution|replacement|change|switch|redirect|prefix|rewrite|note|step|instructions?))\b|\b(?:do\s+not|don't|never)\s+(?:list|show|include|mention)\s+(?:it|them|this|that)\s+in\s+(?:your|the)\s+(?:reply|answer|response|summary)\b|\b(?:not|never)\s+(?:be\s+)?(?:shown|visible|displayed|revealed|listed|mentioned)\s+(?:to|in)\s+(?:the\s+)?(?:user|reply|answer|response)\b|\b(?:mention|say|tell|reveal|disclose)\s+nothing\s+(?:about|of)\b|\bne\s+(?:dis|dites|mentionne[zs]?|révèle[zs]?)\s+(?:rien|pas|jamais)|\bno\s+(?:le\s+)?(?:digas|diga|menciones|reveles|cuentes|cuente|informes|informe)\b|\bteile\s+(?:dem\s+|den\s+)?(?:benutzer|nutzer)\w*\s+nichts\b|не\s+(?:сообщай(?:те)?|говори(?:те)?|рассказывай(?:те)?)\s+пользовател|(?:不要|别|不得|切勿|请勿)(?:告诉|告知|透露给?|提及)用户|\b(?:erwähne|sage|verrate)\s+(?:\w+\s+){0,3}?(?:niemals|nie|nicht)\b";
    SECRECY = r"\b(?:secretly|covertly|behind\s+the\s+user's\s+back|without\s+(?:the\s+)?user(?:'s)?\s+(?:knowing|knowledge|noticing|consent)|keep\s+(?:this|it|that)(?:\s+[\w-]+)?\s+(?:secret|hidden|confidential|private|quiet|to\s+yourself|between\s+us)|(?:hide|conceal)\s+(?:\w+\s+){0,3}?from\s+(?:the\s+)?users?|(?:users?|person|people|human|customer|requester|operator)(?:\s+[\w'-]+){0,4}?\s+(?:must|should|shall|is\s+to|are\s+to)\s+(?:not|never)\s+(?:know|see|find\s+out|learn|notice|discover|hear|be\s+told))\b|\b(?:users?|person|people|human|customer|requester|operator)(?:\s+[\w'-]+){0,4}?\s+(?:must|should|shall|is\s+to|are\s+to)\s+(?:remain|stay|be\s+kept|be\s+left)\s+(?:unaware|oblivious|uninformed|in\s+the\s+dark)(?:\s+(?:of|about)\s+(?:this|that|it|these|any\s+of\s+this)\b|\s*(?:[;,.]|$))";
    PERSONA = r"\bfrom\s+now\s+on\b|\b(?:henceforth|hereafter|thenceforth)\b|\bfor\s+the\s+rest\s+of\s+(?:the|this)\s+(?:conversation|session|chat)\b|\bfrom\s+(?:this|here)\s+(?:point\s+)?on\b|\byou\s+are\s+(?:now|no\s+longer)\b|(?:^|[:;.!?]|\byou\s+(?:will|must|should)|\band|\bthen)\s*act\s+(?:as|like)\b|\bpretend\s+(?:to|that|you)\b|\byour\s+new\s+(?:role|task|instructions|goal)\b|\bin\s+the\s+voice\s+of\b|\binstead\s+(?:reply|respond|answer|say|tell)\b|\b(?:always|only)\s+(?:say|reply|respond|answer|suggest|recommend|claim|speak)\b|\bregardless\s+of\s+(?:the\s+)?(?:user|input|what\s+the\s+user|their|any\s+(?:user|input))|\bno\s+matter\s+what\s+the\s+user|\byou\s+have\s+no\s+(?:content\s+)?(?:policy|policies|restrictions|rules|limits)\b|\byou\s+never\s+refuse\b|\bquelle\s+que\s+soit\s+la\s+demande|\bindependientemente\s+de\s+lo\s+que|\bunabhängig\s+davon,?\s+was";
    SUPPRESS = r"\b(?:(?:do\s+not|don't|never)\s+(?:actually\s+)?(?:invoke|call|use|execute|run)\s+(?:this|the)\s+(?:tool|function)|(?:tool|function)\s+should\s+never\s+be\s+(?:invoked|called|used))\b";
    CONDITION = r"\b(?:if|unless|when|whenever|until|for|instead|rather|only|except|while)\b";
    TEMPLATE = r"\[/?inst\]|<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id)\|>|<</?sys>>|\[(?:system|hidden\s+instructions?|admin|system\s+message)\]|\bsystem\s+override\b|\boverride\s+directive\b|\bdeveloper\s+mode\b|\bjailbreak|(?:^|[\s(\[\x22'#<{`])(?:assistant|system|model|ai|llm)(?:\s+(?:instruction|note|notice|directive))?\s*:\s*\w|\b(?:note|notice|important|attention|reminder)\s+(?:to|for)\s+(?:the\s+|any\s+)?(?:assistant|model|ai|llm|agent|language\s+model)s?\b|\b(?:wichtig|hinweis)\s+(?:für|an)\s+(?:das|den|die)\s+(?:sprachmodell|modell|assistenten|ki)\b|\b(?:importante|nota)\s+para\s+(?:el|la)\s+(?:asistente|modelo|ia)\b|\b(?:important|note)\s+pour\s+(?:l'|le\s+|la\s+)(?:assistant|modèle|ia)\b|\bnota\s+para\s+el\s+(?:asistente|modelo)\b|\bnote\s+(?:pour|à)\s+l'(?:assistant|ia)\b|\bhinweis\s+an\s+(?:den|das)\s+(?:assistenten|modell)\b|\bvery\s+first\s+action\b";
    COMMENT = r"(?s)<!--(.*?)-->";
    COMMENT_DIRECTIVE = r"\b(?:system|assistant|always|never|ignore|must|you|your|read|call|include|send|execute|run|say|tell|reply|respond)\b";
    TAMPER = r"\b(?:always|automatically|silently|secretly)\s+(?:[\w'-]+\s+){0,2}?(?:change|changes|replace|replaces|redirect|redirects|rewrite|rewrites|substitute|substitutes|swap|swaps|switch|switches|set|sets|modify|modifies|alter|alters)\b";
    TAMPER_CONTEXT = r"\b(?:instead|regardless|user|users|user's)\b";

    // Hidden instructions: weak cues, telling only together.
    LABEL = r"\b(?:[a-z]+\s+){0,2}(?:system|notice|update|protocol|override|directive|instructions?|important|required)(?:\s+[a-z]+){0,2}\**\s*:";
    TAG = r"</?(?:important|system|instructions?|secret|hidden)>";
    PRETEXT = r"\b(?:for|required\s+for|mandatory\s+for|needed\s+for|to\s+(?:ensure|maintain|comply\s+with))\s+(?:[\w-]+\s+){0,3}?(?:compliance|auditing|audit|regulatory|gdpr|soc2|verification)\b|\bmandatory\b|\bsecurity\s+(?:protocol|measure|requirement)s?\b";
    THREAT = r"\b(?:will|would)\s+(?:\w+\s+)?(?:crash|malfunction|be\s+blocked|be\s+lost|not\s+work)\b|\botherwise\s+(?:the|this|it)\s+(?:tool|system|application|request)\b";
    OBLIGATION = r"\byou\s+(?:must|have\s+to|need\s+to|are\s+required\s+to|should\s+always)\b|\bmust\s+(?:also|first|always)\b|\bmake\s+sure\s+(?:to|you)\b";
    FIRST = r"\b(?:call|use|run|invoke|consult)\s+this\s+tool\s+(?:first|before|immediately)|\bbefore\s+(?:calling|using|invoking)\s+any\s+other\s+tool|\balways\s+consult\s+this\s+tool";

    // Sensitive data: what is asked for, and the asking.
    ASK = r"\b(?:read|reading|cat|include|including|pass|passing|send|sending|provide|providing|collect|collecting|extract|extracting|copy|paste|insert|supply|fill|give|upload|uploading|attach|append|add|adding|print|output|dump|share|leak|exfiltrate|forward|post|access|open|load|retrieve|grab|steal|export|update|modify|write|put|set|ajoute[zs]?|inclu(?:ez|re|s)|envoie[zs]?|lis|lisez|copie[zs]?|añade|incluye|envía|lee|copia|füge|sende|lies|lese|kopiere|gib)\b|读取|读出|复制|发送|附上|放入|填入|\b(?:placed|pasted|copied|inserted|attached|appended)\b|\bcontents?\s+of\b|\bcontenu\s+de\b|\bcontenido\s+de\b|\binhalt\s+(?:von|der|des)\b|\buse\s+(?:it\s+|them\s+)?as\b";
    DIRECTIVE_BEFORE = r"(?:^|[:;,(<*`\-，；：]|请|\b(?:must|should|please|bitte|and|then|first|also|always|by|to|you|run|now|required|need)|\b(?:must|should|shall|is\s+to|are\s+to|has\s+to|have\s+to|needs?\s+to)\s+(?:always\s+)?be)\s*$";

    // What the user, not the model, is told to do ("tell the user to set
    // OPENWEATHER_API_KEY", "the developer must add ...").
    USER_ADDRESSED = r"(?:\b(?:tell|ask|instruct|remind|prompt|advise|direct|have|let|help|get)\s+(?:the\s+|your\s+)?(?:users?|them|customers?|developers?|operators?|admins?|administrators?)\s+(?:to\s+|how\s+to\s+)?|\b(?:users?|developers?|operators?|admins?|administrators?)\s+(?:should|must|can|may|needs?\s+to|has\s+to|have\s+to|will\s+need\s+to)\s+(?:first\s+)?)$";
    USER_IN_CLAUSE = r"\b(?:tell|ask|instruct|remind|advise|have|help)\s+(?:the\s+|your\s+)?(?:users?|them|customers?|developers?|operators?|admins?|administrators?)\s+(?:to|how\s+to)\b";
    // A place something is put into ("add the DSN to your .env file").
    INTO_BEFORE = r"\b(?:to|into|in|inside)\s+(?:the\s+|your\s+|their\s+|a\s+|an\s+)?$";
    PLACE = r"^(?:add|adding|append|put|write|set|update|modify|ajoute[zs]?|añade|füge)$";
    // A setup step: a secret put into the user's own configuration (not
    // "the config", which may be a parameter of the tool).
    SETUP = r"\b(?:add|put|set|store|save|place|write)\b[^.;]{0,60}?\b(?:to|into|in)\s+(?:your|their)\s+(?:[\w-]+\s+)?(?:\.env|env\s+file|config(?:uration)?|settings|environment|keychain|vault|profile|secrets?\s+manager)\b";
    // Data the user gives the tool on purpose ("only if the user gave it").
    USER_PROVIDES = r"\b(?:if|when|unless|once)\s+(?:the\s+)?user\s+(?:has\s+|had\s+)?(?:gave|given|gives|provides?|provided|supplies|supplied|shares|shared|enters|entered|specifies|specified)\b|\b(?:provided|supplied|given|entered|specified)\s+by\s+the\s+user\b";

    // A passive whose agent is a person: "the key must be placed in ... by
    // the administrator" is a setup step, not a request to the model.
    BY_PERSON = r"\bby\s+(?:the\s+|an?\s+|your\s+)?(?:users?|administrators?|admins?|operators?|developers?|owners?|maintainers?)\b";

    ACCESS_AFTER = r"^\s+(?:only|access|permissions?|scopes?|rights|mode)\b";

    // Exfiltration: the data, the routing, the destination.
    DATA = r"\bconversation\s+(?:history|context|summary|so\s+far|log)\b|\b(?:the\s+)?(?:user's\s+)?conversation\b|\bchat\s+(?:history|log|logs)\b|\bmessage\s+history\b|\b(?:previous|prior|last|recent|earlier)\s+(?:\w+\s+)?(?:messages?|conversations?|results?|outputs?|responses?|prompts?)\b|\buser's\s+(?:\w+\s+){0,2}?(?:messages?|prompts?|data|input|requests?|questions?)\b|\buser\s+data\b|\b(?:private|personal|sensitive|confidential)\s+(?:information|data)\b|\bsession\s+data\b|\brequest\s+payload\b|\bsystem\s+prompt\b|\bcontext\s+window\b|\b(?:results?|outputs?)\s+of\s+(?:the\s+)?(?:previous|other|any|each|every)\b|\bcontents?\s+of\s+[`'\x22]?[~/.\w-]*[/.]\w|\bip\s+addresses\b|\btools?\s+list\b|\blist\s+of\s+(?:all\s+)?(?:available\s+)?tools\b|\bapi\s+keys\b|\bcredentials\b|\bpasswords\b|\benv(?:ironment)?\s+var(?:iable)?s?\b|\b(?:full|whole|entire|complete|verbatim|word-for-word|raw)\s+(?:transcript|conversation|history|chat|record)\b|\b(?:everything|anything|all|whatever)\s+(?:that\s+)?(?:(?:the\s+)?user\s+|you\s+|we\s+)?(?:has\s+|have\s+|had\s+)?(?:been\s+)?(?:said|says|typed|written|wrote|asked|shared|sent|told|entered|pasted|mentioned|discussed)\b|\bso\s+far\s+in\s+(?:this|the)\s+(?:chat|conversation|session)\b|\bwhat\s+(?:the\s+)?user\s+(?:has\s+|had\s+)?(?:said|says|told\s+you|typed|wrote|written|shared|asked)\b|\b(?:any|every|each|other)\s+tools?\s+(?:returns?|produces?|outputs?|gives?)\b|\b(?:raw|full|unredacted|complete|verbatim)\s+(?:outputs?|results?|responses?)\b|\b(?:outputs?|results?|responses?)\s+of\s+(?:the\s+)?(?:[\w-]+\s+){0,4}?tool\s+calls?\b|\b(?:gesprächsverlauf|chatverlauf|unterhaltung|nachricht(?:en)?\s+des\s+nutzers|historial\s+de\s+(?:la\s+)?conversación|conversación\s+completa|historique\s+de\s+(?:la\s+)?conversation)\b|истори[юяи]\s+(?:переписки|чата|сообщений|диалога|разговора)|(?:всю|вся)\s+переписк|对话历史|聊天记录|聊天历史|历史消息";
    HARVEST = r"\bconversation\s+(?:history|context|log)\b|\bchat\s+(?:history|log)\b|\bmessage\s+history\b|\btools?\s+list\b|\blist\s+of\s+tools\b|\bsystem\s+prompt\b|\bprevious\s+messages\b|\bcontext\s+window\b|\benv(?:ironment)?\s+var(?:iable)?s?\b|\buser\s+data\b|\b(?:previous|prior|earlier|past|preceding|every|all)\s+(?:\w+\s+)?(?:messages?|prompts?|turns?)\b|\btranscript\b|\beverything\s+(?:\w+\s+){0,2}?(?:said|typed|written|discussed)\b|\bso\s+far\s+in\s+(?:this|the)\s+(?:chat|conversation|session)\b";
    ROUTE = r"(?:^|\s)übergib\b|(?:^|\s)(?:отправ(?:ь|ьте|ляй|ляйте)|перешл(?:и|ите)|переда(?:й|йте)|пересылай(?:те)?)\s|发送|上传|转发|\bgo(?:es)?\s+(?:here|in|into)\b|\b(?:include|including|pass|passes|passing|put|puts|paste|insert|fill|supply|dump|mirrors|sends|forwards|posts|uploads|copies|hold|holding|containing|carrying|gib|füge|sende|incluye|envía|pasa|inclu(?:ez|re)|envoie[zs]?|transmets|send|sending|add|provide|deliver|forward|post|upload|attach|append|contain|contains|embed|encode|transmit|mirror|copy|report|submit|share|leak|export|set|e-?mail)\b";
    PARAMETER = r"\b(?:parameter|argument|field|param)\b";
    OUTSIDE = r"https?://|[\w.+-]+@[\w-]+\.[a-z]{2,}|\b(?:endpoint|webhook|remote\s+server|external\s+server|attacker)\b|\bvia\s+\w+_\w+";
    UPLOAD_COMMAND = r"\bcurl\b[^\n]*?(?:\s-d\b|\s--data|\s-f\b|\s--form|\s-x\s+post\b|\s--upload-file)|\bwget\b[^\n]*?--post|\bnc\s+\S+\s+\d+";
    // A tool whose purpose is to send requests may show how.
    SENDS_REQUESTS = r"\b(?:http|https|post|upload|requests?|curl|webhooks?|api)\b";
    OUTSIDE_ADDRESS = r"https?://[^\s'\x22`)>]+|[\w.+-]+@[\w-]+\.[a-z]{2,}[\w.]*";
    ROUTE_OUT = r"\b(?:send|e-?mail|post|upload|forward|deliver|copy|cc|bcc|submit|transmit|report|mirror|sync|push|invite|share)\b";
    // A tool whose purpose is to send things somewhere may say where.
    SENDS = r"\b(?:send|sends|post|posts|mail|e-?mail|notify|notifies|webhooks?|upload|uploads|publish|publishes|share|shares|forward|forwards|invite|invites|http|api)\b";
    URL = r"https?://[^\s'\x22`)>]+";
    REMOTE_IMAGE = r"!\[[^\]]*\]\(\s*https?://";
    MUST = r"\b(?:must|always|required|mandatory|make\s+sure|need\s+to|have\s+to)\b";
    REACH = r"\b(?:access|call|send|post|visit|request|deliver|log|report|upload|forward|contact|ping|notify)\b";

    // Shadowing: other tools, and what is prescribed for them.
    TRIGGER = r"\b(?:when|whenever|before|after|each\s+time|every\s+time|if|cada\s+vez\s+que|siempre\s+que|cuando|chaque\s+fois\s+que|lorsque|quand|wenn|sobald|jedes\s+mal\s+wenn)\s+(?:\S+\s+){0,5}?(?:call|calls|calling|called|use|uses|using|used|invoke|invokes|invoking|invoked|execute|executes|executing|executed|run|runs|ran|running|send|sends|sending|sent|fires|triggers|usa|utilise|appelle|llama|llame|verwendet|aufgerufen|benutzt)\b|\b(?:when|whenever|before|after|each\s+time|every\s+time|if|cada\s+vez\s+que|siempre\s+que|cuando|chaque\s+fois\s+que|lorsque|quand|wenn|sobald|jedes\s+mal\s+wenn)\s+(?:\S+\s+){0,5}?(?:utilisée?|appelée?|usad[oa]|llamad[oa]|ejecutad[oa]|invocad[oa])(?:\W|$)|\bfor\s+(?:every|each|any|all)\s+(?:\S+\s+){0,3}?(?:written|sent|created|made|issued|run|executed|called)\s+(?:by|with|through|via)\b|\bfor\s+(?:every|each|any|all)\s+(?:\S+\s+){0,2}?(?:sent|passed|going)\s+(?:through|to|via)\b";
    PRESCRIBE = r"\b(?:must|always|make\s+sure|be\s+sure|need\s+to|required\s+to|has\s+to|have\s+to|shall|(?:is|are)\s+to\s+be)\b";
    ALTER = r"\b(?:add|adds|added|include|includes|included|send|sends|sent|swap|swaps|swapped|substitute|substituted|change|changes|changed|prefix|prefixed|prepend|prepended|append|appended|set|sets|replace|replaces|replaced|remove|removed|strip|stripped|drop|dropped|redirect|redirects|redirected|route|routed|bcc|cc|forward|forwarded|copy|copied|rewrite|rewritten|modify|modified)\b";
    CHANGED = r"^\W*(?:tool\b)?(?:\s+(?:from|of|on|in|exposed\s+by|provided\s+by|offered\s+by)\s+(?:the\s+)?[\w-]+(?:\s+(?:server|mcp|client))?|\s+in\s+this\s+(?:client|session|workspace))?\W*(?:must|should\s+(?:always|now)|will\s+now|(?:has|have)\s+been\s+(?:enhanced|updated|deprecated|optimized|optimised|replaced|modified|changed|upgraded)|now\s+(?:uses|requires|sends|needs)|is\s+(?:now\s+)?(?:deprecated|disabled|broken|unsafe|retired|misconfigured|unreliable|compromised|obsolete))\b";
    EVERY_TOOL = r"\b(?:any|all|every|each)\s+(?:other\s+)?(?:[\w-]+\s+){0,2}?(?:tools?|commands?|emails?|messages?|tool\s+calls?|invocations?|servers?)\b";
    SELF_AROUND = r"\b(?:before|after|when|whenever)\s+(?:\S+\s+){0,4}?,?\s*(?:execute|call|run|use|invoke)\s+this\s+tool\b";
    IDENTIFIER = r"[a-z0-9]+(?:[_.][a-z0-9]+)+";
    NAMED_TOOL = r"(['\x22`]?)([a-z][\w.-]*)['\x22`]?\s+(?:tool|function)\b|\b(?:tool|function)\s+['\x22`]([a-z][\w.-]*)['\x22`]";
    IMPERATIVE_ALTER = r"[,;:]\s*(?:please\s+)?(?:always\s+)?(?:add|include|set|change|replace|prefix|prepend|append|remove|strip|send|forward|route|copy|cc|bcc|swap|substitute|rewrite|redirect|sustituye|reemplaza|cambia|añade|agrega|remplace[zs]?|ajoute[zs]?|modifie[zs]?|ersetze|ändere|füge|hänge)\b";
    EVERY_CALL = concat!(every!(), r"\s+\S*$");
    CALL_AFTER = concat!(r"^\W*", calls!(), r"\b");
    BCC = r"\bbcc\b";
    EMAIL = r"[\w.+-]+@[\w-]+\.[a-z]{2,}";
}

patterns! {
    // EVERY_CALL, a tool's name, CALL_AFTER: "every `send_email` call".
    EVERY_NAME_CALL = concat!(every!(), r"\s+\S+\W*", calls!(), r"\b");
    CHANGED_ANY = r"\b(?:must|should\s+(?:always|now)|will\s+now|(?:has|have)\s+been|now\s+(?:uses|requires|sends|needs)|is\s+(?:now\s+)?(?:deprecated|disabled|broken|unsafe|retired))\b";
}

/// Which text rule a text may hold something for: the rule reads its
/// sentences only if one of its patterns matches the whole text.
#[derive(Clone, Copy)]
pub(crate) struct Prefilter(usize);

/// `hidden-instruction`.
pub(crate) const HIDDEN_ANY: Prefilter = Prefilter(0);
/// `sensitive-data-request`.
pub(crate) const SENSITIVE_ANY: Prefilter = Prefilter(1);
/// `exfiltration-channel`.
pub(crate) const EXFILTRATION_ANY: Prefilter = Prefilter(2);
/// `tool-shadowing`.
pub(crate) const SHADOWING_ANY: Prefilter = Prefilter(3);

/// Each prefilter's patterns, in [`Prefilter`] order.
fn groups() -> [Vec<&'static Cue>; 4] {
    [
        vec![
            &OVERRIDE,
            &CONCEAL,
            &SECRECY,
            &PERSONA,
            &SUPPRESS,
            &TEMPLATE,
            &TAMPER,
            &COMMENT,
            &TAG,
            &LABEL,
            &PRETEXT,
            &THREAT,
            &OBLIGATION,
            &FIRST,
        ],
        ASSETS.iter().map(|a| a.pattern).collect(),
        vec![
            &DATA,
            &HARVEST,
            &UPLOAD_COMMAND,
            &OUTSIDE_ADDRESS,
            &URL,
            &REMOTE_IMAGE,
        ],
        vec![
            &TRIGGER,
            &EVERY_TOOL,
            &SELF_AROUND,
            &BCC,
            &EVERY_NAME_CALL,
            &CHANGED_ANY,
        ],
    ]
}

/// Every prefilter's patterns in one set, with the range of each: one
/// pass over a text says which rules need to read it (most text: none).
/// Line starts and ends match as text starts and ends, so that a text of
/// many strings, a line each, is admitted when one of them would be.
static CUES: LazyLock<(RegexSet, Vec<Range<usize>>)> = LazyLock::new(|| {
    let mut sources = Vec::new();
    let mut ranges = Vec::new();
    for group in groups() {
        let start = sources.len();
        sources.extend(group.iter().map(|cue| prepared(cue.source)));
        ranges.push(start..sources.len());
    }
    let set = regex::RegexSetBuilder::new(&sources)
        .multi_line(true)
        // The cache of the lazy automaton this many patterns run as: at
        // the default 2 MiB a lint of the bench corpus spent 3% of its
        // time building states it had thrown away.
        .dfa_size_limit(16 << 20)
        .build()
        .unwrap_or_else(|e| unreachable!("the patterns of cues.rs: {e}"));
    (set, ranges)
});

/// What one pass of every prefilter over a text found.
pub(crate) struct Admitted(regex::SetMatches);

/// Whether any prefilter admits `text`, without asking which.
pub(crate) fn admits_any(text: &str) -> bool {
    CUES.0.is_match(text)
}

impl Admitted {
    /// `None` when no rule needs to read the text: most text, found
    /// without asking which patterns matched.
    pub(crate) fn of(text: &str) -> Option<Admitted> {
        CUES.0
            .is_match(text)
            .then(|| Admitted(CUES.0.matches(text)))
    }
}

impl Prefilter {
    pub(crate) fn admits(&self, admitted: &Admitted) -> bool {
        CUES.1[self.0].clone().any(|i| admitted.0.matched(i))
    }
}

/// Whether a negation governs the word at `at` of `sentence`: one of the
/// five words before it ("must not be used to send").
pub(crate) fn negated(sentence: &str, at: usize) -> bool {
    let before = just_before(sentence, at);
    let start = before
        .char_indices()
        .rev()
        .filter(|(_, c)| c.is_whitespace())
        .nth(5)
        .map_or(0, |(i, _)| i);
    NEGATION.is_match(&before[start..])
}

/// Whether the verb at `range` of `sentence` names a kind of access
/// rather than asks for something ("read-only", "write access").
pub(crate) fn names_access(sentence: &str, range: Range<usize>) -> bool {
    let after = &sentence[range.end..];
    after.starts_with('-') || ACCESS_AFTER.is_match(after)
}

/// Whether the verb at `at` of `sentence` is one the user is told to do,
/// not the model ("tell the user to set ...").
pub(crate) fn addressed_to_user(sentence: &str, at: usize) -> bool {
    let before = just_before(sentence, at);
    // The clause the verb is in: "tell the user to create a key and set it".
    let clause = before.rsplit([';', ':']).next().unwrap_or(before);
    USER_ADDRESSED.is_match(before) || USER_IN_CLAUSE.is_match(clause)
}

/// Whether the word at `at` of `sentence` stands where an instruction's
/// verb stands: first, or after a modal, a connective or punctuation.
pub(crate) fn in_directive_position(sentence: &str, at: usize) -> bool {
    DIRECTIVE_BEFORE.is_match(just_before(sentence, at))
}

/// The text just before `at`: the few words a cue looks back at, never
/// the whole sentence (a sentence can be megabytes long).
pub(crate) fn just_before(sentence: &str, at: usize) -> &str {
    const WINDOW: usize = 80;
    let mut start = at.saturating_sub(WINDOW);
    while !sentence.is_char_boundary(start) {
        start += 1;
    }
    &sentence[start..at]
}

/// The match of `verbs` that governs the phrase at `at` of `sentence`:
/// the nearest before it, or else the first after it.
pub(crate) fn governing(verbs: &Regex, sentence: &str, at: usize) -> Option<Range<usize>> {
    let mut before = None;
    for m in verbs.find_iter(sentence) {
        if m.start() >= at {
            return before.or(Some(m.range()));
        }
        before = Some(m.range());
    }
    before
}

/// The first match of `pattern` in `text`, as a range.
pub(crate) fn first(pattern: &Regex, text: &str) -> Option<Range<usize>> {
    pattern.find(text).map(|m| m.range())
}

/// Groups of sensitive assets, each with its pattern: a tool whose name or
/// first sentence names a group manages it, and may name it.
pub(crate) struct Asset {
    pub group: &'static str,
    pub pattern: &'static Cue,
    /// A file or a place on disk, not a word for secrets in general.
    pub is_file: bool,
    /// The words of a tool's purpose that say it manages this group.
    pub topic: &'static Cue,
}

patterns! {
    SSH = r"\.ssh\b|\bid[_ ]?(?:rsa|ed25519|ecdsa|dsa)\b|\bssh\s+(?:private\s+)?keys?\b|\bssh\s+(?:id|config)\b|\bauthorized[_ ]keys\b";
    CLOUD = r"\.aws\b|\baws\s+(?:credentials|secret|access\s+keys?)\b|\.azure\b|\bgcloud\b|application[_ ]default[_ ]credentials";
    KUBE = r"\.kube\b|\bkubeconfig\b";
    REGISTRY = r"\.docker/config|\.npmrc\b|\.pypirc\b|\.netrc\b|\.git-credentials\b|\.pgpass\b|\.gnupg\b";
    SHELL = r"\.(?:bashrc|zshrc|bash_profile|zprofile|profile|bash_history|zsh_history)\b|\b(?:bashrc|zshrc|bash\s+history|shell\s+history)\b";
    SYSTEM = r"/etc/(?:passwd|shadow|sudoers)\b|/proc/self/environ|\betc\s+(?:passwd|shadow)\b";
    DOTENV = r"\bprintenv\b|\benv\s*\||/proc/self/environ|\bos\.environ\b|\bprocess\.env\b|(?:^|[\s'\x22`(~/])\.env\b|\benv(?:ironment)?\s+(?:variables|vars)\b";
    AGENT_CONFIG = r"\bmcp\.json\b|claude_desktop_config|\.cursor/|\bmcp\s+json\b";
    BROWSER = r"\b(?:browser|chrome|firefox|safari)\s+(?:profiles?|cookies|history|passwords|data)\b|\bcookies\b|\blogin\s+data\b|\bkeychain\b";
    WALLET = r"\b(?:crypto\s+)?wallets?\b|\belectrum\b|\bmetamask\b|\bkeystore\b";
    SEED = r"\bseed\s+phrases?\b|\bmnemonic\b|\brecovery\s+(?:words|phrase)\b|\bprivate\s+keys?\b|wiederherstellungs(?:phrase|sätze|wörter)|\bphrase\s+de\s+(?:récupération|passe\s+mnémonique)|\bfrase\s+(?:de\s+recuperación|semilla)\b|助记词|私钥|сид-фраз|секретн\w+\s+фраз";
    KEY_FILE = r"\b[\w-]+\.(?:pem|p12|pfx|keystore)\b|\b(?:private|secret)[\w-]*\.key\b";
    SECRET = r"\bapi[ _-]?keys?\b|\b(?:access|auth|authentication|bearer|session|refresh|api|oauth)\s+tokens?\b|\bpasswords?\b|\bsecrets\b|\bcredentials\b|\b[a-z0-9]+_(?:token|secret|api_key|password)\b";
}

patterns! {
    SSH_TOPIC = r"\bssh\b";
    CLOUD_TOPIC = r"\b(?:aws|gcloud|gcp|azure|cloud\s+credentials)\b";
    KUBE_TOPIC = r"\b(?:kube\w*|k8s|kubernetes|cluster\s+config\w*)\b";
    REGISTRY_TOPIC = r"\b(?:npm|pypi|docker|netrc|registry|git\s+credentials?|gpg)\b";
    SHELL_TOPIC = r"\b(?:shell|bash|zsh|dotfiles?|history)\b";
    SYSTEM_TOPIC = r"\b(?:passwd|user\s+accounts?|system\s+accounts?)\b";
    DOTENV_TOPIC = r"\b(?:env|dotenv|environment)\b";
    AGENT_TOPIC = r"\b(?:mcp\s+(?:config\w*|servers?)|cursor|claude\s+desktop)\b";
    BROWSER_TOPIC = r"\b(?:browser|cookies?|chrome|firefox)\b";
    WALLET_TOPIC = r"\b(?:wallets?|crypto\w*|signing)\b";
    // No purpose needs the model to handle a seed phrase, short of
    // managing keys themselves.
    SEED_TOPIC = r"\b(?:key\s+management|keygen|generates?\s+(?:a\s+)?(?:new\s+)?(?:key|wallet)s?|recover(?:s|y)?\s+(?:a\s+)?wallets?)\b";
    KEY_FILE_TOPIC = r"\b(?:keys?|certificates?|certs?|tls|ssl|pem)\b";
}

pub(crate) static ASSETS: &[Asset] = &[
    Asset {
        group: "SSH keys",
        pattern: &SSH,
        is_file: true,
        topic: &SSH_TOPIC,
    },
    Asset {
        group: "cloud credentials",
        pattern: &CLOUD,
        is_file: true,
        topic: &CLOUD_TOPIC,
    },
    Asset {
        group: "Kubernetes credentials",
        pattern: &KUBE,
        is_file: true,
        topic: &KUBE_TOPIC,
    },
    Asset {
        group: "package and registry credentials",
        pattern: &REGISTRY,
        is_file: true,
        topic: &REGISTRY_TOPIC,
    },
    Asset {
        group: "shell startup files and history",
        pattern: &SHELL,
        is_file: true,
        topic: &SHELL_TOPIC,
    },
    Asset {
        group: "system account files",
        pattern: &SYSTEM,
        is_file: true,
        topic: &SYSTEM_TOPIC,
    },
    Asset {
        group: "environment secrets",
        pattern: &DOTENV,
        is_file: true,
        topic: &DOTENV_TOPIC,
    },
    Asset {
        group: "agent configuration",
        pattern: &AGENT_CONFIG,
        is_file: true,
        topic: &AGENT_TOPIC,
    },
    Asset {
        group: "browser data",
        pattern: &BROWSER,
        is_file: false,
        topic: &BROWSER_TOPIC,
    },
    Asset {
        group: "wallets",
        pattern: &WALLET,
        is_file: true,
        topic: &WALLET_TOPIC,
    },
    Asset {
        group: "seed phrases and private keys",
        pattern: &SEED,
        is_file: false,
        topic: &SEED_TOPIC,
    },
    Asset {
        group: "key files",
        pattern: &KEY_FILE,
        is_file: true,
        topic: &KEY_FILE_TOPIC,
    },
    Asset {
        group: "secrets",
        pattern: &SECRET,
        is_file: false,
        topic: &MANAGES_SECRETS,
    },
];

patterns! {
    // Words of a tool's purpose that say it manages secrets of any kind.
    MANAGES_SECRETS = r"\b(?:secrets?|credentials?|tokens?|passwords?|keys?|auth\w*|vault|keychain|kubeconfig|ssh|env)\b";
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::poison::shape::Shape;
    use crate::lint::poison::text::{Normal, append_normal};

    /// Every string of a JSON value, keys included.
    fn strings(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
            serde_json::Value::Object(members) => {
                for (key, v) in members {
                    out.push(key.clone());
                    strings(v, out);
                }
            }
            _ => {}
        }
    }

    /// What `visit` relies on for every text, not only the sets' (it
    /// remembers a text as clean when a joined text of it is not
    /// admitted): no prefilter pattern tells a line from a whole text.
    /// `\A`, `\z` and `\B`, a group that turns multi-line mode off, or
    /// one that turns CRLF mode on, would.
    #[test]
    fn no_prefilter_pattern_tells_a_line_from_a_text() {
        for (i, cue) in groups().iter().flatten().enumerate() {
            let source = cue.source;
            for assertion in [r"\A", r"\z", r"\B"] {
                assert!(
                    !source.contains(assertion),
                    "pattern {i} holds {assertion}: {source}"
                );
            }
            for (at, _) in source.match_indices("(?") {
                let flags: String = source[at + 2..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphabetic() || *c == '-')
                    .collect();
                let off = flags.split_once('-').map_or("", |(_, off)| off);
                assert!(
                    !off.contains('m') && !flags.contains('R'),
                    "pattern {i} sets flags ({flags}) that change what a line end is: {source}"
                );
            }
        }
    }

    /// What the verdict table relies on (`Verdicts::key`): no prefilter
    /// pattern tells apart two texts that differ only in numbers that do
    /// not follow a letter. Every class of every pattern holds all ten
    /// digits or none, and every digit a pattern spells follows, in the
    /// same literal, a run of digits after a letter (`soc2`, `ed25519`).
    #[test]
    fn no_prefilter_pattern_tells_numbers_apart() {
        use regex_syntax::hir::{Class, Hir, HirKind};

        fn digits_in(class: &Class) -> usize {
            (b'0'..=b'9')
                .filter(|&d| match class {
                    Class::Unicode(c) => c
                        .ranges()
                        .iter()
                        .any(|r| r.start() <= char::from(d) && char::from(d) <= r.end()),
                    Class::Bytes(c) => c.ranges().iter().any(|r| r.start() <= d && d <= r.end()),
                })
                .count()
        }

        fn check(hir: &Hir, source: &str) {
            match hir.kind() {
                HirKind::Literal(literal) => {
                    let bytes = &literal.0;
                    for (i, b) in bytes.iter().enumerate() {
                        if !b.is_ascii_digit() {
                            continue;
                        }
                        let run = bytes[..i]
                            .iter()
                            .rposition(|b| !b.is_ascii_digit())
                            .map(|at| bytes[at]);
                        assert!(
                            run.is_some_and(|b| b.is_ascii_alphabetic()),
                            "a pattern spells a digit that does not follow a letter \
                             ({:?}): {source}",
                            String::from_utf8_lossy(bytes)
                        );
                    }
                }
                HirKind::Class(class) => {
                    let digits = digits_in(class);
                    assert!(
                        digits == 0 || digits == 10,
                        "a pattern's class holds {digits} of the ten digits: {source}"
                    );
                }
                HirKind::Repetition(repetition) => check(&repetition.sub, source),
                HirKind::Capture(capture) => check(&capture.sub, source),
                HirKind::Concat(all) | HirKind::Alternation(all) => {
                    all.iter().for_each(|h| check(h, source))
                }
                HirKind::Empty | HirKind::Look(_) => {}
            }
        }

        let mut read = 0;
        for cue in groups().iter().flatten() {
            let prepared = prepared(cue.source);
            let hir = regex_syntax::ParserBuilder::new()
                .multi_line(true)
                .build()
                .parse(&prepared)
                .unwrap_or_else(|e| unreachable!("{e}"));
            check(&hir, cue.source);
            read += 1;
        }
        assert!(read > 30, "read {read} patterns");
        // And the check sees what it is for.
        for (pattern, fine) in [(r"soc2|\.p12\b", true), ("[1-9]x", false), ("v_2", false)] {
            let hir = regex_syntax::parse(pattern).unwrap_or_else(|e| unreachable!("{e}"));
            let caught = std::panic::catch_unwind(|| check(&hir, pattern)).is_err();
            assert_eq!(caught, !fine, "{pattern}");
        }
    }

    /// What `visit` relies on: a prefilter that admits a string alone
    /// admits a text of it among others, a line each (checked on every
    /// string of the poisoning regression sets).
    #[test]
    fn a_string_admitted_alone_is_admitted_among_others() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
        let mut files = 0;
        for set in ["poison-set", "poison-blind"] {
            for class in ["malicious", "benign"] {
                let dir = root.join(set).join(class);
                for entry in walkdir::WalkDir::new(&dir) {
                    let path = entry.unwrap().into_path();
                    if path.extension().is_none_or(|e| e != "json") {
                        continue;
                    }
                    let text = std::fs::read_to_string(path).unwrap();
                    let Ok(value) = serde_json::from_str(&text) else {
                        continue;
                    };
                    files += 1;
                    let mut pieces = Vec::new();
                    strings(&value, &mut pieces);
                    let mut joined = String::from("first line\n");
                    let mut scratch = Normal::default();
                    for piece in &pieces {
                        append_normal(&mut joined, piece, Shape::of(piece), &mut scratch);
                        joined.push('\n');
                    }
                    joined.push_str("last line");
                    let all = Admitted::of(&joined);
                    for piece in &pieces {
                        let Some(alone) = Admitted::of(&Normal::new(piece).text) else {
                            continue;
                        };
                        let all = all.as_ref().expect("the joined text is admitted");
                        for prefilter in
                            [HIDDEN_ANY, SENSITIVE_ANY, EXFILTRATION_ANY, SHADOWING_ANY]
                        {
                            assert!(
                                !prefilter.admits(&alone) || prefilter.admits(all),
                                "{piece:?} is admitted alone, not among the others"
                            );
                        }
                    }
                }
            }
        }
        assert!(files > 200, "read {files} files");
    }
}
