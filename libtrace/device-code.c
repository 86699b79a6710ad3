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
/* Bounds on what a damaged file can make this read. */
#define MAX_SECTIONS 4096
#define MAX_ENTRIES  200000

struct code_list {
	char *out;
	size_t size, used;
};

static bool read_at(int fd, void *buf, size_t size, uint64_t offset)
{
	return pread(fd, buf, size, (off_t)offset) == (ssize_t)size;
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
static uint64_t fatbin_read(int fd, uint64_t offset, uint64_t end, struct code_list *list,
                            unsigned *entries)
{
	unsigned char header[FATBIN_HEADER_SIZE], entry[FATBIN_ENTRY_HEADER_MIN];
	uint32_t magic, entry_header;
	uint16_t header_size;
	uint64_t size, at, payload;

	if (offset + FATBIN_HEADER_SIZE > end || !read_at(fd, header, sizeof(header), offset))
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
		if (!read_at(fd, entry, sizeof(entry), at))
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

/* The offset and size of the section called name, false if none. */
static bool section_find(int fd, const Elf64_Ehdr *eh, const char *name, uint64_t *offset,
                         uint64_t *size)
{
	Elf64_Shdr strings, sh;
	char found[32];

	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum > MAX_SECTIONS ||
	    eh->e_shstrndx >= eh->e_shnum ||
	    !read_at(fd, &strings, sizeof(strings),
	             eh->e_shoff + (uint64_t)eh->e_shstrndx * sizeof(Elf64_Shdr)))
		return false;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (!read_at(fd, &sh, sizeof(sh), eh->e_shoff + (uint64_t)i * sizeof(sh)) ||
		    sh.sh_name >= strings.sh_size)
			continue;
		memset(found, 0, sizeof(found));
		if (pread(fd, found, sizeof(found) - 1, (off_t)(strings.sh_offset + sh.sh_name)) <=
		    0)
			continue;
		if (!strcmp(found, name) && sh.sh_type != SHT_NOBITS) {
			*offset = sh.sh_offset;
			*size = sh.sh_size;
			return true;
		}
	}
	return false;
}

const char *device_code_of_file(const char *path, char *out, size_t size)
{
	struct code_list list = { .out = out, .size = size, .used = 0 };
	uint64_t offset, length, end;
	unsigned entries = 0;
	Elf64_Ehdr eh;
	int fd;

	if (!size)
		return out;
	out[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return out;
	if (read_at(fd, &eh, sizeof(eh), 0) && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	    section_find(fd, &eh, ".nv_fatbin", &offset, &length)) {
		/* Fat binaries follow one another, each 8-byte aligned. */
		for (end = offset + length; offset < end && entries < MAX_ENTRIES;) {
			uint64_t next = fatbin_read(fd, offset, end, &list, &entries);

			offset = next ? (next + 7) & ~(uint64_t)7 : offset + 8;
		}
	}
	close(fd);
	return out;
}
