#!/bin/sh
# tests/t60-scams.sh - nomic scams: the search finds the holes it should
# (favor-draft's vote replay, a variant of favor for each hole of
# docs/favor.md's scam table that the search can reach, four sets
# with planted holes of other kinds, six that each need one of its
# abilities: a value from the goal or a boundary, a value that grows from
# the state, two moves in one message, the empty text, a long text, a
# coalition) and answers none once each is closed; best-first and random
# walks find
# deeper ones; it writes nothing, gives the same answer every run, says
# when its vocabulary was cut, and says what is wrong with bad usage.  Run from the repository: NOMIC=build/nomic sh tests/t60-scams.sh
R=$(pwd)
. "$R/tests/lib.sh"

# A favor-like game with three players and one open proposal, by bob.
favor_game() { # DB RULESET
    "$NOMIC" init "$1" --ruleset "$2" --time 2026-01-01Z --force > /dev/null || fail "init $2"
    for p in alice bob carol; do
        printf 'subtype: register\nnickname: %s\n' $p | "$NOMIC" move "$1" --from $p@x --time 2026-01-01T01:00:00Z > /dev/null
    done
    printf 'subtype: ruleChange\nruleChangeType: create\nnewif: F\nnewthen: halt()\nneworder: 50000\n' |
        "$NOMIC" move "$1" --from bob@x --time 2026-01-01T02:00:00Z > /dev/null
}

# favor with one fix undone, built as favor-draft is (sed on favor).
variant() { # NAME SED-EXPRESSION
    sed "$2" "$R/rulesets/favor.nomic" > "$1.nomic"
    cp "$R/rulesets/favor.sugar" "$1.sugar"
    if cmp -s "$R/rulesets/favor.nomic" "$1.nomic"; then fail "$1: the sed changed nothing (favor.nomic moved on?)"; fi
    favor_game "$1.db" "$PWD/$1.nomic"
}

# --- the paper's scam: favor-draft's vote replay, and none in favor --------
GOAL='exists(type=="player" & nickname=="alice" & score>=3) & count(type=="voteInProgress") < 3'
favor_game draft.db favor-draft
favor_game favor.db favor
"$NOMIC" export draft.db > before.txt
"$NOMIC" log draft.db --json >> before.txt
expect_status 0 "favor-draft: the vote replay is found" "$NOMIC" scams draft.db --as alice@x --goal "$GOAL" --depth 4
cp out draft.txt
expect_in draft.txt "# message 1 from alice@x at 2026-01-01T02:00:00Z" "favor-draft: the answer's first message"
expect_in draft.txt "cleanup: T" "favor-draft: the answer's votes are sent with cleanup: T"
expect_in draft.txt "# message 3 from alice@x" "favor-draft: three votes make three points"
expect_not_in draft.txt "# message 4" "favor-draft: the shortest answer"
ALICE=$("$NOMIC" show draft.db --type player | awk '$1 == "objectId:" { id = $2 } $1 == "nickname:" && $2 == "alice" { print id }')
PROP=$("$NOMIC" show draft.db --type voteInProgress | awk '$1 == "propId:" { print $2 }')
expect_in draft.txt "set $ALICE score: 3" "favor-draft: the last event's trace shows the third point"
expect_status 0 "favor-draft: again" "$NOMIC" scams draft.db --as alice@x --goal "$GOAL" --depth 4
cmp -s out draft.txt && ok || fail "favor-draft: the same answer on every run"
"$NOMIC" export draft.db > after.txt
"$NOMIC" log draft.db --json >> after.txt
cmp -s before.txt after.txt && ok || fail "favor-draft: the search wrote to the game"
expect_status 0 "favor-draft: --json" "$NOMIC" scams draft.db --as alice@x --goal "$GOAL" --depth 3 --json
PROP=$PROP python3 -c '
import json, os, sys
a = json.load(open("out"))
assert a["found"] is True and a["explored"] > 0, a
assert len(a["steps"]) == 3, a
for s in a["steps"]:
    assert s["from"] == "alice@x" and s["time"] == 1767232800, s
    m = s["moves"][0]
    assert m["subtype"] == "vote" and m["propId"] == os.environ["PROP"], m
assert any(s["moves"][0].get("cleanup") == "T" for s in a["steps"]), a
' && ok || fail "favor-draft: the JSON answer"
# favor: no way within the 3 messages of favor-draft's replay (the search
# is complete, not stopped by its budget; depth 4 takes minutes:
# bench/README.md)
expect_status 3 "favor: none" "$NOMIC" scams favor.db --as alice@x --goal "$GOAL" --depth 3 --budget 50000000
expect_in out "none within depth 3 (explored " "favor: the answer says none"
expect_not_in out "budget" "favor: the search was complete"

# --- favor with each fix of the scam table undone --------------------------
# rule 7: a move's `from` named any player
variant from 's/^    !exists(type=="player" & nickname==%f & defaultEmail==%s)$/    !exists(type=="player" \& nickname==%f)/'
G_FROM='exists(type=="player" & nickname=="bob" & score>=1)'
expect_status 0 "favor, rule 7 undone: a vote as bob" "$NOMIC" scams from.db --as alice@x --goal "$G_FROM" --depth 2
expect_in out "from: bob" "favor, rule 7 undone: the answer writes from: bob"
expect_status 3 "favor: nobody votes as bob" "$NOMIC" scams favor.db --as alice@x --goal "$G_FROM" --depth 2
# rule 16: a vote of any value counted
variant maybe 's/^      (vote=="FOR" | vote=="AGAINST") & from==%f & objectId==%o) &$/      from==%f \& objectId==%o) \&/'
G_MAYBE='exists(type=="vote" & vote!="FOR" & vote!="AGAINST")'
expect_status 0 "favor, rule 16's FOR|AGAINST undone: a MAYBE vote" "$NOMIC" scams maybe.db --as alice@x --goal "$G_MAYBE" --depth 2
expect_status 3 "favor: no vote but FOR or AGAINST" "$NOMIC" scams favor.db --as alice@x --goal "$G_MAYBE" --depth 2
# rules 12-15: opened!=T, the sender's to write: a proposal never put to the vote
variant opened 's/ & sent==F & opened==F)$/ \& sent==F)/; s/exists(type=="changeBeingVotedOn" & opened==F & moveBatch==%b/exists(type=="changeBeingVotedOn" \& opened!=T \& moveBatch==%b/'
G_OPENED='exists(type=="changeBeingVotedOn" & moveBatch==%b) & !exists(type=="voteInProgress" & propId==%b)'
expect_status 0 "favor, opened==F undone: a proposal never voted on" "$NOMIC" scams opened.db --as alice@x --goal "$G_OPENED" --depth 2
expect_in out "opened: T" "favor, opened==F undone: the answer writes opened: T"
expect_status 3 "favor: every proposal is put to the vote" "$NOMIC" scams favor.db --as alice@x --goal "$G_OPENED" --depth 2
# rule 31: processed!=T, so a duplicate registration stayed in the pool
variant processed 's/^if: exists(type=="move" & !(processed==T & cleanup==T) & objectId==%o &$/if: exists(type=="move" \& processed!=T \& objectId==%o \&/'
G_MOVE='exists(type=="move")'
expect_status 0 "favor, rule 31 undone: a move left unanswered" "$NOMIC" scams processed.db --as alice@x --goal "$G_MOVE" --depth 2
expect_in out "processed: T" "favor, rule 31 undone: the answer writes processed: T"
expect_status 3 "favor: no move is left behind" "$NOMIC" scams favor.db --as alice@x --goal "$G_MOVE" --depth 2

# rules 12-14: sent!=T, the sender's to write: a proposal never announced.
# Only a message tells: the goal reads the path's messages (scamMessage).
variant sent 's/(type=="changeBeingVotedOn" & sent==F & opened==F)$/(type=="changeBeingVotedOn" \& opened==F)/; s/exists(type=="changeBeingVotedOn" & sent==F & moveBatch==%b/exists(type=="changeBeingVotedOn" \& sent!=T \& moveBatch==%b/'
G_SENT='exists(type=="voteInProgress" & from=="alice" & propId==%b) & !exists(type=="scamMessage" & replace(text, glue("(proposal ", %b, ")"), "") != text)'
expect_status 0 "favor, sent==F undone: a proposal never announced" "$NOMIC" scams sent.db --as alice@x --goal "$G_SENT" --depth 2
expect_in out "sent: T" "favor, sent==F undone: the answer writes sent: T"
expect_status 3 "favor: every proposal is announced" "$NOMIC" scams favor.db --as alice@x --goal "$G_SENT" --depth 2
expect_status 0 "scamMessage: an honest proposal's announcement is seen" "$NOMIC" scams favor.db --as alice@x \
    --goal 'exists(type=="scamMessage" & sent==T & step==1 & replace(text, "Proposed rule-change", "") != text)' --depth 1
# rules 16, 19: noted!=T: a vote never announced when the vote closes
variant noted 's/^then: set(objectId==%o)(type=="vote" & credited==F & cleanup==F & noted==F)$/then: set(objectId==%o)(type=="vote" \& credited==F \& cleanup==F)/; s/^           noted==F & objectId==%vo) &$/           noted!=T \& objectId==%vo) \&/'
G_NOTED='(exists(type=="proposalPassed") | exists(type=="proposalFailed")) & exists(type=="player" & nickname=="alice" & score>=1) & !exists(type=="scamMessage" & replace(text, "Player alice receives", "") != text)'
expect_status 0 "favor, noted==F undone: a vote never announced" "$NOMIC" scams noted.db --as alice@x --goal "$G_NOTED" --depth 2 --wait
expect_in out "noted: T" "favor, noted==F undone: the answer writes noted: T"
expect_in out "# wait until" "favor, noted==F undone: the answer waits for the vote to close"
expect_status 3 "favor: every vote is announced" "$NOMIC" scams favor.db --as alice@x --goal "$G_NOTED" --depth 2 --wait

# --- planted holes of other kinds, found; closed, none ---------------------
D="$R/tests/data/scams"
RICH='exists(type=="account" & owner=="alice@x" & balance>100)'
planted() { # NAME GOAL SED-CLOSING-IT
    "$NOMIC" init "$1.db" --ruleset "$D/$1.nomic" --time 2026-01-01Z --force > /dev/null || fail "init $1"
    expect_status 0 "$1: the planted hole is found" "$NOMIC" scams "$1.db" --as alice@x --goal "$2" --depth 3
    cp out "$1.txt"
    sed "$3" "$D/$1.nomic" > "$1-closed.nomic"
    if cmp -s "$D/$1.nomic" "$1-closed.nomic"; then fail "$1: the sed closing the hole changed nothing"; fi
    "$NOMIC" init "$1-closed.db" --ruleset "$PWD/$1-closed.nomic" --time 2026-01-01Z --force > /dev/null || fail "init $1-closed"
    expect_status 3 "$1: closed, none" "$NOMIC" scams "$1-closed.db" --as alice@x --goal "$2" --depth 3
}
planted pay "$RICH" 's/%t != %s & %a <= %b$/%t != %s \& %a <= %b \& %a > 0/'
expect_in pay.txt "amount: -" "pay: the answer pays a negative amount"
planted transfer "$RICH" 's/%a > 0 & %a <= %b$/%a > 0 \& %a <= %b \& %t != %s/'
expect_in transfer.txt "to: alice@x" "transfer: the answer transfers to oneself"
planted register 'count(type=="player" & address=="alice@x") >= 2' \
    's/^    !exists(type=="player" & nickname==%n)$/    !exists(type=="player" \& nickname==%n) \& !exists(type=="player" \& address==%s)/'
expect_in register.txt "subtype: register" "register: the answer registers again"
planted claim 'exists(type=="player" & address=="alice@x" & coins>=20)' \
    's/set(objectId==%m)(processed==T)$/set(objectId==%m)(processed==T) \& create(type=="claimed" \& who==%s)/'
expect_in claim.txt "---" "claim: the answer's message holds the claim twice"
expect_status 0 "claim: --json" "$NOMIC" scams claim.db --as alice@x --goal 'exists(type=="player" & address=="alice@x" & coins>=20)' --json
expect_in out '"moves": [{"subtype": "claim"}, {"subtype": "claim"}]' "claim: the JSON message holds two moves"

# --- the values a scammer picks, two moves in one message, a coalition ------
# Each set of tests/data/scams below needs one ability of the search: (a)
# bank, a value from the goal or a boundary (eve's 10 coins to 100 in one
# payment of -100 or -10^18); (b) invest, a value that grows from the
# state (10 doubled to 20, 40, 80: the balance of the state then); (c)
# pair, a claim and a confirm of one sender in one message (moveBatch);
# (d) rename, the goal's empty text (a player left without a nickname,
# where the rules only copy the nickname); (e) essay, a long text where
# the rules measure one (a coin per character, unbounded); (f) deal, a
# coalition where each must act (alice offers, bob accepts).  Each is
# found, is none once closed, and the game's file is the same after.
hole() { # NAME AS GOAL DEPTH SED-CLOSING-IT [--with ADDR]
    name=$1 as=$2 goal=$3 depth=$4 closing=$5
    shift 5
    "$NOMIC" init "$name.db" --ruleset "$D/$name.nomic" --time 2026-01-01Z --force > /dev/null || fail "init $name"
    sum=$(sha256sum < "$name.db")
    expect_status 0 "$name: the planted hole is found" "$NOMIC" scams "$name.db" --as "$as" "$@" --goal "$goal" --depth "$depth"
    cp out "$name.txt"
    expect_eq "$(sha256sum < "$name.db")" "$sum" "$name: the game's file is the same after the search (sha256)"
    sed "$closing" "$D/$name.nomic" > "$name-closed.nomic"
    if cmp -s "$D/$name.nomic" "$name-closed.nomic"; then fail "$name: the sed closing the hole changed nothing"; fi
    "$NOMIC" init "$name-closed.db" --ruleset "$PWD/$name-closed.nomic" --time 2026-01-01Z --force > /dev/null || fail "init $name-closed"
    sum=$(sha256sum < "$name-closed.db")
    expect_status 3 "$name: closed, none" "$NOMIC" scams "$name-closed.db" --as "$as" "$@" --goal "$goal" --depth "$depth"
    expect_eq "$(sha256sum < "$name-closed.db")" "$sum" "$name: closed, the game's file is the same after the search"
}
G_BANK='exists(type=="account" & owner=="eve@x" & balance>=100)'
hole bank eve@x "$G_BANK" 3 's/%t != %s & %a <= %b$/%t != %s \& %a <= %b \& %a > 0/'
expect_in bank.txt "amount: -100" "bank: the answer pays the goal's number back negated"
expect_not_in bank.txt "# message 2" "bank: one message"
G_INVEST='exists(type=="account" & owner=="alice@x" & balance>=80)'
hole invest alice@x "$G_INVEST" 3 's/%a > 0 & %a <= %b$/%a > 0 \& %a <= %b \& %a <= 10/'
expect_in invest.txt "# message 2" "invest: the balance grows over the messages"
expect_in invest.txt "amount: 40" "invest: a value of the state after two messages (40), not of the start"
G_PAIR='exists(type=="player" & address=="alice@x" & coins>=50)'
hole pair alice@x "$G_PAIR" 2 's/& moveBatch==%b & objectId==%n) &$/\& moveBatch==%b \& objectId==%n) \& %c != %s \&/'
expect_in pair.txt "subtype: claim" "pair: the message holds the claim"
expect_in pair.txt "subtype: confirm" "pair: ... and the confirm"
expect_not_in pair.txt "# message 2" "pair: in one message"
expect_status 0 "pair: --json" "$NOMIC" scams pair.db --as alice@x --goal "$G_PAIR" --depth 2 --json
expect_in out '"moves": [{"subtype": "claim"}, {"subtype": "confirm"}]' "pair: the JSON message holds two different moves"
G_RENAME='exists(type=="player" & address=="alice@x" & nickname=="")'
hole rename alice@x "$G_RENAME" 2 's/!exists(type=="player" & nickname==%n) &$/!exists(type=="player" \& nickname==%n) \& %n != "" \&/'
expect_in rename.txt 'nickname: ""' "rename: the answer sends the empty text"
G_ESSAY='exists(type=="player" & address=="alice@x" & coins>=1000)'
hole essay alice@x "$G_ESSAY" 2 's/    length(%t) > 0 &$/    length(%t) > 0 \& length(%t) <= 140 \&/'
expect_in essay.txt "set 2 coins: 4096" "essay: the answer sends the long text (4,096 characters, one coin each)"
expect_not_in essay.txt "# message 2" "essay: one message"
G_DEAL='exists(type=="player" & address=="alice@x" & coins>=60) & exists(type=="player" & address=="bob@x" & coins>=60)'
hole deal alice@x "$G_DEAL" 3 's/set(objectId==%sp)(coins==%sc + 10)/set(objectId==%sp)(coins==%sc - 10)/' --with bob@x
expect_in deal.txt "# message 1 from alice@x" "deal: alice offers"
expect_in deal.txt "# message 2 from bob@x" "deal: bob accepts"
expect_status 3 "deal: alice alone cannot" "$NOMIC" scams deal.db --as alice@x --goal "$G_DEAL" --depth 3

# --- beyond exhaustive search: best-first and random walks -----------------
expect_status 0 "best-first: favor-draft's vote replay" "$NOMIC" scams draft.db --as alice@x --goal "$GOAL" --depth 8 --mode best
expect_in out "cleanup: T" "best-first: the votes are sent with cleanup: T"
expect_status 0 "best-first: bank" "$NOMIC" scams bank.db --as eve@x --goal "$G_BANK" --depth 8 --mode best
G_RICHER='exists(type=="account" & owner=="alice@x" & balance>=5000)'
expect_status 3 "exhaustive: invest to 5000 is beyond depth 3" "$NOMIC" scams invest.db --as alice@x --goal "$G_RICHER" --depth 3
expect_status 0 "best-first: invest to 5000, deeper" "$NOMIC" scams invest.db --as alice@x --goal "$G_RICHER" --depth 16 --mode best
expect_status 0 "walks: favor-draft's vote replay" "$NOMIC" scams draft.db --as alice@x --goal "$GOAL" --depth 8 --mode walk --seed 1
cp out walk1.txt
expect_in walk1.txt "cleanup: T" "walks: the votes are sent with cleanup: T"
expect_status 0 "walks: the same seed again" "$NOMIC" scams draft.db --as alice@x --goal "$GOAL" --depth 8 --mode walk --seed 1
cmp -s out walk1.txt && ok || fail "walks: the same seed gives the same answer"
expect_status 0 "walks: invest to 5000" "$NOMIC" scams invest.db --as alice@x --goal "$G_RICHER" --depth 16 --mode walk --seed 7
expect_status 3 "walks: none in favor within a small budget" "$NOMIC" scams favor.db --as alice@x --goal "$GOAL" --depth 8 \
    --mode walk --seed 1 --budget 3000
expect_in out "not a proof" "walks: none is said not to be a proof"
expect_status 2 "--seed without --mode walk" "$NOMIC" scams bank.db --as eve@x --goal T --seed 3
expect_status 2 "--mode unknown" "$NOMIC" scams bank.db --as eve@x --goal T --mode deep
expect_status 2 "exhaustive past depth 8" "$NOMIC" scams bank.db --as eve@x --goal T --depth 9

# --- the vocabulary says when it was cut ----------------------------------
expect_in draft.txt "the vocabulary was cut:" "favor-draft: the answer says the vocabulary was cut"
expect_status 0 "favor-draft: the cut, in JSON" "$NOMIC" scams draft.db --as alice@x --goal "$GOAL" --depth 3 --json
python3 -c '
import json
a = json.load(open("out"))
assert a["cut"]["joins"] > 0 and a["cut"]["values"] > 0, a
' && ok || fail "favor-draft: the JSON answer counts what was cut"
expect_not_in bank.txt "cut" "bank: nothing was cut, and nothing is said"

# --- a coalition, and a goal that holds already ----------------------------
# alice alone cannot pass 150 in pay-closed; with bob's messages she can
expect_status 3 "alone, alice cannot pass 150" "$NOMIC" scams pay-closed.db --as alice@x \
    --goal 'exists(type=="account" & owner=="alice@x" & balance>150)' --depth 2
expect_status 0 "a coalition: bob pays alice" "$NOMIC" scams pay-closed.db --as alice@x --with bob@x \
    --goal 'exists(type=="account" & owner=="alice@x" & balance>150)' --depth 1
expect_in out "# message 1 from bob@x" "a coalition: the message is bob's"
expect_status 0 "a goal that holds already" "$NOMIC" scams pay.db --as alice@x --goal 'exists(type=="account")'
expect_in out "the goal holds already" "a goal that holds already: said so"

# --- --proposal: what an open proposal opens up ----------------------------
favor_game prop.db favor
printf '%s\n' 'subtype: ruleChange' 'ruleChangeType: create' 'neworder: 20000' \
    'newif: exists(type=="move" & subtype=="bonus" & moveSender==%s & objectId==%m) & exists(type=="player" & defaultEmail==%s & score==%x & objectId==%p)' \
    'newthen: set(objectId==%p)(score==%x+10) & delete(objectId==%m)' |
    "$NOMIC" move prop.db --from bob@x --time 2026-01-01T03:00:00Z > /dev/null
"$NOMIC" show prop.db --type rule | grep -c '^type: rule' > rules-before.txt
pid=$("$NOMIC" show prop.db --type voteInProgress | awk '$1 == "propId:" { p = $2 } END { print p }')
G_BONUS='exists(type=="player" & nickname=="alice" & score>=10)'
expect_status 3 "--proposal: without it, none" "$NOMIC" scams prop.db --as alice@x --goal "$G_BONUS" --depth 1
expect_status 0 "--proposal: adopted, the bonus is found" "$NOMIC" scams prop.db --proposal "$pid" --as alice@x --goal "$G_BONUS" --depth 1
expect_in out "subtype: bonus" "--proposal: the answer uses the proposal's new move"
"$NOMIC" show prop.db --type rule | grep -c '^type: rule' > rules.txt
expect_eq "$(cat rules.txt)" "$(cat rules-before.txt)" "--proposal: the game itself is unchanged"
expect_status 1 "--proposal: an id that is no proposal" "$NOMIC" scams prop.db --proposal 999 --as alice@x --goal "$G_BONUS"
expect_in err "no changeBeingVotedOn object has moveBatch 999" "--proposal: the error names what the rules declare"
# suber declares its own: formalChange objects, by the proposal's number
"$NOMIC" init suber.db --ruleset suber --time 2026-01-01Z --force > /dev/null || fail "init suber"
for p in alice:Adams bob:Brown carol:Clark; do
    printf 'subtype: join\nnickname: %s\nsurname: %s\n' "${p%:*}" "${p#*:}" |
        "$NOMIC" move suber.db --from "${p%:*}@x" --time 2026-01-01T01:00:00Z > /dev/null
done
printf '%s\n' 'PROPOSE ENACT A bonus.' \
    'FORMAL CREATE 10020 IF exists(type=="move" & subtype=="bonus" & moveSender==%s & objectId==%m) & exists(type=="player" & defaultEmail==%s & score==%x & objectId==%p) THEN set(objectId==%p)(score==%x+10) & delete(objectId==%m)' |
    "$NOMIC" move suber.db --from alice@x --time 2026-01-01T02:00:00Z > /dev/null
expect_eq "$("$NOMIC" show suber.db --type formalChange | awk '$1 == "proposal:" { print $2 }')" 301 "suber: proposal 301 carries a formal change"
expect_status 3 "suber --proposal: without it, none" "$NOMIC" scams suber.db --as alice@x --goal "$G_BONUS" --depth 1
expect_status 0 "suber --proposal 301: the bonus is found" "$NOMIC" scams suber.db --proposal 301 --as alice@x --goal "$G_BONUS" --depth 1
expect_in out "subtype: bonus" "suber --proposal: the answer uses the formal change's new move"
# a set that declares nothing: --proposal says so
expect_status 1 "--proposal on a set that declares no changes" "$NOMIC" scams pay.db --proposal 1 --as alice@x --goal T
expect_in err "declare no changes to their rules" "--proposal: the error says the rules declare no proposal changes"

# --- a last move out of the goal's reach is not played ----------------------
# (docs/scams.md, "States"); one that reaches it only through a rule that
# names no type, a timer due at once or a rule's then is played: each
# found at exactly its depth, where it is the last move
"$NOMIC" init reach.db --ruleset "$D/reach.nomic" --time 2026-01-01Z --force > /dev/null || fail "init reach"
G_GEM='!exists(type=="gem")'
G_PAID='exists(type=="account" & owner=="alice@x" & balance>100)'
G_MEDAL='exists(type=="medal")'
expect_status 0 "reach: a mark, then the sweeper (no type) deletes the gem" "$NOMIC" scams reach.db --as alice@x --goal "$G_GEM" --depth 1
expect_in out "subtype: mark" "reach: the answer marks the gem"
expect_status 0 "reach: a timer due now pays at once" "$NOMIC" scams reach.db --as alice@x --goal "$G_PAID" --depth 1
expect_in out "subtype: start" "reach: the answer starts the timer"
expect_status 0 "reach: a flag a rule's then rewards" "$NOMIC" scams reach.db --as alice@x --goal "$G_MEDAL" --depth 2
expect_in out "subtype: flag" "reach: the answer's last move is the flag"
# most of favor's last moves cannot make a win: only a vote moves a
# score, by one point, and no score is near the 101 the win asks
# (docs/scams.md, "How far a number can go"): the search to depth 3 ends
# within a budget that playing every move exceeds twenty times over
G_WIN='exists(type=="win")'
expect_status 3 "favor, a win: none within depth 3 and 10000 events" "$NOMIC" scams favor.db --as alice@x --goal "$G_WIN" --depth 3 --budget 10000
expect_in out "none within depth 3" "favor, a win: the search was complete"
expect_status 3 "favor, a win, every move played" "$NOMIC" scams favor.db --as alice@x --goal "$G_WIN" --depth 3 --budget 10000 --play-all
expect_in out "the budget of 10000 events ran out" "favor, a win: playing every move needs more than the budget"
# a crown for a balance of 100, from 95: a last move is played only if
# its rules can raise the balance that far, counting each object they
# take once (a tip: 1 point; a double: two coins, 2; two copies of a
# move in one message, twice that), and a loan, whose repayments make
# loans again (a cycle), always
"$NOMIC" init floor.db --ruleset "$D/floor.nomic" --time 2026-01-01Z --force > /dev/null || fail "init floor"
G_CROWN='exists(type=="crown")'
expect_status 3 "floor: no crown within depth 1 (4 points at most)" "$NOMIC" scams floor.db --as alice@x --goal "$G_CROWN" --depth 1
expect_status 0 "floor: a crown at depth 2" "$NOMIC" scams floor.db --as alice@x --goal "$G_CROWN" --depth 2 --json
expect_in out '{"subtype": "double"}, {"subtype": "double"}' "floor: the last message is two doubles (4 points)"
sed 's/^balance: 95$/balance: 90/' "$D/floor.nomic" > floor90.nomic
"$NOMIC" init loan.db --ruleset floor90.nomic --time 2026-01-01Z --force > /dev/null || fail "init loan"
printf 'subtype: open\n' | "$NOMIC" move loan.db --from alice@x --time 2026-01-01T00:00:00Z > /dev/null || fail "loan: open"
expect_status 0 "loan: a crown from 90 at depth 2" "$NOMIC" scams loan.db --as alice@x --goal "$G_CROWN" --depth 2 --json
expect_in out '{"subtype": "loan"}, {"subtype": "loan"}]}]' "loan: the last message is two loans (6 points, through a cycle)"
# a refund opens every credited tip at once: it counts as often as there
# are tips (two tips, then one refund, from 98)
"$NOMIC" init refund.db --ruleset "$D/refund.nomic" --time 2026-01-01Z --force > /dev/null || fail "init refund"
expect_status 0 "refund: a crown at depth 2" "$NOMIC" scams refund.db --as alice@x --goal "$G_CROWN" --depth 2 --json
expect_in out '{"subtype": "tip"}, {"subtype": "tip"}]}, {"from": "alice@x", "time": 1767225600, "moves": [{"subtype": "refund"}]}]' \
    "refund: two tips, then one refund"
# with more accounts than are looked at one by one (70 more, of 3 each),
# the largest balance still tells that no crown is there yet: no last
# move within 4 points of it is played
{ cat "$D/floor.nomic"; for i in $(seq 70); do printf '\ntype: account\nowner: x%s@x\nbalance: 3\n' "$i"; done; } > many.nomic
"$NOMIC" init many.db --ruleset many.nomic --time 2026-01-01Z --force > /dev/null || fail "init many"
expect_status 3 "many accounts: no crown within depth 1" "$NOMIC" scams many.db --as alice@x --goal "$G_CROWN" --depth 1 --json
expect_in out '"explored": 0' "many accounts: no last move played"

# --- --wait: waiting for the next timer is a step --------------------------
G_CLOSED='count(type=="voteInProgress") == 0'
expect_status 3 "without --wait, bob's proposal stays open" "$NOMIC" scams favor.db --as alice@x --goal "$G_CLOSED" --depth 2
expect_status 0 "with --wait, it closes" "$NOMIC" scams favor.db --as alice@x --goal "$G_CLOSED" --depth 2 --wait
expect_in out "# wait until 2026-01-11T02:00:00Z" "--wait: the step waits for the vote's expiry"
expect_status 0 "--wait, JSON" "$NOMIC" scams favor.db --as alice@x --goal "$G_CLOSED" --depth 2 --wait --json
expect_in out '{"wait": 1768096800}' "--wait: the JSON step"

# --- the skipping is exact, and --jobs changes nothing: the same answers --
# with every move played (a move whose effect is known is not played
# again: a no-op anywhere, and as the last move one whose changes the goal
# does not read), and with three processes sharing each round from depth 3
same_played_all() { # LABEL ARGS...
    label=$1
    shift
    "$NOMIC" scams "$@" --json > skip.json 2> /dev/null
    s1=$?
    for how in --play-all "--jobs 3"; do
        # shellcheck disable=SC2086 # $how is one option and its value
        "$NOMIC" scams "$@" --json $how > other.json 2> /dev/null
        expect_eq "$?" "$s1" "$label: the same exit status with $how"
        python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for x in (a, b):  # counts differ: states reached, and the cuts made at them
    x.pop("explored", None)
    x["cut"] = sorted(x.get("cut", {}))
sys.exit(0 if a == b else 1)' skip.json other.json && ok || fail "$label: the same answer with $how"
    done
}
same_played_all "favor-draft" draft.db --as alice@x --goal "$GOAL" --depth 4
same_played_all "favor, none" favor.db --as alice@x --goal "$GOAL" --depth 3 --budget 50000000
same_played_all "favor, a win" favor.db --as alice@x --goal "$G_WIN" --depth 3
same_played_all "favor, a proposal passed, --wait" favor.db --as alice@x --goal 'exists(type=="proposalPassed")' --depth 2 --wait
same_played_all "favor, a report" favor.db --as alice@x --goal 'exists(type=="reportDraft") | exists(type=="player" & reportMark==T)' --depth 2
for g in "$G_GEM:1" "$G_PAID:1" "$G_MEDAL:2"; do
    same_played_all "reach, ${g%:*}" reach.db --as alice@x --goal "${g%:*}" --depth "${g##*:}"
done
for d in 1 2 3; do
    same_played_all "floor, depth $d" floor.db --as alice@x --goal "$G_CROWN" --depth "$d"
done
same_played_all "loan" loan.db --as alice@x --goal "$G_CROWN" --depth 2
same_played_all "many accounts" many.db --as alice@x --goal "$G_CROWN" --depth 2
same_played_all "refund" refund.db --as alice@x --goal "$G_CROWN" --depth 2
# and on 200 random sets of the same kind (tokens made one to three at a
# time, cycles, forEach, literals, values computed, spent tokens opened
# again by setAll): the same answer with every move played
python3 "$SRCDIR/tests/scams_property.py" --cases 200 "$NOMIC" > property.out 2>&1 && ok ||
    fail "random sets: the same answers with --play-all ($(tail -1 property.out))"
same_played_all "favor, two ballots" favor.db --as alice@x --with bob@x \
    --goal 'exists(type=="vote" & propId==%p & from==%f & objectId==%a) & exists(type=="vote" & propId==%p & from==%f & objectId!=%a)' --depth 2
same_played_all "favor, --wait" favor.db --as alice@x --goal "$G_CLOSED" --depth 2 --wait
for h in bank:eve@x:"$G_BANK":3 invest:alice@x:"$G_INVEST":3 pair:alice@x:"$G_PAIR":2 rename:alice@x:"$G_RENAME":2; do
    IFS=: read -r n a g d <<EOT
$h
EOT
    same_played_all "$n" "$n.db" --as "$a" --goal "$g" --depth "$d"
    same_played_all "$n, closed" "$n-closed.db" --as "$a" --goal "$g" --depth "$d"
done
same_played_all "deal" deal.db --as alice@x --with bob@x --goal "$G_DEAL" --depth 3
same_played_all "suber" suber.db --as alice@x --with bob@x --goal 'exists(type=="player" & score>=20)' --depth 3

# --- usage -----------------------------------------------------------------
expect_status 2 "no --goal" "$NOMIC" scams pay.db --as alice@x
expect_status 2 "no --as" "$NOMIC" scams pay.db --goal T
expect_status 2 "a goal that does not parse" "$NOMIC" scams pay.db --as alice@x --goal 'exists(('
expect_in err "the goal" "a bad goal: the message says where"
expect_status 2 "--depth 0" "$NOMIC" scams pay.db --as alice@x --goal T --depth 0
expect_status 2 "--budget x" "$NOMIC" scams pay.db --as alice@x --goal T --budget x
expect_status 1 "no such game" "$NOMIC" scams nothing.db --as alice@x --goal T
# a budget in units of work (docs/limits.md), summed over the events
expect_status 3 "a budget of work" "$NOMIC" scams favor.db --as alice@x --goal "$GOAL" --depth 3 --budget 20000work
expect_in out "the budget of 20000 units of work ran out" "a budget of work: the answer says so"
expect_status 2 "--budget 5units" "$NOMIC" scams pay.db --as alice@x --goal T --budget 5units
# a budget too small to finish says so
expect_status 3 "a small budget" "$NOMIC" scams favor.db --as alice@x --goal "$GOAL" --depth 3 --budget 50
expect_in out "the budget of 50 events ran out" "a small budget: the answer says the search was cut short"
expect_status 3 "a small budget, JSON" "$NOMIC" scams favor.db --as alice@x --goal "$GOAL" --depth 3 --budget 50 --json
expect_in out '"budgetSpent": true' "a small budget: the JSON says so"

report scams
