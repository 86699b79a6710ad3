# SPDX-License-Identifier: MIT
#
# sitecustomize.py - cudatrace's Python probe. `cudatrace record` writes
# this file into a directory of its own and puts that directory first on
# the PYTHONPATH of the traced program, so that every Python interpreter
# of the traced tree imports it at start-up (the `site` module imports
# `sitecustomize`). It then imports the sitecustomize the interpreter
# would have imported without it, if any, so that one still runs.
#
# What it records, through libcudatrace's cudatrace_python_* functions
# (doc/events.md, "The Python probe"), on the trace's clock:
#
# - in any Python process, the uncaught exception it dies of (type,
#   message, the line of the program's own code, the line that raised);
# - in a Python process that loaded the library (it used CUDA), when its
#   interpreter begins to exit, after the program's own atexit handlers:
#   what it frees from then on, the interpreter's teardown frees;
# - when torch, jax or tensorflow has been imported, its version, and
#   what its allocator holds per device (in use, reserved by its pool,
#   their peaks, its limit), read every CUDATRACE_PYTHON_PERIOD_MS
#   (default 100) when it changed, at an out-of-memory error (PyTorch's
#   observer), at the uncaught exception and at exit. It reads them only
#   once the framework has initialised the GPU itself: the probe never
#   initialises CUDA, never imports a framework, and defines no name in
#   the program's modules;
# - with CUDATRACE_TENSOR_SITES=1 (`record --tensor-sites`), PyTorch's
#   allocation history (torch.cuda.memory._record_memory_history, Python
#   stacks of the allocations only), and from its snapshot the Python
#   lines whose tensors held the memory at the first out-of-memory error,
#   at exit, and at the highest of what its tensors held;
# - with JAX, the Python lines its live arrays were created at, from its
#   device memory profile (jax.profiler.device_memory_profile, which costs
#   nothing until asked), at an uncaught exception and at exit.
#
# The library is CUDA_INJECTION64_PATH, opened on first use (the same
# object the CUDA driver opens). Without a session (CUDATRACE_SESSION),
# with CUDATRACE_PYTHON_PROBE=0, or when the library lacks the functions,
# nothing is installed. An error of the probe never reaches the program:
# it is said once on stderr and the probe stops.


def _cudatrace_probe():
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))

    def chain():
        """Import the sitecustomize this one hides, as `site` would have."""
        import importlib.machinery
        import importlib.util

        path = [p for p in sys.path if os.path.abspath(p or ".") != here]
        sys.path[:] = path
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
        if spec is None or spec.loader is None:
            return
        module = importlib.util.module_from_spec(spec)
        sys.modules["sitecustomize"] = module
        spec.loader.exec_module(module)

    library = os.environ.get("CUDA_INJECTION64_PATH")
    wanted = (library and os.environ.get("CUDATRACE_SESSION") and
              os.environ.get("CUDATRACE_PYTHON_PROBE", "1") != "0")
    if wanted:
        try:
            _install(library)
        except Exception as error:  # noqa: BLE001 (the program runs on)
            print("cudatrace: the Python probe is off: %r" % error, file=sys.stderr)
    chain()


# The contract's enumerations (contract/events.def): framework, framework_moment.
_FRAMEWORKS = {"torch": 1, "jax": 2, "tensorflow": 3}
_SAMPLE, _OOM, _EXCEPTION, _EXIT, _PEAK = 1, 2, 3, 4, 5
_TEXT_MAX = 4096
# Tensor sites: the allocation history PyTorch keeps (entries), and the
# sites told per device and moment, the most bytes first.
_HISTORY = 100000
_SITES_MAX = 20


def _install(library):
    import os
    import sys

    state = {"lib": None, "broken": False, "readers": {}, "last": {}, "thread": None,
             "sites": {}, "oom_sites": False}

    def lib(loaded_only=False):
        """libcudatrace's functions, opened on first use; None once broken,
        or, with LOADED_ONLY, when the process has not loaded it (it never
        initialised CUDA): opening it would register a process with the
        session for nothing."""
        if state["lib"] is None and not state["broken"]:
            import ctypes

            try:
                handle = ctypes.CDLL(library, mode=os.RTLD_NOLOAD if loaded_only
                                     else ctypes.DEFAULT_MODE)
            except OSError:
                if loaded_only:
                    return None
                raise
            u32, u64, text = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_char_p
            signatures = {
                "cudatrace_python_framework_load": [u32, text],
                "cudatrace_python_framework_memory": [u32, u32, u32] + [u64] * 5,
                "cudatrace_python_framework_oom": [u32, u32, u64, u64, u64],
                "cudatrace_python_framework_site": [u32, u32, u32, u64, u64, text, u32, text],
                "cudatrace_python_exception": [text, text, text, u32, text, text, u32],
                "cudatrace_python_exit": [u32],
            }
            functions = {}
            for name, argtypes in signatures.items():
                function = getattr(handle, name)
                function.argtypes = argtypes
                function.restype = None
                functions[name[len("cudatrace_python_"):]] = function
            state["lib"] = functions
        return state["lib"]

    def guarded(what):
        """WHAT, whose first failure is said once on stderr and stops the probe."""
        def run(*args):
            if state["broken"]:
                return None
            try:
                return what(*args)
            except Exception as error:  # noqa: BLE001 (the program runs on)
                state["broken"] = True
                print("cudatrace: the Python probe stopped: %r" % error, file=sys.__stderr__,
                      flush=True)
                return None
        return run

    def text(value):
        return str(value)[:_TEXT_MAX].encode("utf-8", "replace")

    # ---------------------------------------------------------------- memory

    def emit_memory(framework, at):
        """Each device's figures of FRAMEWORK, those that changed unless AT is not a sample."""
        read = state["readers"].get(framework)
        if read is None:
            return
        for device, figures in read():
            key = (framework, device)
            if at == _SAMPLE and state["last"].get(key) == figures:
                continue
            state["last"][key] = figures
            lib()["framework_memory"](_FRAMEWORKS[framework], device, at, *figures)

    def emit_all(at):
        for framework in list(state["readers"]):
            emit_memory(framework, at)

    def sampler(period):
        import threading

        stop = threading.Event()

        def run():
            while not stop.wait(period):
                guarded(emit_all)(_SAMPLE)
        thread = threading.Thread(target=run, name="cudatrace-probe", daemon=True)
        thread.start()
        state["thread"] = (thread, stop)

    def start_sampler():
        if state["thread"] is not None:
            return
        try:
            period = int(os.environ.get("CUDATRACE_PYTHON_PERIOD_MS", "100")) / 1000.0
        except ValueError:
            period = 0.1
        if period > 0:
            sampler(max(period, 0.001))

    def at_exit():
        if state["thread"] is not None:
            thread, stop = state["thread"]
            stop.set()
            thread.join(1.0)
        guarded(emit_all)(_EXIT)
        for sites in list(state["sites"].values()):
            guarded(sites)(_EXIT)
        # Registered first, run last: the program's own handlers are done,
        # and what is freed from here on, the interpreter's teardown frees.
        threading = sys.modules.get("threading")
        threads = max(threading.active_count() - 1, 0) if threading else 0
        functions = guarded(lib)(True)
        if functions:
            guarded(functions["exit"])(threads)

    # ------------------------------------------------------------ frameworks

    def torch_reader(torch):
        def read():
            if not torch.cuda.is_initialized():
                return []
            out = []
            for device in range(torch.cuda.device_count()):
                s = torch.cuda.memory_stats(device)
                figures = (s.get("allocated_bytes.all.current", 0),
                           s.get("reserved_bytes.all.current", 0),
                           s.get("allocated_bytes.all.peak", 0),
                           s.get("reserved_bytes.all.peak", 0), 0)
                if any(figures) or ("torch", device) in state["last"]:
                    out.append((device, figures))
            return out

        def on_oom(device, requested, limit, device_free):
            # PyTorch calls its observers before it raises, without its lock.
            lib()["framework_oom"](_FRAMEWORKS["torch"], device, requested, limit,
                                   device_free)
            emit_memory("torch", _OOM)
            if "torch" in state["sites"] and not state["oom_sites"]:
                state["oom_sites"] = True
                state["sites"]["torch"](_OOM)

        def attach():
            torch._C._cuda_attach_out_of_memory_observer(guarded(on_oom))
            if os.environ.get("CUDATRACE_TENSOR_SITES", "0") not in ("", "0"):
                torch.cuda.memory._record_memory_history(
                    enabled="all", context="alloc", stacks="python", max_entries=_HISTORY)
                state["sites"]["torch"] = lambda at: torch_sites(torch, at)

        # The observer reaches only the allocators of an initialised CUDA:
        # _lazy_call runs it now, or right after PyTorch initialises it.
        torch.cuda._lazy_call(guarded(attach))
        return read

    # ---------------------------------------------------------- tensor sites

    def site_of(frames, standard):
        """(file, line, function) of an allocation's Python FRAMES (innermost
        first): the innermost of the program's own code, else the innermost."""
        for f in frames:
            if own_code(f.get("filename", ""), standard):
                return f.get("filename", ""), f.get("line", 0), f.get("name", "")
        if frames:
            return frames[0].get("filename", ""), frames[0].get("line", 0), frames[0].get("name", "")
        return "", 0, ""

    def emit_sites(framework, device, at, sites):
        """SITES ({(file, line, function): [bytes, count]}) of DEVICE at AT,
        the most bytes first."""
        ranked = sorted(sites.items(), key=lambda item: -item[1][0])[:_SITES_MAX]
        for (file, line, function), (nbytes, count) in ranked:
            if nbytes > 0:
                lib()["framework_site"](_FRAMEWORKS[framework], device, at, nbytes, count,
                                        text(file), line, text(function))

    def peak_sites(trace, standard):
        """The sites of the tensors live at the highest of what they held,
        replaying PyTorch's allocation history TRACE of one device (alloc and
        free_completed, in bytes allocated as memory_allocated() counts them);
        None when the history does not reach back to the start."""
        if not trace or len(trace) >= _HISTORY:
            return None
        total, top, top_at = 0, 0, -1
        for index, e in enumerate(trace):
            if e.get("action") == "alloc":
                total += e.get("size", 0)
            elif e.get("action") == "free_completed":
                total -= e.get("size", 0)
            if total > top:
                top, top_at = total, index
        live = {}
        for e in trace[:top_at + 1]:
            if e.get("action") == "alloc":
                live[e.get("addr")] = (e.get("size", 0), site_of(e.get("frames") or [], standard))
            elif e.get("action") == "free_completed":
                live.pop(e.get("addr"), None)
        sites = {}
        for size, key in live.values():
            entry = sites.setdefault(key, [0, 0])
            entry[0] += size
            entry[1] += 1
        return sites

    def torch_sites(torch, at):
        """The Python lines whose tensors held PyTorch's memory at AT, from its
        snapshot; at exit, at the highest of what they held too."""
        if not torch.cuda.is_initialized():
            return
        standard = standard_paths()
        snapshot = torch.cuda.memory._snapshot()
        live = {}
        for segment in snapshot.get("segments", []):
            device = segment.get("device", 0)
            for block in segment.get("blocks", []):
                if block.get("state") != "active_allocated":
                    continue
                entry = live.setdefault(device, {}).setdefault(
                    site_of(block.get("frames") or [], standard), [0, 0])
                entry[0] += block.get("size", 0)
                entry[1] += 1
        for device, sites in live.items():
            emit_sites("torch", device, at, sites)
        for device, trace in enumerate(snapshot.get("device_traces", []) if at == _EXIT else []):
            sites = peak_sites(trace, standard)
            if sites:
                emit_sites("torch", device, _PEAK, sites)

    def pprof_sites(data, standard, limits):
        """{device: {(file, line, function): [bytes, count]}} of the buffers of
        JAX's device memory profile DATA (pprof's gzipped profile.proto:
        samples of [allocations, space] with their Python stack, innermost
        first, and labels kind=buffer and device=cuda:N; the host's, cpu:N,
        are left out). An array whose allocation failed is still in it,
        with its size: a sample larger than what its device's pool may hold
        (LIMITS) is left out."""
        import gzip

        def varint(b, i):
            value = shift = 0
            while True:
                c = b[i]
                i += 1
                value |= (c & 0x7F) << shift
                shift += 7
                if not c & 0x80:
                    return value, i

        def fields(b):
            i = 0
            while i < len(b):
                key, i = varint(b, i)
                wire = key & 7
                if wire == 0:
                    value, i = varint(b, i)
                elif wire == 2:
                    n, i = varint(b, i)
                    value, i = b[i:i + n], i + n
                elif wire in (1, 5):
                    value, i = b[i:i + (8 if wire == 1 else 4)], i + (8 if wire == 1 else 4)
                else:
                    return
                yield key >> 3, wire, value

        def numbers(wire, value):
            if wire == 0:
                return [value]
            out, i = [], 0
            while i < len(value):
                n, i = varint(value, i)
                out.append(n)
            return out

        b = gzip.decompress(data)
        strings, samples, locations, functions = [], [], {}, {}
        for number, wire, value in fields(b):
            if number == 6:
                strings.append(value.decode("utf-8", "replace"))
            elif number == 2:
                samples.append(value)
            elif number == 4:
                loc = {"lines": []}
                for f, w, v in fields(value):
                    if f == 1:
                        loc["id"] = v
                    elif f == 4:
                        loc["lines"].append({ff: vv for ff, ww, vv in fields(v) if ww == 0})
                locations[loc.get("id")] = loc["lines"]
            elif number == 5:
                fn = {f: v for f, w, v in fields(value) if w == 0}
                functions[fn.get(1)] = fn
        name = lambda index: strings[index] if 0 <= index < len(strings) else ""
        out = {}
        for sample in samples:
            ids, values, labels = [], [], {}
            for f, w, v in fields(sample):
                if f == 1:
                    ids += numbers(w, v)
                elif f == 2:
                    values += numbers(w, v)
                elif f == 3:
                    label = {ff: vv for ff, ww, vv in fields(v) if ww == 0}
                    labels[name(label.get(1, 0))] = name(label.get(2, 0))
            if labels.get("kind") != "buffer" or len(values) < 2:
                continue
            # a GPU's buffers only: "cuda:0", or "gpu:0" as older JAX names
            # it; the CPU's ("cpu:0") are host memory
            kind, _, index = labels.get("device", "").partition(":")
            if kind not in ("cuda", "gpu") or not index.isdigit():
                continue
            device = int(index)
            if limits.get(device) and values[1] > limits[device]:
                continue
            frames = []
            for location in ids:
                for line in locations.get(location, []):
                    fn = functions.get(line.get(1), {})
                    frames.append({"filename": name(fn.get(4, 0)), "line": line.get(2, 0),
                                   "name": name(fn.get(2, 0))})
            entry = out.setdefault(device, {}).setdefault(site_of(frames, standard), [0, 0])
            entry[0] += values[1]
            entry[1] += values[0]
        return out

    def jax_sites(jax, at):
        """The Python lines whose arrays held JAX's memory at AT."""
        from jax._src import xla_bridge

        if not getattr(xla_bridge, "_backends", None):
            return  # no backend: asking would make one
        limits = {}
        for device in jax.local_devices():
            if device.platform == "gpu":
                limits[getattr(device, "local_hardware_id", device.id)] = (
                    (device.memory_stats() or {}).get("bytes_limit", 0))
        data = jax.profiler.device_memory_profile()
        for device, sites in pprof_sites(data, standard_paths(), limits).items():
            emit_sites("jax", device, at, sites)

    def jax_reader(jax):
        import atexit

        def at_jax_exit():
            # the figures too: by the probe's own exit handler, JAX has none
            state["sites"].pop("jax", None)
            emit_memory("jax", _EXIT)
            jax_sites(jax, _EXIT)

        def read():
            from jax._src import xla_bridge

            if not getattr(xla_bridge, "_backends", None):
                return []  # no backend yet: jax.devices() would make one
            if "jax" not in state["sites"]:
                # JAX's exit handler, registered as its backend started,
                # drops the arrays: this one, registered after, runs before
                state["sites"]["jax"] = lambda at: jax_sites(jax, at)
                atexit.register(guarded(at_jax_exit))
            out = []
            for device in jax.local_devices():
                if device.platform != "gpu":
                    continue
                s = device.memory_stats() or {}
                figures = (s.get("bytes_in_use", 0), s.get("pool_bytes", 0),
                           s.get("peak_bytes_in_use", 0), s.get("peak_pool_bytes", 0),
                           s.get("bytes_limit", 0))
                out.append((getattr(device, "local_hardware_id", device.id), figures))
            return out
        return read

    def tensorflow_reader(tf):
        def read():
            from tensorflow.python.eager import context

            if not getattr(context.context(), "_initialized", False):
                return []  # listing devices would initialise them
            out = []
            for device in tf.config.list_logical_devices("GPU"):
                s = tf.config.experimental.get_memory_info(device.name)
                index = int(device.name.rsplit(":", 1)[-1])
                out.append((index, (s.get("current", 0), 0, s.get("peak", 0), 0, 0)))
            return out
        return read

    makers = {"torch": torch_reader, "jax": jax_reader, "tensorflow": tensorflow_reader}

    def on_import(name, module):
        lib()["framework_load"](_FRAMEWORKS[name], text(getattr(module, "__version__", "")))
        state["readers"][name] = makers[name](module)
        start_sampler()

    # -------------------------------------------------------------- imports

    import importlib.abc
    import importlib.util

    class Loader(importlib.abc.Loader):
        """The framework's own loader, then on_import; its spec keeps the
        framework's loader, which answers everything else."""

        def __init__(self, name, inner):
            self.name, self.inner = name, inner

        def __getattr__(self, attribute):
            return getattr(self.inner, attribute)

        def create_module(self, spec):
            return self.inner.create_module(spec)

        def exec_module(self, module):
            module.__spec__.loader = module.__loader__ = self.inner
            self.inner.exec_module(module)
            guarded(on_import)(self.name, module)

    class Finder(importlib.abc.MetaPathFinder):
        """Sees the top-level import of a framework, and nothing else."""

        def __init__(self):
            self.busy = set()

        def find_spec(self, name, path=None, target=None):
            if name not in _FRAMEWORKS or name in self.busy or state["broken"]:
                return None
            self.busy.add(name)
            try:
                spec = importlib.util.find_spec(name)
            finally:
                self.busy.discard(name)
            if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
                return spec
            spec.loader = Loader(name, spec.loader)
            return spec

    # ----------------------------------------------------------- exceptions

    def own_code(filename, standard):
        """Whether FILENAME is the program's: not Python's own library (under
        one of STANDARD), not an installed package's, not made up ("<string>"),
        not a compiled extension's (Cython names its frames by the path of
        their source in the package, "cuda/core/_utils/cuda_utils.pyx": a
        relative path that is no file)."""
        if not filename or filename.startswith("<"):
            return False
        if not os.path.isabs(filename) and not os.path.isfile(filename):
            return False
        path = os.path.abspath(filename)
        if {"site-packages", "dist-packages"} & set(path.split(os.sep)):
            return False
        return not any(path.startswith(os.path.join(d, "")) for d in standard)

    def standard_paths():
        """Where Python's own library is."""
        import sysconfig

        paths = sysconfig.get_paths()
        return {os.path.abspath(paths[k]) for k in ("stdlib", "platstdlib") if k in paths}

    def on_exception(kind, value, tb):
        frames = []
        while tb is not None:
            frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno,
                           tb.tb_frame.f_code.co_name))
            tb = tb.tb_next
        standard = standard_paths()
        raised = frames[-1] if frames else ("", 0, "")
        own = next((f for f in reversed(frames) if own_code(f[0], standard)), raised)
        name = getattr(kind, "__qualname__", getattr(kind, "__name__", str(kind)))
        module = getattr(kind, "__module__", "builtins")
        if module not in ("builtins", "__main__"):
            name = module + "." + name
        emit_all(_EXCEPTION)
        lib()["exception"](text(name), text(value), text(own[0]), own[1], text(own[2]),
                           text(raised[0]), raised[1])
        # then what held the memory, which a framework may fail to say
        for sites in list(state["sites"].values()):
            guarded(sites)(_EXCEPTION)

    previous_hook = sys.excepthook

    def excepthook(kind, value, tb):
        # An interactive interpreter lives on after an uncaught exception.
        if not hasattr(sys, "ps1") and not sys.flags.interactive:
            guarded(on_exception)(kind, value, tb)
        previous_hook(kind, value, tb)

    import atexit

    sys.excepthook = excepthook
    sys.meta_path.insert(0, Finder())
    atexit.register(guarded(at_exit))
    for name in _FRAMEWORKS:  # imported already (by another sitecustomize's .pth)
        if name in sys.modules:
            guarded(on_import)(name, sys.modules[name])


_cudatrace_probe()
del _cudatrace_probe
