/* SPDX-License-Identifier: MIT */
/*
 * device-code.c - the architectures in the fat binaries of an ELF file.
 *
 * nvcc puts the device code of a program or library in its `.nv_fatbin`
 * section: fat binaries one after another (8-byte aligned), each a
 * header (magic 0xBA55ED50, header size at 6, size of its entries at 8;
 * fatbinary_section.h names the wrapper and sections) and entries. NVIDIA
 * does not document the entries; as nvcc writes them and `cuobjdump
 * --list-elf --list-ptx` reads them: kind at 0 (1 PTX, 2 cubin), header
 * size at 4, payload size at 8, architecture at 28 (90 for sm_90), flags
 * at 40 (0x100000 arch-specific, 0x200000 family-specific).
 *
 * Only the headers are read (pread), never the code: a library such as
 * libtorch_cuda.so carries gigabytes of it. The file is the one on disk,
 * read after it was loaded; nothing of the process's memory is touched.
 *
 * A module's image, as CUPTI hands it over when the module is loaded
 * (CUpti_ModuleResourceData's pCubin and cubinSize), is read the same
 * way in memory, within the size given: a fat binary's entries are
 * listed, a single cubin's architecture read from its ELF header.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "device-code.h"

#define FATBIN_MAGIC            0xBA55ED50u
#define FATBIN_HEADER_SIZE      16
#define FATBIN_ENTRY_HEADER_MIN 64
#define FATBIN_KIND_PTX         1
#define FATBIN_KIND_ELF         2
#define FATBIN_FLAG_ARCH        0x100000u
#define FATBIN_FLAG_FAMILY      0x200000u
/* A fat binary's size, as its header gives it, past which it is not believed. */
#define FATBIN_SIZE_MAX (1ull << 32)
#define EM_CUDA_MACHINE 190 /* elf.h's EM_CUDA */
/* How far into PTX text its .target directive is looked for. */
#define PTX_TARGET_WITHIN 4096
/* Bounds on what a damaged file can make this read. */
#define MAX_SECTIONS 4096
#define MAX_ENTRIES  200000

struct code_list {
	char *out;
	size_t size, used;
};

/* What is read: a file (fd), or an image of size bytes in memory. */
struct source {
	int fd;
	const unsigned char *image;
	uint64_t size;
};

static bool read_at(const struct source *src, void *buf, size_t size, uint64_t offset)
{
	if (!src->image)
		return pread(src->fd, buf, size, (off_t)offset) == (ssize_t)size;
	if (offset > src->size || size > src->size - offset)
		return false;
	memcpy(buf, src->image + offset, size);
	return true;
}

/* name, unless the list has it already. */
static void code_add(struct code_list *list, const char *name)
{
	const char *at = list->out;
	size_t n = strlen(name);
	int written;

	while ((at = strstr(at, name)) != NULL) {
		if ((at == list->out || at[-1] == ',') && (at[n] == ',' || at[n] == '\0'))
			return;
		at += n;
	}
	written = snprintf(list->out + list->used, list->size - list->used, "%s%s",
	                   list->used ? "," : "", name);
	if (written > 0 && (size_t)written < list->size - list->used)
		list->used += (size_t)written;
	else
		list->out[list->used] = '\0'; /* no room: the list ends before it */
}

static void entry_add(struct code_list *list, const unsigned char *header)
{
	uint16_t kind;
	uint32_t arch;
	uint64_t flags;
	char name[32];

	memcpy(&kind, header, 2);
	memcpy(&arch, header + 28, 4);
	memcpy(&flags, header + 40, 8);
	if (kind != FATBIN_KIND_PTX && kind != FATBIN_KIND_ELF)
		return;
	snprintf(name, sizeof(name), "%s_%u%s", kind == FATBIN_KIND_PTX ? "compute" : "sm", arch,
	         (flags & FATBIN_FLAG_ARCH)     ? "a"
	         : (flags & FATBIN_FLAG_FAMILY) ? "f"
	                                        : "");
	code_add(list, name);
}

/* The entries of the fat binary at offset; returns its end, or 0 when
 * there is none there. */
static uint64_t fatbin_read(const struct source *src, uint64_t offset, uint64_t end,
                            struct code_list *list, unsigned *entries)
{
	unsigned char header[FATBIN_HEADER_SIZE], entry[FATBIN_ENTRY_HEADER_MIN];
	uint32_t magic, entry_header;
	uint16_t header_size;
	uint64_t size, at, payload;

	if (offset + FATBIN_HEADER_SIZE > end || !read_at(src, header, sizeof(header), offset))
		return 0;
	memcpy(&magic, header, 4);
	memcpy(&header_size, header + 6, 2);
	memcpy(&size, header + 8, 8);
	if (magic != FATBIN_MAGIC || header_size < FATBIN_HEADER_SIZE ||
	    size > end - offset - header_size)
		return 0;
	for (at = offset + header_size;
	     at + sizeof(entry) <= offset + header_size + size && *entries < MAX_ENTRIES;
	     (*entries)++) {
		if (!read_at(src, entry, sizeof(entry), at))
			break;
		memcpy(&entry_header, entry + 4, 4);
		memcpy(&payload, entry + 8, 8);
		if (entry_header < FATBIN_ENTRY_HEADER_MIN ||
		    payload > offset + header_size + size - at - entry_header)
			break;
		entry_add(list, entry);
		at += entry_header + payload;
	}
	return offset + header_size + size;
}

/* How much of a name at offset can be read, at most max (a file: max,
 * pread stops at its end). */
static size_t name_room(const struct source *src, uint64_t offset, size_t max)
{
	if (!src->image)
		return max;
	return offset >= src->size ? 0 : src->size - offset < max ? src->size - offset : max;
}

/* The offset and size of the section called name, false if none. */
static bool section_find(const struct source *src, const Elf64_Ehdr *eh, const char *name,
                         uint64_t *offset, uint64_t *size)
{
	Elf64_Shdr strings, sh;
	char found[32];

	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum > MAX_SECTIONS ||
	    eh->e_shstrndx >= eh->e_shnum ||
	    !read_at(src, &strings, sizeof(strings),
	             eh->e_shoff + (uint64_t)eh->e_shstrndx * sizeof(Elf64_Shdr)))
		return false;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (!read_at(src, &sh, sizeof(sh), eh->e_shoff + (uint64_t)i * sizeof(sh)) ||
		    sh.sh_name >= strings.sh_size)
			continue;
		memset(found, 0, sizeof(found));
		if (!read_at(src, found,
		             name_room(src, strings.sh_offset + sh.sh_name, sizeof(found) - 1),
		             strings.sh_offset + sh.sh_name))
			continue;
		if (!strcmp(found, name) && sh.sh_type != SHT_NOBITS) {
			*offset = sh.sh_offset;
			*size = sh.sh_size;
			return true;
		}
	}
	return false;
}

/* The fat binaries from offset to offset + length, one after another,
 * each 8-byte aligned. */
static void fatbins_read(const struct source *src, uint64_t offset, uint64_t length,
                         struct code_list *list)
{
	unsigned entries = 0;

	for (uint64_t end = offset + length; offset < end && entries < MAX_ENTRIES;) {
		uint64_t next = fatbin_read(src, offset, end, list, &entries);

		offset = next ? (next + 7) & ~(uint64_t)7 : offset + 8;
	}
}

const char *device_code_of_file(const char *path, char *out, size_t size)
{
	struct code_list list = { .out = out, .size = size, .used = 0 };
	struct source src = { .fd = -1 };
	uint64_t offset, length;
	Elf64_Ehdr eh;

	if (!size)
		return out;
	out[0] = '\0';
	src.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (src.fd < 0)
		return out;
	if (read_at(&src, &eh, sizeof(eh), 0) && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	    section_find(&src, &eh, ".nv_fatbin", &offset, &length))
		fatbins_read(&src, offset, length, &list);
	close(src.fd);
	return out;
}

/* A cubin: its SM, from e_flags (ELF ABI 8 moved it up a byte). */
static void cubin_add(const unsigned char *image, struct code_list *list)
{
	Elf64_Ehdr eh;
	unsigned sm;
	char name[32];

	memcpy(&eh, image, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_CUDA_MACHINE)
		return;
	sm = eh.e_ident[EI_ABIVERSION] >= 8 ? (eh.e_flags >> 8) & 0xff : eh.e_flags & 0xff;
	if (!sm)
		return;
	snprintf(name, sizeof(name), "sm_%u", sm);
	code_add(list, name);
}

const char *device_code_of_image(const void *image, size_t image_size, char *out, size_t size)
{
	struct code_list list = { .out = out, .size = size, .used = 0 };
	struct source src = { .fd = -1, .image = image, .size = image_size };
	uint32_t magic;

	if (!size)
		return out;
	out[0] = '\0';
	if (!image || !read_at(&src, &magic, sizeof(magic), 0))
		return out;
	if (magic == FATBIN_MAGIC)
		fatbins_read(&src, 0, image_size, &list);
	else if (!memcmp(&magic, ELFMAG, SELFMAG) && image_size >= sizeof(Elf64_Ehdr))
		cubin_add(image, &list);
	return out;
}

/* Whether image starts with the n bytes of magic, read one at a time: an
 * image shorter than that (a PTX string) ends in a NUL that differs. */
static bool starts_with(const unsigned char *image, const unsigned char *magic, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (image[i] != magic[i])
			return false;
	return true;
}

/* PTX text: the architecture of its .target directive (PTX ISA, "Target
 * Directives": ".target sm_80"), as compute_80. */
static void ptx_add(const char *text, struct code_list *list)
{
	size_t n = strnlen(text, PTX_TARGET_WITHIN);
	char head[PTX_TARGET_WITHIN + 1], name[32];
	const char *target;
	unsigned arch;
	char variant[2] = "";

	memcpy(head, text, n);
	head[n] = '\0';
	if (!strstr(head, ".version") || !(target = strstr(head, ".target")))
		return;
	if (sscanf(target, ".target sm_%u%1[af]", &arch, variant) < 1)
		return;
	snprintf(name, sizeof(name), "compute_%u%s", arch, variant);
	code_add(list, name);
}

const char *device_code_of_load_image(const void *image, char *out, size_t size)
{
	static const unsigned char fatbin[] = { 0x50, 0xed, 0x55, 0xba };
	static const unsigned char elf[] = { 0x7f, 'E', 'L', 'F' };
	struct code_list list = { .out = out, .size = size, .used = 0 };
	const unsigned char *bytes = image;

	if (!size)
		return out;
	out[0] = '\0';
	if (!image)
		return out;
	if (starts_with(bytes, fatbin, sizeof(fatbin))) {
		uint16_t header_size;
		uint64_t fat_size;

		memcpy(&header_size, bytes + 6, 2);
		memcpy(&fat_size, bytes + 8, 8);
		if (header_size >= FATBIN_HEADER_SIZE && fat_size < FATBIN_SIZE_MAX)
			return device_code_of_image(image, header_size + (size_t)fat_size, out,
			                            size);
	} else if (starts_with(bytes, elf, sizeof(elf))) {
		cubin_add(bytes, &list);
	} else {
		ptx_add(image, &list);
	}
	return out;
}

int device_code_ptx_isa(const void *image)
{
	const char *text = image;
	size_t n;
	char head[PTX_TARGET_WITHIN + 1];
	const char *version;
	unsigned major, minor;

	if (!image)
		return 0;
	n = strnlen(text, PTX_TARGET_WITHIN);
	memcpy(head, text, n);
	head[n] = '\0';
	version = strstr(head, ".version");
	if (!version || !strstr(head, ".target") ||
	    sscanf(version, ".version %u.%u", &major, &minor) != 2 || major > 99 || minor > 9)
		return 0;
	return (int)(major * 10 + minor);
}
