#ifndef SQLITE_ARENA_H
#define SQLITE_ARENA_H

/// Makes SQLite allocate from size classes kept by this process (see sqlite_arena.c). Call before the first
/// connection, in a process where one thread uses SQLite. Returns SQLite's result code.
int sqlite_arena_install(void);

/// Bytes the arena took from malloc so far (its chunks and its large blocks not freed): for tests.
unsigned long long sqlite_arena_bytes(void);

#endif
