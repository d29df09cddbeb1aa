/* file.h: opening the files qdemo reads and writes: inputs that cannot block or be anything
 * but regular files, outputs that are always new files and never follow a planted link. */
#ifndef QD_FILE_H
#define QD_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* "a folder", "a FIFO", "a symbolic link", ... for a stat() st_mode; "a regular file" too. */
const char *qd_file_kind(unsigned mode);

/* Open path to read it: O_RDONLY | O_NONBLOCK | O_CLOEXEC, so a FIFO or device cannot make
 * the open wait, then refuse anything that is not a regular file. Returns the descriptor
 * (back in blocking mode) with the file's size in *size (if not NULL), or -1 with err set
 * (QD_ERR_IO, offset 0, e.g. "not a regular file (a FIFO)"). */
int qd_open_input(const char *path, uint64_t *size, qd_error *err);

/* Read the regular file path whole into a new malloc'd buffer (*data, *len; one spare byte
 * after the end holds 0), refusing files over max bytes (QD_ERR_LIMIT). Opened as
 * qd_open_input() does. The caller frees *data. */
qd_err qd_read_input(const char *path, uint64_t max, uint8_t **data, size_t *len,
                     qd_error *err);

/* A buffer of size bytes for the caller to free(): from 512 KiB on, on 2 MiB boundaries
 * and asked for huge pages (this VM's page faults cost ~10 us each: a 1 MB demo read into
 * 4 KiB pages paid ~3 ms of them), else plain malloc. NULL when memory is short. */
void *qd_alloc_bulk(size_t size);
/* The same, zeroed, for state that a decode of an input of `input` bytes fills: in huge
 * pages when both are 512 KiB or more, else calloc's fresh zero pages, of which only the
 * ones used are ever touched. A small demo touches little of a decoder's state or of the
 * 1.6 MB client state, and zeroing whole huge pages for it cost more than the few faults
 * saved: on a guest whose faults are cheap (~0.35 us), `info` on a 9 KB .mvd 0.99 -> 0.87
 * ms CPU with calloc (README Speed, 2026-12-02 from 04:17); on one whose faults cost ~10 us,
 * a big demo's state in huge pages took a third off `info` (the same, from 00:56). */
void *qd_alloc_bulk_zero(size_t size, size_t input);

/* For the commands that load a level's assets (play, render): malloc's heap from here on in
 * huge pages (a hint; glibc on Linux only). Opening oa_dm3 took 58,000 page faults, 10 us
 * each on this VM, in a few thousand images and mip chains of every size. */
void qd_heap_huge(void);

/* Read size bytes from fd into a new malloc'd buffer (*data, *len; one spare byte after the
 * end holds 0); a file that shrank meanwhile gives what is there. On failure returns 0 with
 * errno set (ENOMEM too), *data NULL and *len the bytes read before the error. */
int qd_read_fd(int fd, size_t size, uint8_t **data, size_t *len);

/* Create path as a new file for writing (O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode
 * 0666 less the umask): never opens anything that exists, a planted link included. Returns
 * the descriptor or -1 with errno set. */
int qd_create_new(const char *path);

/* Create a new temporary file beside path, named ".NAME.qdemo-PID-N.tmp" (N counts up in
 * this process, and past names that exist), so only this run ever made it. Returns the
 * descriptor and the malloc'd name in *tmp (the caller frees it and removes the file), or
 * -1 with errno set and *tmp NULL. */
int qd_create_temp(const char *path, char **tmp);

/* Write len bytes of data to path atomically: into a qd_create_temp() file, then renamed
 * over path, so a reader sees the old file or the whole new one, and a link at path is
 * replaced, never followed. The temporary file is removed on failure; err (QD_ERR_OUTPUT)
 * names path and the reason, e.g. "is a folder" when one is in the way. */
qd_err qd_replace_file(const char *path, const void *data, size_t len, qd_error *err);

/* Write all len bytes of data to fd (retrying short writes and EINTR); 0 with errno set when
 * that fails. */
int qd_write_all(int fd, const void *data, size_t len);

/* "dir/name" in a new malloc'd string; NULL when out of memory. */
char *qd_path_join(const char *dir, const char *name);

#endif
