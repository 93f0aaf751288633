#!/usr/bin/env python3
"""public_hash.py KEY VERSION SHOW_JSON LOG_JSON - what a player can check
once `nomic reveal` has published the key and the hash's version:
recomputes, as docs/formats.md describes it, the hash of the state in
SHOW_JSON (`show --json`, which must hold every attribute: a game without
private ones) and compares it with the hash the last event of LOG_JSON
(`log --json`) published.  Prints "matches" or "differs: ..." and exits 1
when it differs.
"""
import json
import re
import struct
import sys

M = (1 << 64) - 1


def rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & M


def siphash24(k0, k1, data):
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573

    def rounds(n):
        nonlocal v0, v1, v2, v3
        for _ in range(n):
            v0 = (v0 + v1) & M
            v1 = rotl(v1, 13) ^ v0
            v0 = rotl(v0, 32)
            v2 = (v2 + v3) & M
            v3 = rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & M
            v3 = rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & M
            v1 = rotl(v1, 17) ^ v2
            v2 = rotl(v2, 32)

    tail = len(data) % 8
    last = data[len(data) - tail:] + bytes(7 - tail) + bytes([len(data) & 0xFF])
    for block in [data[i:i + 8] for i in range(0, len(data) - tail, 8)] + [last]:
        m = struct.unpack("<Q", block)[0]
        v3 ^= m
        rounds(2)
        v0 ^= m
    v2 ^= 0xFF
    rounds(4)
    return v0 ^ v1 ^ v2 ^ v3


def mix(x):
    """murmur3's 64-bit finalizer"""
    x ^= x >> 33
    x = x * 0xFF51AFD7ED558CCD & M
    x ^= x >> 33
    x = x * 0xC4CEB9FE1A85EC53 & M
    return x ^ x >> 33


def text_hash_v2(k0, k1, text):
    """a whole number from 0 to 2^31 - 1 in its own writing: a keyed mix of
    it; any other text: SipHash-2-4 of its bytes"""
    if re.fullmatch(r"0|[1-9][0-9]{0,9}", text) and int(text) < 1 << 31:
        return mix((mix((int(text) | 4 << 32) ^ k1) + k0) & M)
    return siphash24(k0, k1, text.encode())


def state_hash_v2(k0, k1, objects):
    total = 0
    for obj in objects:
        oid = int(obj["objectId"])
        total += mix((mix((oid | 1 << 32) ^ k0) + k1) & M)
        for name, value in obj.items():
            if name == "objectId":
                continue
            a, b = text_hash_v2(k0, k1, name), text_hash_v2(k0, k1, value)
            total += mix((mix(a ^ (oid | 2 << 32) * 0x9E3779B97F4A7C15 & M) + b) & M)
    return total & M


def state_hash(k0, k1, objects):
    total = 0
    for obj in objects:
        oid = int(obj["objectId"])
        total += siphash24(k0, k1, struct.pack("<Q", oid | 1 << 32))
        for name, value in obj.items():
            if name == "objectId":
                continue
            n, v = name.encode(), value.encode()
            head = struct.pack("<Q", oid | 2 << 32 | len(n) << 40) if len(n) < 1 << 24 else \
                struct.pack("<QQ", oid | 3 << 32, len(n))
            total += siphash24(k0, k1, head + n + v)
    return total & M


def main(argv):
    if len(argv) != 4 or argv[1] not in ("1", "2"):
        sys.exit(__doc__)
    k0, k1 = int(argv[0][:16], 16), int(argv[0][16:32], 16)
    objects = json.load(open(argv[2]))["objects"]
    published = [e for e in json.load(open(argv[3]))["events"] if e["hash"]][-1]["hash"]
    state = (state_hash if argv[1] == "1" else state_hash_v2)(k0, k1, objects)
    digest = siphash24(k1 ^ 0x6E6F6D6963707562, k0, struct.pack("<Q", state))
    if "%016x" % digest == published:
        print("matches")
    else:
        print("differs: published %s, recomputed %016x" % (published, digest))
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
