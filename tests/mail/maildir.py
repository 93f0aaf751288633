"""maildir.py - reads the maildir that aiosmtpd's Mailbox handler fills, for
tests/t70-mail.sh.

  maildir.py DIR ids                         each message's Message-ID, one a line
  maildir.py DIR count MSGID                 how many messages carry MSGID
  maildir.py DIR check MSGID FROM TO TEXT    is that message a proper RFC 5322
                                             mail from FROM to TO whose UTF-8
                                             text/plain body holds TEXT?
  maildir.py DIR delivered OUTBOX.json       did each message that `nomic outbox
                                             --json` calls delivered reach each
                                             of its recipients exactly once (by
                                             the envelope: aiosmtpd's X-RcptTo),
                                             and nothing else arrive?

Message-IDs are compared without their angle brackets.  `check` and
`delivered` print one line per problem (nothing when all is well) and exit 1
if there was any.
"""
import email
import email.policy
import email.utils
import json
import os
import re
import sys


def norm(msgid):
    return (msgid or "").strip().strip("<>").strip()


def messages(top):
    for sub in ("new", "cur"):
        d = os.path.join(top, sub)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            with open(os.path.join(d, name), "rb") as f:
                raw = f.read()
            yield name, raw, email.message_from_bytes(raw, policy=email.policy.default)


def ids(top):
    for _, _, m in messages(top):
        print(norm(m.get("Message-ID", "")))


def count(top, msgid):
    print(sum(1 for _, _, m in messages(top) if norm(m.get("Message-ID", "")) == norm(msgid)))


def check(top, msgid, sender, rcpt, text):
    found = [(n, raw, m) for n, raw, m in messages(top) if norm(m.get("Message-ID", "")) == norm(msgid)]
    if len(found) != 1:
        print("%d messages carry Message-ID <%s>, expected 1" % (len(found), norm(msgid)))
        return 1
    name, raw, m = found[0]
    problems = []

    def header(h):
        v = m.get(h)
        if v is None or not str(v).strip():
            problems.append("no %s header" % h)
            return None
        return str(v)

    frm = header("From")
    if frm is not None:
        addr = email.utils.parseaddr(frm)[1]
        if addr.lower() != sender.lower():
            problems.append("From is %r, expected the game's mailFrom %s" % (frm, sender))
    to = header("To")
    if to is not None:
        addrs = [a.lower() for _, a in email.utils.getaddresses([to])]
        if rcpt.lower() not in addrs:
            problems.append("To is %r, expected it to name %s" % (to, rcpt))
    env = m.get("X-RcptTo", "")
    if env and rcpt.lower() not in env.lower():
        problems.append("the envelope recipient (X-RcptTo) is %r, expected %s" % (env, rcpt))
    date = header("Date")
    if date is not None:
        try:
            d = email.utils.parsedate_to_datetime(date)
            if d is None or d.tzinfo is None:
                problems.append("Date %r has no time zone" % date)
        except (TypeError, ValueError):
            problems.append("Date %r is not an RFC 5322 date" % date)
    header("Subject")
    mid = header("Message-ID")
    if mid is not None and ("@" not in mid or not mid.strip().startswith("<") or not mid.strip().endswith(">")):
        problems.append("Message-ID %r is not of the form <left@right>" % mid)
    for h in ("From", "Date"):
        if len(m.get_all(h) or []) > 1:
            problems.append("more than one %s header" % h)
    body = m.get_body(preferencelist=("plain",)) if m.is_multipart() else m
    if body is None or body.get_content_type() != "text/plain":
        problems.append("the body is %s, expected text/plain"
                        % (body.get_content_type() if body is not None else "missing"))
    else:
        charset = (body.get_content_charset() or "us-ascii").lower()
        payload = body.get_payload(decode=True) or b""
        try:
            content = payload.decode("utf-8")
        except UnicodeDecodeError:
            problems.append("the body is not UTF-8: %r" % payload[:80])
            content = payload.decode("utf-8", "replace")
        if any(ord(c) > 127 for c in content) and charset not in ("utf-8", "utf8"):
            problems.append("the body has non-ASCII text but charset %s, expected utf-8" % charset)
        if text not in content:
            problems.append("the body does not hold %r; it is %r" % (text, content[:300]))
    if m.defects:
        problems.append("parse defects: %s" % ", ".join(type(x).__name__ for x in m.defects))
    for p in problems:
        print("%s: %s" % (name, p))
    return 1 if problems else 0


def delivered(top, outbox_json):
    with open(outbox_json, encoding="utf-8") as f:
        out = json.load(f)
    got = {}
    for _, _, m in messages(top):
        rcpts = [a.strip().lower() for a in str(m.get("X-RcptTo", "")).split(",") if a.strip()]
        got.setdefault(norm(m.get("Message-ID", "")), []).extend(rcpts)
    problems = []
    sent = set()
    for msg in out["messages"]:
        if msg.get("delivery") != "delivered":
            continue
        mid = norm(msg.get("messageId"))
        sent.add(mid)
        want = sorted(set(a.lower() for a in re.split(r"[\s,]+", str(msg.get("to", ""))) if a))
        have = sorted(got.get(mid, []))
        if have != want:
            problems.append("message %s <%s> to %s: received by %s, expected each of %s once"
                            % (msg.get("id"), mid, msg.get("to"), " ".join(have) or "no one", " ".join(want)))
    for mid in sorted(set(got) - sent):
        problems.append("<%s> arrived but the outbox has no delivered message with that messageId" % mid)
    for p in problems:
        print(p)
    return 1 if problems else 0


def main(argv):
    if len(argv) >= 3 and argv[2] == "ids":
        ids(argv[1])
        return 0
    if len(argv) == 4 and argv[2] == "count":
        count(argv[1], argv[3])
        return 0
    if len(argv) == 4 and argv[2] == "delivered":
        return delivered(argv[1], argv[3])
    if len(argv) == 7 and argv[2] == "check":
        return check(argv[1], *argv[3:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
