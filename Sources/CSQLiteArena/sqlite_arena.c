// SQLite's memory, for the planner binary. Debian builds libsqlite3 with SQLITE_OMIT_LOOKASIDE, so every
// small allocation SQLite makes (thousands per command: parsing the schema and each statement) goes through
// malloc and free, about 200 instructions a pair (bench/budget_check.sh: ~1.2 M of `open`'s). Here small
// blocks come from 16-byte size classes with free lists, carved from 64 KiB chunks: a few instructions a pair.
//
// Not thread-safe: installed only by a process with one thread using SQLite (single-thread mode). Freed
// blocks go back to their class and are used again, so a long-running process (the ticker) stays at its peak
// use; blocks above ARENA_SMALL go to malloc and free as before.
#include "sqlite_arena.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_GRAIN 16
#define ARENA_SMALL 1024
#define ARENA_CHUNK (64 * 1024)
// Each block starts with its size (8 bytes), so a block's memory is 8-byte aligned, as SQLite requires.
#define ARENA_HEADER 8

typedef struct FreeBlock { struct FreeBlock *next; } FreeBlock;

static FreeBlock *free_lists[ARENA_SMALL / ARENA_GRAIN];
static char *bump;
static char *bump_end;
static unsigned long long taken;

static size_t rounded(int n) { return ((size_t)n + (ARENA_GRAIN - 1)) & ~(size_t)(ARENA_GRAIN - 1); }

static void *arena_malloc(int n) {
    if (n <= 0) return NULL;
    size_t size = rounded(n);
    char *block;
    if (size > ARENA_SMALL) {
        block = malloc(size + ARENA_HEADER);
        if (block == NULL) return NULL;
        taken += size + ARENA_HEADER;
    } else {
        FreeBlock **list = &free_lists[size / ARENA_GRAIN - 1];
        if (*list != NULL) {
            FreeBlock *reused = *list;
            *list = reused->next;
            return reused;
        }
        if ((size_t)(bump_end - bump) < size + ARENA_HEADER) {
            char *chunk = malloc(ARENA_CHUNK);
            if (chunk == NULL) return NULL;
            taken += ARENA_CHUNK;
            bump = chunk;
            bump_end = chunk + ARENA_CHUNK;
        }
        block = bump;
        bump += size + ARENA_HEADER;
    }
    memcpy(block, &size, sizeof size);
    return block + ARENA_HEADER;
}

static int arena_size(void *p) {
    if (p == NULL) return 0;
    size_t size;
    memcpy(&size, (char *)p - ARENA_HEADER, sizeof size);
    return (int)size;
}

static void arena_free(void *p) {
    if (p == NULL) return;
    size_t size = (size_t)arena_size(p);
    if (size > ARENA_SMALL) {
        taken -= size + ARENA_HEADER;
        free((char *)p - ARENA_HEADER);
        return;
    }
    FreeBlock *block = p;
    FreeBlock **list = &free_lists[size / ARENA_GRAIN - 1];
    block->next = *list;
    *list = block;
}

static void *arena_realloc(void *p, int n) {
    if (p == NULL) return arena_malloc(n);
    size_t old = (size_t)arena_size(p);
    if (n > 0 && rounded(n) == old) return p;
    void *moved = arena_malloc(n);
    if (moved == NULL) return NULL;
    memcpy(moved, p, old < (size_t)n ? old : (size_t)n);
    arena_free(p);
    return moved;
}

static int arena_roundup(int n) { return (int)rounded(n); }
static int arena_init(void *unused) { (void)unused; return SQLITE_OK; }
static void arena_shutdown(void *unused) { (void)unused; }

int sqlite_arena_install(void) {
    static const sqlite3_mem_methods methods = {
        arena_malloc, arena_free, arena_realloc, arena_size, arena_roundup, arena_init, arena_shutdown, NULL,
    };
    return sqlite3_config(SQLITE_CONFIG_MALLOC, &methods);
}

unsigned long long sqlite_arena_bytes(void) { return taken; }
