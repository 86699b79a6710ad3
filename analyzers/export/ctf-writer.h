/* SPDX-License-Identifier: MIT */
/*
 * ctf-writer.h - a CTF 1.8 trace written into a directory by babeltrace2's
 * sink.ctf.fs from messages its owner makes as it reads: a graph of a
 * source component of ours, "cudatrace-out", and sink.ctf.fs. The source's
 * message iterator gives the sink what the owner's NEXT function makes;
 * the owner runs the graph (ct_ctf_writer_run) whenever it has messages
 * ready, and the run returns as soon as NEXT has none for now (AGAIN) or
 * none ever again (END). So the writing keeps pace with the reading,
 * and nothing waits: the owner, not a loop, decides when the graph runs.
 *
 * The trace IR of the messages is made with the source component
 * (ct_ctf_writer_component), the messages with the iterator NEXT is
 * given. A run that fails says why in our words: NEXT could not make a
 * message (out of memory), or the sink could not write into the
 * directory; babeltrace2's own message names its internals.
 *
 *	w = ct_ctf_writer_create(dir, next, data, err, len);
 *	... trace IR: ct_ctf_writer_component(w) ...
 *	ct_ctf_writer_run(w, err, len);   (each time messages are ready; once NEXT ends)
 *	ct_ctf_writer_destroy(w);         (the sink writes the metadata)
 */
#ifndef CUDATRACE_ANALYZERS_CTF_WRITER_H
#define CUDATRACE_ANALYZERS_CTF_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

/*
 * The owner's messages: up to CAPACITY of them into MSGS, made with SELF
 * (a message's reference goes to the sink), their number in *COUNT.
 * OK (at least one), AGAIN (none for now), END (none ever again), or an
 * error status.
 */
typedef bt_message_iterator_class_next_method_status (*ct_ctf_writer_next_func)(
    void *data, bt_self_message_iterator *self, bt_message_array_const msgs, uint64_t capacity,
    uint64_t *count);

struct ct_ctf_writer;

/*
 * A writer into directory DIR (made when it does not exist, as
 * sink.ctf.fs does), fed by NEXT with DATA. NULL with the reason in ERROR
 * (LEN bytes): babeltrace2's ctf plugin missing, DIR not writable, out of
 * memory.
 */
struct ct_ctf_writer *ct_ctf_writer_create(const char *dir, ct_ctf_writer_next_func next,
                                           void *data, char *error, size_t len);

/* The source component, to make the trace IR of the messages with. */
bt_self_component *ct_ctf_writer_component(struct ct_ctf_writer *writer);

/*
 * Has the sink write what NEXT gives until it gives nothing for now, or
 * nothing more. 0; or -1 with the reason in ERROR (LEN bytes): NEXT or
 * the sink failed, and the writer writes nothing more.
 */
int ct_ctf_writer_run(struct ct_ctf_writer *writer, char *error, size_t len);

/*
 * Ends the graph: the sink closes its files and writes the metadata.
 * After a failed run the graph is left unfinished (ctf-writer.c says
 * why): its output is to be removed. NULL is fine.
 */
void ct_ctf_writer_destroy(struct ct_ctf_writer *writer);

#endif
