# SPDX-License-Identifier: MIT
"""core-kernel.py - cuda.core end to end: a device, a stream, a buffer from
the device's memory pool, a kernel compiled by NVRTC and loaded as a
library, a launch, a copy and the synchronisation. Prints TAP."""
import numpy as np
from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch

count = 0


def ok(cond, desc):
    global count
    count += 1
    print("%sok %d - %s" % ("" if cond else "not ", count, desc), flush=True)


dev = Device(0)
dev.set_current()
stream = dev.create_stream()
ok(True, "Device(0).set_current() and create_stream()")
code = r"""
extern "C" __global__ void core_scale(float *a, float f, size_t n)
{
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] *= f;
}
"""
program = Program(code, code_type="c++", options=ProgramOptions(arch="sm_90"))
module = program.compile("cubin")
kernel = module.get_kernel("core_scale")
ok(kernel is not None, "NVRTC compiled core_scale and the library loaded")
buf = dev.memory_resource.allocate(4096, stream=stream)
ok(buf.size == 4096, "a 4096-byte buffer from the device's memory resource")
launch(stream, LaunchConfig(grid=4, block=256), kernel, buf, np.float32(2.0), np.uint64(1024))
ok(True, "core_scale launched on the stream")
host = np.zeros(1024, dtype=np.float32)
dst = dev.memory_resource.allocate(4096, stream=stream)
buf.copy_to(dst, stream=stream)
stream.sync()
ok(True, "a device-to-device copy and stream.sync()")
buf.close(stream)
dst.close(stream)
stream.sync()
print("1..%d" % count)
