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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
};

struct ct_symbolizer *ct_symbolizer_create(void)
{
	struct ct_symbolizer *s = g_new0(struct ct_symbolizer, 1);

	s->objects = g_array_new(FALSE, TRUE, sizeof(struct object));
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
	int fd = name[0] == '/' ? open(name, O_RDONLY | O_CLOEXEC) : -1;

	if (fd >= 0 && (len <= 0 || same_build_id(fd, id, len))) {
		*file_name = strdup(name);
		return fd;
	}
	if (fd >= 0)
		close(fd);
	return dwfl_build_id_find_elf(mod, userdata, name, base, file_name, elfp);
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

static void report(struct ct_symbolizer *s)
{
	s->reported = true;
	s->dwfl = dwfl_begin(&callbacks);
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

bool ct_symbolizer_lookup(struct ct_symbolizer *s, uint64_t address, bool return_address,
                          struct ct_symbol *sym)
{
	uint64_t pc = return_address && address ? address - 1 : address;
	Dwfl_Module *m;
	Dwarf_Addr low;
	Dwfl_Line *line;
	int lineno = 0;

	*sym = (struct ct_symbol){ 0 };
	if (!s->reported)
		report(s);
	if (!s->dwfl || !(m = dwfl_addrmodule(s->dwfl, pc)))
		return false;
	sym->object = dwfl_module_info(m, NULL, &low, NULL, NULL, NULL, NULL, NULL);
	sym->offset = address - low;
	sym->function = dwfl_module_addrname(m, pc);
	line = dwfl_module_getsrc(m, pc);
	if (line) {
		sym->file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
		sym->line = lineno > 0 ? (uint32_t)lineno : 0;
	}
	return true;
}
