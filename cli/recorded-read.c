/* SPDX-License-Identifier: MIT */
/*
 * recorded-read.c - what `cudatrace record` kept beside its traces
 * (recorded-read.h). Bounded against a damaged or hostile directory: at most
 * MAX_LISTS lists a directory, MAX_OBJECTS objects a list, lines of at
 * most LINE_MAX_LEN bytes (longer ones are skipped whole).
 */
#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit-lib.h"
#include "recorded-read.h"
#include "trace-info.h"

#define MAX_LISTS    4096
#define MAX_OBJECTS  100000
#define LINE_MAX_LEN (2 * 4096 + 512)

static void process_free(struct ct_recorded_process *p)
{
	for (size_t i = 0; i < p->object_count; i++) {
		free(p->objects[i].path);
		free(p->objects[i].soname);
		free(p->objects[i].build_id);
		free(p->objects[i].file);
	}
	free(p->objects);
	for (size_t i = 0; i < p->place_count; i++)
		free(p->places[i]);
	free(p->places);
	free(p->procname);
	free(p->driver_path);
}

void recorded_free(struct ct_recorded *recorded)
{
	for (size_t i = 0; i < recorded->count; i++)
		process_free(&recorded->processes[i]);
	free(recorded->processes);
	recorded->processes = NULL;
	recorded->count = 0;
}

/* The next tab-separated field of *at (cut there), "" past the end. */
static char *field(char **at)
{
	char *start = *at, *tab;

	if (!start)
		return "";
	tab = strchr(start, '\t');
	if (tab) {
		*tab = '\0';
		*at = tab + 1;
	} else {
		*at = NULL;
	}
	return start;
}

/* One line "PATH\tSONAME\tBUILD-ID\tFILE" into P. 0, 1 when it is none, -1 out of memory. */
static int add_object(struct ct_recorded_process *p, char *line, size_t *capacity)
{
	struct ct_recorded_object *o;
	char *at = line, *path = field(&at);

	if (path[0] != '/')
		return 1;
	if (p->object_count == *capacity) {
		size_t more = *capacity ? 2 * *capacity : 64;
		struct ct_recorded_object *bigger = realloc(p->objects, more * sizeof(*bigger));

		if (!bigger)
			return -1;
		p->objects = bigger;
		*capacity = more;
	}
	o = &p->objects[p->object_count];
	o->path = strdup(path);
	o->soname = strdup(field(&at));
	o->build_id = strdup(field(&at));
	o->file = strdup(field(&at));
	if (!o->path || !o->soname || !o->build_id || !o->file) {
		free(o->path);
		free(o->soname);
		free(o->build_id);
		free(o->file);
		return -1;
	}
	p->object_count++;
	return 0;
}

/* The objects of list FILE into P. 0, or -1 out of memory. */
static int read_list(const char *file, struct ct_recorded_process *p)
{
	FILE *f = fopen(file, "re");
	char line[LINE_MAX_LEN];
	size_t capacity = 0;
	int ret = 0;

	if (!f)
		return 0;
	while (ret >= 0 && p->object_count < MAX_OBJECTS && fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		if (!n || line[n - 1] != '\n') {
			/* Too long, or cut by a process killed as it wrote: skipped. */
			int c;

			while (n == sizeof(line) - 1 && (c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		line[n - 1] = '\0';
		ret = add_object(p, line, &capacity);
	}
	fclose(f);
	return ret < 0 ? -1 : 0;
}

/* The ':'-separated places of cudatrace.info into P. 0, or -1 out of memory. */
static int read_places(const char *list, struct ct_recorded_process *p)
{
	size_t max = 1;

	for (const char *c = list; *c; c++)
		max += *c == ':';
	p->places = calloc(max, sizeof(*p->places));
	if (!p->places)
		return -1;
	while (*list) {
		size_t n = strcspn(list, ":");

		if (n && !(p->places[p->place_count++] = strndup(list, n)))
			return -1;
		list += n + (list[n] == ':');
	}
	return 0;
}

static char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return strdup(slash ? slash + 1 : path);
}

/* A pid from "objects-PID", or -1. */
static long list_pid(const char *name)
{
	const char *digits = name + strlen(AUDIT_FILE_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, AUDIT_FILE_PREFIX, strlen(AUDIT_FILE_PREFIX)) || !isdigit(*digits))
		return -1;
	pid = strtol(digits, &end, 10);
	return *end || pid <= 0 ? -1 : pid;
}

static int read_dir(const char *dir, struct ct_recorded *out)
{
	struct trace_info info;
	bool has_info = trace_info_read(dir, &info) == 0;
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t lists = 0;
	int ret = 0;

	if (!d)
		return 0;
	while (ret == 0 && lists < MAX_LISTS && (de = readdir(d))) {
		long pid = list_pid(de->d_name);
		struct ct_recorded_process *p, *bigger;
		char file[4096 + 300];

		if (pid < 0 ||
		    snprintf(file, sizeof(file), "%s/%s", dir, de->d_name) >= (int)sizeof(file))
			continue;
		lists++;
		bigger = realloc(out->processes, (out->count + 1) * sizeof(*bigger));
		if (!bigger) {
			ret = -1;
			break;
		}
		out->processes = bigger;
		p = &out->processes[out->count];
		memset(p, 0, sizeof(*p));
		p->pid = pid;
		p->driver_cuda = has_info ? info.driver_cuda : 0;
		p->driver_path = strdup(has_info ? info.driver_path : "");
		ret = p->driver_path ? read_list(file, p) : -1;
		if (ret == 0 && has_info)
			ret = read_places(info.library_places, p);
		p->procname = base_name(p->object_count ? p->objects[0].path : "");
		if (!p->procname)
			ret = -1;
		out->count++;
	}
	closedir(d);
	return ret;
}

int recorded_read(char *const *paths, size_t count, struct ct_recorded *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < count; i++)
		if (read_dir(paths[i], out) < 0) {
			recorded_free(out);
			return -1;
		}
	return 0;
}
