# SPDX-License-Identifier: MIT
#
# cudatrace-cells.py - run by a kernel that `cudatrace jupyter install`
# installed (IPKernelApp.exec_files, from the kernelspec's directory): it
# marks each cell the kernel runs in the trace, so that `cudatrace report`
# charges memory to In [N].
#
# Around every cell that gets an execution count (IPython's pre_run_cell
# and post_run_cell events) it calls cudatrace_cell_begin_file (with the
# file name IPython compiles the cell under, which the Python frames of
# its code carry) and cudatrace_cell_end, or cudatrace_cell_end_error
# with the exception a failed cell raised (its type, text and line in the
# cell), of libcudatrace through ctypes. The library is
# CUDA_INJECTION64_PATH, which `cudatrace record` sets: opened here, it is
# the same object the CUDA driver opens when the program first uses CUDA,
# so cells are marked before CUDA is initialised as well as after. When the
# kernel runs untraced (no CUDATRACE_SESSION), or the library lacks the
# functions, nothing is registered. It defines no name in the user's
# namespace, and an error here never stops a cell.


def _cudatrace_cells():
    import ctypes
    import os
    import sys

    path = os.environ.get("CUDA_INJECTION64_PATH")
    if not path or not os.environ.get("CUDATRACE_SESSION"):
        return
    try:
        lib = ctypes.CDLL(path)
        begin, end = lib.cudatrace_cell_begin, lib.cudatrace_cell_end
    except (OSError, AttributeError) as error:
        print("cudatrace: cells are not marked in the trace: %s" % error, file=sys.stderr)
        return
    begin.argtypes = [ctypes.c_uint64, ctypes.c_uint32, ctypes.c_char_p]
    begin.restype = None
    try:
        begin_file = lib.cudatrace_cell_begin_file
        begin_file.argtypes = begin.argtypes + [ctypes.c_char_p]
        begin_file.restype = None
    except AttributeError:  # a library older than this script
        begin_file = None
    end.argtypes = [ctypes.c_uint64, ctypes.c_int]
    end.restype = None
    try:
        end_error = lib.cudatrace_cell_end_error
        end_error.argtypes = [ctypes.c_uint64, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint32]
        end_error.restype = None
    except AttributeError:  # a library older than this script
        end_error = None
    shell = get_ipython()  # noqa: F821 (a builtin while IPython runs this file)
    running = []  # the execution count and code file of the cell that runs, if any
    broken = []  # the error that stopped the marking, if any

    def first_line(source):
        """The first line that is not blank, and its number from 1."""
        for number, text in enumerate(source.splitlines(), 1):
            if text.strip():
                return number, text.strip()[:200]
        return 0, ""

    def code_file(raw):
        """The file name IPython compiles the cell's code under (ipykernel
        names it by a hash of the raw code), "" when it cannot say."""
        try:
            return str(shell.compile.get_code_name(raw, raw, shell.execution_count))
        except Exception:  # noqa: BLE001 (an IPython without it: the cell runs on)
            return ""

    def guarded(hook):
        """HOOK, whose failure is said once in the server's log (the
        kernel's stderr), never in the notebook, and ends the marking."""
        def run(*args):
            if not broken:
                try:
                    hook(*args)
                except Exception as error:  # noqa: BLE001 (the cell must run on)
                    broken.append(error)
                    print("cudatrace: cells are no longer marked in the trace: %r" % error,
                          file=sys.__stderr__, flush=True)
        return run

    def pre_run_cell(info=None):
        # Cells run without history (silent ones, the kernel's own) get no
        # In [N]. IPython before 7 gives no info.
        if not getattr(info, "store_history", True):
            return
        raw = getattr(info, "raw_cell", None) or ""
        number, text = first_line(raw)
        running[:] = [(shell.execution_count, code_file(raw))]
        if begin_file:
            begin_file(shell.execution_count, number, text.encode("utf-8", "replace"),
                       running[0][1].encode("utf-8", "replace"))
        else:
            begin(shell.execution_count, number, text.encode("utf-8", "replace"))

    def type_name(error):
        """The exception's type as Python's traceback names it: torch.OutOfMemoryError."""
        kind = type(error)
        name = getattr(kind, "__qualname__", kind.__name__)
        module = getattr(kind, "__module__", "builtins")
        return name if module in ("builtins", "__main__") else module + "." + name

    def error_line(error, cell_file):
        """The line of the cell's own code the exception went through last, 0 if none."""
        line, tb = 0, getattr(error, "__traceback__", None)
        while tb is not None:
            if cell_file and tb.tb_frame.f_code.co_filename == cell_file:
                line = tb.tb_lineno
            tb = tb.tb_next
        return line

    def post_run_cell(result=None):
        if not running:
            return
        count, cell_file = running.pop()
        error = getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None)
        if error is not None and end_error:
            end_error(count, type_name(error).encode("utf-8", "replace"),
                      str(error).encode("utf-8", "replace"), error_line(error, cell_file))
        else:
            end(count, 0 if getattr(result, "success", True) else 1)

    shell.events.register("pre_run_cell", guarded(pre_run_cell))
    shell.events.register("post_run_cell", guarded(post_run_cell))


_cudatrace_cells()
del _cudatrace_cells
