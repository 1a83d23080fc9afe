// The calendar folder's digest (folder_digest.h). In C because it runs once a minute from cron over a folder of
// a thousand files: a name is hashed where readdir left it, with no string made, sorted or kept.
#include "folder_digest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// Each word folded in by a multiply and a shift, the whole finished by MurmurHash3's bijective finaliser: an
// entry's 64-bit hash. Not a cryptographic digest: it detects an accidental change (a chance of about 2^-64 of
// missing one), not a crafted one (whoever can write the folder can write anything in it anyway).
static inline uint64_t fold(uint64_t h, uint64_t w) {
    h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
    return h ^ (h >> 32);
}

static inline uint64_t finish_a(uint64_t h) {
    h ^= h >> 33; h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

// SplitMix64's finaliser: the second sum is of another bijection of each entry's hash, so that two sets of
// entries whose hashes happen to add up alike still differ there (an entry's own hash stays 64 bits).
static inline uint64_t finish_b(uint64_t h) {
    h ^= h >> 30; h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27; h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
}

static uint64_t bytes_hash(uint64_t h, const char *bytes, size_t length) {
    h = fold(h, length);
    size_t i = 0;
    for (; i + 8 <= length; i += 8) {
        uint64_t w;
        memcpy(&w, bytes + i, 8);
        h = fold(h, w);
    }
    uint64_t tail = 0;
    memcpy(&tail, bytes + i, length - i);
    return fold(h, tail);
}

void folder_digest_feed(uint64_t *state, const void *bytes, long count) {
    *state = bytes_hash(*state, bytes, count > 0 ? (size_t)count : 0);
}

void folder_digest_finish(uint64_t state, uint64_t out[2]) {
    out[0] = finish_a(state);
    out[1] = finish_b(out[0] ^ 0x13198a2e03707344ULL);
}

static uint64_t entry_hash(const char *name, size_t length, const struct stat *st) {
    uint64_t h = bytes_hash(0x243f6a8885a308d3ULL, name, length);
    h = fold(h, (uint64_t)(st->st_mode & S_IFMT) | (uint64_t)st->st_uid << 32);
    h = fold(h, (uint64_t)st->st_size);
    h = fold(h, (uint64_t)st->st_mtim.tv_sec * 1000000000ULL + (uint64_t)st->st_mtim.tv_nsec);
    h = fold(h, (uint64_t)st->st_ctim.tv_sec * 1000000000ULL + (uint64_t)st->st_ctim.tv_nsec);
    h = fold(h, (uint64_t)st->st_ino);
    return finish_a(h);
}

// The prefix ("planner-") and the suffix (".ics") are one word each: compared as one load, not a call.
static inline int same(const char *a, const char *b, size_t length) {
    if (length == 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return x == y;
    }
    if (length == 4) {
        uint32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return x == y;
    }
    return memcmp(a, b, length) == 0;
}

int folder_digest(int dir, const char *prefix, const char *suffix, void (*progress)(void), struct folder_sums *out) {
    memset(out, 0, sizeof *out);
    int copy = dup(dir);
    if (copy < 0) return -errno;
    DIR *stream = fdopendir(copy);
    if (!stream) {
        int code = errno;
        close(copy);
        return -code;
    }
    // A dup shares the offset: a second listing of the same descriptor starts from the top.
    rewinddir(stream);
    size_t prefix_length = strlen(prefix), suffix_length = strlen(suffix);
    long seen = 0;
    int code = 0;
    for (;;) {
        errno = 0;
        struct dirent *entry = readdir(stream);
        if (!entry) {
            code = errno;
            break;
        }
        if (++seen % 256 == 0 && progress) progress();
        const char *name = entry->d_name;
        size_t length = strlen(name);
        if (length >= suffix_length && same(name + length - suffix_length, suffix, suffix_length)) out->suffixed++;
        if (length < prefix_length || !same(name, prefix, prefix_length)) continue;
        struct stat st;
        // Gone between readdir and here: as if listed a moment later.
        if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        uint64_t h = entry_hash(name, length, &st);
        out->a += h;
        out->b += finish_b(h);
        out->entries++;
    }
    closedir(stream);
    return code ? -code : 0;
}
