/* SPDX-License-Identifier: MIT */
/*
 * audit.c - libcudatrace-audit.so: the shared objects a traced process
 * loads, seen through the dynamic linker's audit interface (rtld-audit(7))
 * that `cudatrace record` names in LD_AUDIT.
 *
 * The injection library sees what the process loaded only once the CUDA
 * driver has loaded it (cuInit). A runtime that refuses to start (a driver
 * too old for it: cudaErrorInsufficientDriver) never gets that far, and
 * then this list is what says which runtime the program had. The dynamic
 * linker calls la_objopen for every object it maps, the program and its
 * dependencies at start and whatever dlopen loads later; nothing of the
 * program is interposed.
 *
 * For each object one line is appended to $CUDATRACE_AUDIT_DIR/objects-PID
 * (PID: the process's, so that a child after fork or exec writes its own):
 *
 *     PATH <TAB> SONAME <TAB> BUILD-ID <TAB> FILE <NL>
 *
 * the path as the dynamic linker resolved it, the soname and the GNU
 * build id read from the file's program headers (pread: the object is
 * not touched in memory, where the linker has not relocated it yet), and
 * the file the path leads to through symbolic links (libcudart.so.13 is
 * libcudart.so.13.0.48: the name with the whole version).
 * Objects whose path holds a tab or a newline are left out: the line
 * could not be read back.
 *
 * The traced program comes first. The library asks for no symbol binding
 * (la_objopen returns 0), so that calls are not slowed; it keeps no state
 * and no lock, allocates nothing, and restores errno; when it cannot write
 * it writes nothing. Being in its own link namespace, it cannot change
 * which symbols the program binds to.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "build-id.h"

#define MAX_PHDRS    64
#define MAX_DYN      512
#define LINE_MAX_LEN (2 * 4096 + 256 + BUILD_ID_TEXT + 4)

#define EXPORT __attribute__((visibility("default")))

struct elf_file {
	int fd;
	Elf64_Phdr ph[MAX_PHDRS];
	unsigned phnum;
};

static int read_at(int fd, void *buf, size_t size, uint64_t offset)
{
	return pread(fd, buf, size, (off_t)offset) == (ssize_t)size;
}

static int elf_open(const char *path, struct elf_file *f)
{
	Elf64_Ehdr eh;

	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return 0;
	if (!read_at(f->fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
		close(f->fd);
		return 0;
	}
	f->phnum = eh.e_phnum < MAX_PHDRS ? eh.e_phnum : MAX_PHDRS;
	if (!read_at(f->fd, f->ph, f->phnum * sizeof(Elf64_Phdr), eh.e_phoff)) {
		close(f->fd);
		return 0;
	}
	return 1;
}

/* The file offset of a virtual address, through the loadable segments. */
static int vaddr_offset(const struct elf_file *f, uint64_t vaddr, uint64_t *offset)
{
	for (unsigned i = 0; i < f->phnum; i++) {
		const Elf64_Phdr *p = &f->ph[i];

		if (p->p_type == PT_LOAD && vaddr >= p->p_vaddr &&
		    vaddr < p->p_vaddr + p->p_filesz) {
			*offset = p->p_offset + (vaddr - p->p_vaddr);
			return 1;
		}
	}
	return 0;
}

static void read_soname(const struct elf_file *f, const Elf64_Phdr *dynamic, char *out, size_t size)
{
	Elf64_Dyn dyn;
	uint64_t strtab = 0, soname = 0, at;
	int has_soname = 0;

	for (unsigned i = 0; i < MAX_DYN && (i + 1) * sizeof(dyn) <= dynamic->p_filesz; i++) {
		if (!read_at(f->fd, &dyn, sizeof(dyn), dynamic->p_offset + i * sizeof(dyn)) ||
		    dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag == DT_STRTAB)
			strtab = dyn.d_un.d_ptr;
		else if (dyn.d_tag == DT_SONAME) {
			soname = dyn.d_un.d_val;
			has_soname = 1;
		}
	}
	if (!has_soname || !vaddr_offset(f, strtab + soname, &at))
		return;
	memset(out, 0, size);
	if (pread(f->fd, out, size - 1, (off_t)at) <= 0)
		out[0] = '\0';
	out[strcspn(out, "\t\n")] = '\0';
}

static void read_build_id(const struct elf_file *f, const Elf64_Phdr *note_seg, char *out)
{
	unsigned char notes[4096];
	size_t n = note_seg->p_filesz < sizeof(notes) ? note_seg->p_filesz : sizeof(notes);

	if (read_at(f->fd, notes, n, note_seg->p_offset))
		build_id_from_notes(notes, n, out);
}

static void describe(const char *path, char *soname, size_t soname_size, char *build_id)
{
	struct elf_file f;

	if (!elf_open(path, &f))
		return;
	for (unsigned i = 0; i < f.phnum; i++) {
		if (f.ph[i].p_type == PT_DYNAMIC)
			read_soname(&f, &f.ph[i], soname, soname_size);
		else if (f.ph[i].p_type == PT_NOTE && !build_id[0])
			read_build_id(&f, &f.ph[i], build_id);
	}
	close(f.fd);
}

/* The program itself comes with an empty name. */
static const char *object_path(const struct link_map *map, char *buf, size_t size)
{
	ssize_t n;

	if (map->l_name && map->l_name[0])
		return map->l_name;
	n = readlink("/proc/self/exe", buf, size - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

static void note_object(const struct link_map *map)
{
	const char *dir = getenv(AUDIT_DIR_ENV);
	char exe[4096], file[4096 + 32], line[LINE_MAX_LEN], soname[256] = "";
	char build_id[BUILD_ID_TEXT] = "", real[4096];
	const char *path;
	int fd, n;

	if (!dir || dir[0] != '/')
		return;
	path = object_path(map, exe, sizeof(exe));
	/* The vDSO has no file. */
	if (!path || path[0] != '/' || path[strcspn(path, "\t\n")])
		return;
	describe(path, soname, sizeof(soname), build_id);
	if (!realpath(path, real) || real[strcspn(real, "\t\n")])
		real[0] = '\0';
	n = snprintf(line, sizeof(line), "%s\t%s\t%s\t%s\n", path, soname, build_id, real);
	if (n <= 0 || (size_t)n >= sizeof(line))
		return;
	if (snprintf(file, sizeof(file), "%s/" AUDIT_FILE_PREFIX "%ld", dir, (long)getpid()) >=
	    (int)sizeof(file))
		return;
	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	/* One write of a line under PIPE_BUF: whole even if threads race. */
	(void)!write(fd, line, (size_t)n);
	close(fd);
}

EXPORT unsigned int la_version(unsigned int version)
{
	(void)version;
	return LAV_CURRENT;
}

EXPORT unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	int saved = errno;

	(void)cookie;
	/* The linker reports no object of the audit libraries' own namespace. */
	(void)lmid;
	note_object(map);
	errno = saved;
	return 0;
}
