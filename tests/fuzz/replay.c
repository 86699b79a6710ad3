/* SPDX-License-Identifier: MIT */
/*
 * replay.c - fuzz-report.c's target on given inputs, without libFuzzer:
 * each file named, or each file of each directory named (by name), is
 * one TAP test point. An input that crashes the target, that a sanitizer
 * finds fault with, or that keeps it for more than REPLAY_SECONDS, ends
 * the program before its plan.
 *
 *	replay tests/fuzz/regressions tests/fuzz/seeds
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

/* The longest an input may take: a sanitizer build on a loaded machine. */
#define REPLAY_SECONDS 120

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count;

/* SIGALRM: the input being replayed never ends (a loop). */
static void too_long(int sig)
{
	static const char msg[] = "# it did not end in time: stopped\n";

	ssize_t said = write(STDOUT_FILENO, msg, sizeof(msg) - 1);

	(void)sig;
	(void)said;
	_exit(1);
}

/* PATH as its test point names it: its directory's name and its own ("seeds/NAME"). */
static const char *shown(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return path;
	while (slash > path && slash[-1] != '/')
		slash--;
	return slash;
}

static void replay(const char *path)
{
	gchar *data = NULL;
	gsize size = 0;
	GError *error = NULL;

	if (!g_file_get_contents(path, &data, &size, &error)) {
		printf("not ok %d - %s: %s\n", ++count, shown(path), error->message);
		g_error_free(error);
		return;
	}
	/* said first: a crash ends the program before its "ok" */
	printf("# %s\n", shown(path));
	fflush(stdout);
	alarm(REPLAY_SECONDS);
	LLVMFuzzerTestOneInput((const uint8_t *)data, size);
	alarm(0);
	printf("ok %d - %s\n", ++count, shown(path));
	fflush(stdout);
	g_free(data);
}

static gint by_name(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void replay_dir(const char *dir)
{
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			g_ptr_array_add(names, g_build_filename(dir, e->d_name, NULL));
	if (d)
		closedir(d);
	g_ptr_array_sort(names, by_name);
	for (guint i = 0; i < names->len; i++)
		replay(g_ptr_array_index(names, i));
	g_ptr_array_free(names, TRUE);
}

int main(int argc, char **argv)
{
	signal(SIGALRM, too_long);
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			replay_dir(argv[i]);
		else
			replay(argv[i]);
	}
	printf("1..%d\n", count);
	return 0;
}
