/* SPDX-License-Identifier: MIT */
/*
 * last-words.h - what a program's last lines on standard error
 * (stderr-log.h) say of why it ended: the uncaught Python exception of a
 * traceback at the end (its type, message, and the innermost frame of the
 * program's own code), and a framework's out-of-memory message with the
 * figures it gives, in the frameworks' own formats:
 *
 *   PyTorch (c10/cuda/CUDACachingAllocator.cpp), since 2.1:
 *     CUDA out of memory. Tried to allocate 1.20 GiB. GPU 0 has a total
 *     capacity of 4.00 GiB of which 20.00 MiB is free. [Process 12 has
 *     ... memory in use. | Including non-PyTorch memory, this process has
 *     3.90 GiB memory in use.] Of the allocated memory 704.00 MiB is
 *     allocated by PyTorch, [with ... allocated in private pools (e.g.,
 *     CUDA Graphs), ]and 540.00 MiB is reserved by PyTorch but unallocated.
 *   and before it:
 *     CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 4.00 GiB
 *     total capacity; 3.10 GiB already allocated; 10.00 MiB free; 3.20 GiB
 *     reserved in total by PyTorch)
 *   TensorFlow (core/common_runtime/bfc_allocator.cc, its errors):
 *     Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.20GiB
 *     (rounded to 1288490240)...
 *     OOM when allocating tensor with shape[8192,8192] and type float on
 *     /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc
 *     and the allocator's "Limit:" and "InUse:" lines (bytes);
 *   JAX (XLA's allocators, PJRT):
 *     RESOURCE_EXHAUSTED: Out of memory while trying to allocate
 *     268435456 bytes. (or 256.00MiB.)
 *
 * The frameworks print sizes rounded to two decimals of their unit: a
 * figure read from one is within half a unit's hundredth of the truth.
 */
#ifndef CUDATRACE_COMMON_LAST_WORDS_H
#define CUDATRACE_COMMON_LAST_WORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "event.h"
#include "stderr-log.h"

/* An uncaught Python exception, from the traceback that ends the output. */
struct ct_exception {
	char *type;     /* as Python prints it: "torch.OutOfMemoryError", "MemoryError" */
	char *message;  /* its message's first line; "" when none */
	char *file;     /* the innermost frame of the program's own code, NULL if none */
	int line;       /* its line; 0 when FILE is NULL */
	char *function; /* its function ("<module>"); NULL when not said */
	size_t first;   /* the traceback's lines in the log: FIRST .. LAST */
	size_t last;
};

/*
 * A framework said it ran out of GPU memory: its figures, named as the
 * Python probe's (doc/events.md, framework_oom); 0 when it did not give
 * them.
 */
struct ct_said_oom {
	enum ct_framework framework; /* contract/events.def */
	size_t line;                 /* the log's line that says it */
	uint64_t requested_bytes;    /* what it tried to allocate */
	uint64_t in_use_bytes;       /* what its allocator had handed out */
	uint64_t reserved_bytes;     /* what its allocator held from the driver, in use or not */
	uint64_t reserved_unused_bytes;
	uint64_t device_free_bytes;  /* free on the device, as the driver said */
	uint64_t device_total_bytes; /* the device's memory */
	/* the most it may use: TensorFlow's Limit; PyTorch's share ("... allowed;"), else the device */
	uint64_t limit_bytes;
	uint64_t process_bytes; /* all this process held on the device (PyTorch) */
	int device;             /* -1 unknown */
	bool rounded;           /* a figure was read from a rounded size */
};

struct ct_last_words {
	bool has_exception;
	struct ct_exception exception;
	bool has_oom;
	struct ct_said_oom oom;
};

/* What LOG's last lines say (WORDS cleared with ct_last_words_clear). */
void ct_last_words_read(const struct ct_stderr_log *log, struct ct_last_words *words);

void ct_last_words_clear(struct ct_last_words *words);

/*
 * A size as the frameworks print it ("1.20 GiB", "256.00MiB", "20 bytes",
 * "123B") at TEXT: its bytes into *BYTES, whether it was rounded into
 * *ROUNDED; the length read, 0 when none is there.
 */
size_t ct_parse_size(const char *text, uint64_t *bytes, bool *rounded);

#endif
