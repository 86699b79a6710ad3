/* SPDX-License-Identifier: MIT */
/*
 * sim-env.h - the simulated machine as libcuda.so.1 and libnvidia-ml.so.1
 * both describe it: the parsing of the CUDASIM_* variables they share
 * (README.md, "Environment") and the names of the devices. sim-env.c is
 * compiled into both libraries, hidden in each; neither depends on the
 * other for it. What to do with a value that does not parse (warn, or
 * keep the default silently) is each library's own choice.
 */
#ifndef CUDASIM_SIM_ENV_H
#define CUDASIM_SIM_ENV_H

#include <stdbool.h>
#include <stdint.h>

#ifndef HIDDEN
#define HIDDEN __attribute__((visibility("hidden")))
#endif

/* CUDASIM_DEVICES is at most this; ordinals index arrays of this size. */
#define SIM_MAX_DEVICES 64

#define SIM_MIB (1024ull * 1024ull)
#define SIM_GIB (1024ull * SIM_MIB)
/* CUDASIM_DEVICE_MEMORY: the default, and the least that can work (one 2
 * MiB allocation granule); a smaller value keeps the default. */
#define SIM_DEVICE_MEMORY_DEFAULT (4 * SIM_GIB)
#define SIM_DEVICE_MEMORY_MIN     (2 * SIM_MIB)

/* cuDeviceGetName and nvmlDeviceGetName. */
#define SIM_DEVICE_NAME "cudasim GPU (simulated)"

/*
 * CUDASIM_DRIVER_VERSION: the CUDA version the driver supports, in
 * cuDriverGetVersion's encoding (1000 * major + 10 * minor: 12020 is
 * CUDA 12.2). The default is the version of the headers the simulator is
 * built against, CUDA_VERSION 13000 (cuda.h).
 */
#define SIM_DRIVER_VERSION_DEFAULT 13000
/* CUDASIM_COMPUTE_CAPABILITY: the devices' compute capability, default 9.0. */
#define SIM_CC_MAJOR_DEFAULT 9
#define SIM_CC_MINOR_DEFAULT 0

/* One CUDASIM_OTHER_PROCESSES entry, "DEV:PID:BYTES". */
struct sim_other_process {
	int device;
	unsigned int pid;
	uint64_t bytes;
};

/* "4G", "300M", "4096" (K, M, G, T: powers of 1024, optionally followed by
 * B or iB) -> bytes; false on junk, *bytes untouched. */
HIDDEN bool sim_parse_size(const char *text, uint64_t *bytes);
/* A decimal number and nothing else; false on junk, *value untouched. */
HIDDEN bool sim_parse_u64(const char *text, uint64_t *value);
/* "0" or "1"; false on anything else, *value untouched. */
HIDDEN bool sim_parse_flag(const char *text, bool *value);
/* CUDASIM_DEVICES: 0 to SIM_MAX_DEVICES; false otherwise, *count untouched. */
HIDDEN bool sim_parse_device_count(const char *text, int *count);
/*
 * CUDASIM_OTHER_PROCESSES: comma-separated "DEV:PID:BYTES" entries, DEV
 * below device_count, PID not 0, at most SIM_MAX_DEVICES entries. The
 * whole list or nothing: false when an entry is bad (or no memory for a
 * copy of text), and *count is then to be ignored.
 */
HIDDEN bool sim_parse_other_processes(const char *text, int device_count,
                                      struct sim_other_process out[SIM_MAX_DEVICES], int *count);

/*
 * CUDASIM_DRIVER_VERSION: "12020" (a CUDA version whose driver
 * sim_driver_release knows); false otherwise, *version untouched.
 */
HIDDEN bool sim_parse_driver_version(const char *text, int *version);
/*
 * The version string of the driver that supports CUDA version
 * cuda_version (cuDriverGetVersion's encoding): the Linux x86_64 driver
 * that NVIDIA's CUDA Toolkit Release Notes list for that toolkit's GA
 * release ("CUDA Toolkit and Corresponding Driver Versions"), e.g.
 * "535.54.03" for 12020. NULL for a version the table has not.
 */
HIDDEN const char *sim_driver_release(int cuda_version);
/* CUDASIM_COMPUTE_CAPABILITY: "8.0", "8.6", "10.0" (major 1 to 99, minor
 * 0 to 9); false otherwise, *major and *minor untouched. */
HIDDEN bool sim_parse_compute_capability(const char *text, int *major, int *minor);

/*
 * A PCI bus id in the forms cuDeviceGetByPCIBusId accepts:
 * domain:bus:device.function, domain:bus:device or bus:device.function, in
 * hexadecimal. Device d sits on domain 0, bus d + 1, device 0, function 0.
 * False for text that is not a bus id; else true, with *ordinal the device
 * that would sit there, or -1 where none can (whether the ordinal names a
 * device of this run is the caller's to check).
 */
HIDDEN bool sim_parse_pci_bus_id(const char *text, int *ordinal);

#endif /* CUDASIM_SIM_ENV_H */
