/* SPDX-License-Identifier: MIT */
/*
 * symbolizer.c - addresses named with libdw's dwfl (see symbolizer.h).
 *
 * Each object is reported to dwfl as a module spanning its recorded
 * address range, with its recorded build id; dwfl computes the load bias
 * from the range and the ELF file's first segment, and finds the ELF file
 * through find_elf below and its DWARF by build id in the debug
 * directories (/usr/lib/debug/.build-id), then by the name its
 * .gnu_debuglink gives (find_debuginfo below), and from debuginfod
 * servers only where ct_symbolizer_choose_servers allows them. The
 * modules are reported once, at the first lookup, after every object is
 * known.
 */
#include <errno.h>
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

/* Symbols looked at before PC, at most, for one whose range holds it. */
#define FUNCTION_SEARCH_BACK 64

/* A symbol of a module's symbol table that may name code, at its
 * absolute address. */
struct function {
	Dwarf_Addr start;
	GElf_Xword size;
	const char *name; /* libelf's, as long as the dwfl */
	int binding_rank; /* the binding dwfl prefers ranks higher */
	int index;        /* in the table: the first of equals wins, as in dwfl */
};

struct ct_symbolizer {
	GArray *objects; /* struct object */
	Dwfl *dwfl;      /* NULL until the first lookup */
	/* Dwfl_Module * -> GArray of struct function by start, made at the
	 * module's first lookup by address; owned */
	GHashTable *functions;
	bool reported;
	/* elfutils' search path: the given directories, then its default one
	 * (":.debug:/usr/lib/debug": beside the object, its .debug directory,
	 * the system's debug directory); owned */
	char *debuginfo_path;
	Dwfl_Callbacks callbacks;
};

static bool servers_allowed(void)
{
	const char *allow = getenv("CUDATRACE_DEBUGINFOD");

	return allow && strcmp(allow, "1") == 0;
}

bool ct_symbolizer_choose_servers(void)
{
	if (servers_allowed())
		return true;
	/* libdebuginfod reads it at each query (debuginfod-client.c): without, it asks none */
	unsetenv("DEBUGINFOD_URLS");
	return false;
}

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
	if (s->functions)
		g_hash_table_destroy(s->functions);
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
 * The file at PATH opened for reading if it is a regular file, else -1.
 * The paths come from the trace, or are made from names it gives: a FIFO
 * or a device named there would block or never end.
 */
static int open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
	}
	return fd;
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
	int fd = name[0] == '/' ? open_regular(name) : -1;

	if (fd >= 0 && (len <= 0 || same_build_id(fd, id, len))) {
		*file_name = strdup(name);
		return fd;
	}
	if (fd >= 0)
		close(fd);
	return dwfl_build_id_find_elf(mod, userdata, name, base, file_name, elfp);
}

/* CRC-32 (ISO 3309, zlib's) of the file at FD, as .gnu_debuglink records it. */
static bool file_crc32(int fd, uint32_t *out)
{
	static uint32_t table[256];
	static gsize made;
	unsigned char buf[65536];
	uint32_t crc = 0xffffffffu;
	off_t at = 0;

	if (g_once_init_enter(&made)) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
		g_once_init_leave(&made, 1);
	}
	for (;;) {
		ssize_t n = pread(fd, buf, sizeof(buf), at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		if (n == 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
		at += n;
	}
	*out = crc ^ 0xffffffffu;
	return true;
}

/* Whether the debug file at FD is MOD's: by its build id when MOD has one,
 * else by the CRC its debug link gives. */
static bool debug_file_matches(Dwfl_Module *mod, int fd, GElf_Word crc)
{
	const unsigned char *id = NULL;
	GElf_Addr id_vaddr;
	int len = dwfl_module_build_id(mod, &id, &id_vaddr);
	uint32_t found;

	if (len > 0)
		return same_build_id(fd, id, len);
	return file_crc32(fd, &found) && found == crc;
}

/*
 * The debug file named LINK of the object at FILE, by the search path
 * (ct_symbolizer_create): an empty element is FILE's directory, a
 * relative one a directory in it, an absolute one a tree where FILE's
 * directory is repeated (/usr/lib/debug/usr/lib/libx.so.debug) or, for
 * flat directories of debug files, LINK right in it. Its descriptor and
 * path, or -1.
 */
static int find_by_link(struct ct_symbolizer *s, Dwfl_Module *mod, const char *file,
                        const char *link, GElf_Word crc, char **found)
{
	gchar *dir = g_path_get_dirname(file);
	gchar **elements = g_strsplit(s->debuginfo_path, ":", -1);
	int fd = -1;

	for (gchar **e = elements; *e && fd < 0; e++) {
		gchar *tries[2] = { NULL, NULL };

		if (!**e)
			tries[0] = g_build_filename(dir, link, NULL);
		else if (**e != '/')
			tries[0] = g_build_filename(dir, *e, link, NULL);
		else {
			tries[0] = g_build_filename(*e, dir, link, NULL);
			tries[1] = g_build_filename(*e, link, NULL);
		}
		for (int t = 0; t < 2 && tries[t] && fd < 0; t++) {
			/* the object itself, when it names itself */
			if (strcmp(tries[t], file) == 0)
				continue;
			fd = open_regular(tries[t]);
			if (fd >= 0 && !debug_file_matches(mod, fd, crc)) {
				close(fd);
				fd = -1;
			}
			if (fd >= 0)
				*found = strdup(tries[t]);
		}
		g_free(tries[0]);
		g_free(tries[1]);
	}
	g_strfreev(elements);
	g_free(dir);
	return fd;
}

/*
 * MOD's separate debug file on this machine: by build id in the debug
 * directories, else by its .gnu_debuglink name next to the object (at
 * its path, then at the path's target), as dwfl_standard_find_debuginfo
 * searches. That one also asks libdebuginfod after a miss, which makes
 * libdw load libdebuginfod and libcurl whether a server is named or not
 * (elfutils 0.188): a sixth of a small report's instructions, for nothing
 * where servers are not allowed. USERDATA: the module's, the symbolizer.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                          const char *file_name, const char *debuglink_file,
                          GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
	                                      debuglink_file, debuglink_crc, debuginfo_file_name);
	char *canonical;

	/* a dwz file (no CRC) is found by its build id alone */
	if (fd >= 0 || !file_name || !debuglink_file || !debuglink_crc ||
	    strchr(debuglink_file, '/'))
		return fd;
	fd = find_by_link(*userdata, mod, file_name, debuglink_file, debuglink_crc,
	                  debuginfo_file_name);
	canonical = fd < 0 ? realpath(file_name, NULL) : NULL;
	if (canonical && strcmp(canonical, file_name) != 0)
		fd = find_by_link(*userdata, mod, canonical, debuglink_file, debuglink_crc,
		                  debuginfo_file_name);
	free(canonical);
	return fd;
}

static void report(struct ct_symbolizer *s)
{
	s->reported = true;
	s->callbacks = (Dwfl_Callbacks){
		.find_elf = find_elf,
		.find_debuginfo = servers_allowed() ? dwfl_standard_find_debuginfo : find_debuginfo,
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
		if (m) {
			void **userdata;

			/* find_debuginfo's */
			dwfl_module_info(m, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
			*userdata = s;
		}
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

static int binding_rank(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 2;
	case STB_WEAK:
		return 1;
	default:
		return 0;
	}
}

/* A function in the sort: its start, and its place in the table's order. */
struct sort_key {
	Dwarf_Addr start;
	guint at;
};

/*
 * The N functions at F, in the symbol table's order, sorted by start, then the
 * preferred binding first, then the first in the table first (the order
 * dwfl_module_addrname finds them in): a radix sort, stable, on keys of
 * their start and place, whose passes skip the bytes every start shares
 * (a module's addresses share their high bytes). A table of PyTorch's
 * holds hundreds of thousands of symbols; g_array_sort's merge sort, a
 * call and a 40-byte move each comparison, took 60 % of a short
 * PyTorch trace's report.
 */
static GArray *sorted_functions(const struct function *f, guint n)
{
	guint ranked[4] = { 0 };
	/* of each byte of the starts (8), the count of each value (256) */
	guint *counts = g_new0(guint, 8 * 256);
	struct sort_key *keys = g_new(struct sort_key, n), *spare = g_new(struct sort_key, n),
	                *swap;
	GArray *sorted = g_array_sized_new(FALSE, FALSE, sizeof(struct function), n);

	/* by binding, the preferred (rank 2) first; the table's order kept within each */
	for (guint i = 0; i < n; i++)
		ranked[2 - f[i].binding_rank + 1]++;
	for (unsigned r = 1; r < 4; r++)
		ranked[r] += ranked[r - 1];
	for (guint i = 0; i < n; i++) {
		keys[ranked[2 - f[i].binding_rank]++] = (struct sort_key){ f[i].start, i };
		for (unsigned b = 0; b < 8; b++)
			counts[b * 256 + ((f[i].start >> (8 * b)) & 0xff)]++;
	}
	/* then by each byte of the start, the lowest first */
	for (unsigned b = 0; b < 8; b++) {
		guint offset = 0;

		if (n == 0 || counts[b * 256 + ((keys[0].start >> (8 * b)) & 0xff)] == n)
			continue; /* all alike: the order stands */
		for (unsigned d = 0; d < 256; d++) {
			guint count = counts[b * 256 + d];

			counts[b * 256 + d] = offset;
			offset += count;
		}
		for (guint i = 0; i < n; i++)
			spare[counts[b * 256 + ((keys[i].start >> (8 * b)) & 0xff)]++] = keys[i];
		swap = keys;
		keys = spare;
		spare = swap;
	}
	g_array_set_size(sorted, n);
	for (guint i = 0; i < n; i++)
		g_array_index(sorted, struct function, i) = f[keys[i].at];
	g_free(keys);
	g_free(spare);
	g_free(counts);
	return sorted;
}

/* M's defined symbols by start, those dwfl_module_addrname considers
 * (not sections, files, thread-local data or absolute values): what a
 * lookup searches. */
static GArray *functions_of(struct ct_symbolizer *s, Dwfl_Module *m)
{
	struct function *functions;
	GArray *sorted;
	guint n = 0;
	int count;

	if (!s->functions)
		s->functions = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
		                                     (GDestroyNotify)g_array_unref);
	sorted = g_hash_table_lookup(s->functions, m);
	if (sorted)
		return sorted;
	count = dwfl_module_getsymtab(m);
	functions = g_new(struct function, count > 0 ? count : 1);
	for (int i = 1; i < count; i++) {
		GElf_Sym sym;
		GElf_Addr address;
		GElf_Word section;
		const char *name =
		    dwfl_module_getsym_info(m, i, &sym, &address, &section, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		/* absolute ones (version names, at 0) are no place in the code */
		if (!name || !*name || section == SHN_UNDEF || section == SHN_ABS ||
		    type == STT_SECTION || type == STT_FILE || type == STT_TLS)
			continue;
		functions[n++] = (struct function){
			.start = address,
			.size = sym.st_size,
			.name = name,
			.binding_rank = binding_rank(&sym),
			.index = i,
		};
	}
	sorted = sorted_functions(functions, n);
	g_free(functions);
	g_hash_table_insert(s->functions, m, sorted);
	return sorted;
}

/*
 * The function of M at PC, by its symbol table, as dwfl_module_addrname
 * names it: the symbol whose range holds PC that starts the latest (the
 * preferred binding among those starting there); without one, the last
 * sizeless label before PC that no sized symbol's range passes. That
 * function itself reads every symbol at each call: a lookup in
 * libtorch_cuda.so took a millisecond, and the report of a PyTorch trace
 * a second.
 */
static const char *function_at(struct ct_symbolizer *s, Dwfl_Module *m, Dwarf_Addr pc)
{
	GArray *functions = functions_of(s, m);
	const struct function *f = (const struct function *)(void *)functions->data;
	const struct function *label = NULL;
	Dwarf_Addr label_floor = 0;
	guint low = 0, high = functions->len;

	/* LOW: the first that starts after PC */
	while (low < high) {
		guint mid = low + (high - low) / 2;

		if (f[mid].start <= pc)
			low = mid + 1;
		else
			high = mid;
	}
	/* back from the latest start, within a few (nested symbols, aliases) */
	for (guint i = low, seen = 0; i > 0 && seen < FUNCTION_SEARCH_BACK; i--, seen++) {
		const struct function *candidate = &f[i - 1];

		if (candidate->size && pc - candidate->start < candidate->size) {
			/* those starting there too come first when preferred */
			while (i > 1 && f[i - 2].start == candidate->start &&
			       pc - f[i - 2].start < f[i - 2].size)
				candidate = &f[--i - 1];
			return candidate->name;
		}
		if (candidate->size)
			label_floor = MAX(label_floor, candidate->start + candidate->size);
		else if (!label || label->start == candidate->start)
			label = candidate; /* of labels at one place, the first sorted */
	}
	return label && label->start >= label_floor ? label->name : NULL;
}

/* The module of PC, *LOW its base and *OBJECT its path; NULL when none
 * covers it. */
static Dwfl_Module *module_at(struct ct_symbolizer *s, uint64_t pc, Dwarf_Addr *low,
                              const char **object)
{
	Dwfl_Module *m;

	if (!s->reported)
		report(s);
	if (!s->dwfl || !(m = dwfl_addrmodule(s->dwfl, pc)))
		return NULL;
	*object = dwfl_module_info(m, NULL, low, NULL, NULL, NULL, NULL, NULL);
	return m;
}

/* The address a lookup names: the call before a return address. */
static uint64_t looked_up(uint64_t address, bool return_address)
{
	return return_address && address ? address - 1 : address;
}

const char *ct_symbolizer_object(struct ct_symbolizer *s, uint64_t address, bool return_address)
{
	Dwarf_Addr low;
	const char *object = NULL;

	module_at(s, looked_up(address, return_address), &low, &object);
	return object;
}

bool ct_symbolizer_lookup_symbol(struct ct_symbolizer *s, uint64_t address, bool return_address,
                                 struct ct_symbol *sym)
{
	uint64_t pc = looked_up(address, return_address);
	Dwarf_Addr low;
	const char *object;
	Dwfl_Module *m = module_at(s, pc, &low, &object);

	if (!m)
		return false;
	*sym = (struct ct_symbol){
		.object = object,
		.function = function_at(s, m, pc),
		.offset = address - low,
	};
	return true;
}

size_t ct_symbolizer_lookup(struct ct_symbolizer *s, uint64_t address, bool return_address,
                            struct ct_symbol *syms, size_t max)
{
	uint64_t pc = looked_up(address, return_address);
	struct ct_symbol first = { 0 };
	Dwfl_Module *m;
	Dwarf_Addr low;
	Dwfl_Line *line;
	int lineno = 0;
	size_t n;

	if (!max || !(m = module_at(s, pc, &low, &first.object)))
		return 0;
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
		syms[0].function = function_at(s, m, pc);
		n = 1;
	}
	return n;
}
