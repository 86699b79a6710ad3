/* SPDX-License-Identifier: MIT */
/*
 * build-id.c - the GNU build id among an object's notes (build-id.h).
 * Each note is a header, a name and a descriptor, both padded to 4 bytes
 * (elf(5)); a note that runs past the end ends the walk.
 */
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "build-id.h"

void build_id_from_notes(const unsigned char *notes, size_t size, char *out)
{
	const unsigned char *at = notes, *end = notes + size;

	while (at + sizeof(ElfW(Nhdr)) <= end) {
		const ElfW(Nhdr) *note = (const ElfW(Nhdr) *)at;
		const unsigned char *name = at + sizeof(*note);
		const unsigned char *desc = name + ((note->n_namesz + 3) & ~3u);

		if (desc + note->n_descsz > end)
			return;
		if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
		    !memcmp(name, "GNU", 4)) {
			for (unsigned i = 0; i < note->n_descsz && i < BUILD_ID_MAX; i++)
				snprintf(out + 2 * i, 3, "%02x", desc[i]);
			return;
		}
		at = desc + ((note->n_descsz + 3) & ~3u);
	}
}
