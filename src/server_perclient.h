/*
 * server_perclient.h - how often each client (an IP address) asked for a token
 * in its last hour, in one table of fixed size for the process: the
 * server's ceiling tokenRequestsPerClient.
 *
 * Each client's count runs for an hour from its first request, then
 * starts again.  The table holds PERCLIENT_SLOTS clients; a new client
 * takes a free slot, or one whose hour is over, or else the one whose
 * hour began first among those its key probes (so a flood from many
 * addresses cannot grow the table, only make it forget a client early).
 * The slots are found by a hash keyed per process (SipHash): a client
 * cannot aim at another's slot.  The counts are the process's: a
 * restarted server starts them again (the game's own ceilings, kept in
 * its database, do not).
 */
#ifndef NOMIC_SERVER_PERCLIENT_H
#define NOMIC_SERVER_PERCLIENT_H

#include <stdbool.h>
#include <stdint.h>

#define PERCLIENT_SLOTS 4096
#define PERCLIENT_PROBE 16
#define PERCLIENT_PERIOD 3600

/* Counts one request of `client` at `now` (seconds): true if it is within
 * `most` of its hour, false (and not counted) past them; *count is how
 * many its hour holds, this one included when counted. */
bool perclient_take(const char *client, int64_t now, long most, long *count);

#endif
