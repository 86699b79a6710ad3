/* SPDX-License-Identifier: MIT */
/*
 * cells.c - the cells of a notebook kernel: cudatrace_cell_begin and
 * cudatrace_cell_end emit cell_begin and cell_end. The kernel that
 * `cudatrace jupyter install` sets up calls them through ctypes around
 * each cell it runs (its startup script, cli/jupyter-cells.py), so that
 * the analyzers can charge memory to the cell that allocated it.
 *
 * The kernel may run cells long before CUDA is initialised: the script
 * then loads this library itself (dlopen of CUDA_INJECTION64_PATH, which
 * the driver later opens again as the same object), and InitializeInjection
 * has not run. A session's filter only needs the application context for
 * these events to pass, so that is all these functions set up; CUPTI and
 * the tracer's threads still wait for the driver. They never block and
 * never fail: the cell runs whatever happens here.
 */
#include <stdint.h>

#include "app-context.h"
#include "callbacks.h"
#include "emit.h"
#include "text.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT void cudatrace_cell_begin(uint64_t execution_count, uint32_t line, const char *first_line);
EXPORT void cudatrace_cell_begin_file(uint64_t execution_count, uint32_t line,
                                      const char *first_line, const char *code_file);
EXPORT void cudatrace_cell_end(uint64_t execution_count, int failed);
EXPORT void cudatrace_cell_end_error(uint64_t execution_count, const char *error_type,
                                     const char *error_message, uint32_t error_line);

/* The context a session filters on, before the first event: said once if refused. */
static void ensure_context(void)
{
	/* the calls before it are in the trace before it */
	callbacks_flush_thread();
	app_context_ensure("cells");
}

/*
 * CODE_FILE is the file name IPython compiles the cell under, which the
 * Python frames of its code carry: the report names them In [N] by it.
 */
void cudatrace_cell_begin_file(uint64_t execution_count, uint32_t line, const char *first_line,
                               const char *code_file)
{
	ensure_context();
	first_line = text_or_empty(first_line);
	code_file = text_or_empty(code_file);
	EMIT(cell_begin, &(struct ct_ev_cell_begin){
	                     .execution_count = execution_count,
	                     .line = line,
	                     .first_line = first_line,
	                     .first_line_len = text_length(first_line),
	                     .code_file = code_file,
	                     .code_file_len = text_length(code_file),
	                 });
}

/* What the kernels installed before code_file call: the file is unknown. */
void cudatrace_cell_begin(uint64_t execution_count, uint32_t line, const char *first_line)
{
	cudatrace_cell_begin_file(execution_count, line, first_line, NULL);
}

/*
 * The cell raised ERROR_TYPE (its qualified name), saying ERROR_MESSAGE,
 * at ERROR_LINE of the cell (0: unknown). Texts longer than an event
 * holds are cut (text.h).
 */
void cudatrace_cell_end_error(uint64_t execution_count, const char *error_type,
                              const char *error_message, uint32_t error_line)
{
	ensure_context();
	error_type = text_or_empty(error_type);
	error_message = text_or_empty(error_message);
	EMIT(cell_end, &(struct ct_ev_cell_end){
	                   .execution_count = execution_count,
	                   .failed = 1,
	                   .error_type = error_type,
	                   .error_type_len = text_length(error_type),
	                   .error_message = error_message,
	                   .error_message_len = text_length(error_message),
	                   .error_line = error_line,
	               });
}

/* What the kernels installed before cudatrace_cell_end_error call: no error's words. */
void cudatrace_cell_end(uint64_t execution_count, int failed)
{
	ensure_context();
	EMIT(cell_end, &(struct ct_ev_cell_end){
	                   .execution_count = execution_count,
	                   .failed = failed != 0,
	                   .error_type = "",
	                   .error_message = "",
	               });
}
