#!/bin/sh
# t51-depth.sh - deep and long input through the real binary: nothing a player
# or an initial set writes may overflow the stack.  A 200,000-deep formal
# change in Suber's Nomic is refused and the game goes on (and replays);
# rules nested 300,000 deep or a megabyte long in an initial set cannot
# fire and say why, while the other rules do; rules at the limits still
# run on an 8 MiB stack, from the command line and over HTTP; eval() and
# parses() of deep text; a megabyte value and a 100,000-line value in the
# object format; deep and long SLR input; nomic check on deep files; sugar
# lines of 68 and 100,000 words taken whole, and a sugar pattern of 65
# words refused.  Uses $NOMIC (default build/nomic) and python3 to write
# the big inputs.
. "$(dirname "$0")/lib.sh"

TIME=1767225600 # 2026-01-01
py() { python3 -c "$@"; }
not_crashed() { # WHAT CMD...: runs CMD (output in out, err); fails on a signal
    what=$1
    shift
    "$@" >out 2>err
    got=$?
    if [ "$got" -lt 128 ]; then ok; else fail "$what: killed by signal $((got - 128))"; fi
}

# --- Suber's Nomic: a formal change 200,000 deep ----------------------------
"$NOMIC" init G --ruleset suber --time "$TIME" >/dev/null
mv() { # FROM LINES...: one message of moves
    from=$1
    shift
    TIME=$((TIME + 60))
    move_at "$from" "$TIME" "$@"
}
mv c@x "JOIN carol Zed"
mv a@x "JOIN alice Young"
mv b@x "JOIN bob adams"
py "print('PROPOSE ENACT A deep rule.'); print('FORMAL CREATE 5 IF ' + '(' * 200000 + 'T' + ')' * 200000 + ' THEN halt()')" >deep-move
TIME=$((TIME + 60))
not_crashed "the 200,000-deep formal change" "$NOMIC" move G --from b@x --time "$TIME" --file deep-move
expect_in out "must parse. Your proposal was not taken" "the deep formal change is refused by the rules, with their reason"
expect_eq "$(val proposal number 301 status)" "(none)" "no proposal was made of it"
mv b@x "PROPOSE ENACT Hats are red."
expect_in out "Proposal 301 by bob" "bob's next, ordinary, proposal is taken"
mv a@x "VOTE 301 FOR"
expect_in out "Your vote FOR on proposal 301 is counted" "a move by another player is processed after it"
expect_status 0 "the game replays" "$NOMIC" replay G
expect_in out "match" "replay finds the same state"
expect_not_in out "differ" "replay finds no difference"

# --- an initial set with rules too deep or too long to fire -----------------
# rule 2: `!` 300,000 deep; rule 3: parentheses 300,000 deep; rule 4: a
# megabyte of T & T & ...; rule 5 answers every move.
py "
print('type: engineSettings\nrunType: rule\n')
print('type: rule\nruleOrder: 10\nif: ' + '!' * 300000 + 'T\nthen: halt()\n')
print('type: rule\nruleOrder: 20\nif: ' + '(' * 300000 + 'T' + ')' * 300000 + '\nthen: halt()\n')
print('type: rule\nruleOrder: 30\nif: ' + ' & '.join(['T'] * 262144) + '\nthen: halt()\n')
print('type: rule\nruleOrder: 100\nif: exists(type==\"move\" & objectId==%m & moveSender==%s)\nthen: delete(objectId==%m) & send(%s, \"seen\")')
" >deep.nomic
expect_status 0 "init with rules too deep to parse" "$NOMIC" init D --ruleset deep.nomic
echo "say: hello" >hello
not_crashed "a move in the game with the deep rules" "$NOMIC" move D --from x@y --file hello
expect_in out "no effect, 1 rule firing" "the move is read by the rule that can fire (it only deletes and answers the move: no effect)"
"$NOMIC" log D >log
expect_in log "queue for x@y: seen" "its answer is queued"
expect_in log 'rule 2 cannot fire: if 1:257: nested more than 256 deep near "!"' "the log says why the ! rule cannot fire"
expect_in log 'rule 3 cannot fire: if 1:257: nested more than 256 deep near "("' "the log says why the ( rule cannot fire"
expect_in log 'rule 4 cannot fire: if 1:8193: more than 4096 values, names and operators in one rule' "the log says why the long rule cannot fire"
expect_status 0 "the log as JSON" "$NOMIC" log D --json
mv_out=$(py "import json; print(len(json.load(open('out'))['events']))")
expect_eq "$mv_out" "1" "the log's JSON reads back"
expect_status 0 "the objects as JSON" "$NOMIC" show D --json
py "import json; print(max(len(o.get('if', '')) for o in json.load(open('out'))['objects']))" >len
# 262,144 T and 262,143 " & "
expect_eq "$(cat len)" "$((262144 + 3 * 262143))" "the megabyte rule comes back whole in the JSON"
expect_status 1 "nomic check on the deep set" "$NOMIC" check deep.nomic
cat >want <<'EOF'
deep.nomic:6:261: error: (rule 2) nested more than 256 deep near "!"
deep.nomic:11:261: error: (rule 3) nested more than 256 deep near "("
deep.nomic:16:8197: error: (rule 4) more than 4096 values, names and operators in one rule; split it into several rules
4 rules checked: 3 errors, 0 warnings
EOF
expect_cmp want out "check names the line and column of each rule too deep or too long, and why"

# --- at the limits, the worst shapes still run on the smallest stack --------
# 8 MiB is the main thread's stack, where moves, HTTP requests and timers run.
for shape in \
    "' & '.join(['T'] * 2040)" \
    "' & '.join(['exists(T)'] * 1300)" \
    "'(' + ' | '.join(['F'] * 2020) + ' | T)'" \
    "'!' * 249 + '!(' + ' & '.join(['T'] * 1900) + ')'" \
    "'exists(objectId==%m & ' * 120 + ' & '.join(['T'] * 1500) + ')' * 120" \
    "'count(objectId==%m & ' * 240 + 'T' + ') > 0' * 240"; do
    py "
c = $shape
print('type: engineSettings\nrunType: rule\n')
print('type: rule\nruleOrder: 10\nif: exists(type==\"move\" & objectId==%m) & (' + c + ')\nthen: delete(objectId==%m) & send(\"x@y\", \"fired\")')
" >edge.nomic
    rm -rf E
    "$NOMIC" init E --ruleset edge.nomic >/dev/null 2>&1
    expect_status 0 "check: a rule at the limits is no error" "$NOMIC" check edge.nomic
    (ulimit -s 8192 2>/dev/null; "$NOMIC" move E --from x@y --file hello >out 2>err)
    got=$?
    if [ "$got" -lt 128 ]; then ok; else fail "a rule at the limits on an 8 MiB stack: signal $((got - 128)) ($shape)"; fi
    "$NOMIC" log E | grep -c "cannot fire" >cf
    expect_eq "$(cat cf)" "0" "a rule at the limits can fire"
    "$NOMIC" log E >log
    expect_in log "queue for x@y: fired" "a rule at the limits fires ($shape)"
done

# --- over HTTP: nomic serve evaluates requests on its main thread ---------
# The worst rule at the limits, then a body of 200,000 levels of
# parentheses (within the 256 KiB a request may carry).
py "
c = '!' * 249 + '!(' + ' & '.join(['T'] * 1900) + ')'
print('type: engineSettings\nrunType: rule\n')
print('type: rule\nruleOrder: 10\nif: exists(type==\"move\" & objectId==%m & moveSender==%s) & (' + c + ')\nthen: delete(objectId==%m) & send(%s, \"fired\")')
" >serve.nomic
"$NOMIC" init S --ruleset serve.nomic >/dev/null
PORT=$(py 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
(ulimit -s 8192 2>/dev/null; exec "$NOMIC" serve S --listen 127.0.0.1:"$PORT" >serve.out 2>serve.err) &
SERVER=$!
wait_until 5 grep -qs "http://127.0.0.1:$PORT/" serve.out
post() { curl -s -o body -w '%{http_code}' -X POST "http://127.0.0.1:$PORT/api/move?from=x@y" --data-binary "$@" >status; }
post 'say: hello'
expect_eq "$(cat status)" "200" "a move over HTTP with the rule at the limits"
expect_in body "fired" "the rule at the limits fires in the request"
py "print('if: ' + '(' * 100000 + 'T' + ')' * 100000)" >deep-body
post @deep-body
expect_eq "$(cat status)" "200" "a 100,000-deep body over HTTP is answered"
post 'say: again'
expect_in body "fired" "the server goes on"
kill "$SERVER" 2>/dev/null
wait "$SERVER" 2>/dev/null
got=$?
if [ "$got" -lt 128 ] || [ "$got" -eq 143 ]; then ok; else fail "nomic serve died of signal $((got - 128))"; fi

# --- eval() and parses() of deep text ---------------------------------------
py "
print('type: engineSettings\nrunType: rule\n')
print('type: rule\nruleOrder: 10\nif: exists(type==\"move\" & objectId==%m & expr==%e)\nthen: create(type==\"result\" & value==eval(%e, 1, 2) & parses==parses(%e)) & delete(objectId==%m)')
" >eval.nomic
"$NOMIC" init V --ruleset eval.nomic >/dev/null
py "print('expr: ' + '(' * 200000 + '1' + ')' * 200000)" >deep-expr
not_crashed "eval() and parses() of 200,000-deep parentheses" "$NOMIC" move V --from x@y --file deep-expr
echo "expr: (v+i)*2" >small-expr
"$NOMIC" move V --from x@y --file small-expr >/dev/null
py "print('expr: ' + '!' * 256 + 'T')" >edge-expr
"$NOMIC" move V --from x@y --file edge-expr >/dev/null
py "print('expr: ' + '!' * 257 + 'T')" >over-expr
"$NOMIC" move V --from x@y --file over-expr >/dev/null
"$NOMIC" show V --type result >results
expect_eq "$(grep -c '^value: 6$' results)" "1" "eval() still computes (v+i)*2"
expect_eq "$(grep -c '^value:' results)" "1" "eval() of deep text is undefined (no value), not a crash"
expect_eq "$(grep -c '^parses: T$' results)" "2" "parses() takes (v+i)*2 and 256 levels of !"
expect_eq "$(grep -c '^parses: F$' results)" "2" "parses() answers F for 200,000 levels of ( and 257 of !"

# --- the object format: a megabyte line, a 100,000-line value ---------------
py "
print('type: note\nbig: ' + 'x' * 1048576)
print('long: first')
for i in range(100000): print('   line %d' % i)
print('---\ntype: rule\nruleOrder: 5\nif: ' + '(' * 100000 + '\nthen: halt()')
" >big.nomic
not_crashed "check on a megabyte line and a 100,000-line value" "$NOMIC" check big.nomic
expect_in out "big.nomic:100007:261:" "the rule's error names its line and column"
expect_in out "nested more than 256 deep" "and why"
py "
print('big: ' + 'x' * 1048576)
print('long: first')
for i in range(100000): print('   line %d' % i)
" >big-move
not_crashed "a move of a megabyte line and a 100,000-line value" "$NOMIC" move D --from x@y --file big-move
expect_in out "no effect" "the big move is taken (the rule only deletes and answers it: no effect)"

# --- the SLR reader: deep and long input ------------------------------------
py "
print('Rule 1/0 (Power=1)\nA Rule\n\n      ' + '(' * 1048576 + '\n')
print('-' * 70)
for i in range(20000): print('Rule %d/0 (Power=1)\nTitle %d\n\n      text\n' % (i + 2, i))
" >big.slr
not_crashed "slr parse of a megabyte line and 20,000 rules" "$NOMIC" slr parse big.slr --json
expect_status 0 "the long SLR parses" "$NOMIC" slr parse big.slr --json
py "import json; print(len(json.load(open('out'))))" >n
expect_eq "$(cat n)" "20001" "every rule of the long SLR is read"

# --- nomic check on a bare deep condition -----------------------------------
py "print('T & ' + '(' * 300000 + 'T' + ')' * 300000)" >deep.txt
expect_status 1 "check on a deep condition" "$NOMIC" check deep.txt
cat >want <<'EOF'
deep.txt:1:261: error: nested more than 256 deep near "("
1 rule checked: 1 error, 0 warnings
EOF
expect_cmp want out "the error names line and column"

# --- sugar: a line of 68 words is taken whole -------------------------------
words=$(py "print(' & '.join(['score>=%d' % i for i in range(30)]))")
line="FORMAL CREATE 9 IF exists(type==\"player\" & $words) THEN send(\"x@y\", \"done\")"
expect_eq "$(echo "$line" | wc -w)" "68" "the line has 68 words"
"$NOMIC" init G --ruleset suber --time "$TIME" --force >/dev/null
mv c@x "JOIN carol Zed"
mv a@x "JOIN alice Young"
mv b@x "JOIN bob adams"
mv b@x "PROPOSE ENACT Long conditions." "$line"
expect_in out "Proposal 301 by bob" "the proposal with the 68-word line is taken"
expect_eq "$(val formalChange proposal 301 newthen)" "send(\"x@y\", \"done\")" "the then after word 64 is kept"
expect_eq "$(val formalChange proposal 301 newif)" "exists(type==\"player\" & $words)" "the if is kept whole"
# 100,000 words: matching costs pattern words x line words, so it is quick
"$NOMIC" init G --ruleset suber --time "$TIME" --force >/dev/null
mv c@x "JOIN carol Zed"
mv a@x "JOIN alice Young"
mv b@x "JOIN bob adams"
py "print('PROPOSE ENACT ' + ' '.join('w%d' % i for i in range(100000)))" >long-line
TIME=$((TIME + 60))
expect_status 0 "a sugar line of 100,000 words" "$NOMIC" move G --from b@x --time "$TIME" --file long-line
expect_in out "Proposal 301 by bob" "the proposal of 100,000 words is taken"
expect_eq "$(val proposal number 301 text | wc -w)" "100000" "every word of it is kept"
py "print('PAT ' + ' '.join('w%d' % i for i in range(64)) + '\n    subtype: x')" >wide.sugar
expect_status 1 "a pattern of 65 words is refused" "$NOMIC" sugar G --set wide.sugar
expect_in err "wide.sugar:1:" "the refusal names the line"
expect_in err "a pattern has at most 64 words; this one has 65" "and says why"

report depth
