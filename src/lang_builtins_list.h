/*
 * lang_builtins_list.h - every verb and function of the rule language, once, as
 * data.  Included (as jq includes its opcode_list.h) with VERB and FUNC
 * defined by the includer: lang_builtins.c builds the table that the parser,
 * the checker, the dependency analysis and `nomic help` read; eval_builtins.c
 * builds, from the same lines, the evaluator's table of handlers, named
 * do_NAME for a verb and fn_NAME for a function.
 *
 *   VERB(NAME, MIN, MAX, KINDS, FLAGS, COST, USAGE, DOC)
 *   FUNC(NAME, MIN, MAX, KINDS, FLAGS, COST, USAGE, DOC)
 *
 * NAME is the name as written in a rule.  MIN and MAX bound the number of
 * arguments (MAX -1: any).  KINDS is the kind of each argument, the last
 * repeating (lang_builtins.h's ArgKind).  FLAGS says what, beyond its
 * arguments, a call reads or does (BuiltinFlag); COST is what the metering
 * of docs/limits.md charges it for (CostClass).  USAGE and DOC are its
 * line in `nomic help` and docs/language.md.
 */

/* ---- verbs: the then part ---- */
VERB(create, 1, 1, (ARG_ASSIGN), BF_BINDS, COST_OBJECTS, "create(M)",
     "a new object with the attributes attr==expr of M; objectId==%v (unbound) binds %v to its id")
VERB(delete, 1, 1, (ARG_MATCH), 0, COST_MATCHES, "delete(M)", "deletes the first object matching M")
VERB(deleteAll, 1, 1, (ARG_MATCH), 0, COST_MATCHES, "deleteAll(M)", "deletes every object matching M")
VERB(set, 2, 2, (ARG_MATCH, ARG_ASSIGN), 0, COST_MATCHES, "set(M1)(M2)",
     "in the first object matching M1, assigns each attr==expr of M2; bare names in M2 read that object")
VERB(setAll, 2, 2, (ARG_MATCH, ARG_ASSIGN), 0, COST_MATCHES, "setAll(M1)(M2)", "like set, in every object matching M1")
VERB(forEach, 2, -1, (ARG_MATCH, ARG_VERBS), BF_BINDS, COST_MATCHES, "forEach(M)(verbs)",
     "runs the verbs once per object matching M (ascending id, matches taken first), with M's bindings")
VERB(send, 2, 2, (ARG_EXPR, ARG_EXPR), BF_SENDS, COST_DELIVERIES, "send(R, text)",
     "queues text for each address in R (words; commas allowed)")
VERB(sendObject, 3, 3, (ARG_EXPR, ARG_MATCH, ARG_EXPR), BF_SENDS, COST_DELIVERIES, "sendObject(R)(M)(header)",
     "queues the printed first object matching M (without its private attributes), under header, for each address in R")
VERB(sendNow, 0, 0, (ARG_NONE), 0, COST_DELIVERIES, "sendNow()", "hands every queued message to the transport")
VERB(halt, 0, 0, (ARG_NONE), 0, COST_STEP, "halt()", "the game ends after this event; later moves are refused")

/* ---- functions ---- */
FUNC(exists, 1, 1, (ARG_MATCH), BF_BINDS | BF_SURE, COST_MATCHES, "exists(M)",
     "T if an object matches M; in a condition, binds M's variables")
FUNC(count, 1, 1, (ARG_MATCH), BF_SURE, COST_MATCHES, "count(M)", "how many objects match M")
FUNC(sum, 2, 2, (ARG_MATCH, ARG_EXPR), 0, COST_MATCHES, "sum(M)(expr)",
     "the sum of expr over the objects matching M (0 if none)")
FUNC(min, 2, 2, (ARG_MATCH, ARG_EXPR), 0, COST_MATCHES, "min(M)(expr)",
     "the least non-empty expr over the objects matching M (\"\" if none)")
FUNC(max, 2, 2, (ARG_MATCH, ARG_EXPR), 0, COST_MATCHES, "max(M)(expr)",
     "the greatest non-empty expr over the objects matching M (\"\" if none)")
FUNC(join, 2, 3, (ARG_MATCH, ARG_EXPR), BF_SURE, COST_MATCHES, "join(M)(expr, sep)",
     "the non-empty expr of each object matching M, in ascending id, with sep (default one space) between them (\"\" if none)")
FUNC(timeNow, 0, 0, (ARG_NONE), BF_CLOCK | BF_SURE, COST_STEP, "timeNow()",
     "the time of the event being processed, in seconds since 1970")
FUNC(timeCreated, 0, 0, (ARG_NONE), BF_SURE, COST_STEP, "timeCreated()",
     "the time the game was made (nomic init), in seconds since 1970")
FUNC(timeGE, 1, 1, (ARG_EXPR), BF_CLOCK, COST_STEP, "timeGE(t)", "timeNow() >= t; a false one sets the next timer")
FUNC(random, 2, 2, (ARG_EXPR), BF_RANDOM, COST_STEP, "random(lo, hi)",
     "a uniform whole number in [lo, hi] from the game's seeded generator")
FUNC(if, 3, 3, (ARG_EXPR), BF_SURE, COST_STEP, "if(cond, a, b)", "a when cond is T, else b (only the chosen one is evaluated)")
FUNC(least, 2, 2, (ARG_EXPR), 0, COST_STEP, "least(a, b)", "the smaller of a and b (numbers by value, else text)")
FUNC(greatest, 2, 2, (ARG_EXPR), 0, COST_STEP, "greatest(a, b)", "the larger of a and b")
FUNC(isNumber, 1, 1, (ARG_EXPR), BF_SURE, COST_STEP, "isNumber(x)", "T if x reads as a number")
FUNC(round, 1, 1, (ARG_EXPR), 0, COST_DIGITS, "round(x)", "x to the nearest whole number, halves away from zero")
FUNC(floor, 1, 1, (ARG_EXPR), 0, COST_DIGITS, "floor(x)", "the largest whole number <= x")
FUNC(ceil, 1, 1, (ARG_EXPR), 0, COST_DIGITS, "ceil(x)", "the smallest whole number >= x")
FUNC(abs, 1, 1, (ARG_EXPR), 0, COST_DIGITS, "abs(x)", "the absolute value of x")
FUNC(length, 1, 1, (ARG_EXPR), BF_SURE, COST_TEXT, "length(text)", "the number of characters of text")
FUNC(timeValue, 1, 1, (ARG_EXPR), 0, COST_STEP, "timeValue(text)",
     "a time written as seconds or YYYY-MM-DD[THH:MM[:SS]][Z] (UTC), in seconds since 1970 (\"\" if neither)")
FUNC(timeText, 1, 1, (ARG_EXPR), BF_SURE, COST_STEP, "timeText(t)",
     "the time t (whole seconds since 1970) as YYYY-MM-DDTHH:MM:SSZ, in UTC (\"\" if t is not one)")
FUNC(lower, 1, 1, (ARG_EXPR), BF_SURE, COST_TEXT, "lower(text)",
     "text with A-Z made a-z (other characters as they are): for orders that ignore case")
FUNC(words, 1, 1, (ARG_EXPR), BF_SURE, COST_TEXT, "words(list)", "the number of whitespace-separated words of list")
FUNC(member, 2, 2, (ARG_EXPR), BF_SURE, COST_TEXT, "member(list, w)", "T if w is one of the words of list")
FUNC(pad, 2, 2, (ARG_EXPR), BF_SURE, COST_TEXT, "pad(text, n)",
     "text with spaces after it to n characters (before it when n < 0: numbers to the right), as it is if longer; "
     "|n| at most 1000: for reports laid out in columns")
FUNC(glue, 1, -1, (ARG_EXPR), BF_SURE, COST_TEXT, "glue(a, b, ...)",
     "the texts joined with nothing between them (juxtaposition puts one space)")
FUNC(replaceWord, 3, 3, (ARG_EXPR), BF_SURE, COST_TEXT, "replaceWord(list, w, v)",
     "list with each word equal to w replaced by v (\"\" drops it); words joined by one space")
FUNC(replace, 3, 3, (ARG_EXPR), BF_SURE, COST_TEXT, "replace(text, old, new)",
     "text with every occurrence of old (left to right, not overlapping) replaced by new; text as it is if old is \"\"")
FUNC(charsIn, 2, 2, (ARG_EXPR), BF_SURE, COST_TEXT, "charsIn(text, chars)",
     "T if every character (byte) of text is one of chars (T for the empty text)")
FUNC(word, 2, 2, (ARG_EXPR), BF_SURE, COST_TEXT, "word(list, n)",
     "the n-th whitespace-separated word of list, from 1 (\"\" if none)")
FUNC(attribute, 2, 2, (ARG_EXPR), BF_BY_NAME | BF_SURE, COST_STEP, "attribute(id, name)",
     "the value of the attribute called name of the object whose objectId is id (\"\" if none)")
FUNC(eval, 3, 3, (ARG_EXPR), 0, COST_DIGITS, "eval(text, i, v)",
     "MathFlag's arithmetic: the exact value of text (1 to 8 characters of 0-9 + - * / ( ) i v) with i and v; "
     "\"\" when undefined (malformed, division by zero); an i or v of \"\" reads as 0, other non-numbers make it undefined")
FUNC(parses, 1, 1, (ARG_EXPR), 0, COST_TEXT, "parses(text)",
     "T if text parses as a condition or a verb list (F past 256 levels of nesting or 4096 nodes: docs/limits.md)")
FUNC(parseError, 1, 1, (ARG_EXPR), 0, COST_TEXT, "parseError(text)",
     "why text does not parse, as \"line L, column C: message\" (\"\" exactly when parses(text) is T)")
