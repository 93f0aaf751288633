/*
 * mail_addrs.h - mail addresses: the one form the Mechanics know an address
 * by (addr_canonical), and the distinct words of a text, in order of first
 * appearance: the addresses of a recipient list (the R of send(R, text)).
 *
 * The list keeps its own copy of the text and grows by appending to it, so
 * that a list which extends the one read before (the players' list, one
 * address longer after each registration) costs the new words only.
 * Words are separated by spaces, tabs, line ends and commas, as word_next
 * reads them, and end at the first NUL.  Membership is a table hashed with
 * a key of the process's (SipHash): the addresses are the players', and
 * an unkeyed hash would let them make every address collide.
 */
#ifndef NOMIC_MAIL_ADDRS_H
#define NOMIC_MAIL_ADDRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An address in its one form, malloc'd, so that every spelling of one
 * mailbox is one player: the domain in lower case and, when it is
 * internationalised, in its IDNA A-label form (xn--..., libidn2,
 * UTS #46 without transitional mapping), so its U-label and A-label
 * spellings are one; the local part in lower case (ASCII and UTF-8),
 * unless keep_local_case (the rare host whose mailboxes differ by case;
 * RFC 5321 leaves the local part to the host).  A text without `@` is
 * taken as a local part alone.  NULL, with *why, for a domain IDNA
 * refuses. */
char *addr_canonical(const char *addr, bool keep_local_case, const char **why);
/* Whether addr is its own one form, whatever keep_local_case and the
 * locale (the Turkish one lowers I otherwise): ASCII with no capital
 * letter, which nothing above changes.  Most senders are. */
bool addr_is_canonical(const char *addr);

typedef struct Addrs {
    char *text;         /* every text appended, one after the other */
    size_t len, cap;
    struct AddrWord {
        uint32_t off, len; /* in text */
        uint64_t hash;
    } *w;               /* the distinct words, in order of first appearance */
    size_t n, wcap;
    uint32_t *slot;     /* open addressing: 0 empty, else 1 + an index of w */
    size_t nslot;
} Addrs;

/* Appends the text s to the list's text and adds the words it brings.
 * The list's text must end where a word ends (empty, or as
 * addrs_extended_by found it): s is read from its own start. */
void addrs_append(Addrs *a, const char *s);

/* 1 + the index of the word w[0..n), or 0 if it is not in the list. */
size_t addrs_find(const Addrs *a, const char *w, size_t n);

/* The index of w[0..n), added at the end if it was not in the list. */
size_t addrs_add(Addrs *a, const char *w, size_t n);

/* Whether the text t is the list's text followed by more: the list's text
 * a prefix of t that ends where a word of t ends.  Then appending the rest
 * of t (t + a->len) makes the list t's. */
bool addrs_extended_by(const Addrs *a, const char *t);

static inline const char *addrs_word(const Addrs *a, size_t i) { return a->text + a->w[i].off; }
static inline size_t addrs_word_len(const Addrs *a, size_t i) { return a->w[i].len; }

void addrs_free(Addrs *a);

#endif
