/* SPDX-License-Identifier: MIT */
/*
 * event-size.h - the most bytes one cudatrace event can take in an LTTng
 * sub-buffer, from the event contract (contract/events.def): its largest
 * payload, with every string at the tracer's cap (CUDATRACE_MAX_STRING;
 * a kernel name's, CT_KERNEL_NAME_MAX when more), its event header and
 * its contexts. LTTng-UST discards an event larger
 * than a sub-buffer, whatever the channel's mode, --blocking included.
 */
#ifndef CUDATRACE_CLI_EVENT_SIZE_H
#define CUDATRACE_CLI_EVENT_SIZE_H

#include <stdint.h>

/* The tracer's default cap on each string, and its bounds (libtrace/config.c). */
#define EVENT_MAX_STRING_DEFAULT 256u
#define EVENT_MAX_STRING_MIN     16u
#define EVENT_MAX_STRING_MAX     4096u
/* Bytes of a sub-buffer that its packet header takes. */
#define EVENT_PACKET_HEADER 128u

/* The cap the tracer will use: CUDATRACE_MAX_STRING when valid, else its default. */
unsigned event_max_string(void);

/* An upper bound of the bytes of any cudatrace event with strings of MAX_STRING bytes at most. */
uint64_t event_max_size(unsigned max_string);

#endif
