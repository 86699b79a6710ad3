/* SPDX-License-Identifier: MIT */
/*
 * driver-module.c - modules, functions and kernel launches.
 *
 * A module only needs the names of its kernels: they are read from an ELF
 * cubin (STT_FUNC symbols marked as entries), PTX text (".entry NAME") or
 * a fat binary (its uncompressed ELF and PTX members). Device code that is
 * compressed cannot be read here, so a module whose every member is
 * compressed accepts any kernel name in cuModuleGetFunction. libcudart
 * loads its modules from names alone (sim_module_load_names).
 *
 * Kernels do nothing: a launch validates its configuration and puts
 * CUDASIM_KERNEL_NS of work on the stream, starting no earlier than
 * CUDASIM_LAUNCH_LATENCY_NS after the call.
 *
 * Module and function structs are never freed, only marked unloaded, so
 * that a stale CUmodule or CUfunction is recognised as such rather than
 * mistaken for a later one at the same address, and a kernel name stays
 * valid for a launch racing with an unload. module_lock guards all of it
 * and is never held across calls into other files.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fatbinary_section.h>
#include "driver-internal.h"

/* fatbinary_section.h and the fat binary layout nvcc writes. */
#define FATBIN_MAGIC                0xBA55ED50u
#define FATBINC_WRAPPER_MAGIC       0x466243B1u
#define FATBIN_KIND_PTX             1
#define FATBIN_KIND_ELF             2
#define FATBIN_ENTRY_HEADER_MIN     64
#define FATBIN_FLAG_COMPRESSED_LZ4  0x2000u
#define FATBIN_FLAG_COMPRESSED_ZSTD 0x8000u
/* Entry flags nvcc sets on arch-specific (sm_90a, compute_90a) and
 * family-specific (sm_100f, compute_100f) code; cuobjdump --list-elf
 * --list-ptx names such entries sm_90a, sm_100f. */
#define FATBIN_FLAG_ARCH_SPECIFIC   0x100000u
#define FATBIN_FLAG_FAMILY_SPECIFIC 0x200000u
/* st_other bit nvcc sets on kernel entry points in a cubin. */
#define STO_CUDA_ENTRY 0x10
/* Sanity bound on an image whose size the caller does not give. */
#define IMAGE_SIZE_MAX (1ull << 30)

/*
 * What the device code says of one kernel, where it can be read: PTX
 * declares it (PTX ISA, "Performance-Tuning Directives" .maxntid,
 * .reqntid, .maxnreg, .reqnctapercluster, .explicitcluster; "State
 * Spaces" .shared and .local; "System Calls" malloc, free and vprintf).
 * A cubin's resource usage is in sections NVIDIA does not document: its
 * kernels get the defaults (KERNEL_* below), and only its undefined
 * malloc/free/vprintf symbols are read (plain ELF).
 */
struct kernel_attrs {
	int max_threads;   /* .maxntid / .reqntid: threads per block; 0 if none */
	int max_regs;      /* .maxnreg; 0 if none */
	int static_shared; /* bytes of .shared the kernel declares or uses */
	int local_bytes;   /* bytes of .local per thread */
	int ptx_target;    /* .target sm_XX of its PTX; 0 if not PTX */
	int cluster[3];    /* .reqnctapercluster; 0 if none */
	bool explicit_cluster;
	bool uses_heap;   /* calls malloc or free */
	bool uses_printf; /* calls vprintf */
};

/* Registers per thread of a kernel whose count nothing gives (ptxas's
 * count is not in PTX): what a small kernel uses. */
#define KERNEL_REGS 16

struct sim_function {
	struct sim_module *module;
	char *name;
	struct kernel_attrs attrs;
	int num_regs;
	int max_dynamic_shared;
	int carveout;
	int required_cluster[3];
	int non_portable_cluster;
	int cluster_policy;
	CUfunc_cache cache_config;
};

struct sim_module {
	struct sim_context *ctx; /* context it was loaded in; NULL if none */
	uint32_t id;             /* CUpti_ModuleResourceData.moduleId */
	bool loaded;
	bool unloading;
	bool any_name; /* kernel names unknown: every name is accepted */
	bool library;  /* a CUlibrary (cuLibraryLoad*): in no context */
	size_t count, capacity;
	struct sim_function **functions;
};

/* Insert-only set of pointers (open addressing): entries are never
 * removed because the structs they point to are never freed. */
struct pointer_set {
	void **slots;
	size_t capacity, count;
};

static pthread_mutex_t module_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pointer_set module_set, function_set;
static struct sim_module **all_modules; /* to unload a context's modules */
static size_t all_module_count, all_module_capacity;
static uint32_t next_module_id = 1;

/* ------------------------------------------------------------ pointer set */

static size_t pointer_hash(const void *p, size_t capacity)
{
	uint64_t h = (uint64_t)(uintptr_t)p;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (size_t)h & (capacity - 1);
}

static bool pointer_set_contains(const struct pointer_set *set, const void *p)
{
	if (!p || !set->capacity)
		return false;
	for (size_t i = pointer_hash(p, set->capacity);; i = (i + 1) & (set->capacity - 1)) {
		if (!set->slots[i])
			return false;
		if (set->slots[i] == p)
			return true;
	}
}

static void pointer_set_place(void **slots, size_t capacity, void *p)
{
	size_t i = pointer_hash(p, capacity);

	while (slots[i])
		i = (i + 1) & (capacity - 1);
	slots[i] = p;
}

static bool pointer_set_add(struct pointer_set *set, void *p)
{
	if ((set->count + 1) * 2 > set->capacity) {
		size_t capacity = set->capacity ? set->capacity * 2 : 256;
		void **slots = calloc(capacity, sizeof(*slots));

		if (!slots)
			return false;
		for (size_t i = 0; i < set->capacity; i++)
			if (set->slots[i])
				pointer_set_place(slots, capacity, set->slots[i]);
		free(set->slots);
		set->slots = slots;
		set->capacity = capacity;
	}
	pointer_set_place(set->slots, set->capacity, p);
	set->count++;
	return true;
}

/* ------------------------------------------------------------ kernel names */

/* The kernel names found in an image with what their code says of them
 * (attrs[i] for names[i]), and whether some of its device code could not
 * be read. */
struct name_list {
	char **names;
	struct kernel_attrs *attrs;
	size_t count, capacity;
	bool compressed;
};

static void name_list_free(struct name_list *list)
{
	for (size_t i = 0; i < list->count; i++)
		free(list->names[i]);
	free(list->names);
	free(list->attrs);
	memset(list, 0, sizeof(*list));
}

/* The index of name (length bytes, not terminated), or -1. */
static ssize_t name_list_find(const struct name_list *list, const char *name, size_t length)
{
	for (size_t i = 0; i < list->count; i++)
		if (strlen(list->names[i]) == length && !memcmp(list->names[i], name, length))
			return (ssize_t)i;
	return -1;
}

static bool name_list_has(const struct name_list *list, const char *name, size_t length)
{
	return name_list_find(list, name, length) >= 0;
}

/* Add name (length bytes, not terminated) unless already there; *attrs
 * (if not NULL) points to its attributes, zeroed when new. */
static CUresult name_list_add_attrs(struct name_list *list, const char *name, size_t length,
                                    struct kernel_attrs **attrs)
{
	ssize_t found = name_list_find(list, name, length);
	char *copy;

	if (attrs)
		*attrs = found >= 0 ? &list->attrs[found] : NULL;
	if (length == 0 || found >= 0)
		return CUDA_SUCCESS;
	if (list->count == list->capacity) {
		size_t capacity = list->capacity ? list->capacity * 2 : 16;
		char **grown = realloc(list->names, capacity * sizeof(*grown));
		struct kernel_attrs *more;

		if (!grown)
			return CUDA_ERROR_OUT_OF_MEMORY;
		list->names = grown;
		more = realloc(list->attrs, capacity * sizeof(*more));
		if (!more)
			return CUDA_ERROR_OUT_OF_MEMORY;
		list->attrs = more;
		list->capacity = capacity;
	}
	copy = strndup(name, length);
	if (!copy)
		return CUDA_ERROR_OUT_OF_MEMORY;
	memset(&list->attrs[list->count], 0, sizeof(list->attrs[0]));
	if (attrs)
		*attrs = &list->attrs[list->count];
	list->names[list->count++] = copy;
	return CUDA_SUCCESS;
}

static CUresult name_list_add(struct name_list *list, const char *name, size_t length)
{
	return name_list_add_attrs(list, name, length, NULL);
}

/* The attributes the list has for name, or NULL. */
static const struct kernel_attrs *name_list_attrs(const struct name_list *list, const char *name)
{
	ssize_t found = list ? name_list_find(list, name, strlen(name)) : -1;

	return found >= 0 ? &list->attrs[found] : NULL;
}

/* ------------------------------------------------------------ ELF cubins */

/* The SM a cubin was built for, from e_flags (ABI 8 moved it up a byte);
 * 0 when unknown. */
static int elf_sm(const Elf64_Ehdr *header)
{
	if (header->e_ident[EI_ABIVERSION] >= 8)
		return (int)((header->e_flags >> 8) & 0xff);
	return (int)(header->e_flags & 0xff);
}

static bool elf_header_valid(const unsigned char *image, size_t size)
{
	const Elf64_Ehdr *header = (const Elf64_Ehdr *)image;

	if (size < sizeof(*header) || memcmp(image, ELFMAG, SELFMAG))
		return false;
	if (header->e_ident[EI_CLASS] != ELFCLASS64 || header->e_ident[EI_DATA] != ELFDATA2LSB ||
	    header->e_machine != EM_CUDA || header->e_shentsize != sizeof(Elf64_Shdr))
		return false;
	return header->e_shoff <= size &&
	       (size - header->e_shoff) / sizeof(Elf64_Shdr) >= header->e_shnum;
}

/* Bytes an ELF image spans, from its headers; 0 if they do not add up. */
static size_t elf_extent(const unsigned char *image)
{
	const Elf64_Ehdr *header = (const Elf64_Ehdr *)image;
	const Elf64_Shdr *sections;
	uint64_t end;

	if (header->e_shentsize != sizeof(Elf64_Shdr) || header->e_shoff > IMAGE_SIZE_MAX)
		return 0;
	end = header->e_shoff + (uint64_t)header->e_shnum * sizeof(Elf64_Shdr);
	sections = (const Elf64_Shdr *)(image + header->e_shoff);
	for (unsigned int i = 0; i < header->e_shnum; i++) {
		const Elf64_Shdr *s = &sections[i];

		if (s->sh_type == SHT_NOBITS)
			continue;
		if (s->sh_offset > IMAGE_SIZE_MAX || s->sh_size > IMAGE_SIZE_MAX)
			return 0;
		if (s->sh_offset + s->sh_size > end)
			end = s->sh_offset + s->sh_size;
	}
	return end > IMAGE_SIZE_MAX ? 0 : (size_t)end;
}

static bool section_in_bounds(const Elf64_Shdr *s, size_t size)
{
	return s->sh_offset <= size && s->sh_size <= size - s->sh_offset;
}

/* Kernel names of one symbol table. entries_only: only symbols nvcc marks
 * as kernel entries (device functions are STT_FUNC too). */
static CUresult elf_symtab_names(const unsigned char *image, size_t size, const Elf64_Shdr *symtab,
                                 const Elf64_Shdr *strtab, bool entries_only, struct name_list *out)
{
	const Elf64_Sym *symbols = (const Elf64_Sym *)(image + symtab->sh_offset);
	const char *strings = (const char *)(image + strtab->sh_offset);
	size_t count = symtab->sh_size / sizeof(Elf64_Sym);
	CUresult r = CUDA_SUCCESS;

	for (size_t i = 0; i < count && r == CUDA_SUCCESS; i++) {
		const Elf64_Sym *sym = &symbols[i];
		const char *name;

		if (ELF64_ST_TYPE(sym->st_info) != STT_FUNC || sym->st_name >= strtab->sh_size)
			continue;
		if (entries_only ? !(sym->st_other & STO_CUDA_ENTRY)
		                 : ELF64_ST_BIND(sym->st_info) == STB_LOCAL)
			continue;
		name = strings + sym->st_name;
		r = name_list_add(out, name, strnlen(name, strtab->sh_size - sym->st_name));
	}
	return r;
}

static CUresult elf_names_pass(const unsigned char *image, size_t size, bool entries_only,
                               struct name_list *out)
{
	const Elf64_Ehdr *header = (const Elf64_Ehdr *)image;
	const Elf64_Shdr *sections = (const Elf64_Shdr *)(image + header->e_shoff);
	CUresult r = CUDA_SUCCESS;

	for (unsigned int i = 0; i < header->e_shnum && r == CUDA_SUCCESS; i++) {
		const Elf64_Shdr *symtab = &sections[i];

		if (symtab->sh_type != SHT_SYMTAB || symtab->sh_link >= header->e_shnum)
			continue;
		if (symtab->sh_entsize != sizeof(Elf64_Sym) || !section_in_bounds(symtab, size) ||
		    !section_in_bounds(&sections[symtab->sh_link], size))
			return CUDA_ERROR_INVALID_IMAGE;
		r = elf_symtab_names(image, size, symtab, &sections[symtab->sh_link], entries_only,
		                     out);
	}
	return r;
}

/* Whether a symbol table names the device system calls (PTX ISA, "System
 * Calls") as undefined symbols: the cubin's code calls them. */
static void elf_system_calls(const unsigned char *image, size_t size, bool *heap, bool *print)
{
	const Elf64_Ehdr *header = (const Elf64_Ehdr *)image;
	const Elf64_Shdr *sections = (const Elf64_Shdr *)(image + header->e_shoff);

	for (unsigned int i = 0; i < header->e_shnum; i++) {
		const Elf64_Shdr *symtab = &sections[i], *strtab;
		const Elf64_Sym *symbols;

		if (symtab->sh_type != SHT_SYMTAB || symtab->sh_link >= header->e_shnum ||
		    symtab->sh_entsize != sizeof(Elf64_Sym) || !section_in_bounds(symtab, size))
			continue;
		strtab = &sections[symtab->sh_link];
		if (!section_in_bounds(strtab, size))
			continue;
		symbols = (const Elf64_Sym *)(image + symtab->sh_offset);
		for (size_t k = 0; k < symtab->sh_size / sizeof(Elf64_Sym); k++) {
			const char *name =
			    (const char *)(image + strtab->sh_offset) + symbols[k].st_name;

			if (symbols[k].st_shndx != SHN_UNDEF ||
			    symbols[k].st_name >= strtab->sh_size ||
			    !memchr(name, 0, strtab->sh_size - symbols[k].st_name))
				continue;
			if (!strcmp(name, "malloc") || !strcmp(name, "free"))
				*heap = true;
			else if (!strcmp(name, "vprintf"))
				*print = true;
		}
	}
}

static CUresult elf_names(const unsigned char *image, size_t size, struct name_list *out)
{
	size_t before = out->count;
	bool heap = false, print = false;
	CUresult r;

	if (!elf_header_valid(image, size))
		return CUDA_ERROR_INVALID_IMAGE;
	r = elf_names_pass(image, size, true, out);
	/* A cubin without entry marks: take its global functions. */
	if (r == CUDA_SUCCESS && out->count == before)
		r = elf_names_pass(image, size, false, out);
	/* Which kernel makes the call is in its code: every kernel of the
	 * cubin counts as making it. */
	elf_system_calls(image, size, &heap, &print);
	for (size_t i = before; r == CUDA_SUCCESS && i < out->count; i++) {
		out->attrs[i].uses_heap |= heap;
		out->attrs[i].uses_printf |= print;
	}
	return r;
}

/* ------------------------------------------------------------ PTX */

static bool ptx_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c == '.' || c == '%';
}

static bool ptx_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Past a comment starting at text[i], or i itself if there is none. */
static size_t ptx_skip_comment(const char *text, size_t length, size_t i)
{
	if (i + 1 >= length || text[i] != '/')
		return i;
	if (text[i + 1] == '/') {
		while (i < length && text[i] != '\n')
			i++;
		return i;
	}
	if (text[i + 1] == '*') {
		for (i += 2; i + 1 < length; i++)
			if (text[i] == '*' && text[i + 1] == '/')
				return i + 2;
		return length;
	}
	return i;
}

/* Whether text[i] starts the directive word (".entry", ".target"). */
static bool ptx_directive_at(const char *text, size_t length, size_t i, const char *word)
{
	size_t n = strlen(word);

	if (i + n >= length || memcmp(text + i, word, n) || !ptx_space(text[i + n]))
		return false;
	return i == 0 || ptx_space(text[i - 1]);
}

/* The identifier after the directive at text[i]; its length in *name_length. */
static const char *ptx_operand(const char *text, size_t length, size_t i, size_t *name_length)
{
	while (i < length && ptx_space(text[i]))
		i++;
	*name_length = 0;
	while (i + *name_length < length && ptx_name_char(text[i + *name_length]))
		(*name_length)++;
	return text + i;
}

/* ".target sm_90a, texmode..." -> 90; 0 when absent. */
static int ptx_target_sm(const char *operand, size_t length)
{
	if (length < 4 || memcmp(operand, "sm_", 3))
		return 0;
	return atoi(operand + 3);
}

/* ------------------------------------------------------------ PTX attributes */

/* Past the spaces from text[i]. */
static size_t ptx_skip_space(const char *text, size_t length, size_t i)
{
	while (i < length && ptx_space(text[i]))
		i++;
	return i;
}

/* A decimal number at text[*i] (0 if none); *i moves past it. */
static long ptx_number(const char *text, size_t length, size_t *i)
{
	long value = 0;

	*i = ptx_skip_space(text, length, *i);
	while (*i < length && text[*i] >= '0' && text[*i] <= '9') {
		if (value < 1000000000L)
			value = value * 10 + (text[*i] - '0');
		(*i)++;
	}
	return value;
}

/* Up to three numbers "x[, y[, z]]" after the directive at text[i]; the
 * missing ones are 1. */
static void ptx_dims(const char *text, size_t length, size_t i, long dims[3])
{
	dims[0] = ptx_number(text, length, &i);
	dims[1] = dims[2] = 1;
	for (int k = 1; k < 3; k++) {
		i = ptx_skip_space(text, length, i);
		if (i >= length || text[i] != ',')
			return;
		i++;
		dims[k] = ptx_number(text, length, &i);
	}
}

/* Bytes of a PTX fundamental type (".b32", ".f16x2"...); 0 if not one. */
static int ptx_type_size(const char *type, size_t length)
{
	static const struct {
		const char *name;
		int size;
	} types[] = {
		{ ".b8", 1 },  { ".u8", 1 },  { ".s8", 1 },  { ".pred", 1 },  { ".b16", 2 },
		{ ".u16", 2 }, { ".s16", 2 }, { ".f16", 2 }, { ".bf16", 2 },  { ".b32", 4 },
		{ ".u32", 4 }, { ".s32", 4 }, { ".f32", 4 }, { ".f16x2", 4 }, { ".bf16x2", 4 },
		{ ".b64", 8 }, { ".u64", 8 }, { ".s64", 8 }, { ".f64", 8 },   { ".b128", 16 },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i].name) == length && !memcmp(types[i].name, type, length))
			return types[i].size;
	return 0;
}

/*
 * The bytes a variable declaration takes: "[.align N] [.vN] .TYPE name[a][b]"
 * after the state space directive that ends at text[i]. The name goes to
 * *name / *name_length. An unsized array (.extern dynamic shared memory)
 * takes 0.
 */
static long ptx_variable_size(const char *text, size_t length, size_t i, const char **name,
                              size_t *name_length)
{
	long element = 0, vector = 1, count = 1;
	size_t n;

	for (;;) {
		i = ptx_skip_space(text, length, i);
		if (i >= length || text[i] != '.')
			break;
		for (n = 1; i + n < length && ptx_name_char(text[i + n]) && text[i + n] != '.'; n++)
			;
		if (n == 6 && !memcmp(text + i, ".align", 6)) {
			i += n;
			(void)ptx_number(text, length, &i);
			continue;
		}
		if (n >= 3 && text[i + 1] == 'v' && text[i + 2] >= '0' && text[i + 2] <= '9')
			vector = atol(text + i + 2);
		else if (ptx_type_size(text + i, n))
			element = ptx_type_size(text + i, n);
		i += n;
	}
	*name = ptx_operand(text, length, i, name_length);
	i = (size_t)(*name - text) + *name_length;
	while (i < length && text[i] == '[') {
		size_t close = i + 1;
		long dim = ptx_number(text, length, &close);

		count = count > 0 && dim < (1L << 30) / count ? count * dim : 0;
		while (close < length && text[close] != ']' && text[close] != ';')
			close++;
		i = close + 1;
	}
	return element * vector * count;
}

/* Whether text[from, to) names word as a whole identifier. */
static bool ptx_mentions(const char *text, size_t from, size_t to, const char *word, size_t n)
{
	for (const char *p = text + from; p && (size_t)(p - text) + n <= to;) {
		size_t at = (size_t)(p - text);

		p = memmem(p, to - at, word, n);
		if (!p)
			return false;
		at = (size_t)(p - text);
		if ((at == from || !ptx_name_char(text[at - 1])) &&
		    (at + n >= to || !ptx_name_char(text[at + n])))
			return true;
		p++;
	}
	return false;
}

/* A top-level item of a PTX module: a function with a body or a
 * module-scope .shared variable. */
struct ptx_item {
	enum { PTX_ENTRY, PTX_FUNC, PTX_SHARED } kind;
	const char *name;
	size_t name_length;
	size_t header, body, end; /* directive, '{', '}' (functions) */
	long size;                /* bytes (variables) */
	bool heap, print;         /* the body calls malloc/free, vprintf */
};

struct ptx_items {
	struct ptx_item *items;
	size_t count, capacity;
};

static struct ptx_item *ptx_item_add(struct ptx_items *list)
{
	if (list->count == list->capacity) {
		size_t capacity = list->capacity ? list->capacity * 2 : 16;
		struct ptx_item *grown = realloc(list->items, capacity * sizeof(*grown));

		if (!grown)
			return NULL;
		list->items = grown;
		list->capacity = capacity;
	}
	memset(&list->items[list->count], 0, sizeof(list->items[0]));
	return &list->items[list->count++];
}

/* The text's functions with bodies, its module-scope .shared variables
 * and its .target. */
static CUresult ptx_scan(const char *text, size_t length, struct ptx_items *out, int *target)
{
	struct ptx_item *pending = NULL;
	size_t depth = 0;

	*target = 0;
	for (size_t i = 0; i < length;) {
		size_t next = ptx_skip_comment(text, length, i), n;
		const char *name;

		if (next != i) {
			i = next;
			continue;
		}
		if (text[i] == '{') {
			if (depth++ == 0 && pending)
				pending->body = i;
		} else if (text[i] == '}' && depth > 0) {
			if (--depth == 0 && pending) {
				pending->end = i;
				pending = NULL;
			}
		} else if (text[i] == ';' && depth == 0 && pending) {
			/* A prototype: no body. */
			out->count--;
			pending = NULL;
		} else if (depth == 0 && !pending &&
		           (ptx_directive_at(text, length, i, ".entry") ||
		            ptx_directive_at(text, length, i, ".func"))) {
			bool entry = text[i + 1] == 'e';
			size_t j = i + (entry ? 6 : 5);

			pending = ptx_item_add(out);
			if (!pending)
				return CUDA_ERROR_OUT_OF_MEMORY;
			pending->kind = entry ? PTX_ENTRY : PTX_FUNC;
			pending->header = i;
			/* .func (.param .b32 ret) name(...): the name follows the
			 * return parameters. */
			j = ptx_skip_space(text, length, j);
			if (!entry && j < length && text[j] == '(') {
				while (j < length && text[j] != ')')
					j++;
				j++;
			}
			pending->name = ptx_operand(text, length, j, &pending->name_length);
		} else if (depth == 0 && !pending && ptx_directive_at(text, length, i, ".shared")) {
			struct ptx_item *var = ptx_item_add(out);

			if (!var)
				return CUDA_ERROR_OUT_OF_MEMORY;
			var->kind = PTX_SHARED;
			var->size =
			    ptx_variable_size(text, length, i + 7, &var->name, &var->name_length);
		} else if (depth == 0 && ptx_directive_at(text, length, i, ".target") && !*target) {
			name = ptx_operand(text, length, i + 7, &n);
			*target = ptx_target_sm(name, n);
		}
		i++;
	}
	if (pending)
		out->count--; /* cut short */
	return CUDA_SUCCESS;
}

/* The performance-tuning directives between an entry's name and its body. */
static void ptx_entry_header(const char *text, size_t from, size_t to, struct kernel_attrs *a)
{
	long dims[3];

	for (size_t i = from; i < to; i++) {
		if (ptx_directive_at(text, to, i, ".maxntid") ||
		    ptx_directive_at(text, to, i, ".reqntid")) {
			ptx_dims(text, to, i + 8, dims);
			if (dims[0] * dims[1] * dims[2] > 0 &&
			    dims[0] * dims[1] * dims[2] <= INT_MAX)
				a->max_threads = (int)(dims[0] * dims[1] * dims[2]);
		} else if (ptx_directive_at(text, to, i, ".maxnreg")) {
			size_t j = i + 8;
			a->max_regs = (int)ptx_number(text, to, &j);
		} else if (ptx_directive_at(text, to, i, ".reqnctapercluster")) {
			ptx_dims(text, to, i + 18, dims);
			for (int k = 0; k < 3; k++)
				a->cluster[k] = (int)dims[k];
		} else if (!strncmp(text + i, ".explicitcluster", 16) &&
		           (i + 16 >= to || !ptx_name_char(text[i + 16]))) {
			a->explicit_cluster = true;
		}
	}
}

/* The state-space declarations and system calls of a body. */
static void ptx_body(const char *text, struct ptx_item *item, const struct ptx_items *all,
                     struct kernel_attrs *a)
{
	const char *name;
	size_t n;

	for (size_t i = item->body; i < item->end; i++) {
		bool shared = ptx_directive_at(text, item->end, i, ".shared");

		if (!shared && !ptx_directive_at(text, item->end, i, ".local"))
			continue;
		if (i >= 8 && !memcmp(text + i - 8, ".extern ", 8))
			continue; /* dynamic shared memory: given at launch */
		if (shared)
			a->static_shared +=
			    (int)ptx_variable_size(text, item->end, i + 7, &name, &n);
		else
			a->local_bytes += (int)ptx_variable_size(text, item->end, i + 6, &name, &n);
	}
	item->heap = ptx_mentions(text, item->body, item->end, "malloc", 6) ||
	             ptx_mentions(text, item->body, item->end, "free", 4);
	item->print = ptx_mentions(text, item->body, item->end, "vprintf", 7);
	for (size_t k = 0; k < all->count; k++) {
		const struct ptx_item *other = &all->items[k];

		if (other->kind == PTX_SHARED &&
		    ptx_mentions(text, item->body, item->end, other->name, other->name_length))
			a->static_shared += (int)other->size;
	}
}

static CUresult ptx_names(const char *text, size_t length, struct name_list *out, int *target)
{
	struct ptx_items items = { 0 };
	CUresult r = ptx_scan(text, length, &items, target);

	/* Functions first: an entry that calls one makes its calls. */
	for (size_t k = 0; r == CUDA_SUCCESS && k < items.count; k++) {
		struct kernel_attrs unused = { 0 };

		if (items.items[k].kind == PTX_FUNC)
			ptx_body(text, &items.items[k], &items, &unused);
	}
	for (size_t k = 0; r == CUDA_SUCCESS && k < items.count; k++) {
		struct ptx_item *item = &items.items[k];
		struct kernel_attrs *a, found = { 0 };

		if (item->kind != PTX_ENTRY)
			continue;
		ptx_entry_header(text, item->header, item->body, &found);
		ptx_body(text, item, &items, &found);
		found.uses_heap = item->heap;
		found.uses_printf = item->print;
		for (size_t f = 0; f < items.count; f++) {
			const struct ptx_item *fn = &items.items[f];

			if (fn->kind == PTX_FUNC &&
			    ptx_mentions(text, item->body, item->end, fn->name, fn->name_length)) {
				found.uses_heap |= fn->heap;
				found.uses_printf |= fn->print;
			}
		}
		found.ptx_target = *target;
		r = name_list_add_attrs(out, item->name, item->name_length, &a);
		if (r == CUDA_SUCCESS && a) {
			/* What a cubin of the same kernel said is kept. */
			found.uses_heap |= a->uses_heap;
			found.uses_printf |= a->uses_printf;
			*a = found;
		}
	}
	free(items.items);
	return r;
}

/* Printable text up to its terminator, or 0 if image is not text. */
static size_t text_length(const unsigned char *image, size_t size_known)
{
	size_t limit = size_known ? size_known : IMAGE_SIZE_MAX;
	size_t i;

	for (i = 0; i < limit && image[i]; i++)
		if (image[i] < 0x20 && image[i] != '\t' && image[i] != '\n' && image[i] != '\r')
			return 0;
	return i;
}

/* The PTX ISA version of ".version M.N", x 10 (90 for 9.0); 0 if none. */
static int ptx_isa(const char *text, size_t length)
{
	const char *at = memmem(text, length, ".version", 8);
	size_t i;

	if (!at)
		return 0;
	i = (size_t)(at - text) + 8;
	while (i < length && (text[i] == ' ' || text[i] == '\t'))
		i++;
	if (i + 2 < length && text[i] >= '0' && text[i] <= '9' && text[i + 1] == '.' &&
	    text[i + 2] >= '0' && text[i + 2] <= '9')
		return (text[i] - '0') * 10 + (text[i + 2] - '0');
	return 0;
}

static bool looks_like_ptx(const char *text, size_t length)
{
	return memmem(text, length, ".version", 8) && memmem(text, length, ".target", 7);
}

/* ------------------------------------------------------------ fat binaries */

/*
 * An entry's header, as nvcc writes it and cuobjdump reads it (NVIDIA
 * documents the fat binary's wrapper and sections, fatbinary_section.h,
 * not its entries): kind at 0, header size at 4, payload size at 8, the
 * PTX ISA version (minor, major) at 24 and 26 of a PTX entry, the
 * architecture (90 for sm_90) at 28, flags at 40, the uncompressed size
 * at 56. Checked against `cuobjdump --list-elf --list-ptx` of programs
 * nvcc 13.0 builds.
 */
struct fatbin_entry {
	uint16_t kind;
	uint32_t header_size;
	uint64_t payload_size;
	uint16_t isa_minor, isa_major;
	uint32_t sm;
	uint64_t flags;
	uint64_t uncompressed_size;
};

static void fatbin_entry_read(const unsigned char *p, struct fatbin_entry *e)
{
	memcpy(&e->kind, p, 2);
	memcpy(&e->header_size, p + 4, 4);
	memcpy(&e->payload_size, p + 8, 8);
	memcpy(&e->isa_minor, p + 24, 2);
	memcpy(&e->isa_major, p + 26, 2);
	memcpy(&e->sm, p + 28, 4);
	memcpy(&e->flags, p + 40, 8);
	memcpy(&e->uncompressed_size, p + 56, 8);
}

static void fatbin_entry_code(const struct fatbin_entry *e, struct sim_codes *codes)
{
	char variant = (e->flags & FATBIN_FLAG_ARCH_SPECIFIC)     ? 'a'
	               : (e->flags & FATBIN_FLAG_FAMILY_SPECIFIC) ? 'f'
	                                                          : 0;
	bool ptx = e->kind == FATBIN_KIND_PTX;

	sim_code_add(codes, ptx, (int)e->sm, variant,
	             ptx && e->isa_minor < 10 ? e->isa_major * 10 + e->isa_minor : 0);
}

static bool fatbin_entry_compressed(const struct fatbin_entry *e)
{
	return (e->flags & (FATBIN_FLAG_COMPRESSED_LZ4 | FATBIN_FLAG_COMPRESSED_ZSTD)) ||
	       e->uncompressed_size != 0;
}

static CUresult fatbin_entry_names(const struct fatbin_entry *e, const unsigned char *payload,
                                   struct name_list *out)
{
	size_t length;
	int target;

	if (fatbin_entry_compressed(e)) {
		out->compressed = true;
		return CUDA_SUCCESS;
	}
	if (e->kind == FATBIN_KIND_ELF)
		return elf_names(payload, (size_t)e->payload_size, out);
	length = strnlen((const char *)payload, (size_t)e->payload_size);
	return ptx_names((const char *)payload, length, out, &target);
}

/* The bytes a fat binary spans (header and members), 0 if implausible. */
static size_t fatbin_extent(const unsigned char *image)
{
	uint16_t header_size;
	uint64_t fat_size;

	memcpy(&header_size, image + 6, 2);
	memcpy(&fat_size, image + 8, 8);
	if (header_size < 16 || fat_size > IMAGE_SIZE_MAX)
		return 0;
	return header_size + (size_t)fat_size;
}

static CUresult fatbin_names(const unsigned char *image, size_t size, struct name_list *out,
                             struct sim_codes *codes)
{
	uint16_t header_size;
	CUresult r = CUDA_SUCCESS;
	size_t offset;

	if (size < 16)
		return CUDA_ERROR_INVALID_IMAGE;
	memcpy(&header_size, image + 6, 2);
	for (offset = header_size; offset + FATBIN_ENTRY_HEADER_MIN <= size && r == CUDA_SUCCESS;) {
		struct fatbin_entry e;

		fatbin_entry_read(image + offset, &e);
		if (e.header_size < FATBIN_ENTRY_HEADER_MIN || e.header_size > size - offset ||
		    e.payload_size > size - offset - e.header_size)
			return CUDA_ERROR_INVALID_IMAGE;
		if (e.kind == FATBIN_KIND_ELF || e.kind == FATBIN_KIND_PTX) {
			fatbin_entry_code(&e, codes);
			r = fatbin_entry_names(&e, image + offset + e.header_size, out);
		}
		offset += e.header_size + (size_t)e.payload_size;
	}
	if (r == CUDA_SUCCESS)
		r = sim_code_choose(codes);
	return r;
}

/* ------------------------------------------------------------ images */

struct image {
	const unsigned char *bytes;
	size_t size;            /* what CUpti_ModuleResourceData reports */
	struct sim_codes codes; /* its device code, and the one chosen */
};

static CUresult image_fatbin(const unsigned char *bytes, size_t size_known, struct image *image,
                             struct name_list *out)
{
	size_t extent = fatbin_extent(bytes);

	if (!extent || (size_known && extent > size_known))
		return CUDA_ERROR_INVALID_IMAGE;
	image->bytes = bytes;
	image->size = extent;
	return fatbin_names(bytes, extent, out, &image->codes);
}

static CUresult image_elf(const unsigned char *bytes, size_t size_known, struct image *image,
                          struct name_list *out)
{
	size_t extent = size_known;
	CUresult r;
	const Elf64_Ehdr *header = (const Elf64_Ehdr *)bytes;

	if (!extent) {
		/* No size given: trust the headers once they look like a cubin. */
		if (header->e_ident[EI_CLASS] != ELFCLASS64 || header->e_machine != EM_CUDA)
			return CUDA_ERROR_INVALID_IMAGE;
		extent = elf_extent(bytes);
	}
	if (!extent || !elf_header_valid(bytes, extent))
		return CUDA_ERROR_INVALID_IMAGE;
	/* A cubin whose architecture cannot be read is taken to fit. */
	sim_code_add(&image->codes, false, elf_sm(header) ? elf_sm(header) : sim_device_sm(), 0, 0);
	r = sim_code_choose(&image->codes);
	if (r != CUDA_SUCCESS)
		return r;
	image->bytes = bytes;
	image->size = extent;
	return elf_names(bytes, extent, out);
}

static CUresult image_ptx(const unsigned char *bytes, size_t size_known, struct image *image,
                          struct name_list *out)
{
	size_t length = text_length(bytes, size_known);
	int target;
	CUresult r;

	if (!length || !looks_like_ptx((const char *)bytes, length))
		return CUDA_ERROR_INVALID_IMAGE;
	image->bytes = bytes;
	image->size = length + 1;
	r = ptx_names((const char *)bytes, length, out, &target);
	/* PTX for a later architecture cannot be compiled for this one. */
	if (r == CUDA_SUCCESS && target > sim_device_sm())
		r = CUDA_ERROR_INVALID_PTX;
	if (r == CUDA_SUCCESS) {
		sim_code_add(&image->codes, true, target ? target : sim_device_sm(), 0,
		             ptx_isa((const char *)bytes, length));
		r = sim_code_choose(&image->codes);
	}
	return r;
}

/* Recognise an image (cubin, PTX, fat binary or nvcc's fat binary
 * wrapper) and list its kernels. size_known is 0 when the caller gave no
 * size (cuModuleLoadData). */
static CUresult image_parse(const void *data, size_t size_known, struct image *image,
                            struct name_list *out)
{
	const unsigned char *bytes = data;
	uint32_t magic;

	if (size_known && size_known < 4)
		return CUDA_ERROR_INVALID_IMAGE;
	memcpy(&magic, bytes, 4);
	if (magic == FATBINC_WRAPPER_MAGIC) {
		const __fatBinC_Wrapper_t *wrapper = data;

		if (!wrapper->data)
			return CUDA_ERROR_INVALID_IMAGE;
		bytes = (const unsigned char *)wrapper->data;
		memcpy(&magic, bytes, 4);
		size_known = 0;
	}
	if (magic == FATBIN_MAGIC)
		return image_fatbin(bytes, size_known, image, out);
	if (!memcmp(bytes, ELFMAG, SELFMAG))
		return image_elf(bytes, size_known, image, out);
	return image_ptx(bytes, size_known, image, out);
}

/* ------------------------------------------------------------ module table */

static struct sim_function *function_new_locked(struct sim_module *module, const char *name,
                                                size_t length, const struct kernel_attrs *attrs)
{
	struct sim_function *fn;
	struct sim_function **grown;

	if (module->count == module->capacity) {
		size_t capacity = module->capacity ? module->capacity * 2 : 8;

		grown = realloc(module->functions, capacity * sizeof(*grown));
		if (!grown)
			return NULL;
		module->functions = grown;
		module->capacity = capacity;
	}
	fn = calloc(1, sizeof(*fn));
	if (!fn)
		return NULL;
	fn->name = strndup(name, length);
	if (!fn->name || !pointer_set_add(&function_set, fn)) {
		free(fn->name);
		free(fn);
		return NULL;
	}
	fn->module = module;
	if (attrs)
		fn->attrs = *attrs;
	/* Register usage is what ptxas gives; .maxnreg caps it. */
	fn->num_regs = KERNEL_REGS;
	if (fn->attrs.max_regs > 0 && fn->attrs.max_regs < fn->num_regs)
		fn->num_regs = fn->attrs.max_regs;
	/* Without opt-in a block has 48 KiB of shared memory, static and
	 * dynamic together (cuda.h, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
	 * CUDA C++ Programming Guide, "Shared Memory" of compute capability 9.0). */
	fn->max_dynamic_shared = fn->attrs.static_shared < SIM_MAX_SHARED_PER_BLOCK
	                             ? SIM_MAX_SHARED_PER_BLOCK - fn->attrs.static_shared
	                             : 0;
	memcpy(fn->required_cluster, fn->attrs.cluster, sizeof(fn->required_cluster));
	fn->carveout = -1;
	fn->cache_config = CU_FUNC_CACHE_PREFER_NONE;
	module->functions[module->count++] = fn;
	return fn;
}

static CUresult module_register_locked(struct sim_module *module)
{
	if (all_module_count == all_module_capacity) {
		size_t capacity = all_module_capacity ? all_module_capacity * 2 : 16;
		struct sim_module **grown = realloc(all_modules, capacity * sizeof(*grown));

		if (!grown)
			return CUDA_ERROR_OUT_OF_MEMORY;
		all_modules = grown;
		all_module_capacity = capacity;
	}
	if (!pointer_set_add(&module_set, module))
		return CUDA_ERROR_OUT_OF_MEMORY;
	all_modules[all_module_count++] = module;
	return CUDA_SUCCESS;
}

/* A module with a function per name. On failure the partly built module
 * is left unloaded (its structs stay, as every module's do). */
static CUresult module_create(struct sim_context *ctx, const char *const *names, size_t count,
                              const struct name_list *info, bool any_name, struct sim_module **out)
{
	struct sim_module *module = calloc(1, sizeof(*module));
	CUresult r = CUDA_SUCCESS;

	if (!module)
		return CUDA_ERROR_OUT_OF_MEMORY;
	module->ctx = ctx;
	module->any_name = any_name;
	pthread_mutex_lock(&module_lock);
	r = module_register_locked(module);
	if (r != CUDA_SUCCESS) {
		pthread_mutex_unlock(&module_lock);
		free(module);
		return r;
	}
	for (size_t i = 0; i < count && r == CUDA_SUCCESS; i++)
		if (names[i] && !function_new_locked(module, names[i], strlen(names[i]),
		                                     name_list_attrs(info, names[i])))
			r = CUDA_ERROR_OUT_OF_MEMORY;
	if (r == CUDA_SUCCESS) {
		module->id = next_module_id++;
		module->loaded = true;
		*out = module;
	}
	pthread_mutex_unlock(&module_lock);
	return r;
}

/* What the ledger says of a module's device code: " archs=... chosen=...
 * jit=0|1", or nothing when none was read. */
static const char *codes_suffix(const struct sim_codes *codes, char *buf, size_t size)
{
	char archs[256], chosen[32];

	if (!codes || !codes->count) {
		snprintf(buf, size, " archs=- chosen=- jit=0");
		return buf;
	}
	snprintf(buf, size, " archs=%s chosen=%s jit=%d",
	         sim_codes_describe(codes, archs, sizeof(archs)),
	         sim_code_chosen(codes, chosen, sizeof(chosen)),
	         codes->chosen >= 0 && codes->codes[codes->chosen].ptx);
	return buf;
}

static CUresult module_announce(struct sim_module *module, const struct image *image,
                                const struct sim_codes *codes)
{
	char suffix[320];
	CUpti_ModuleResourceData data = { 0 };
	struct sim_context *current = module->library ? sim_ctx_current() : NULL;
	CUcontext ctx = module->ctx ? sim_ctx_handle(module->ctx)
	                : current   ? sim_ctx_handle(current)
	                            : NULL;

	codes_suffix(codes, suffix, sizeof(suffix));
	if (module->any_name)
		sim_ledger("op=module_load module=%u kernels=any%s", module->id, suffix);
	else
		sim_ledger("op=module_load module=%u kernels=%zu%s", module->id, module->count,
		           suffix);
	data.moduleId = module->id;
	data.cubinSize = image ? image->size : 0;
	data.pCubin = image ? (const char *)image->bytes : NULL;
	sim_resource_module_callback(CUPTI_CBID_RESOURCE_MODULE_LOADED, ctx, &data);
	return CUDA_SUCCESS;
}

/* A loaded module, or NULL for anything else. */
static struct sim_module *module_find_locked(CUmodule handle)
{
	struct sim_module *module = (struct sim_module *)handle;

	if (!pointer_set_contains(&module_set, module) || !module->loaded)
		return NULL;
	return module;
}

/* A function of a loaded module, or NULL for anything else. */
static struct sim_function *function_find_locked(CUfunction handle)
{
	struct sim_function *fn = (struct sim_function *)handle;

	if (!pointer_set_contains(&function_set, fn) || !fn->module->loaded)
		return NULL;
	return fn;
}

/* Take a loaded module for unloading: exactly one caller wins. */
static struct sim_module *module_claim(CUmodule handle)
{
	struct sim_module *module;

	pthread_mutex_lock(&module_lock);
	module = module_find_locked(handle);
	if (module && module->unloading)
		module = NULL;
	if (module)
		module->unloading = true;
	pthread_mutex_unlock(&module_lock);
	return module;
}

/* MODULE_UNLOAD_STARTING first, while the module still works. */
static void module_unload_claimed(struct sim_module *module)
{
	CUpti_ModuleResourceData data = { 0 };
	CUcontext ctx = module->ctx ? sim_ctx_handle(module->ctx) : NULL;

	data.moduleId = module->id;
	sim_resource_module_callback(CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING, ctx, &data);
	pthread_mutex_lock(&module_lock);
	module->loaded = false;
	pthread_mutex_unlock(&module_lock);
}

HIDDEN void sim_module_context_destroyed(struct sim_context *ctx)
{
	for (;;) {
		struct sim_module *found = NULL;

		pthread_mutex_lock(&module_lock);
		for (size_t i = 0; i < all_module_count && !found; i++) {
			struct sim_module *module = all_modules[i];

			if (module->ctx == ctx && module->loaded && !module->unloading) {
				module->unloading = true;
				found = module;
			}
		}
		pthread_mutex_unlock(&module_lock);
		if (!found)
			return;
		module_unload_claimed(found);
	}
}

/* ------------------------------------------------------------ loading */

/*
 * Load an image into the current context, or (library) into none: a
 * CUlibrary is context-independent (cuda.h, cuLibraryLoadData), so it needs
 * no current context and its kernels launch in any; MODULE_LOADED names the
 * current context, if any. size_known: 0 if not given.
 */
static CUresult image_load(CUmodule *out, const void *data, size_t size_known, bool library)
{
	struct name_list names = { 0 };
	struct sim_module *module = NULL;
	struct sim_context *ctx = NULL;
	struct image image = { 0 };
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!out || !data)
		return CUDA_ERROR_INVALID_VALUE;
	if (!library)
		r = sim_ctx_require(&ctx);
	if (r != CUDA_SUCCESS)
		return r;
	r = image_parse(data, size_known, &image, &names);
	if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
		sim_codes_ledger_failure(&image.codes, r);
	if (r != CUDA_SUCCESS)
		goto end;
	/* Names unknown only when nothing readable named a kernel. */
	r = module_create(ctx, (const char *const *)names.names, names.count, &names,
	                  names.compressed && names.count == 0, &module);
	if (r != CUDA_SUCCESS)
		goto end;
	module->library = library;
	*out = (CUmodule)module;
	module_announce(module, &image, &image.codes);
end:
	name_list_free(&names);
	return r;
}

/* The whole file in memory; *data is freed by the caller. */
static CUresult read_file(const char *path, void **data, size_t *size)
{
	struct stat st;
	CUresult r = CUDA_SUCCESS;
	size_t done = 0;
	char *buffer = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? CUDA_ERROR_FILE_NOT_FOUND
		                                           : CUDA_ERROR_OPERATING_SYSTEM;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > IMAGE_SIZE_MAX) {
		r = CUDA_ERROR_INVALID_IMAGE;
		goto end;
	}
	/* One spare byte: PTX read from a file gets its terminator. */
	buffer = calloc(1, (size_t)st.st_size + 1);
	if (!buffer) {
		r = CUDA_ERROR_OUT_OF_MEMORY;
		goto end;
	}
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, buffer + done, (size_t)st.st_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = CUDA_ERROR_OPERATING_SYSTEM;
			goto end;
		}
		done += (size_t)n;
	}
	*data = buffer;
	*size = done;
	buffer = NULL;
end:
	free(buffer);
	close(fd);
	return r;
}

static CUresult module_load_image(CUmodule *out, const void *data, size_t size_known)
{
	return image_load(out, data, size_known, false);
}

static CUresult file_load(CUmodule *out, const char *path, bool library)
{
	CUresult r = sim_init_status();
	void *data = NULL;
	size_t size = 0;

	if (r != CUDA_SUCCESS)
		return r;
	if (!out || !path)
		return CUDA_ERROR_INVALID_VALUE;
	r = read_file(path, &data, &size);
	if (r == CUDA_SUCCESS && size == 0)
		r = CUDA_ERROR_INVALID_IMAGE;
	if (r == CUDA_SUCCESS)
		r = image_load(out, data, size, library);
	free(data);
	return r;
}

static CUresult module_load_file(CUmodule *out, const char *path)
{
	return file_load(out, path, false);
}

SIM_EXPORT CUresult CUDAAPI cuModuleLoad(CUmodule *module, const char *fname)
{
	cuModuleLoad_params p = { module, fname };
	SIM_DRIVER_CALL(cuModuleLoad, p, module_load_file(module, fname));
}

SIM_EXPORT CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
	cuModuleLoadData_params p = { module, image };
	SIM_DRIVER_CALL(cuModuleLoadData, p, module_load_image(module, image, 0));
}

/* JIT options change nothing here: there is no code to compile. */
SIM_EXPORT CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image,
                                               unsigned int numOptions, CUjit_option *options,
                                               void **optionValues)
{
	cuModuleLoadDataEx_params p = { module, image, numOptions, options, optionValues };
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuModuleLoadDataEx, &p);
	r = sim_init_status();
	if (r == CUDA_SUCCESS && numOptions > 0 && (!options || !optionValues))
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		r = module_load_image(module, image, 0);
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
	cuModuleLoadFatBinary_params p = { module, fatCubin };
	SIM_DRIVER_CALL(cuModuleLoadFatBinary, p, module_load_image(module, fatCubin, 0));
}

/*
 * libcudart's modules: kernels known by the names nvcc registered, in the
 * current context (none is needed; such a module then outlives every
 * context). What the image's readable device code says of them (PTX
 * directives) becomes their attributes; an image that cannot be read
 * (compressed, or for another architecture) changes nothing. Not an API
 * call of its own: the runtime call that needs it is the one reported.
 */
SIM_EXPORT CUresult sim_module_load_names(CUmodule *out, const void *image,
                                          const char *const *names, size_t count)
{
	struct name_list info = { 0 };
	struct image parsed = { 0 };
	struct sim_module *module;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!out || (count > 0 && !names))
		return CUDA_ERROR_INVALID_VALUE;
	/* The names are nvcc's; what the image says of its device code
	 * decides whether it runs here. */
	if (image)
		r = image_parse(image, 0, &parsed, &info);
	if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
		sim_codes_ledger_failure(&parsed.codes, r);
		name_list_free(&info);
		return r;
	}
	r = module_create(sim_ctx_current(), names, count, &info, false, &module);
	name_list_free(&info);
	if (r != CUDA_SUCCESS)
		return r;
	*out = (CUmodule)module;
	/* CUPTI hands over the image the runtime registered, as for cuModuleLoadData. */
	return module_announce(module, parsed.bytes ? &parsed : NULL, &parsed.codes);
}

static CUresult module_unload(CUmodule handle)
{
	struct sim_module *module;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	module = module_claim(handle);
	if (!module)
		return CUDA_ERROR_INVALID_HANDLE;
	module_unload_claimed(module);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
	cuModuleUnload_params p = { hmod };
	SIM_DRIVER_CALL(cuModuleUnload, p, module_unload(hmod));
}

/* ------------------------------------------------------------ lookups */

/* What a PTX identifier may hold: a module whose names are unknown still
 * refuses a name no kernel can have (the ledger relies on it: no spaces). */
static bool kernel_name_valid(const char *name)
{
	if (!*name || strlen(name) > 4096)
		return false;
	for (const char *c = name; *c; c++)
		if (!ptx_name_char(*c))
			return false;
	return true;
}

static CUresult module_get_function(CUfunction *hfunc, CUmodule hmod, const char *name)
{
	struct sim_function *fn = NULL;
	struct sim_module *module;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!hfunc || !name)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&module_lock);
	module = module_find_locked(hmod);
	if (!module) {
		r = CUDA_ERROR_INVALID_HANDLE;
		goto end;
	}
	for (size_t i = 0; i < module->count && !fn; i++)
		if (!strcmp(module->functions[i]->name, name))
			fn = module->functions[i];
	if (!fn && module->any_name && kernel_name_valid(name)) {
		fn = function_new_locked(module, name, strlen(name), NULL);
		if (!fn)
			r = CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (fn)
		*hfunc = (CUfunction)fn;
	else if (r == CUDA_SUCCESS)
		r = CUDA_ERROR_NOT_FOUND;
end:
	pthread_mutex_unlock(&module_lock);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
	cuModuleGetFunction_params p = { hfunc, hmod, name };
	SIM_DRIVER_CALL(cuModuleGetFunction, p, module_get_function(hfunc, hmod, name));
}

/* Initialised driver and a loaded module. */
static CUresult check_module(CUmodule hmod)
{
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&module_lock);
	if (!module_find_locked(hmod))
		r = CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_unlock(&module_lock);
	return r;
}

/* Module globals are not tracked: no image here has any the simulator
 * could place, so every name is unknown. */
SIM_EXPORT CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod,
                                                 const char *name)
{
	cuModuleGetGlobal_v2_params p = { dptr, bytes, hmod, name };
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuModuleGetGlobal_v2, &p);
	r = check_module(hmod);
	if (r == CUDA_SUCCESS)
		r = name ? CUDA_ERROR_NOT_FOUND : CUDA_ERROR_INVALID_VALUE;
	sim_api_exit(&call, r);
	return r;
}

/* CUDA_MODULE_LOADING=EAGER as documented; lazy loading is the default
 * since CUDA 12.2. */
SIM_EXPORT CUresult CUDAAPI cuModuleGetLoadingMode(CUmoduleLoadingMode *mode)
{
	cuModuleGetLoadingMode_params p = { mode };
	const char *setting = getenv("CUDA_MODULE_LOADING");
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuModuleGetLoadingMode, &p);
	r = sim_init_status();
	if (r == CUDA_SUCCESS && !mode)
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		*mode = setting && !strcasecmp(setting, "EAGER") ? CU_MODULE_EAGER_LOADING
		                                                 : CU_MODULE_LAZY_LOADING;
	sim_api_exit(&call, r);
	return r;
}

/* The count of a module's functions and up to room of their handles. */
static CUresult module_functions(CUmodule hmod, unsigned int *count, CUfunction *functions,
                                 unsigned int room)
{
	struct sim_module *module;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&module_lock);
	module = module_find_locked(hmod);
	if (!module)
		r = CUDA_ERROR_INVALID_HANDLE;
	for (size_t i = 0; module && i < module->count && i < room; i++)
		functions[i] = (CUfunction)module->functions[i];
	if (module && count)
		*count = (unsigned int)module->count;
	pthread_mutex_unlock(&module_lock);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuModuleGetFunctionCount(unsigned int *count, CUmodule mod)
{
	cuModuleGetFunctionCount_params p = { count, mod };
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuModuleGetFunctionCount, &p);
	r = sim_init_status();
	if (r == CUDA_SUCCESS && !count)
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		r = module_functions(mod, count, NULL, 0);
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuModuleEnumerateFunctions(CUfunction *functions,
                                                       unsigned int numFunctions, CUmodule mod)
{
	cuModuleEnumerateFunctions_params p = { functions, numFunctions, mod };
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuModuleEnumerateFunctions, &p);
	r = sim_init_status();
	if (r == CUDA_SUCCESS && !functions && numFunctions > 0)
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS)
		r = module_functions(mod, NULL, functions, numFunctions);
	sim_api_exit(&call, r);
	return r;
}

/* ------------------------------------------------------------ functions */

SIM_EXPORT const char *sim_function_name(CUfunction f)
{
	struct sim_function *fn;

	pthread_mutex_lock(&module_lock);
	fn = function_find_locked(f);
	pthread_mutex_unlock(&module_lock);
	/* Names are never freed: valid after the lock is gone. */
	return fn ? fn->name : NULL;
}

/* A copy of a live function's state, taken under the lock. */
static CUresult function_snapshot(CUfunction f, struct sim_function *copy)
{
	struct sim_function *fn;
	CUresult r = CUDA_SUCCESS;

	pthread_mutex_lock(&module_lock);
	fn = function_find_locked(f);
	if (fn)
		*copy = *fn;
	else
		r = CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_unlock(&module_lock);
	return r;
}

/* Initialised driver, a live function, a non-NULL out pointer. */
static CUresult function_query(CUfunction f, const void *out, struct sim_function *copy)
{
	CUresult r = sim_init_status();

	if (r == CUDA_SUCCESS)
		r = function_snapshot(f, copy);
	if (r == CUDA_SUCCESS && !out)
		r = CUDA_ERROR_INVALID_VALUE;
	return r;
}

/* The largest block a launch of the function may have: the device's, or
 * less under .maxntid / .reqntid (__launch_bounds__), or what the
 * registers of the device allow at the function's register count
 * (cuda_occupancy.h: per-block registers, allocated per warp in units of
 * 256). */
static int function_max_threads(const struct sim_function *fn)
{
	int most = SIM_MAX_THREADS_PER_BLOCK;
	int per_warp = (fn->num_regs * 32 + 255) / 256 * 256;

	if (fn->attrs.max_threads > 0 && fn->attrs.max_threads < most)
		most = fn->attrs.max_threads;
	if (per_warp > 0 && 65536 / per_warp * 32 < most)
		most = 65536 / per_warp * 32;
	return most;
}

static CUresult function_get_attribute(int *pi, CUfunction_attribute attrib, CUfunction f)
{
	struct sim_function fn;
	CUresult r = function_query(f, pi, &fn);

	if (r != CUDA_SUCCESS)
		return r;
	switch (attrib) {
	case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
		*pi = function_max_threads(&fn);
		break;
	case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
		*pi = fn.attrs.static_shared;
		break;
	case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
		*pi = fn.attrs.local_bytes;
		break;
	case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
	case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
		*pi = 0;
		break;
	case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
		*pi = fn.attrs.explicit_cluster;
		break;
	case CU_FUNC_ATTRIBUTE_NUM_REGS:
		*pi = fn.num_regs;
		break;
	case CU_FUNC_ATTRIBUTE_PTX_VERSION:
		/* The virtual architecture of its PTX (compute_75 JIT-compiled
		 * here is 75); the device's for a cubin. */
		*pi = fn.attrs.ptx_target ? fn.attrs.ptx_target : sim_device_sm();
		break;
	case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
		*pi = sim_device_sm();
		break;
	case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
		*pi = fn.max_dynamic_shared;
		break;
	case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
		*pi = fn.carveout;
		break;
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
		*pi = fn.required_cluster[attrib - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH];
		break;
	case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
		*pi = fn.non_portable_cluster;
		break;
	case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
		*pi = fn.cluster_policy;
		break;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

HIDDEN CUresult sim_function_usage(CUfunction f, struct sim_function_usage *usage)
{
	struct sim_function fn;
	CUresult r = function_snapshot(f, &fn);

	if (r != CUDA_SUCCESS)
		return r;
	usage->max_threads = function_max_threads(&fn);
	usage->num_regs = fn.num_regs;
	usage->static_shared = fn.attrs.static_shared;
	usage->max_dynamic_shared = fn.max_dynamic_shared;
	usage->carveout = fn.carveout;
	usage->cache_config = fn.cache_config;
	memcpy(usage->required_cluster, fn.required_cluster, sizeof(usage->required_cluster));
	usage->non_portable_cluster = fn.non_portable_cluster != 0;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib,
                                               CUfunction hfunc)
{
	cuFuncGetAttribute_params p = { pi, attrib, hfunc };
	SIM_DRIVER_CALL(cuFuncGetAttribute, p, function_get_attribute(pi, attrib, hfunc));
}

/* cuda.h: the writable attributes and their ranges. */
static CUresult function_set_locked(struct sim_function *fn, CUfunction_attribute attrib, int value)
{
	switch (attrib) {
	case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
		/* With the static shared memory, at most the opt-in maximum. */
		if (value < 0 || value > SIM_MAX_SHARED_PER_BLOCK_OPTIN - fn->attrs.static_shared)
			return CUDA_ERROR_INVALID_VALUE;
		fn->max_dynamic_shared = value;
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
		if (value < -1 || value > 100)
			return CUDA_ERROR_INVALID_VALUE;
		fn->carveout = value;
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
		/* cuda.h: set at compile time, it cannot be set at run time. */
		if (fn->attrs.cluster[0] > 0)
			return CUDA_ERROR_NOT_PERMITTED;
		if (value < 0)
			return CUDA_ERROR_INVALID_VALUE;
		fn->required_cluster[attrib - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH] = value;
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
		if (value != 0 && value != 1)
			return CUDA_ERROR_INVALID_VALUE;
		fn->non_portable_cluster = value;
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
		if (value < CU_CLUSTER_SCHEDULING_POLICY_DEFAULT ||
		    value > CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING)
			return CUDA_ERROR_INVALID_VALUE;
		fn->cluster_policy = value;
		return CUDA_SUCCESS;
	default:
		/* Read-only or unknown. */
		return CUDA_ERROR_INVALID_VALUE;
	}
}

static CUresult function_set_attribute(CUfunction f, CUfunction_attribute attrib, int value)
{
	struct sim_function *fn;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&module_lock);
	fn = function_find_locked(f);
	r = fn ? function_set_locked(fn, attrib, value) : CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_unlock(&module_lock);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib,
                                               int value)
{
	cuFuncSetAttribute_params p = { hfunc, attrib, value };
	SIM_DRIVER_CALL(cuFuncSetAttribute, p, function_set_attribute(hfunc, attrib, value));
}

static CUresult function_set_cache_config(CUfunction f, CUfunc_cache config)
{
	struct sim_function *fn;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&module_lock);
	fn = function_find_locked(f);
	if (!fn)
		r = CUDA_ERROR_INVALID_HANDLE;
	else if (config != CU_FUNC_CACHE_PREFER_NONE && config != CU_FUNC_CACHE_PREFER_SHARED &&
	         config != CU_FUNC_CACHE_PREFER_L1 && config != CU_FUNC_CACHE_PREFER_EQUAL)
		r = CUDA_ERROR_INVALID_VALUE;
	else
		fn->cache_config = config;
	pthread_mutex_unlock(&module_lock);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
	cuFuncSetCacheConfig_params p = { hfunc, config };
	SIM_DRIVER_CALL(cuFuncSetCacheConfig, p, function_set_cache_config(hfunc, config));
}

/* Banks are fixed at four bytes here: nothing to do once the arguments
 * are checked (cuda.h, cuFuncSetSharedMemConfig). */
static CUresult function_set_shared_config(CUfunction f, CUsharedconfig config)
{
	struct sim_function fn;
	CUresult r = function_query(f, &fn, &fn);

	if (r == CUDA_SUCCESS && config != CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE &&
	    config != CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE &&
	    config != CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE)
		r = CUDA_ERROR_INVALID_VALUE;
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig config)
{
	cuFuncSetSharedMemConfig_params p = { hfunc, config };
	SIM_DRIVER_CALL(cuFuncSetSharedMemConfig, p, function_set_shared_config(hfunc, config));
}

SIM_EXPORT CUresult CUDAAPI cuFuncGetModule(CUmodule *hmod, CUfunction hfunc)
{
	cuFuncGetModule_params p = { hmod, hfunc };
	struct sim_api_call call;
	struct sim_function fn;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuFuncGetModule, &p);
	r = function_query(hfunc, hmod, &fn);
	if (r == CUDA_SUCCESS)
		*hmod = (CUmodule)fn.module;
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuFuncGetName(const char **name, CUfunction hfunc)
{
	cuFuncGetName_params p = { name, hfunc };
	struct sim_api_call call;
	struct sim_function fn;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuFuncGetName, &p);
	r = function_query(hfunc, name, &fn);
	if (r == CUDA_SUCCESS)
		*name = fn.name;
	sim_api_exit(&call, r);
	return r;
}

/* There is no code to load: every function is loaded. */
SIM_EXPORT CUresult CUDAAPI cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction function)
{
	cuFuncIsLoaded_params p = { state, function };
	struct sim_api_call call;
	struct sim_function fn;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuFuncIsLoaded, &p);
	r = function_query(function, state, &fn);
	if (r == CUDA_SUCCESS)
		*state = CU_FUNCTION_LOADING_STATE_LOADED;
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuFuncLoad(CUfunction function)
{
	cuFuncLoad_params p = { function };
	struct sim_api_call call;
	struct sim_function fn;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuFuncLoad, &p);
	r = function_query(function, &p, &fn);
	sim_api_exit(&call, r);
	return r;
}

/* ------------------------------------------------------------ launches */

struct launch {
	unsigned int grid[3], block[3];
	unsigned int shared_bytes;
	CUstream stream;
	void **params, **extra;
	unsigned int cluster[3]; /* 0: no cluster */
	uint8_t launch_type;     /* CUPTI_ACTIVITY_LAUNCH_TYPE_* */
};

/* The configuration limits of the device (cuDeviceGetAttribute). */
static CUresult launch_check_shape(const struct launch *l, const struct sim_function *fn)
{
	uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];

	for (int i = 0; i < 3; i++)
		if (!l->grid[i] || !l->block[i])
			return CUDA_ERROR_INVALID_VALUE;
	if (l->block[0] > SIM_MAX_THREADS_PER_BLOCK || l->block[1] > SIM_MAX_THREADS_PER_BLOCK ||
	    l->block[2] > 64 || threads > SIM_MAX_THREADS_PER_BLOCK)
		return CUDA_ERROR_INVALID_VALUE;
	if (l->grid[0] > 2147483647u || l->grid[1] > 65535 || l->grid[2] > 65535)
		return CUDA_ERROR_INVALID_VALUE;
	if (l->shared_bytes > (unsigned int)fn->max_dynamic_shared)
		return CUDA_ERROR_INVALID_VALUE;
	/* More threads than __launch_bounds__ or the registers allow: "too
	 * many threads for the kernel's register count" (cuda.h,
	 * CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES). */
	if (threads > (uint64_t)function_max_threads(fn))
		return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
	/* cuda.h: parameters through both kernelParams and extra. */
	if (l->params && l->extra)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/* Cluster dimensions divide the grid; at most 8 blocks (16 when the
 * function allows non-portable sizes). */
static CUresult launch_check_cluster(const struct launch *l, const struct sim_function *fn)
{
	bool given = l->cluster[0] || l->cluster[1] || l->cluster[2];
	bool required = fn->required_cluster[0] > 0;
	unsigned int cluster[3];
	uint64_t blocks;

	/* A required cluster size (__cluster_dims__, or set with
	 * cuFuncSetAttribute) applies when the launch gives none, and a launch
	 * that gives one must match it (cuda.h, cuOccupancyMaxActiveClusters);
	 * .explicitcluster kernels need one (CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET). */
	if (!given && !required)
		return fn->attrs.explicit_cluster ? CUDA_ERROR_INVALID_CLUSTER_SIZE : CUDA_SUCCESS;
	for (int i = 0; i < 3; i++) {
		cluster[i] = given ? l->cluster[i] : (unsigned int)fn->required_cluster[i];
		if (given && required && cluster[i] != (unsigned int)fn->required_cluster[i])
			return CUDA_ERROR_INVALID_CLUSTER_SIZE;
	}
	for (int i = 0; i < 3; i++)
		if (!cluster[i] || l->grid[i] % cluster[i])
			return CUDA_ERROR_INVALID_CLUSTER_SIZE;
	blocks = (uint64_t)cluster[0] * cluster[1] * cluster[2];
	if (blocks > (fn->non_portable_cluster ? 16u : 8u))
		return CUDA_ERROR_INVALID_CLUSTER_SIZE;
	return CUDA_SUCCESS;
}

static void launch_activity(const struct launch *l, const struct sim_function *fn,
                            struct sim_context *ctx, struct sim_stream *stream, uint64_t start,
                            uint64_t end, uint32_t correlation)
{
	static int64_t next_grid_id = 1;
	CUpti_ActivityKernel10 record;

	if (!sim_activity_enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL))
		return;
	memset(&record, 0, sizeof(record));
	record.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	record.cacheConfig.config.requested = (uint8_t)fn->cache_config;
	record.cacheConfig.config.executed = (uint8_t)fn->cache_config;
	record.sharedMemoryConfig = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
	record.registersPerThread = (uint16_t)fn->num_regs;
	record.staticSharedMemory = fn->attrs.static_shared;
	record.localMemoryPerThread = (uint32_t)fn->attrs.local_bytes;
	record.partitionedGlobalCacheRequested =
	    CUPTI_ACTIVITY_PARTITIONED_GLOBAL_CACHE_CONFIG_NOT_SUPPORTED;
	record.partitionedGlobalCacheExecuted =
	    CUPTI_ACTIVITY_PARTITIONED_GLOBAL_CACHE_CONFIG_NOT_SUPPORTED;
	record.start = start;
	record.end = end;
	record.completed = end;
	record.deviceId = (uint32_t)ctx->device;
	record.contextId = ctx->id;
	record.streamId = (uint32_t)sim_stream_get_id(stream);
	record.gridX = (int32_t)l->grid[0];
	record.gridY = (int32_t)l->grid[1];
	record.gridZ = (int32_t)l->grid[2];
	record.blockX = (int32_t)l->block[0];
	record.blockY = (int32_t)l->block[1];
	record.blockZ = (int32_t)l->block[2];
	record.dynamicSharedMemory = (int32_t)l->shared_bytes;
	record.correlationId = correlation;
	record.gridId = __atomic_fetch_add(&next_grid_id, 1, __ATOMIC_RELAXED);
	record.name = fn->name;
	record.launchType = l->launch_type;
	record.sharedMemoryExecuted = l->shared_bytes;
	record.channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
	record.clusterX = l->cluster[0];
	record.clusterY = l->cluster[1];
	record.clusterZ = l->cluster[2];
	sim_graph_replay_ids(&record.graphId, &record.graphNodeId);
	sim_activity((const CUpti_Activity *)&record, end);
}

/*
 * CUDASIM_KERNEL_FAULT=N: the Nth kernel launched in the process makes an
 * illegal memory access. The launch itself succeeds (it is asynchronous);
 * the context is unusable from then on (sim_ctx_require).
 */
static void launch_maybe_fault(struct sim_context *ctx)
{
	static uint64_t launches;
	uint64_t nth = sim_config()->kernel_fault;

	if (nth && __atomic_add_fetch(&launches, 1, __ATOMIC_RELAXED) == nth) {
		__atomic_store_n(&ctx->faulted, true, __ATOMIC_RELEASE);
		sim_ledger("op=kernel_fault dev=%d result=CUDA_ERROR_ILLEGAL_ADDRESS", ctx->device);
	}
}

static CUresult launch_kernel(CUfunction f, const struct launch *l)
{
	const struct sim_config *config = sim_config();
	struct sim_stream *stream;
	struct sim_function fn;
	struct sim_context *ctx;
	uint64_t start, end;
	uint32_t correlation;
	char suffix[64];
	CUresult r = sim_ctx_enter(&ctx);

	if (r == CUDA_SUCCESS)
		r = function_snapshot(f, &fn);
	/* A module loaded in one context has no code in another. */
	if (r == CUDA_SUCCESS && fn.module->ctx && fn.module->ctx != ctx)
		r = CUDA_ERROR_INVALID_HANDLE;
	if (r == CUDA_SUCCESS)
		r = launch_check_shape(l, &fn);
	if (r == CUDA_SUCCESS)
		r = launch_check_cluster(l, &fn);
	if (r == CUDA_SUCCESS)
		r = sim_stream_resolve(ctx, l->stream, &stream);
	if (r != CUDA_SUCCESS)
		return r;
	if (sim_stream_capture_graph(stream)) {
		/* Captured: a kernel node. */
		struct sim_graph_node node = { .kind = SIM_NODE_KERNEL };
		node.u.kernel.function = f;
		memcpy(node.u.kernel.grid, l->grid, sizeof(l->grid));
		memcpy(node.u.kernel.block, l->block, sizeof(l->block));
		node.u.kernel.shared_bytes = l->shared_bytes;
		return sim_graph_capture(stream, &node);
	}
	/* The device heap and printf FIFO are set up for the context once a
	 * kernel that uses them is launched (cuCtxSetLimit). */
	if (fn.attrs.uses_heap)
		__atomic_store_n(&ctx->heap_launched, true, __ATOMIC_RELAXED);
	if (fn.attrs.uses_printf)
		__atomic_store_n(&ctx->printf_launched, true, __ATOMIC_RELAXED);
	sim_stream_submit_at(stream, sim_now_ns() + config->launch_latency_ns, config->kernel_ns,
	                     &start, &end);
	launch_maybe_fault(ctx);
	correlation = sim_current_correlation_id();
	launch_activity(l, &fn, ctx, stream, start, end, correlation);
	sim_ledger("op=launch name=%s dev=%d grid=%u,%u,%u block=%u,%u,%u shmem=%u stream=%llu "
	           "api=%s corr=%u gpu_start=%llu gpu_end=%llu%s",
	           fn.name, ctx->device, l->grid[0], l->grid[1], l->grid[2], l->block[0],
	           l->block[1], l->block[2], l->shared_bytes,
	           (unsigned long long)sim_stream_get_id(stream), sim_current_api_name(),
	           correlation, (unsigned long long)start, (unsigned long long)end,
	           sim_graph_ledger_suffix(suffix, sizeof(suffix)));
	return CUDA_SUCCESS;
}

static void launch_from_args(struct launch *l, unsigned int gx, unsigned int gy, unsigned int gz,
                             unsigned int bx, unsigned int by, unsigned int bz,
                             unsigned int shared_bytes, CUstream stream, void **params,
                             void **extra)
{
	memset(l, 0, sizeof(*l));
	l->grid[0] = gx;
	l->grid[1] = gy;
	l->grid[2] = gz;
	l->block[0] = bx;
	l->block[1] = by;
	l->block[2] = bz;
	l->shared_bytes = shared_bytes;
	l->stream = stream;
	l->params = params;
	l->extra = extra;
	l->launch_type = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
}

/* A kernel node of a graph being launched. */
HIDDEN CUresult sim_kernel_node_run(const struct sim_graph_node *node, CUstream stream)
{
	struct launch l;

	launch_from_args(&l, node->u.kernel.grid[0], node->u.kernel.grid[1], node->u.kernel.grid[2],
	                 node->u.kernel.block[0], node->u.kernel.block[1], node->u.kernel.block[2],
	                 node->u.kernel.shared_bytes, stream, NULL, NULL);
	return launch_kernel(node->u.kernel.function, &l);
}

/* Open the frame of a launch entry point. It names the kernel: symbolName,
 * for the launch callbacks (cupti_callbacks.h, CUpti_CallbackData). */
static void launch_enter(struct sim_api_call *call, CUpti_CallbackId cbid, const char *name,
                         void *params, CUfunction f)
{
	sim_api_enter(call, CUPTI_CB_DOMAIN_DRIVER_API, cbid, name, params, sim_function_name(f));
}

/* cuLaunchKernel (and its generated _ptsz twin, whose frame it opens). */
static CUresult launch_call(CUpti_CallbackId cbid, const char *name, void *params, CUfunction f,
                            const struct launch *l)
{
	struct sim_api_call call;
	CUresult r;

	launch_enter(&call, cbid, name, params, f);
	r = launch_kernel(f, l);
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX,
                                           unsigned int gridDimY, unsigned int gridDimZ,
                                           unsigned int blockDimX, unsigned int blockDimY,
                                           unsigned int blockDimZ, unsigned int sharedMemBytes,
                                           CUstream hStream, void **kernelParams, void **extra)
{
	cuLaunchKernel_params p = { f,         gridDimX,     gridDimY,  gridDimZ,
		                    blockDimX, blockDimY,    blockDimZ, sharedMemBytes,
		                    hStream,   kernelParams, extra };
	struct launch l;

	launch_from_args(&l, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
	                 sharedMemBytes, hStream, kernelParams, extra);
	return launch_call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &p, f, &l);
}

/* The launch attributes that change what the simulator reports; the others
 * are accepted and have no effect on a kernel that does nothing. In the
 * frame of cuLaunchKernelEx_ptsz a NULL config->hStream is the calling
 * thread's own stream (cuda.h, CUDA_API_PER_THREAD_DEFAULT_STREAM). */
static CUresult launch_from_config(struct launch *l, const CUlaunchConfig *config, void **params,
                                   void **extra)
{
	if (!config || (config->numAttrs > 0 && !config->attrs))
		return CUDA_ERROR_INVALID_VALUE;
	launch_from_args(l, config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX,
	                 config->blockDimY, config->blockDimZ, config->sharedMemBytes,
	                 sim_api_per_thread() ? sim_stream_per_thread_default(config->hStream)
	                                      : config->hStream,
	                 params, extra);
	for (unsigned int i = 0; i < config->numAttrs; i++) {
		const CUlaunchAttribute *attr = &config->attrs[i];

		if (attr->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
			l->cluster[0] = attr->value.clusterDim.x;
			l->cluster[1] = attr->value.clusterDim.y;
			l->cluster[2] = attr->value.clusterDim.z;
		} else if (attr->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && attr->value.cooperative) {
			l->launch_type = CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE;
		}
	}
	return CUDA_SUCCESS;
}

/* cuLaunchKernelEx (and its generated _ptsz twin, whose frame it opens). */
static CUresult launch_ex_call(CUpti_CallbackId cbid, const char *name, void *params,
                               const CUlaunchConfig *config, CUfunction f, void **kernelParams,
                               void **extra)
{
	struct sim_api_call call;
	struct launch l;
	CUresult r;

	launch_enter(&call, cbid, name, params, f);
	r = sim_init_status();
	if (r == CUDA_SUCCESS)
		r = launch_from_config(&l, config, kernelParams, extra);
	if (r == CUDA_SUCCESS)
		r = launch_kernel(f, &l);
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                                             void **kernelParams, void **extra)
{
	cuLaunchKernelEx_params p = { config, f, kernelParams, extra };

	return launch_ex_call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, "cuLaunchKernelEx", &p,
	                      config, f, kernelParams, extra);
}

/* ------------------------------------------------------------ libraries */

/*
 * The context-independent loading API (cuda.h, "Library Management"): a
 * CUlibrary is a module loaded in no context, whose kernels launch in
 * every context; a CUkernel is its CUfunction ("CUkernel can be safely cast
 * to CUfunction", cuda.h cuLaunchKernel), so cuKernelGetFunction returns
 * the same handle. JIT and library options change nothing here (there is
 * no code to compile); their arrays must be given when counted.
 */
static CUresult library_options_valid(const void *jit_options, void **jit_values,
                                      unsigned int num_jit, const void *lib_options,
                                      void **lib_values, unsigned int num_lib)
{
	if (num_jit > 0 && (!jit_options || !jit_values))
		return CUDA_ERROR_INVALID_VALUE;
	if (num_lib > 0 && (!lib_options || !lib_values))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/* A loaded library (a module loaded by cuLibraryLoad*). */
static struct sim_module *library_find_locked(CUlibrary handle)
{
	struct sim_module *module = module_find_locked((CUmodule)handle);

	return module && module->library ? module : NULL;
}

SIM_EXPORT CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code,
                                              CUjit_option *jitOptions, void **jitOptionsValues,
                                              unsigned int numJitOptions,
                                              CUlibraryOption *libraryOptions,
                                              void **libraryOptionValues,
                                              unsigned int numLibraryOptions)
{
	cuLibraryLoadData_params p = {
		library,       code,           jitOptions,          jitOptionsValues,
		numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions
	};
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuLibraryLoadData, &p);
	r = sim_init_status();
	if (r == CUDA_SUCCESS)
		r = library_options_valid(jitOptions, jitOptionsValues, numJitOptions,
		                          libraryOptions, libraryOptionValues, numLibraryOptions);
	if (r == CUDA_SUCCESS)
		r = image_load((CUmodule *)library, code, 0, true);
	sim_api_exit(&call, r);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuLibraryLoadFromFile(CUlibrary *library, const char *fileName,
                                                  CUjit_option *jitOptions, void **jitOptionsValues,
                                                  unsigned int numJitOptions,
                                                  CUlibraryOption *libraryOptions,
                                                  void **libraryOptionValues,
                                                  unsigned int numLibraryOptions)
{
	cuLibraryLoadFromFile_params p = {
		library,       fileName,       jitOptions,          jitOptionsValues,
		numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions
	};
	struct sim_api_call call;
	CUresult r;

	SIM_DRIVER_ENTER(call, cuLibraryLoadFromFile, &p);
	r = sim_init_status();
	if (r == CUDA_SUCCESS)
		r = library_options_valid(jitOptions, jitOptionsValues, numJitOptions,
		                          libraryOptions, libraryOptionValues, numLibraryOptions);
	if (r == CUDA_SUCCESS)
		r = file_load((CUmodule *)library, fileName, true);
	sim_api_exit(&call, r);
	return r;
}

static CUresult library_unload(CUlibrary library)
{
	CUresult r = sim_init_status();
	struct sim_module *module;

	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&module_lock);
	module = library_find_locked(library);
	pthread_mutex_unlock(&module_lock);
	if (!module)
		return CUDA_ERROR_INVALID_HANDLE;
	return module_unload((CUmodule)library);
}

SIM_EXPORT CUresult CUDAAPI cuLibraryUnload(CUlibrary library)
{
	cuLibraryUnload_params p = { library };
	SIM_DRIVER_CALL(cuLibraryUnload, p, library_unload(library));
}

static CUresult library_check(CUlibrary library)
{
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&module_lock);
	if (!library_find_locked(library))
		r = CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_unlock(&module_lock);
	return r;
}

static CUresult library_get_kernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
	CUresult r = library_check(library);

	if (r == CUDA_SUCCESS)
		r = module_get_function((CUfunction *)pKernel, (CUmodule)library, name);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library,
                                               const char *name)
{
	cuLibraryGetKernel_params p = { pKernel, library, name };
	SIM_DRIVER_CALL(cuLibraryGetKernel, p, library_get_kernel(pKernel, library, name));
}

static CUresult library_get_module(CUmodule *pMod, CUlibrary library)
{
	CUresult r = library_check(library);

	if (r == CUDA_SUCCESS && !pMod)
		r = CUDA_ERROR_INVALID_VALUE;
	/* A module for the current context: the library's own, which has
	 * none, after checking that there is one (cuda.h). */
	if (r == CUDA_SUCCESS) {
		struct sim_context *ctx;
		r = sim_ctx_require(&ctx);
	}
	if (r == CUDA_SUCCESS)
		*pMod = (CUmodule)library;
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuLibraryGetModule(CUmodule *pMod, CUlibrary library)
{
	cuLibraryGetModule_params p = { pMod, library };
	SIM_DRIVER_CALL(cuLibraryGetModule, p, library_get_module(pMod, library));
}

static CUresult library_kernels(CUlibrary lib, unsigned int *count, CUkernel *kernels,
                                unsigned int room)
{
	CUresult r = library_check(lib);

	if (r == CUDA_SUCCESS)
		r = module_functions((CUmodule)lib, count, (CUfunction *)kernels, room);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib)
{
	cuLibraryGetKernelCount_params p = { count, lib };
	SIM_DRIVER_CALL(cuLibraryGetKernelCount, p,
	                count ? library_kernels(lib, count, NULL, 0) : CUDA_ERROR_INVALID_VALUE);
}

SIM_EXPORT CUresult CUDAAPI cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int numKernels,
                                                      CUlibrary lib)
{
	cuLibraryEnumerateKernels_params p = { kernels, numKernels, lib };
	SIM_DRIVER_CALL(cuLibraryEnumerateKernels, p,
	                kernels ? library_kernels(lib, NULL, kernels, numKernels)
	                        : CUDA_ERROR_INVALID_VALUE);
}

/*
 * Globals, managed variables and unified functions of a library: module
 * globals are not modelled (cuModuleGetGlobal), so no name is found
 * ("If no global for the requested name name exists, the call returns
 * CUDA_ERROR_NOT_FOUND", cuda.h cuLibraryGetGlobal), once the arguments
 * are checked: one of dptr and bytes may be NULL, not both; a global is
 * that of the current context.
 */
static CUresult library_get_symbol(const void *out, const void *size_out, CUlibrary library,
                                   const char *name, bool in_context)
{
	CUresult r = library_check(library);

	if (r == CUDA_SUCCESS && (!name || (!out && !size_out)))
		r = CUDA_ERROR_INVALID_VALUE;
	if (r == CUDA_SUCCESS && in_context) {
		struct sim_context *ctx;
		r = sim_ctx_require(&ctx);
	}
	return r == CUDA_SUCCESS ? CUDA_ERROR_NOT_FOUND : r;
}

SIM_EXPORT CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library,
                                               const char *name)
{
	cuLibraryGetGlobal_params p = { dptr, bytes, library, name };
	SIM_DRIVER_CALL(cuLibraryGetGlobal, p,
	                library_get_symbol(dptr, bytes, library, name, true));
}

SIM_EXPORT CUresult CUDAAPI cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library,
                                                const char *name)
{
	cuLibraryGetManaged_params p = { dptr, bytes, library, name };
	SIM_DRIVER_CALL(cuLibraryGetManaged, p,
	                library_get_symbol(dptr, bytes, library, name, false));
}

SIM_EXPORT CUresult CUDAAPI cuLibraryGetUnifiedFunction(void **fptr, CUlibrary library,
                                                        const char *symbol)
{
	cuLibraryGetUnifiedFunction_params p = { fptr, library, symbol };
	SIM_DRIVER_CALL(cuLibraryGetUnifiedFunction, p,
	                library_get_symbol(fptr, fptr, library, symbol, false));
}

/* A kernel: a function of a loaded library. */
static CUresult kernel_check(CUkernel kernel, const void *out)
{
	struct sim_function *fn;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&module_lock);
	fn = function_find_locked((CUfunction)kernel);
	if (!fn || !fn->module->library)
		r = CUDA_ERROR_INVALID_HANDLE;
	pthread_mutex_unlock(&module_lock);
	if (r == CUDA_SUCCESS && !out)
		r = CUDA_ERROR_INVALID_VALUE;
	return r;
}

/* cuda.h: the function of the kernel "for the current context". */
static CUresult kernel_get_function(CUfunction *pFunc, CUkernel kernel)
{
	CUresult r = kernel_check(kernel, pFunc);
	struct sim_context *ctx;

	if (r == CUDA_SUCCESS)
		r = sim_ctx_require(&ctx);
	if (r == CUDA_SUCCESS)
		*pFunc = (CUfunction)kernel;
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
	cuKernelGetFunction_params p = { pFunc, kernel };
	SIM_DRIVER_CALL(cuKernelGetFunction, p, kernel_get_function(pFunc, kernel));
}

static CUresult kernel_get_library(CUlibrary *pLib, CUkernel kernel)
{
	CUresult r = kernel_check(kernel, pLib);

	if (r == CUDA_SUCCESS)
		*pLib = (CUlibrary)((struct sim_function *)kernel)->module;
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel)
{
	cuKernelGetLibrary_params p = { pLib, kernel };
	SIM_DRIVER_CALL(cuKernelGetLibrary, p, kernel_get_library(pLib, kernel));
}

static CUresult kernel_get_name(const char **name, CUkernel kernel)
{
	CUresult r = kernel_check(kernel, name);

	if (r == CUDA_SUCCESS)
		*name = ((struct sim_function *)kernel)->name;
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuKernelGetName(const char **name, CUkernel hfunc)
{
	cuKernelGetName_params p = { name, hfunc };
	SIM_DRIVER_CALL(cuKernelGetName, p, kernel_get_name(name, hfunc));
}

/* Attributes are those of cuFuncGetAttribute, the same on every device. */
static CUresult kernel_get_attribute(int *pi, CUfunction_attribute attrib, CUkernel kernel,
                                     CUdevice dev)
{
	CUresult r = kernel_check(kernel, pi);

	if (r == CUDA_SUCCESS)
		r = sim_device_check(dev);
	if (r == CUDA_SUCCESS)
		r = function_get_attribute(pi, attrib, (CUfunction)kernel);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuKernelGetAttribute(int *pi, CUfunction_attribute attrib,
                                                 CUkernel kernel, CUdevice dev)
{
	cuKernelGetAttribute_params p = { pi, attrib, kernel, dev };
	SIM_DRIVER_CALL(cuKernelGetAttribute, p, kernel_get_attribute(pi, attrib, kernel, dev));
}

static CUresult kernel_set_attribute(CUfunction_attribute attrib, int val, CUkernel kernel,
                                     CUdevice dev)
{
	CUresult r = kernel_check(kernel, &val);

	if (r == CUDA_SUCCESS)
		r = sim_device_check(dev);
	if (r == CUDA_SUCCESS)
		r = function_set_attribute((CUfunction)kernel, attrib, val);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuKernelSetAttribute(CUfunction_attribute attrib, int val,
                                                 CUkernel kernel, CUdevice dev)
{
	cuKernelSetAttribute_params p = { attrib, val, kernel, dev };
	SIM_DRIVER_CALL(cuKernelSetAttribute, p, kernel_set_attribute(attrib, val, kernel, dev));
}

/* The cache preference of a kernel, the same on every device (as its
 * attributes are). */
static CUresult kernel_set_cache_config(CUkernel kernel, CUfunc_cache config, CUdevice dev)
{
	CUresult r = kernel_check(kernel, &config);

	if (r == CUDA_SUCCESS)
		r = sim_device_check(dev);
	if (r == CUDA_SUCCESS)
		r = function_set_cache_config((CUfunction)kernel, config);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config,
                                                   CUdevice dev)
{
	cuKernelSetCacheConfig_params p = { kernel, config, dev };
	SIM_DRIVER_CALL(cuKernelSetCacheConfig, p, kernel_set_cache_config(kernel, config, dev));
}

/* ------------------------------------------------------------ linker */

/*
 * cuLinkCreate .. cuLinkDestroy (cuda.h, "Module Management"): the inputs'
 * kernel names are read as cuModuleLoadData reads them, and cuLinkComplete
 * hands back a PTX image that declares those kernels, which
 * cuModuleLoadData and cuLibraryLoadData read back; it belongs to the link
 * state until cuLinkDestroy. Host objects and archives
 * (CU_JIT_INPUT_OBJECT, CU_JIT_INPUT_LIBRARY, e.g. libcudadevrt.a) are
 * accepted and add no kernel; LTO IR (CU_JIT_INPUT_NVVM) cannot be linked
 * without the JIT and returns CUDA_ERROR_NOT_SUPPORTED.
 */
struct sim_link {
	struct name_list names;
	char *output;
	size_t output_size;
};

static pthread_mutex_t link_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pointer_set link_set;
/* Destroyed states stay in link_set with this flag, never freed. */
static struct pointer_set link_dead;

static struct sim_link *link_find_locked(CUlinkState state)
{
	struct sim_link *link = (struct sim_link *)state;

	if (!pointer_set_contains(&link_set, link) || pointer_set_contains(&link_dead, link))
		return NULL;
	return link;
}

static CUresult link_create(unsigned int numOptions, CUjit_option *options, void **optionValues,
                            CUlinkState *stateOut)
{
	struct sim_link *link;
	CUresult r = sim_init_status();
	struct sim_context *ctx;

	if (r != CUDA_SUCCESS)
		return r;
	if (!stateOut || (numOptions > 0 && (!options || !optionValues)))
		return CUDA_ERROR_INVALID_VALUE;
	r = sim_ctx_require(&ctx);
	if (r != CUDA_SUCCESS)
		return r;
	link = calloc(1, sizeof(*link));
	if (!link)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&link_lock);
	if (!pointer_set_add(&link_set, link))
		r = CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_unlock(&link_lock);
	if (r != CUDA_SUCCESS) {
		free(link);
		return r;
	}
	*stateOut = (CUlinkState)link;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options,
                                            void **optionValues, CUlinkState *stateOut)
{
	cuLinkCreate_v2_params p = { numOptions, options, optionValues, stateOut };
	SIM_DRIVER_CALL(cuLinkCreate_v2, p,
	                link_create(numOptions, options, optionValues, stateOut));
}

#undef cuLinkCreate
SIM_EXPORT CUresult CUDAAPI cuLinkCreate(unsigned int numOptions, CUjit_option *options,
                                         void **optionValues, CUlinkState *stateOut);
SIM_EXPORT CUresult CUDAAPI cuLinkCreate(unsigned int numOptions, CUjit_option *options,
                                         void **optionValues, CUlinkState *stateOut)
{
	cuLinkCreate_params p = { numOptions, options, optionValues, stateOut };
	SIM_DRIVER_CALL(cuLinkCreate, p, link_create(numOptions, options, optionValues, stateOut));
}

static CUresult link_add(CUlinkState state, CUjitInputType type, const void *data, size_t size,
                         unsigned int numOptions, CUjit_option *options, void **optionValues)
{
	struct name_list names = { 0 };
	struct image image = { 0 };
	struct sim_link *link;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!data || (numOptions > 0 && (!options || !optionValues)))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&link_lock);
	link = link_find_locked(state);
	pthread_mutex_unlock(&link_lock);
	if (!link)
		return CUDA_ERROR_INVALID_HANDLE;
	switch (type) {
	case CU_JIT_INPUT_CUBIN:
	case CU_JIT_INPUT_PTX:
	case CU_JIT_INPUT_FATBINARY:
		r = image_parse(data, size, &image, &names);
		break;
	case CU_JIT_INPUT_OBJECT:
	case CU_JIT_INPUT_LIBRARY:
		return CUDA_SUCCESS;
	case CU_JIT_INPUT_NVVM:
		return CUDA_ERROR_NOT_SUPPORTED;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&link_lock);
	for (size_t i = 0; r == CUDA_SUCCESS && i < names.count; i++)
		if (!name_list_has(&link->names, names.names[i], strlen(names.names[i])))
			r = name_list_add(&link->names, names.names[i], strlen(names.names[i]));
	pthread_mutex_unlock(&link_lock);
	name_list_free(&names);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data,
                                             size_t size, const char *name, unsigned int numOptions,
                                             CUjit_option *options, void **optionValues)
{
	cuLinkAddData_v2_params p = { state, type,       data,    size,
		                      name,  numOptions, options, optionValues };
	SIM_DRIVER_CALL(cuLinkAddData_v2, p,
	                link_add(state, type, data, size, numOptions, options, optionValues));
}

#undef cuLinkAddData
SIM_EXPORT CUresult CUDAAPI cuLinkAddData(CUlinkState state, CUjitInputType type, void *data,
                                          size_t size, const char *name, unsigned int numOptions,
                                          CUjit_option *options, void **optionValues);
SIM_EXPORT CUresult CUDAAPI cuLinkAddData(CUlinkState state, CUjitInputType type, void *data,
                                          size_t size, const char *name, unsigned int numOptions,
                                          CUjit_option *options, void **optionValues)
{
	cuLinkAddData_params p = {
		state, type, data, size, name, numOptions, options, optionValues
	};
	SIM_DRIVER_CALL(cuLinkAddData, p,
	                link_add(state, type, data, size, numOptions, options, optionValues));
}

static CUresult link_add_file(CUlinkState state, CUjitInputType type, const char *path,
                              unsigned int numOptions, CUjit_option *options, void **optionValues)
{
	void *data = NULL;
	size_t size = 0;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!path)
		return CUDA_ERROR_INVALID_VALUE;
	r = read_file(path, &data, &size);
	if (r == CUDA_SUCCESS)
		r = link_add(state, type, data, size, numOptions, options, optionValues);
	free(data);
	return r;
}

SIM_EXPORT CUresult CUDAAPI cuLinkAddFile_v2(CUlinkState state, CUjitInputType type,
                                             const char *path, unsigned int numOptions,
                                             CUjit_option *options, void **optionValues)
{
	cuLinkAddFile_v2_params p = { state, type, path, numOptions, options, optionValues };
	SIM_DRIVER_CALL(cuLinkAddFile_v2, p,
	                link_add_file(state, type, path, numOptions, options, optionValues));
}

#undef cuLinkAddFile
SIM_EXPORT CUresult CUDAAPI cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path,
                                          unsigned int numOptions, CUjit_option *options,
                                          void **optionValues);
SIM_EXPORT CUresult CUDAAPI cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path,
                                          unsigned int numOptions, CUjit_option *options,
                                          void **optionValues)
{
	cuLinkAddFile_params p = { state, type, path, numOptions, options, optionValues };
	SIM_DRIVER_CALL(cuLinkAddFile, p,
	                link_add_file(state, type, path, numOptions, options, optionValues));
}

static CUresult link_complete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
	static const char header[] = "//\n// Linked by cudasim\n//\n"
	                             ".version 8.0\n.target sm_90\n.address_size 64\n\n";
	struct sim_link *link;
	size_t size = sizeof(header);
	char *out, *at;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	if (!cubinOut || !sizeOut)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&link_lock);
	link = link_find_locked(state);
	if (!link) {
		pthread_mutex_unlock(&link_lock);
		return CUDA_ERROR_INVALID_HANDLE;
	}
	for (size_t i = 0; i < link->names.count; i++)
		size += strlen(link->names.names[i]) + 32;
	out = calloc(1, size);
	if (!out) {
		pthread_mutex_unlock(&link_lock);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	at = out + snprintf(out, size, "%s", header);
	for (size_t i = 0; i < link->names.count; i++)
		at += snprintf(at, size - (size_t)(at - out),
		               ".visible .entry %s()\n{\n\tret;\n}\n", link->names.names[i]);
	free(link->output);
	link->output = out;
	link->output_size = (size_t)(at - out) + 1;
	*cubinOut = out;
	*sizeOut = link->output_size;
	pthread_mutex_unlock(&link_lock);
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
	cuLinkComplete_params p = { state, cubinOut, sizeOut };
	SIM_DRIVER_CALL(cuLinkComplete, p, link_complete(state, cubinOut, sizeOut));
}

static CUresult link_destroy(CUlinkState state)
{
	struct sim_link *link;
	CUresult r = sim_init_status();

	if (r != CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&link_lock);
	link = link_find_locked(state);
	if (link && !pointer_set_add(&link_dead, link))
		r = CUDA_ERROR_OUT_OF_MEMORY;
	if (link && r == CUDA_SUCCESS) {
		name_list_free(&link->names);
		free(link->output);
		link->output = NULL;
	}
	pthread_mutex_unlock(&link_lock);
	return link ? r : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult CUDAAPI cuLinkDestroy(CUlinkState state)
{
	cuLinkDestroy_params p = { state };
	SIM_DRIVER_CALL(cuLinkDestroy, p, link_destroy(state));
}
