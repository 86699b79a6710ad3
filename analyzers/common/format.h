/* SPDX-License-Identifier: MIT */
/*
 * format.h - values as text for people, for the writers, the findings and
 * the messages alike.
 */
#ifndef CUDATRACE_ANALYZERS_FORMAT_H
#define CUDATRACE_ANALYZERS_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/*
 * S, a string that may come from a traced program (a process, kernel or
 * device name, an NVTX message, a path), as text safe to show on a
 * terminal: control characters, which could move the cursor, clear the
 * screen or start a line that looks like the report's own, are escaped
 * (\n, \r, \t; \xHH for the other C0 characters and DEL; \uHHHH for the
 * C1 characters, the line and paragraph separators and the bidirectional
 * embeddings, overrides and isolates), and each byte that is not part of
 * valid UTF-8 is written \xHH. Other characters are copied. The result is
 * cut to fit LEN bytes (NUL included), never inside a character or an
 * escape. Returns BUF.
 *
 * Every string from a trace that is printed for people goes through it:
 * the text writer does so for the report; a program that prints such
 * strings itself (the record summary, the list of traces) calls it on
 * each one.
 */
char *ct_format_text(const char *s, char *buf, size_t len);

/*
 * Numbers for people, in units: bytes ("1.50 MiB"),
 * a duration in ns ("2.31 ms"), a time in ns on the trace clock (seconds
 * from ORIGIN_NS, "+1.500000 s", or the raw ns when ORIGIN_NS is
 * INT64_MIN), a bandwidth in bytes a second ("1.20 GB/s"). Each returns
 * BUF.
 */
char *ct_format_bytes(double bytes, char *buf, size_t len);
char *ct_format_duration(double ns, char *buf, size_t len);
char *ct_format_time(int64_t ns, int64_t origin_ns, char *buf, size_t len);
char *ct_format_bandwidth(double bytes_per_s, char *buf, size_t len);

/*
 * A device for people: "device 3", or "no device" for CT_DEVICE_NONE,
 * which the tracer writes for a call made with no current context (an
 * allocation refused for it: no device applies). Returns BUF.
 */
char *ct_format_device(uint64_t device, char *buf, size_t len);

#endif
