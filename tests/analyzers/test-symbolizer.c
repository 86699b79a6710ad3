/* SPDX-License-Identifier: MIT */
/*
 * test-symbolizer.c - addresses of libraries without DWARF named by their
 * symbol tables as libdw's own dwfl_module_addrname names them.
 *
 * The symbolizer searches a module's symbols sorted once, where libdw
 * reads every symbol at each lookup (a second for a PyTorch trace). The
 * truth here is libdw, asked through a dwfl of its own on this process:
 * every 16th byte of the code of libz (no DWARF on a system without its
 * debug package) and every 64th of GLib's. A lookup by the symbol table
 * alone (the one folded objects get) names them alike, with no line.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "model/symbolizer.h"

/* A loaded library: where its code is, as the statedump tells the object. */
struct library {
	const char *want; /* a part of its file name */
	char path[4096];
	uint64_t base, size;           /* its loaded range */
	uint64_t code_start, code_end; /* its executable segment */
};

/* LIB's ranges and path from INFO. */
static void take_library(struct dl_phdr_info *info, struct library *lib)
{
	uint64_t low = UINT64_MAX, high = 0;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		low = MIN(low, ph->p_vaddr);
		high = MAX(high, ph->p_vaddr + ph->p_memsz);
		if (ph->p_flags & PF_X) {
			lib->code_start = info->dlpi_addr + ph->p_vaddr;
			lib->code_end = lib->code_start + ph->p_memsz;
		}
	}
	g_strlcpy(lib->path, info->dlpi_name, sizeof(lib->path));
	lib->base = info->dlpi_addr + low;
	lib->size = high - low;
}

static int find_library(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (!info->dlpi_name || !strstr(info->dlpi_name, ((struct library *)data)->want))
		return 0;
	take_library(info, data);
	return 1;
}

/* This program: dl_iterate_phdr gives it first, with no name. */
static int find_program(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	take_library(info, data);
	return 1;
}

/* This process as libdw sees it, on its own. */
static Dwfl *own_dwfl(void)
{
	static char *debuginfo_path = NULL;
	static const Dwfl_Callbacks callbacks = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.debuginfo_path = &debuginfo_path,
	};
	Dwfl *dwfl = dwfl_begin(&callbacks);

	assert_non_null(dwfl);
	dwfl_report_begin(dwfl);
	assert_int_equal(dwfl_linux_proc_report(dwfl, getpid()), 0);
	dwfl_report_end(dwfl, NULL, NULL);
	return dwfl;
}

/* Every STEP-th byte of LIB's code named alike by both; their number. */
static unsigned compare(const struct library *lib, uint64_t step)
{
	struct ct_symbolizer *s = ct_symbolizer_create(NULL);
	Dwfl *dwfl = own_dwfl();
	unsigned named = 0;

	ct_symbolizer_add_object(s, lib->base, lib->size, lib->path);
	for (uint64_t pc = lib->code_start; pc < lib->code_end; pc += step) {
		Dwfl_Module *m = dwfl_addrmodule(dwfl, pc);
		const char *truth = m ? dwfl_module_addrname(m, pc) : NULL;
		struct ct_symbol syms[4], sym;
		size_t n = ct_symbolizer_lookup(s, pc, false, syms, 4);

		assert_int_equal(n, 1);
		if (g_strcmp0(syms[0].function, truth))
			fail_msg("%s+%#" PRIx64 ": %s, libdw says %s", lib->path, pc - lib->base,
			         syms[0].function ? syms[0].function : "(none)",
			         truth ? truth : "(none)");
		assert_true(ct_symbolizer_lookup_symbol(s, pc, false, &sym));
		if (g_strcmp0(sym.function, truth) || g_strcmp0(sym.object, syms[0].object) ||
		    sym.offset != syms[0].offset || sym.file || sym.line)
			fail_msg("%s+%#" PRIx64 ": by the symbol table %s, libdw says %s",
			         lib->path, pc - lib->base, sym.function ? sym.function : "(none)",
			         truth ? truth : "(none)");
		named += truth != NULL;
	}
	dwfl_end(dwfl);
	ct_symbolizer_destroy(s);
	return named;
}

/* A function of this program's, looked up in its debug information. */
static G_GNUC_NO_INLINE int looked_up(int x)
{
	return x * 3 + 1;
}

static void run(const char *const *argv)
{
	gchar *err = NULL;
	gint status = -1;

	if (!g_spawn_sync(NULL, (gchar **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, &err,
	                  &status, NULL) ||
	    !g_spawn_check_wait_status(status, NULL))
		fail_msg("%s failed: %s", argv[0], err ? err : "");
	g_free(err);
}

/* This program's build id, into ID; its length. */
static size_t own_build_id(const char *path, uint8_t *id, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	const void *found = NULL;
	ssize_t n;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	n = dwelf_elf_gnu_build_id(elf, &found);
	assert_true(n > 0 && (size_t)n <= max);
	memcpy(id, found, (size_t)n);
	elf_end(elf);
	close(fd);
	return (size_t)n;
}

/* What this program's looked_up is, read from a copy of it at COPY, recorded WITH_ID or not. */
static size_t look_up_in_copy(const struct library *program, const char *copy, bool with_id,
                              struct ct_symbol *sym)
{
	struct ct_symbolizer *s = ct_symbolizer_create(NULL);
	uint8_t id[64];
	size_t len = own_build_id(program->path, id, sizeof(id)), n;

	ct_symbolizer_add_object(s, program->base, program->size, copy);
	if (with_id)
		ct_symbolizer_set_build_id(s, program->base, id, len);
	n = ct_symbolizer_lookup(s, (uint64_t)(uintptr_t)looked_up, false, sym, 1);
	/* the strings are the symbolizer's: the ones checked are kept */
	sym->function = g_strdup(sym->function);
	sym->file = g_strdup(sym->file);
	ct_symbolizer_destroy(s);
	return n;
}

/*
 * An object whose DWARF is in a separate file that its .gnu_debuglink
 * names, in the .debug directory beside it (objcopy --only-keep-debug,
 * --strip-debug, --add-gnu-debuglink: how packages split them), not
 * under /usr/lib/debug/.build-id: the lines are found there. A file of
 * that name without the object's build id is not taken; without build
 * ids, the file is the one whose CRC the link gives. And no debuginfod server is
 * allowed, so libdebuginfod is never loaded: libdw's standard search
 * loads it (and libcurl) at the first miss, whatever DEBUGINFOD_URLS
 * says. First of the tests: the others use that standard search.
 */
static void test_debuglink(void **unused)
{
	struct library program = { .want = "" };
	gchar *dir = g_dir_make_tmp("ct-symbolizer-XXXXXX", NULL);
	gchar *debug_dir = g_build_filename(dir, ".debug", NULL);
	gchar *copy = g_build_filename(dir, "copy", NULL);
	gchar *debug = g_build_filename(debug_dir, "copy.debug", NULL);
	gchar *link = g_strconcat("--add-gnu-debuglink=", debug, NULL);
	struct ct_symbol sym;

	(void)unused;
	g_unsetenv("CUDATRACE_DEBUGINFOD");
	assert_null(dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_NOLOAD));
	assert_non_null(dir);
	assert_int_equal(g_mkdir(debug_dir, 0700), 0);
	dl_iterate_phdr(find_program, &program);
	assert_true(realpath("/proc/self/exe", program.path) != NULL);
	run((const char *[]){ "objcopy", "--only-keep-debug", program.path, debug, NULL });
	run((const char *[]){ "objcopy", "--strip-debug", link, program.path, copy, NULL });
	assert_int_equal(look_up_in_copy(&program, copy, true, &sym), 1);
	assert_string_equal(sym.function, "looked_up");
	assert_non_null(sym.file);
	assert_true(g_str_has_suffix(sym.file, "test-symbolizer.c"));
	assert_true(sym.line > 0);
	g_free((char *)sym.function);
	g_free((char *)sym.file);
	/* a debug file at that name with no build id (not the object's): the symbol table alone */
	run((const char *[]){ "objcopy", "--remove-section=.note.gnu.build-id", debug, NULL });
	assert_int_equal(look_up_in_copy(&program, copy, true, &sym), 1);
	assert_string_equal(sym.function, "looked_up");
	assert_null(sym.file);
	assert_int_equal(sym.line, 0);
	g_free((char *)sym.function);
	/* no build id anywhere: the debug file whose CRC the link gives, and no other */
	run((const char *[]){ "objcopy", "--remove-section=.note.gnu.build-id", "--strip-debug",
	                      link, program.path, copy, NULL });
	assert_int_equal(look_up_in_copy(&program, copy, false, &sym), 1);
	assert_true(g_str_has_suffix(sym.file, "test-symbolizer.c"));
	g_free((char *)sym.function);
	g_free((char *)sym.file);
	/* the same DWARF in a file of other bytes */
	run((const char *[]){ "objcopy", "--add-section=.ct_other=" ALIASES_LIB, debug, NULL });
	assert_int_equal(look_up_in_copy(&program, copy, false, &sym), 1);
	assert_null(sym.file);
	g_free((char *)sym.function);
	assert_null(dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_NOLOAD));
	g_assert(remove(debug) == 0 && remove(copy) == 0 && remove(debug_dir) == 0 &&
	         remove(dir) == 0);
	g_free(link);
	g_free(debug);
	g_free(copy);
	g_free(debug_dir);
	g_free(dir);
}

static void test_zlib(void **unused)
{
	struct library lib = { .want = "libz.so" };
	void *z = dlopen("libz.so.1", RTLD_NOW);
	struct ct_symbolizer *s;
	struct ct_symbol sym;

	(void)unused;
	assert_non_null(z);
	assert_int_equal(dl_iterate_phdr(find_library, &lib), 1);
	assert_true(compare(&lib, 16) > 1000);
	/* an exported function, inside it */
	s = ct_symbolizer_create(NULL);
	ct_symbolizer_add_object(s, lib.base, lib.size, lib.path);
	assert_int_equal(
	    ct_symbolizer_lookup(s, (uint64_t)(uintptr_t)dlsym(z, "inflate") + 8, false, &sym, 1),
	    1);
	assert_string_equal(sym.function, "inflate");
	assert_string_equal(sym.object, lib.path);
	/* a return address names the call before it; no object: nothing */
	assert_true(ct_symbolizer_lookup_symbol(s, (uint64_t)(uintptr_t)dlsym(z, "inflate") + 9,
	                                        true, &sym));
	assert_string_equal(sym.function, "inflate");
	assert_int_equal(sym.offset, (uint64_t)(uintptr_t)dlsym(z, "inflate") + 9 - lib.base);
	assert_false(ct_symbolizer_lookup_symbol(s, 8, false, &sym));
	assert_string_equal(ct_symbolizer_object(s, (uint64_t)(uintptr_t)dlsym(z, "inflate"), true),
	                    lib.path);
	assert_null(ct_symbolizer_object(s, 8, false));
	ct_symbolizer_destroy(s);
	dlclose(z);
}

static void test_glib(void **unused)
{
	struct library lib = { .want = "libglib-2.0.so" };

	(void)unused;
	assert_int_equal(dl_iterate_phdr(find_library, &lib), 1);
	assert_true(compare(&lib, 64) > 1000);
}

/* C++: constructors and destructors are aliases at one address, of one
 * binding, where the first in the table is the name (the sort's last key). */
static void test_libstdcxx(void **unused)
{
	struct library lib = { .want = "libstdc++.so" };
	void *cxx = dlopen("libstdc++.so.6", RTLD_NOW);

	(void)unused;
	assert_non_null(cxx);
	assert_int_equal(dl_iterate_phdr(find_library, &lib), 1);
	assert_true(compare(&lib, 61) > 1000);
	dlclose(cxx);
}

/*
 * Names of each binding at one address (aliases.c), in a library without
 * DWARF: the global one names the address, then the weak, as libdw has
 * it, whatever their order in the table.
 */
static void test_aliases(void **unused)
{
	static const struct {
		const char *symbol, *name;
	} want[] = {
		{ "ct_aliases_weak_first", "ct_aliases_global" },
		{ "ct_aliases_weak", "ct_aliases_weak" },
	};
	struct library lib = { .want = "libaliases.so" };
	void *aliases = dlopen(ALIASES_LIB, RTLD_NOW);
	struct ct_symbolizer *s;
	Dwfl *dwfl;

	(void)unused;
	assert_non_null(aliases);
	assert_int_equal(dl_iterate_phdr(find_library, &lib), 1);
	s = ct_symbolizer_create(NULL);
	ct_symbolizer_add_object(s, lib.base, lib.size, lib.path);
	dwfl = own_dwfl();
	for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
		uint64_t pc = (uint64_t)(uintptr_t)dlsym(aliases, want[i].symbol) + 1;
		Dwfl_Module *m = dwfl_addrmodule(dwfl, pc);
		struct ct_symbol sym;

		assert_non_null(m);
		assert_string_equal(dwfl_module_addrname(m, pc), want[i].name);
		assert_true(ct_symbolizer_lookup_symbol(s, pc, false, &sym));
		assert_string_equal(sym.function, want[i].name);
	}
	dwfl_end(dwfl);
	ct_symbolizer_destroy(s);
	dlclose(aliases);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debuglink), cmocka_unit_test(test_zlib),
		cmocka_unit_test(test_glib),      cmocka_unit_test(test_libstdcxx),
		cmocka_unit_test(test_aliases),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
