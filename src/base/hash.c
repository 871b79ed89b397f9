/*
 * base/hash.c: the hash functions of base.h: XXH3-64 and XXH64 from libxxhash, a 64-bit integer
 * mixer, MurmurHash3 x86_32 (reference algorithm, little-endian blocks) and zlib's crc32.
 */
#include "base/base.h"

#include <xxhash.h>
#include <zlib.h>

uint64_t tn_hash_bytes(const void *data, size_t n, uint64_t seed) {
    return XXH3_64bits_withSeed(data, n, seed);
}

/* Stafford's Mix13 variant of the splitmix64 finalizer: full avalanche over 64 bits. */
uint64_t tn_hash_u64(uint64_t v) {
    v ^= v >> 30;
    v *= UINT64_C(0xbf58476d1ce4e5b9);
    v ^= v >> 27;
    v *= UINT64_C(0x94d049bb133111eb);
    v ^= v >> 31;
    return v;
}

uint64_t tn_xxh64(const void *data, size_t n, uint64_t seed) {
    return XXH64(data, n, seed);
}

uint32_t tn_murmur3_32(const void *data, size_t n, uint32_t seed) {
    const uint8_t *p = data;
    uint32_t h = seed;
    size_t nblocks = n / 4;
    for (size_t i = 0; i < nblocks; i++) h = tn_murmur3_block(h, tn_load_u32le(p + 4 * i));
    const uint8_t *tail = p + 4 * nblocks;
    uint32_t k = 0;
    switch (n & 3) {
    case 3: k ^= (uint32_t)tail[2] << 16; /* fall through */
    case 2: k ^= (uint32_t)tail[1] << 8;  /* fall through */
    case 1:
        k ^= tail[0];
        h ^= tn_murmur3_mix_k(k);
    }
    return tn_murmur3_final(h, (uint32_t)n);
}

uint32_t tn_crc32(uint32_t crc, const void *data, size_t n) {
    const Bytef *p = data;
    uLong c = crc;
    while (n > 0) {
        uInt chunk = n > 0x40000000u ? 0x40000000u : (uInt)n;
        c = crc32(c, p, chunk);
        p += chunk;
        n -= chunk;
    }
    return (uint32_t)c;
}
