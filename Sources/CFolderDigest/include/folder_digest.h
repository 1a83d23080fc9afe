// A digest of what a folder holds, made by the folder child in one pass over its entries: what a calendar pass
// compares with what the last pass recorded, to know that nothing in the folder changed without listing it.
#ifndef FOLDER_DIGEST_H
#define FOLDER_DIGEST_H

#include <stdint.h>

struct folder_sums {
    /// Two 64-bit sums over the entries, of each one's hash and of another bijection of it (order-independent:
    /// no sort, no name kept).
    uint64_t a, b;
    /// Entries whose name starts with the prefix, and names (any) that end in the suffix.
    long entries, suffixed;
};

/// Every entry of the folder `dir` whose name starts with `prefix`: its name, kind, owner, size, mtime, ctime and
/// inode (no link followed), hashed; and how many names end in `suffix`. Calls `progress` every 256 entries (the
/// folder child tells its parent it is moving). 0, or -errno when the folder cannot be listed.
int folder_digest(int dir, const char *prefix, const char *suffix, void (*progress)(void), struct folder_sums *out);

/// A fingerprint of texts fed one after the other (the calendar plan's inputs), made as an entry's hash:
/// `state` starts at any fixed value, each text (its length included) is folded in, `finish` says it as two
/// words (the second a function of the first: 64 bits in all).
void folder_digest_feed(uint64_t *state, const void *bytes, long count);
void folder_digest_finish(uint64_t state, uint64_t out[2]);

#endif
