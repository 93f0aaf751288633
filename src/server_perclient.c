/*
 * server_perclient.c - a fixed table of hourly counts per client (server_perclient.h).
 */
#include "server_perclient.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

static struct Slot {
    char client[48]; /* an IP address as text; "" free */
    int64_t since;   /* the start of its hour */
    long count;
} slots[PERCLIENT_SLOTS];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t key[2] = {0x706572636c69656eULL, 0x74636f756e747321ULL};
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* If the kernel gives no random bytes the fixed key stays (the counts are
 * still right, only easier to crowd). */
static void key_init(void)
{
    uint64_t k[2];
    if (random_bytes(k, sizeof k)) memcpy(key, k, sizeof key);
}

/* The client's slot: its own, or a free one, or one whose hour is over,
 * or the one begun first. */
static struct Slot *slot_of(const char *client, int64_t now)
{
    size_t i = (size_t)(siphash24(key, client, strlen(client)) % PERCLIENT_SLOTS);
    struct Slot *spare = NULL, *oldest = NULL;
    for (size_t k = 0; k < PERCLIENT_PROBE; k++) {
        struct Slot *x = &slots[(i + k) % PERCLIENT_SLOTS];
        if (strcmp(x->client, client) == 0) return x;
        if (!spare && (!x->client[0] || now - x->since >= PERCLIENT_PERIOD)) spare = x;
        if (!oldest || x->since < oldest->since) oldest = x;
    }
    struct Slot *x = spare ? spare : oldest;
    snprintf(x->client, sizeof x->client, "%s", client);
    x->since = now;
    x->count = 0;
    return x;
}

bool perclient_take(const char *client, int64_t now, long most, long *count)
{
    pthread_once(&key_once, key_init);
    pthread_mutex_lock(&mu);
    struct Slot *x = slot_of(client, now);
    if (now - x->since >= PERCLIENT_PERIOD) x->since = now, x->count = 0;
    bool ok = x->count < most;
    if (ok) x->count++;
    *count = x->count;
    pthread_mutex_unlock(&mu);
    return ok;
}
