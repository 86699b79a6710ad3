/* SPDX-License-Identifier: MIT */
/*
 * recorded.c - what the recorder's lists say of a process (recorded.h).
 */
#include "compat.h"
#include "recorded.h"

bool ct_recorded_loaded_cuda(const struct ct_recorded_process *process)
{
	char name[64], version[64];

	for (size_t i = 0; i < process->object_count; i++)
		if (ct_library_identify(process->objects[i].path, name, sizeof(name), version,
		                        sizeof(version)))
			return true;
	return false;
}
