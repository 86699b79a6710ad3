/* SPDX-License-Identifier: MIT */
/*
 * snapshot.c - the newest snapshot of a flight recorder's output, the one
 * part of it that `cudatrace report`, record's summary and list read.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"

void snapshot_newest(const char *dir, char *buf, size_t len)
{
	long best = -1;
	struct dirent *de;
	DIR *d = opendir(dir);

	snprintf(buf, len, "%s", dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *dash = strrchr(de->d_name, '-');
		char *end;
		long seq;

		if (strncmp(de->d_name, "snapshot-", 9) != 0 || !dash)
			continue;
		seq = strtol(dash + 1, &end, 10);
		if (end == dash + 1 || *end != '\0' || seq <= best)
			continue;
		best = seq;
		snprintf(buf, len, "%s/%s", dir, de->d_name);
	}
	closedir(d);
}
