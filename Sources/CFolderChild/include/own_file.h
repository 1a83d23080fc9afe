// This device's own file in the sync folder, as the folder child touches it (SyncFolderPublish.swift):
// written in C with raw system calls so that the child can share the parent's memory (clone(CLONE_VM)):
// no page tables copied and no copy-on-write faults afterwards, which were most of what a sync folder cost
// `open` (bench/child_cost.c). The same functions run in the process itself when it cannot make a child
// (several threads: the test runner).
#ifndef OWN_FILE_H
#define OWN_FILE_H

#include <sys/types.h>

/// The largest answer either step gives (bytes).
#define OWN_FILE_ANSWER 64

/// Opens `folder` and its file `name` (never blocking on a FIFO, never following a link), refuses what is not
/// a regular file of this user with one name, takes its lock (tries 10 ms apart for `lock_wait_ms`), says its size. Writes
/// the answer (the `OwnFile.Opened` wire form) into `out`, returns its length; `*dir` and `*fd` are what it
/// opened (-1: nothing).
long own_file_open(const char *folder, const char *name, long lock_wait_ms, int *dir, int *fd, unsigned char *out);

/// Appends `text`, makes it durable (the file, then the folder), says the file's size and mtime after (the
/// `OwnFile.Appended` wire form).
long own_file_append(const unsigned char *text, long count, int fd, int dir, unsigned char *out);

/// Makes the child that does both steps for a parent at the other end of `socket` (the child's end; every
/// other descriptor is closed in the child): by clone(CLONE_VM) where that is possible, else by fork().
/// Returns its pid, or -errno. `*region` is memory the child runs in: give it to `own_file_child_free` once
/// the child is reaped, never before.
pid_t own_file_child(const char *folder, const char *name, long lock_wait_ms, int socket, void **region);

void own_file_child_free(void *region);

#endif
