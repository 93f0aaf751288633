# favor-draft.sed - derives favor-draft from favor: the paper's first draft,
# whose rule 16 did not set cleanup==F on an accepted vote.  A vote move sent
# with "cleanup: T" then scores its point and is swept away by rule 32, so
# its sender can vote again, and again: the scam the paper tells of.
1i\
# favor-draft: favor as in the paper's first draft, generated from\
# rulesets/favor.nomic by tools/favor-draft.sed: rule 16 does not set\
# cleanup==F on a vote, so a vote sent with "cleanup: T" scores again and\
# again (the scam told at the end of the paper).  Everything else is favor.\

s/^then: set(objectId==%o)(type=="vote" & credited==F & cleanup==F & noted==F)$/then: set(objectId==%o)(type=="vote" \& credited==F \& noted==F)/
