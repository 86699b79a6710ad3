/* SPDX-License-Identifier: MIT */
/*
 * jupyter.c - `cudatrace jupyter install|uninstall`: a Jupyter kernelspec
 * whose kernel runs under `cudatrace record`, so that every start of the
 * kernel makes a trace of its own, and a kernel that dies (the OOM killer,
 * a segfault) leaves its trace and a post-mortem beside it and in the
 * server's log (the kernel's stderr).
 *
 * The kernelspec asks for interrupts as messages: the kernel then signals
 * itself, and the SIGINT is not also sent to `cudatrace record` by the
 * server (which signals the whole process group), so a cell is
 * interrupted once, not twice.
 *
 * Beside kernel.json goes the script the kernel runs at start
 * (jupyter-cells.py, built into this command): it marks each cell in the
 * trace, so that the report and the post-mortem name the cells that hold
 * memory.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <json-c/json.h>

#include "arg-check.h"
#include "diag.h"
#include "exec-path.h"
#include "make-dirs.h"
#include "record-options.h"
#include "verbs.h"

#define DEFAULT_KERNEL_NAME  "cudatrace-python3"
#define DEFAULT_DISPLAY_NAME "Python 3 (cudatrace)"
#define DEFAULT_TRACE_SUBDIR "cudatrace-traces"
#define CELLS_SCRIPT         "cudatrace-cells.py"

/* jupyter-cells.py, made a string literal at build time. */
static const char cells_script[] =
#include "jupyter-cells.inc"
    ;

struct jupyter_args {
	const char *name;
	const char *display_name;
	const char *python;
	const char *trace_dir;
	const char *prefix;    /* NULL: the user's data directory */
	char **record_options; /* after "--", for cudatrace record */
	int record_option_count;
};

static void print_help(void)
{
	fputs("Usage: cudatrace jupyter install [OPTION]... [-- RECORD_OPTION...]\n"
	      "       cudatrace jupyter uninstall [--name=NAME] [--prefix=DIR]\n"
	      "Install (or remove) a Jupyter kernel that runs under `cudatrace record`: one\n"
	      "trace per kernel start; when the kernel dies, its post-mortem is written\n"
	      "beside the trace and to the Jupyter server's log.\n"
	      "\n"
	      "  --name=NAME           kernel name (default " DEFAULT_KERNEL_NAME ")\n"
	      "  --display-name=TEXT   name shown in Jupyter (default \"" DEFAULT_DISPLAY_NAME
	      "\")\n"
	      "  --python=PATH         the Python that runs ipykernel (default: python3 in PATH)\n"
	      "  --trace-dir=DIR       where the traces go (default: ~/" DEFAULT_TRACE_SUBDIR ")\n"
	      "  --prefix=DIR          install into DIR/share/jupyter/kernels instead of the\n"
	      "                        user's Jupyter data directory\n"
	      "  -h, --help            show this help\n"
	      "\n"
	      "RECORD_OPTIONs (after --) are passed to cudatrace record, e.g.\n"
	      "  cudatrace jupyter install -- --flight-recorder=256M --nvml-period=500\n"
	      "\n"
	      "Exit status: 0, or 2 for usage errors and what cannot be installed.\n"
	      "See cudatrace-jupyter(1).\n",
	      stdout);
}

/* The kernels directory: PREFIX/share/jupyter/kernels, or jupyter_core's user data dir. */
static int kernels_dir(const char *prefix, char *buf, size_t len)
{
	const char *env;
	int n;

	if (prefix)
		n = snprintf(buf, len, "%s/share/jupyter/kernels", prefix);
	else if ((env = getenv("JUPYTER_DATA_DIR")) && *env)
		n = snprintf(buf, len, "%s/kernels", env);
	else if ((env = getenv("XDG_DATA_HOME")) && *env)
		n = snprintf(buf, len, "%s/jupyter/kernels", env);
	else if ((env = getenv("HOME")) && *env)
		n = snprintf(buf, len, "%s/.local/share/jupyter/kernels", env);
	else {
		diag_error("cannot find the Jupyter data directory: set HOME or JUPYTER_DATA_DIR, "
		           "or give --prefix");
		return -1;
	}
	if (n < 0 || (size_t)n >= len) {
		diag_error("the Jupyter kernels directory: path too long");
		return -1;
	}
	return 0;
}

/* Length of the UTF-8 character at S (N bytes left), 0 when S starts none. */
static size_t utf8_char(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates, beyond U+10FFFF. */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static bool utf8_valid(const char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0, len; i < n; i += len) {
		len = utf8_char((const unsigned char *)s + i, n - i);
		if (!len)
			return false;
	}
	return true;
}

/* S with each byte that starts no UTF-8 character replaced by U+FFFD; NULL when out of memory. */
static char *utf8_repair(const char *s)
{
	size_t n = strlen(s), used = 0;
	char *out = malloc(n * 3 + 1);

	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_char((const unsigned char *)s + i, n - i);

		if (len) {
			memcpy(out + used, s + i, len);
			used += len;
			i += len;
		} else {
			memcpy(out + used, "\xef\xbf\xbd", 3);
			used += 3;
			i++;
		}
	}
	out[used] = '\0';
	return out;
}

/* Kernel names are directory names that Jupyter accepts: [a-zA-Z0-9._-], NAME_MAX at most. */
static bool valid_name(const char *name)
{
	if (!*name || strlen(name) > NAME_MAX || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
	       strlen(name);
}

/* The record options are checked now, so that a typo fails here and not at each start. */
static int check_record_options(const struct jupyter_args *a)
{
	struct record_options opts;
	char **argv = calloc((size_t)a->record_option_count + 4, sizeof(*argv));
	int argc = 0, status;

	if (!argv) {
		diag_error("out of memory");
		return -1;
	}
	argv[argc++] = (char *)"record";
	for (int i = 0; i < a->record_option_count; i++)
		argv[argc++] = a->record_options[i];
	argv[argc++] = (char *)"--";
	argv[argc++] = (char *)"python3";
	diag_set_prefix("cudatrace jupyter install");
	status = record_options_parse(argc, argv, &opts) == RECORD_PARSE_OK ? 0 : -1;
	free(argv);
	if (status == 0 && (opts.output || opts.trace_dir || opts.name)) {
		diag_error("-o, --trace-dir and --name would be the same for every kernel start: "
		           "use this command's --trace-dir instead");
		return -1;
	}
	return status;
}

/* Paths the system could not take, refused by the option that gave them. */
static int check_paths(const struct jupyter_args *a)
{
	if (a->python && strchr(a->python, '/') && arg_check_path("--python", a->python, 0) < 0)
		return -1;
	if (a->trace_dir &&
	    arg_check_path("--trace-dir", a->trace_dir, RECORD_OUTPUT_RESERVE + 32) < 0)
		return -1;
	/* PREFIX/share/jupyter/kernels/NAME/kernel.json */
	if (a->prefix && arg_check_path("--prefix", a->prefix, strlen(a->name) + 40) < 0)
		return -1;
	return 0;
}

/* The Python must run ipykernel, or every start of the kernel would fail. */
static int check_python(const char *python, char *path, size_t len)
{
	int err = exec_path_find(python, path, len);
	pid_t pid;
	int status;

	if (err) {
		diag_error("%s: %s: name a Python 3 with --python", python,
		           err == ENOENT ? "not found" : strerror(err));
		return -1;
	}
	/*
	 * An unusual status proves it is a Python that ran the import. What
	 * it prints (ImportError's traceback) is not for the user: the error
	 * below says what to do.
	 */
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execl(path, path, "-c", "import ipykernel, sys; sys.exit(42)", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 42) {
		diag_error("%s cannot import ipykernel: install it for that Python (Debian: apt "
		           "install python3-ipykernel; else: %s -m pip install ipykernel), or name "
		           "another with --python",
		           path, path);
		return -1;
	}
	return 0;
}

static int resolve_trace_dir(const char *option, char *buf, size_t len)
{
	const char *home = getenv("HOME");
	char cwd[PATH_MAX];
	int n;

	if (option && option[0] == '/')
		n = snprintf(buf, len, "%s", option);
	else if (option && getcwd(cwd, sizeof(cwd)))
		n = snprintf(buf, len, "%s/%s", cwd, option);
	else if (!option && home && *home)
		n = snprintf(buf, len, "%s/" DEFAULT_TRACE_SUBDIR, home);
	else {
		diag_error("cannot name the trace directory: give --trace-dir");
		return -1;
	}
	if (n < 0 || (size_t)n >= len) {
		diag_error("the trace directory: path too long");
		return -1;
	}
	return 0;
}

/* Appends S to the JSON array A. 0, or -1 when out of memory. */
static int append(struct json_object *a, const char *s)
{
	struct json_object *item = json_object_new_string(s);

	if (!item || json_object_array_add(a, item) != 0) {
		json_object_put(item);
		return -1;
	}
	return 0;
}

/*
 * The kernelspec as a JSON document: argv runs this cudatrace's record
 * around ipykernel, which runs the script at CELLS first. NULL when out of
 * memory.
 */
static struct json_object *kernel_spec(const struct jupyter_args *a, const char *self,
                                       const char *python, const char *trace_dir, const char *cells)
{
	const char *head[] = { self, "record", "--trace-dir", trace_dir };
	char exec_files[PATH_MAX + 340];
	const char *tail[] = {
		"--", python, "-m", "ipykernel_launcher", "-f", "{connection_file}", exec_files
	};
	struct json_object *spec = json_object_new_object(), *argv = json_object_new_array();
	struct json_object *metadata = json_object_new_object(), *ours = json_object_new_object();
	char *display = utf8_repair(a->display_name);
	bool ok = spec && argv && metadata && ours && display;

	snprintf(exec_files, sizeof(exec_files), "--IPKernelApp.exec_files=%s", cells);

	for (size_t i = 0; ok && i < sizeof(head) / sizeof(head[0]); i++)
		ok = append(argv, head[i]) == 0;
	for (int i = 0; ok && i < a->record_option_count; i++)
		ok = append(argv, a->record_options[i]) == 0;
	for (size_t i = 0; ok && i < sizeof(tail) / sizeof(tail[0]); i++)
		ok = append(argv, tail[i]) == 0;
	ok = ok && json_object_object_add(spec, "argv", argv) == 0;
	if (ok)
		argv = NULL;
	ok = ok &&
	     json_object_object_add(spec, "display_name", json_object_new_string(display)) == 0 &&
	     json_object_object_add(spec, "language", json_object_new_string("python")) == 0 &&
	     json_object_object_add(spec, "interrupt_mode", json_object_new_string("message")) ==
	         0 &&
	     json_object_object_add(metadata, "debugger", json_object_new_boolean(1)) == 0 &&
	     json_object_object_add(ours, "trace_dir", json_object_new_string(trace_dir)) == 0 &&
	     json_object_object_add(metadata, "cudatrace", ours) == 0;
	if (ok)
		ours = NULL;
	ok = ok && json_object_object_add(spec, "metadata", metadata) == 0;
	if (ok)
		metadata = NULL;
	free(display);
	json_object_put(argv);
	json_object_put(ours);
	json_object_put(metadata);
	if (!ok) {
		json_object_put(spec);
		return NULL;
	}
	return spec;
}

/* Strings that go into argv must reach the kernel's command line as they are: UTF-8. */
static int check_utf8(const struct jupyter_args *a, const char *self, const char *python,
                      const char *trace_dir, const char *cells)
{
	const struct {
		const char *what, *value;
	} strings[] = {
		{ "the path of cudatrace", self },
		{ "--python", python },
		{ "--trace-dir", trace_dir },
		{ "the kernel's directory", cells },
	};

	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		if (!utf8_valid(strings[i].value)) {
			diag_error("%s is not valid UTF-8: Jupyter's kernel.json cannot hold it",
			           strings[i].what);
			return -1;
		}
	}
	for (int i = 0; i < a->record_option_count; i++) {
		if (!utf8_valid(a->record_options[i])) {
			diag_error("the record option %d after -- is not valid UTF-8: Jupyter's "
			           "kernel.json cannot hold it",
			           i + 1);
			return -1;
		}
	}
	return 0;
}

/* TEXT, then a newline when NEWLINE, as the file PATH; said when it cannot be. */
static int write_text(const char *path, const char *text, bool newline)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f) {
		diag_error("cannot write %s: %s: choose another place with --prefix", path,
		           strerror(errno));
		return -1;
	}
	ok = fputs(text, f) >= 0 && (!newline || fputc('\n', f) != EOF);
	if (fclose(f) != 0)
		ok = false;
	if (!ok) {
		diag_error("cannot write %s: %s", path, strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
}

static int write_kernel_json(const char *path, const struct jupyter_args *a, const char *self,
                             const char *python, const char *trace_dir, const char *cells)
{
	struct json_object *spec;
	const char *text;
	int status;

	if (check_utf8(a, self, python, trace_dir, cells) < 0)
		return -1;
	spec = kernel_spec(a, self, python, trace_dir, cells);
	text = spec ? json_object_to_json_string_ext(spec, JSON_C_TO_STRING_PRETTY |
	                                                       JSON_C_TO_STRING_SPACED |
	                                                       JSON_C_TO_STRING_NOSLASHESCAPE)
	            : NULL;
	if (!text) {
		diag_error("cannot write %s: out of memory", path);
		json_object_put(spec);
		return -1;
	}
	status = write_text(path, text, true);
	json_object_put(spec);
	return status;
}

/* The script that marks the cells, at PATH. */
static int write_cells_script(const char *path)
{
	return write_text(path, cells_script, false);
}

static int install(const struct jupyter_args *a)
{
	char kernels[PATH_MAX], dir[PATH_MAX + 256], file[PATH_MAX + 300];
	char cells[PATH_MAX + 300];
	char self[PATH_MAX], python[PATH_MAX], trace_dir[PATH_MAX];
	char *shown;
	int err;

	if (!valid_name(a->name)) {
		diag_error("--name=%s: a kernel name holds letters, digits, '.', '_' and '-' only, "
		           "%d at most",
		           a->name, NAME_MAX);
		return EXIT_USAGE;
	}
	if (check_record_options(a) < 0)
		return EXIT_USAGE;
	diag_set_prefix("cudatrace jupyter");
	if (check_paths(a) < 0)
		return EXIT_USAGE;
	if (check_python(a->python, python, sizeof(python)) < 0 ||
	    resolve_trace_dir(a->trace_dir, trace_dir, sizeof(trace_dir)) < 0 ||
	    kernels_dir(a->prefix, kernels, sizeof(kernels)) < 0)
		return EXIT_USAGE;
	/* The kernel runs this very cudatrace, wherever it is installed. */
	if (!realpath("/proc/self/exe", self)) {
		diag_error("cannot find the cudatrace executable: %s", strerror(errno));
		return EXIT_USAGE;
	}
	snprintf(dir, sizeof(dir), "%s/%s", kernels, a->name);
	snprintf(file, sizeof(file), "%s/kernel.json", dir);
	snprintf(cells, sizeof(cells), "%s/" CELLS_SCRIPT, dir);
	err = make_dirs(dir);
	if (err) {
		diag_error("cannot create %s: %s: choose another place with --prefix", dir,
		           strerror(err));
		return EXIT_USAGE;
	}
	err = make_dirs_mode(trace_dir, 0700);
	if (err) {
		diag_error("cannot create the trace directory %s: %s: choose another with "
		           "--trace-dir",
		           trace_dir, strerror(err));
		return EXIT_USAGE;
	}
	if (write_cells_script(cells) < 0)
		return EXIT_USAGE;
	if (write_kernel_json(file, a, self, python, trace_dir, cells) < 0) {
		unlink(cells);
		return EXIT_USAGE;
	}
	shown = utf8_repair(a->display_name);
	for (char *p = shown; p && *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	}
	printf("Installed the Jupyter kernel \"%s\" (%s) in %s.\n"
	       "Each start of it writes a trace in %s.\n",
	       shown ? shown : a->name, a->name, dir, trace_dir);
	free(shown);
	return 0;
}

static int uninstall(const struct jupyter_args *a)
{
	char kernels[PATH_MAX], dir[PATH_MAX + 256], file[PATH_MAX + 300];

	if (!valid_name(a->name)) {
		diag_error("--name=%s: a kernel name holds letters, digits, '.', '_' and '-' only, "
		           "%d at most",
		           a->name, NAME_MAX);
		return EXIT_USAGE;
	}
	if (check_paths(a) < 0 || kernels_dir(a->prefix, kernels, sizeof(kernels)) < 0)
		return EXIT_USAGE;
	snprintf(dir, sizeof(dir), "%s/%s", kernels, a->name);
	snprintf(file, sizeof(file), "%s/kernel.json", dir);
	if (unlink(file) != 0) {
		diag_error("no kernel %s in %s (%s)%s", a->name, kernels, strerror(errno),
		           a->prefix ? "" : ": give --prefix if it was installed with one");
		return EXIT_USAGE;
	}
	/* A kernel installed by an older cudatrace has no script. */
	snprintf(file, sizeof(file), "%s/" CELLS_SCRIPT, dir);
	if (unlink(file) != 0 && errno != ENOENT)
		diag_warn("cannot remove %s: %s", file, strerror(errno));
	if (rmdir(dir) != 0)
		diag_warn("%s is not empty: left in place", dir);
	printf("Removed the Jupyter kernel %s from %s.\n", a->name, kernels);
	return 0;
}

int cmd_jupyter(int argc, char **argv)
{
	static const struct option options[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "display-name", required_argument, NULL, 'D' },
		{ "python", required_argument, NULL, 'p' },
		{ "trace-dir", required_argument, NULL, 't' },
		{ "prefix", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct jupyter_args a = {
		.name = DEFAULT_KERNEL_NAME,
		.display_name = DEFAULT_DISPLAY_NAME,
		.python = "python3",
	};
	const char *action;
	int c;

	diag_set_prefix("cudatrace jupyter");
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		print_help();
		return 0;
	}
	if (argc < 2 || (strcmp(argv[1], "install") != 0 && strcmp(argv[1], "uninstall") != 0)) {
		diag_error("give install or uninstall (see cudatrace jupyter --help)");
		return EXIT_USAGE;
	}
	action = argv[1];
	argc--;
	argv++;
	argv[0] = (char *)diag_prefix();
	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
		switch (c) {
		case 'n':
			a.name = optarg;
			break;
		case 'D':
			a.display_name = optarg;
			break;
		case 'p':
			a.python = optarg;
			break;
		case 't':
			a.trace_dir = optarg;
			break;
		case 'P':
			a.prefix = optarg;
			break;
		case 'h':
			print_help();
			return 0;
		default:
			fputs("Try 'cudatrace jupyter --help'.\n", stderr);
			return EXIT_USAGE;
		}
	}
	/* getopt stops at "--": the rest are options for cudatrace record. */
	if (optind < argc && strcmp(argv[optind - 1], "--") != 0) {
		diag_error("unexpected '%s': put options for cudatrace record after --",
		           argv[optind]);
		return EXIT_USAGE;
	}
	a.record_options = argv + optind;
	a.record_option_count = argc - optind;
	if (!strcmp(action, "uninstall")) {
		if (a.record_option_count > 0) {
			diag_error("uninstall takes --name and --prefix only");
			return EXIT_USAGE;
		}
		return uninstall(&a);
	}
	return install(&a);
}
