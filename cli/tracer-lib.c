/* SPDX-License-Identifier: MIT */
/*
 * tracer-lib.c - finding libcudatrace.so. The driver dlopens
 * CUDA_INJECTION64_PATH when the program first calls cuInit, perhaps after
 * it changed directory, so the path handed over is absolute.
 *
 * The installed library is looked for first where it lies relative to
 * this very command (an installed tree moved whole, or staged under
 * DESTDIR, keeps bindir and pkglibdir in the same relation), then in the
 * pkglibdir configure was given.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdbool.h>

#include "diag.h"
#include "tracer-lib.h"

#ifndef CUDATRACE_PKGLIBDIR
#error "CUDATRACE_PKGLIBDIR (the directory libcudatrace.so is installed in) must be defined"
#endif
#ifndef CUDATRACE_BINDIR
#error "CUDATRACE_BINDIR (the directory cudatrace is installed in) must be defined"
#endif

const char *tracer_lib_installed(void)
{
	return CUDATRACE_PKGLIBDIR "/" TRACER_LIB_NAME;
}

int tracer_lib_relative(const char *bindir, const char *pkglibdir, const char *command_dir,
                        char *out, size_t len)
{
	size_t common = 0, i, up = 0, dir_len;
	const char *rest;
	int n;

	if (bindir[0] != '/' || pkglibdir[0] != '/' || command_dir[0] != '/')
		return -1;
	/* The directories both paths share, up to a '/'. */
	for (i = 0; bindir[i] && bindir[i] == pkglibdir[i]; i++)
		if (bindir[i] == '/')
			common = i;
	if ((bindir[i] == '\0' || bindir[i] == '/') &&
	    (pkglibdir[i] == '\0' || pkglibdir[i] == '/'))
		common = i;
	/* One level up from the command's directory per directory of bindir past them. */
	for (i = common; bindir[i]; i++)
		if (bindir[i] == '/' && bindir[i + 1] && bindir[i + 1] != '/')
			up++;
	dir_len = strlen(command_dir);
	while (dir_len > 1 && command_dir[dir_len - 1] == '/')
		dir_len--;
	for (; up > 0; up--) {
		if (dir_len <= 1)
			return -1; /* above the root */
		while (dir_len > 0 && command_dir[dir_len - 1] != '/')
			dir_len--;
		while (dir_len > 1 && command_dir[dir_len - 1] == '/')
			dir_len--;
	}
	if (dir_len == 1)
		dir_len = 0; /* the root: what follows starts with '/' */
	/* Empty, or from the '/' after the shared directories on. */
	rest = pkglibdir + common;
	n = snprintf(out, len, "%.*s%s/" TRACER_LIB_NAME, (int)dir_len, command_dir, rest);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The library beside this command, if it is there: 0 with its path in OUT. */
static int beside_command(char *out, size_t len)
{
	char self[PATH_MAX], path[PATH_MAX], *slash;
	struct stat st;

	if (!realpath("/proc/self/exe", self) || !(slash = strrchr(self, '/')))
		return -1;
	*slash = '\0';
	if (tracer_lib_relative(CUDATRACE_BINDIR, CUDATRACE_PKGLIBDIR, self[0] ? self : "/", path,
	                        sizeof(path)) < 0 ||
	    stat(path, &st) != 0 || !S_ISREG(st.st_mode) || !realpath(path, self) ||
	    strlen(self) >= len)
		return -1;
	strcpy(out, self);
	return 0;
}

/* The ELF header of this very command: the machine the library must be built for. */
static int own_machine(Elf64_Half *machine)
{
	Elf64_Ehdr self;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, &self, sizeof(self)) : -1;

	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof(self) || memcmp(self.e_ident, ELFMAG, SELFMAG) != 0)
		return -1;
	*machine = self.e_machine;
	return 0;
}

/* SIZE bytes at OFFSET lie within a file of FILE_SIZE bytes. */
static bool within(uint64_t offset, uint64_t size, uint64_t file_size)
{
	return offset <= file_size && size <= file_size - offset;
}

/* The dynamic symbol table of IMAGE defines NAME as a function. */
static bool defines_function(const unsigned char *image, uint64_t size, const Elf64_Ehdr *eh,
                             const char *name)
{
	const Elf64_Shdr *sections = (const void *)(image + eh->e_shoff);

	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *symtab = &sections[i], *strtab;
		const Elf64_Sym *syms;

		if (symtab->sh_type != SHT_DYNSYM || symtab->sh_link >= eh->e_shnum ||
		    symtab->sh_entsize != sizeof(Elf64_Sym) ||
		    !within(symtab->sh_offset, symtab->sh_size, size))
			continue;
		strtab = &sections[symtab->sh_link];
		if (!within(strtab->sh_offset, strtab->sh_size, size))
			continue;
		syms = (const void *)(image + symtab->sh_offset);
		for (uint64_t k = 0; k < symtab->sh_size / sizeof(Elf64_Sym); k++) {
			unsigned type = ELF64_ST_TYPE(syms[k].st_info);
			unsigned bind = ELF64_ST_BIND(syms[k].st_info);
			const char *sym = (const char *)image + strtab->sh_offset + syms[k].st_name;

			if (syms[k].st_name >= strtab->sh_size || syms[k].st_shndx == SHN_UNDEF ||
			    (type != STT_FUNC && type != STT_GNU_IFUNC) ||
			    (bind != STB_GLOBAL && bind != STB_WEAK) ||
			    ELF64_ST_VISIBILITY(syms[k].st_other) != STV_DEFAULT)
				continue;
			if (strnlen(sym, strtab->sh_size - syms[k].st_name) == strlen(name) &&
			    strcmp(sym, name) == 0)
				return true;
		}
	}
	return false;
}

/*
 * What is wrong with IMAGE (SIZE bytes) as CUDA's injection library, or
 * NULL when it is one: a 64-bit shared object for this machine that
 * exports the entry point the driver calls.
 */
static const char *injection_problem(const unsigned char *image, uint64_t size)
{
	const Elf64_Ehdr *eh = (const void *)image;
	Elf64_Half machine;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return "it is not a shared library (not an ELF file)";
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return "it is a 32-bit library: CUDA_INJECTION64_PATH takes 64-bit ones only";
	if (own_machine(&machine) == 0 && eh->e_machine != machine)
		return "it is built for another kind of processor";
	if (eh->e_type != ET_DYN)
		return eh->e_type == ET_EXEC ? "it is an executable, not a shared library"
		                             : "it is not a shared library";
	if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !within(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), size))
		return "it is a damaged shared library (its section table lies outside it)";
	if (!defines_function(image, size, eh, TRACER_ENTRY_POINT))
		return "it exports no " TRACER_ENTRY_POINT ", the entry point CUDA calls: it is "
		       "not cudatrace's tracing library";
	return NULL;
}

int tracer_lib_check(const char *path, char *why, size_t len)
{
	struct stat st;
	const char *problem;
	void *image;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(why, len, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		snprintf(why, len, "it is not a shared library (not an ELF file)");
		return -1;
	}
	image = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (image == MAP_FAILED) {
		snprintf(why, len, "cannot read it: %s", strerror(errno));
		return -1;
	}
	problem = injection_problem(image, (uint64_t)st.st_size);
	munmap(image, (size_t)st.st_size);
	if (problem) {
		snprintf(why, len, "%s", problem);
		return -1;
	}
	return 0;
}

static int check(const char *path, const char *origin, char *out, size_t len)
{
	char why[256];
	char resolved[PATH_MAX];
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		diag_error("the tracing library %s (%s) is not there: %s", path, origin,
		           "reinstall cudatrace, or name libcudatrace.so with --library=PATH "
		           "or " TRACER_LIB_ENV);
		return -1;
	}
	if (access(path, R_OK) != 0) {
		diag_error("the tracing library %s (%s) cannot be read: %s", path, origin,
		           strerror(errno));
		return -1;
	}
	if (!realpath(path, resolved) || strlen(resolved) >= len) {
		diag_error("the tracing library %s (%s): cannot resolve its path: %s", path, origin,
		           strerror(errno ? errno : ENAMETOOLONG));
		return -1;
	}
	if (tracer_lib_check(resolved, why, sizeof(why)) < 0) {
		diag_error("the tracing library %s (%s) cannot be used: %s: name libcudatrace.so "
		           "with --library=PATH or " TRACER_LIB_ENV,
		           path, origin, why);
		return -1;
	}
	strcpy(out, resolved);
	return 0;
}

int tracer_lib_for_cupti(char *path, size_t len, int cupti_major)
{
	char sibling[PATH_MAX];
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	struct stat st;
	int n;

	if (cupti_major != 12 || strcmp(base, TRACER_LIB_NAME) != 0)
		return 0;
	n = snprintf(sibling, sizeof(sibling), "%.*s" TRACER_LIB_CUDA12_NAME, (int)(base - path),
	             path);
	if (n < 0 || (size_t)n >= sizeof(sibling) || (size_t)n >= len || stat(sibling, &st) != 0 ||
	    !S_ISREG(st.st_mode))
		return -1;
	strcpy(path, sibling);
	return 0;
}

int tracer_lib_find(const char *option, char *out, size_t len)
{
	const char *env = getenv(TRACER_LIB_ENV);

	if (option)
		return check(option, "named by --library", out, len);
	if (env && *env)
		return check(env, "named by " TRACER_LIB_ENV, out, len);
	if (beside_command(out, len) == 0)
		return 0;
	return check(tracer_lib_installed(), "the installed one", out, len);
}
