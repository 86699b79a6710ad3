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
#include <elfutils/libdwfl.h>
#include <glib.h>

#include "model/symbolizer.h"

/* A loaded library: where its code is, as the statedump tells the object. */
struct library {
	const char *want; /* a part of its file name */
	char path[4096];
	uint64_t base, size;           /* its loaded range */
	uint64_t code_start, code_end; /* its executable segment */
};

static int find_library(struct dl_phdr_info *info, size_t size, void *data)
{
	struct library *lib = data;
	uint64_t low = UINT64_MAX, high = 0;

	(void)size;
	if (!info->dlpi_name || !strstr(info->dlpi_name, lib->want))
		return 0;
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
		cmocka_unit_test(test_zlib),
		cmocka_unit_test(test_glib),
		cmocka_unit_test(test_libstdcxx),
		cmocka_unit_test(test_aliases),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
