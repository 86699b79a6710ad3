/* SPDX-License-Identifier: MIT */
/*
 * cgroup.c - the memory cgroup of a process and its OOM-kill counter and
 * limit (cgroup.h).
 *
 * The cgroup's directory is its path in /proc/PID/cgroup, taken relative
 * to the root the file system was mounted from (mountinfo's fourth field:
 * not "/" inside a cgroup namespace or a bind mount), under the mount
 * point. A v1 memory hierarchy is preferred where both are mounted: on
 * such a machine the v2 hierarchy has no memory controller.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"

/* A limit at or above this is "no limit" (v1 writes PAGE_COUNTER_MAX pages as bytes). */
#define NO_LIMIT (1ull << 62)

/* A cgroup file system's mount: its root in the hierarchy and where it is. */
struct mount {
	char root[PATH_MAX];
	char point[PATH_MAX];
};

/* Whether the comma-separated LIST holds WORD. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, word, n) == 0 && (p[n] == ',' || p[n] == '\0' || p[n] == '\n'))
			return true;
	return false;
}

/*
 * The mount of the v1 memory hierarchy (VERSION 1) or of the v2 one (2),
 * from /proc/self/mountinfo. 0 or -1.
 */
static int find_mount(int version, struct mount *m)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int found = -1;

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		char root[PATH_MAX], point[PATH_MAX], type[64], opts[1024];
		const char *dash = strstr(line, " - ");

		if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", type, opts) != 2)
			continue;
		if ((version == 1 && !strcmp(type, "cgroup") && has_word(opts, "memory")) ||
		    (version == 2 && !strcmp(type, "cgroup2"))) {
			snprintf(m->root, sizeof(m->root), "%s", root);
			snprintf(m->point, sizeof(m->point), "%s", point);
			found = 0;
		}
	}
	fclose(f);
	return found;
}

/*
 * PID's path in the hierarchy of VERSION, from /proc/PID/cgroup: the line
 * whose controllers name memory (v1) or the line "0::PATH" (v2). 0 or -1.
 */
static int process_path(pid_t pid, int version, char *path, size_t len)
{
	char file[64], line[PATH_MAX + 128];
	FILE *f;
	int found = -1;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		char *controllers = strchr(line, ':'), *p;

		if (!controllers)
			continue;
		p = strchr(++controllers, ':');
		if (!p)
			continue;
		*p++ = '\0';
		p[strcspn(p, "\n")] = '\0';
		if ((version == 1 && has_word(controllers, "memory")) ||
		    (version == 2 && !strncmp(line, "0:", 2) && !*controllers)) {
			snprintf(path, len, "%s", p);
			found = 0;
		}
	}
	fclose(f);
	return found;
}

/* The value after "KEY " in FILE (memory.events, memory.oom_control). 0 or -1. */
static int read_key(const char *file, const char *key, uint64_t *value)
{
	FILE *f = fopen(file, "re");
	char line[256];
	size_t n = strlen(key);
	int found = -1;

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ' ') {
			*value = strtoull(line + n + 1, NULL, 10);
			found = 0;
		}
	fclose(f);
	return found;
}

/* The number in FILE; "max" (v2: no limit) reads as NO_LIMIT. 0 or -1. */
static int read_number(const char *file, uint64_t *value)
{
	FILE *f = fopen(file, "re");
	char text[64] = "";
	int ok;

	if (!f)
		return -1;
	ok = fgets(text, sizeof(text), f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	*value = !strncmp(text, "max", 3) ? NO_LIMIT : strtoull(text, NULL, 10);
	return 0;
}

/* The lowest limit of CG's directory and its ancestors, up to its mount point. */
static void read_limit(struct cgroup_memory *cg)
{
	const char *name = cg->version == 1 ? "memory.limit_in_bytes" : "memory.max";
	char dir[PATH_MAX], file[PATH_MAX + 32];
	size_t top = strlen(cg->mount);

	snprintf(dir, sizeof(dir), "%s", cg->dir);
	cg->limit_known = false;
	for (;;) {
		uint64_t limit;
		char *slash;

		snprintf(file, sizeof(file), "%s/%s", dir, name);
		if (read_number(file, &limit) == 0 && limit < NO_LIMIT &&
		    (!cg->limit_known || limit < cg->limit_bytes)) {
			cg->limit_known = true;
			cg->limit_bytes = limit;
		}
		slash = strrchr(dir, '/');
		if (strlen(dir) <= top || !slash)
			break;
		*slash = '\0';
	}
}

int cgroup_memory_refresh(struct cgroup_memory *cg)
{
	char file[PATH_MAX + 32];

	if (!cg->version)
		return -1;
	snprintf(file, sizeof(file), "%s/%s", cg->dir,
	         cg->version == 1 ? "memory.oom_control" : "memory.events");
	cg->oom_kills_known = read_key(file, "oom_kill", &cg->oom_kills) == 0;
	read_limit(cg);
	return cg->oom_kills_known ? 0 : -1;
}

int cgroup_memory_of(pid_t pid, struct cgroup_memory *cg)
{
	char path[PATH_MAX];
	struct mount m;

	memset(cg, 0, sizeof(*cg));
	for (int version = 1; version <= 2 && !cg->version; version++) {
		size_t root;

		if (find_mount(version, &m) < 0 ||
		    process_path(pid, version, path, sizeof(path)) < 0)
			continue;
		/* The path as the mount shows it: relative to the root it was mounted from. */
		root = strcmp(m.root, "/") ? strlen(m.root) : 0;
		if (root && strncmp(path, m.root, root) != 0)
			continue;
		if (snprintf(cg->dir, sizeof(cg->dir), "%s%s", m.point, path + root) >=
		    (int)sizeof(cg->dir))
			continue;
		/* "/" at the root: no trailing slash. */
		if (strlen(cg->dir) > 1 && cg->dir[strlen(cg->dir) - 1] == '/')
			cg->dir[strlen(cg->dir) - 1] = '\0';
		cg->version = version;
		snprintf(cg->mount, sizeof(cg->mount), "%s", m.point);
	}
	if (!cg->version)
		return -1;
	(void)cgroup_memory_refresh(cg);
	return 0;
}
