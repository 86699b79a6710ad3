/* SPDX-License-Identifier: MIT */
/*
 * symbolizer.c - addresses named with libdw's dwfl (see symbolizer.h).
 *
 * Each object is reported to dwfl as a module spanning its recorded
 * address range, with its recorded build id; dwfl computes the load bias
 * from the range and the ELF file's first segment, and finds the ELF file
 * through find_elf below and its DWARF through the standard debuginfo
 * search (.gnu_debuglink, /usr/lib/debug/.build-id). The modules are
 * reported once, at the first lookup, after every object is known.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <glib.h>

#include "symbolizer.h"

struct object {
	uint64_t base;
	uint64_t size;
	char *path;  /* owned */
	uint8_t *id; /* owned; NULL: none recorded */
	size_t id_len;
};

struct ct_symbolizer {
	GArray *objects; /* struct object */
	Dwfl *dwfl;      /* NULL until the first lookup */
	bool reported;
	/* elfutils' search path: the given directories, then its default one
	 * (":.debug:/usr/lib/debug": beside the object, its .debug directory,
	 * the system's debug directory); owned */
	char *debuginfo_path;
	Dwfl_Callbacks callbacks;
};

struct ct_symbolizer *ct_symbolizer_create(const char *debug_dirs)
{
	struct ct_symbolizer *s = g_new0(struct ct_symbolizer, 1);

	s->objects = g_array_new(FALSE, TRUE, sizeof(struct object));
	s->debuginfo_path = g_strconcat(debug_dirs ? debug_dirs : "", debug_dirs ? ":" : "",
	                                ":.debug:/usr/lib/debug", NULL);
	return s;
}

void ct_symbolizer_destroy(struct ct_symbolizer *s)
{
	if (!s)
		return;
	for (guint i = 0; i < s->objects->len; i++) {
		struct object *o = &g_array_index(s->objects, struct object, i);

		g_free(o->path);
		g_free(o->id);
	}
	g_array_unref(s->objects);
	if (s->dwfl)
		dwfl_end(s->dwfl);
	g_free(s->debuginfo_path);
	g_free(s);
}

static struct object *object_at(struct ct_symbolizer *s, uint64_t base)
{
	for (guint i = 0; i < s->objects->len; i++) {
		struct object *o = &g_array_index(s->objects, struct object, i);

		if (o->base == base)
			return o;
	}
	return NULL;
}

void ct_symbolizer_add_object(struct ct_symbolizer *s, uint64_t base, uint64_t size,
                              const char *path)
{
	struct object *o = object_at(s, base);

	if (s->reported)
		return;
	if (!o) {
		struct object fresh = { .base = base };

		g_array_append_val(s->objects, fresh);
		o = &g_array_index(s->objects, struct object, s->objects->len - 1);
	}
	g_free(o->path);
	o->path = g_strdup(path);
	o->size = size;
}

void ct_symbolizer_set_build_id(struct ct_symbolizer *s, uint64_t base, const uint8_t *id,
                                size_t len)
{
	struct object *o = object_at(s, base);

	if (!o || s->reported || !len)
		return;
	g_free(o->id);
	o->id = g_memdup2(id, len);
	o->id_len = len;
}

/* True when the ELF file at FD has build id ID (or none was recorded). */
static bool same_build_id(int fd, const void *id, int len)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *found = NULL;
	ssize_t n;
	bool same;

	if (!elf)
		return false;
	n = dwelf_elf_gnu_build_id(elf, &found);
	same = n == len && !memcmp(found, id, (size_t)len);
	elf_end(elf);
	return same;
}

/*
 * The object's ELF file: the one at its recorded path when it is the same
 * build (the trace read where it was recorded, or a copy of the same
 * files), else the one its build id finds in the debug directories.
 */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
                    char **file_name, Elf **elfp)
{
	const unsigned char *id = NULL;
	GElf_Addr id_vaddr;
	int len = dwfl_module_build_id(mod, &id, &id_vaddr);
	int fd = name[0] == '/' ? open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	struct stat st;

	/* the path comes from the trace: only a regular file is read (a FIFO
	 * or a device named there would block or never end) */
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0 && (len <= 0 || same_build_id(fd, id, len))) {
		*file_name = strdup(name);
		return fd;
	}
	if (fd >= 0)
		close(fd);
	return dwfl_build_id_find_elf(mod, userdata, name, base, file_name, elfp);
}

static void report(struct ct_symbolizer *s)
{
	s->reported = true;
	s->callbacks = (Dwfl_Callbacks){
		.find_elf = find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.debuginfo_path = &s->debuginfo_path,
	};
	s->dwfl = dwfl_begin(&s->callbacks);
	if (!s->dwfl)
		return;
	dwfl_report_begin(s->dwfl);
	for (guint i = 0; i < s->objects->len; i++) {
		const struct object *o = &g_array_index(s->objects, struct object, i);
		Dwfl_Module *m;

		/* the vDSO and objects without a size have no file to read */
		if (!o->size || !o->path || o->path[0] != '/')
			continue;
		m = dwfl_report_module(s->dwfl, o->path, o->base, o->base + o->size);
		if (m && o->id)
			dwfl_module_report_build_id(m, o->id, o->id_len, 0);
	}
	dwfl_report_end(s->dwfl, NULL, NULL);
}

/* File number INDEX of the line table of the compilation unit of SCOPE. */
static const char *unit_file(Dwarf_Die *scope, Dwarf_Word index)
{
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t count;

	if (!dwarf_diecu(scope, &cu, NULL, NULL) || dwarf_getsrcfiles(&cu, &files, &count) != 0 ||
	    index >= count)
		return NULL;
	return dwarf_filesrc(files, index, NULL, NULL);
}

/*
 * The functions inlined at PC, innermost first, then the one they were
 * inlined into, into SYMS (at most MAX, each with OBJECT and OFFSET
 * already set): with optimisation a small function is often inlined into
 * its caller, where the symbol table names only the caller. The innermost
 * keeps the line table's FILE and LINE; each one out gets the call site of
 * the one it holds (DW_AT_call_file, DW_AT_call_line). Their number; 0
 * when the module has no DWARF for PC.
 */
static size_t inline_chain(Dwfl_Module *m, Dwarf_Addr pc, struct ct_symbol *syms, size_t max)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(m, pc, &bias);
	Dwarf_Die *scopes = NULL, innermost;
	size_t n = 0;
	int count;

	/* dwarf_getscopes follows an inlined function to its abstract
	 * definition; the DIEs that physically hold the innermost scope, from
	 * dwarf_getscopes_die, are the chain of callers (as eu-addr2line -i) */
	if (!cu || dwarf_getscopes(cu, pc - bias, &scopes) <= 0)
		return 0;
	innermost = scopes[0];
	free(scopes);
	scopes = NULL;
	if ((count = dwarf_getscopes_die(&innermost, &scopes)) <= 0)
		return 0;
	for (int i = 0; i < count && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Attribute attr;
		Dwarf_Word value;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		syms[n].object = syms[0].object;
		syms[n].offset = syms[0].offset;
		syms[n].function = dwarf_diename(&scopes[i]);
		n++;
		if (tag == DW_TAG_subprogram)
			break;
		/* where this inlined function was called: a line of the next one out */
		if (n < max) {
			syms[n] = (struct ct_symbol){ 0 };
			if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr),
			                    &value) == 0)
				syms[n].file = unit_file(&scopes[i], value);
			if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr),
			                    &value) == 0)
				syms[n].line = (uint32_t)value;
		}
	}
	free(scopes);
	return n;
}

size_t ct_symbolizer_lookup(struct ct_symbolizer *s, uint64_t address, bool return_address,
                            struct ct_symbol *syms, size_t max)
{
	uint64_t pc = return_address && address ? address - 1 : address;
	struct ct_symbol first = { 0 };
	Dwfl_Module *m;
	Dwarf_Addr low;
	Dwfl_Line *line;
	int lineno = 0;
	size_t n;

	if (!max)
		return 0;
	if (!s->reported)
		report(s);
	if (!s->dwfl || !(m = dwfl_addrmodule(s->dwfl, pc)))
		return 0;
	first.object = dwfl_module_info(m, NULL, &low, NULL, NULL, NULL, NULL, NULL);
	first.offset = address - low;
	line = dwfl_module_getsrc(m, pc);
	if (line) {
		first.file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
		first.line = lineno > 0 ? (uint32_t)lineno : 0;
	}
	syms[0] = first;
	n = inline_chain(m, pc, syms, max);
	/* the call sites the chain set keep their file and line: only the innermost is FIRST's */
	syms[0].file = first.file;
	syms[0].line = first.line;
	if (n == 0) {
		syms[0].function = dwfl_module_addrname(m, pc);
		n = 1;
	}
	return n;
}
