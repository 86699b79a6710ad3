/* SPDX-License-Identifier: MIT */
/*
 * symbolizer.h - the addresses of one process named offline with libdw:
 * the objects it had loaded (base address, size, path, build id, as
 * lttng-ust's statedump records them), and their symbols and line tables,
 * found in the object at its recorded path when its build id matches, else
 * by build id in the debug directories (/usr/lib/debug/.build-id), with
 * the separate debug files the objects name.
 */
#ifndef CUDATRACE_ANALYZERS_SYMBOLIZER_H
#define CUDATRACE_ANALYZERS_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ct_symbolizer;

/* What an address is. Strings belong to the symbolizer; NULL when unknown. */
struct ct_symbol {
	const char *object;   /* path of the object the address is in */
	const char *function; /* the function, inlined or not, that contains it */
	const char *file;     /* source file of its line */
	uint32_t line;        /* 0 when unknown */
	uint64_t offset;      /* from the object's base address */
};

/*
 * Whether libdw may ask debuginfod servers for the debug information of
 * objects it lacks: only when CUDATRACE_DEBUGINFOD is 1. Otherwise
 * DEBUGINFOD_URLS, which distributions set for every login, is removed
 * from this process's environment, so that naming a trace's frames
 * neither downloads each library's debug information nor waits
 * DEBUGINFOD_TIMEOUT (90 s) for each where the servers cannot be reached.
 * Call before any thread starts (it may change the environment); returns
 * whether servers may be asked.
 */
bool ct_symbolizer_choose_servers(void);

/* DEBUG_DIRS: directories searched before the standard ones (colon-separated,
 * copied), NULL for none. */
struct ct_symbolizer *ct_symbolizer_create(const char *debug_dirs);
/* Frees everything; NULL is fine. */
void ct_symbolizer_destroy(struct ct_symbolizer *s);

/* The object at BASE, SIZE bytes, loaded from PATH; a second report of
 * the same BASE (a later statedump) replaces the first. Before any lookup. */
void ct_symbolizer_add_object(struct ct_symbolizer *s, uint64_t base, uint64_t size,
                              const char *path);
/* The build id of the object at BASE. */
void ct_symbolizer_set_build_id(struct ct_symbolizer *s, uint64_t base, const uint8_t *id,
                                size_t len);

/* The path of the object ADDRESS is in (a return address when
 * RETURN_ADDRESS), NULL when no object of the process covers it. */
const char *ct_symbolizer_object(struct ct_symbolizer *s, uint64_t address, bool return_address);

/*
 * What ADDRESS is by its object's symbol table alone, into *SYM: its
 * object, offset and function, no file or line (its debug information is
 * not read); false when no object of the process covers ADDRESS.
 */
bool ct_symbolizer_lookup_symbol(struct ct_symbolizer *s, uint64_t address, bool return_address,
                                 struct ct_symbol *sym);

/*
 * What ADDRESS is, a return address when RETURN_ADDRESS (the call is the
 * instruction before it): into SYMS, at most MAX of them, the functions
 * inlined there innermost first, then the function they were inlined into
 * (one symbol when nothing is inlined), each with the file and line it is
 * at. Their number; 0 when no object of the process covers ADDRESS.
 */
size_t ct_symbolizer_lookup(struct ct_symbolizer *s, uint64_t address, bool return_address,
                            struct ct_symbol *syms, size_t max);

#endif
