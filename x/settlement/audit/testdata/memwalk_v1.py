#!/usr/bin/env python3
"""An independent implementation of idlegpu/memwalk/v1 from its spec
(x/settlement/audit/memwalk.go), used to cross-check the golden vectors of
memwalk_test.go. It derives every table item it reads from the cache (as
the chain does), so it needs no table.

    python3 memwalk_v1.py <seed-hex> <table-items> <lanes> <segments> <segment-steps>

prints item 0 of the seed's table and sha256 of the whole transcript.
"""
import hashlib
import struct
import sys

M = 0xFFFFFFFF
CACHE_ITEMS, PARENTS, TAG = 1 << 14, 256, b"idlegpu/memwalk/v1"


def lowbias32(x):
    x ^= x >> 16
    x = (x * 0x7FEB352D) & M
    x ^= x >> 15
    x = (x * 0x846CA68B) & M
    return x ^ (x >> 16)


def fnv(a, b):
    return ((a * 0x01000193) & M) ^ b


def cache(seed):
    out = []
    for i in range(CACHE_ITEMS):
        words = []
        for half in (0, 1):
            words += struct.unpack(">8I", hashlib.sha256(TAG + b"/cache" + seed + struct.pack(">I", i) + bytes([half])).digest())
        out.append(words)
    return out


def item(c, j):
    mix = list(c[j % CACHE_ITEMS])
    mix[0] ^= j
    mix = [lowbias32(w) for w in mix]
    for p in range(PARENTS):
        parent = c[fnv(j ^ p, mix[p % 16]) % CACHE_ITEMS]
        mix = [fnv(mix[w], parent[w]) for w in range(16)]
    return [lowbias32(w) for w in mix]


def main():
    seed = bytes.fromhex(sys.argv[1])
    items, lanes, segments, steps = (int(a) for a in sys.argv[2:6])
    c = cache(seed)
    print("item0", " ".join("%08x" % w for w in item(c, 0)))
    h = hashlib.sha256()
    for lane in range(lanes):
        s = list(struct.unpack(">8I", hashlib.sha256(TAG + b"/lane" + seed + struct.pack(">I", lane)).digest()))
        for seg in range(segments):
            for t in range(seg * steps, (seg + 1) * steps):
                it = item(c, fnv(t ^ s[0], s[t % 8]) % items)
                s = [lowbias32(fnv(s[w], it[w]) ^ it[w + 8]) for w in range(8)]
            h.update(struct.pack(">8I", *s))
    print("transcript", h.hexdigest())


if __name__ == "__main__":
    main()
