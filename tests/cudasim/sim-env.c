/* SPDX-License-Identifier: MIT */
/*
 * sim-env.c - parsing of the CUDASIM_* values and of PCI bus ids, the same
 * in libcuda.so.1 (driver-config.c, driver-device.c) and libnvidia-ml.so.1
 * (nvml.c). Pure functions: no environment access, no messages.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sim-env.h"

/* Multiplier of a size suffix (K, M, G, T, optionally followed by B or iB),
 * 0 for anything else. */
static uint64_t size_suffix(const char *suffix)
{
	static const char units[] = "KMGT";
	const char *unit;
	uint64_t scale = 1024;

	if (!*suffix)
		return 1;
	unit = strchr(units, toupper((unsigned char)suffix[0]));
	if (!unit)
		return 0;
	for (const char *u = units; u < unit; u++)
		scale *= 1024;
	suffix++;
	if (!strcasecmp(suffix, "") || !strcasecmp(suffix, "B") || !strcasecmp(suffix, "iB"))
		return scale;
	return 0;
}

bool sim_parse_size(const char *text, uint64_t *bytes)
{
	unsigned long long number;
	uint64_t scale;
	char *end;

	if (!text || !isdigit((unsigned char)text[0]))
		return false;
	errno = 0;
	number = strtoull(text, &end, 10);
	if (errno)
		return false;
	scale = size_suffix(end);
	if (!scale || number > UINT64_MAX / scale)
		return false;
	*bytes = number * scale;
	return true;
}

/* A decimal number at the start of text, up to *end. */
static bool parse_number(const char *text, unsigned long long *value, char **end)
{
	if (!isdigit((unsigned char)text[0]))
		return false;
	errno = 0;
	*value = strtoull(text, end, 10);
	return errno == 0;
}

bool sim_parse_u64(const char *text, uint64_t *value)
{
	unsigned long long number;
	char *end;

	if (!parse_number(text, &number, &end) || *end)
		return false;
	*value = number;
	return true;
}

bool sim_parse_flag(const char *text, bool *value)
{
	if (!strcmp(text, "0") || !strcmp(text, "1")) {
		*value = text[0] == '1';
		return true;
	}
	return false;
}

bool sim_parse_device_count(const char *text, int *count)
{
	uint64_t value;

	if (!sim_parse_u64(text, &value) || value > SIM_MAX_DEVICES)
		return false;
	*count = (int)value;
	return true;
}

/* One "DEV:PID:BYTES" entry; DEV must name a simulated device. */
static bool parse_other_process(const char *entry, int device_count, struct sim_other_process *out)
{
	unsigned long long device, pid;
	char *end;

	if (!parse_number(entry, &device, &end) || *end != ':' ||
	    device >= (unsigned long long)device_count)
		return false;
	if (!parse_number(end + 1, &pid, &end) || *end != ':' || pid == 0 || pid > UINT_MAX)
		return false;
	out->device = (int)device;
	out->pid = (unsigned int)pid;
	return sim_parse_size(end + 1, &out->bytes);
}

bool sim_parse_other_processes(const char *text, int device_count,
                               struct sim_other_process out[SIM_MAX_DEVICES], int *count)
{
	char *copy = strdup(text);
	char *saveptr = NULL;
	bool ok = copy != NULL;

	*count = 0;
	for (char *entry = ok ? strtok_r(copy, ",", &saveptr) : NULL; entry && ok;
	     entry = strtok_r(NULL, ",", &saveptr)) {
		ok = *count < SIM_MAX_DEVICES &&
		     parse_other_process(entry, device_count, &out[*count]);
		if (ok)
			(*count)++;
	}
	free(copy);
	return ok;
}

bool sim_parse_pci_bus_id(const char *text, int *ordinal)
{
	unsigned int domain = 0, bus = 0, device = 0, function = 0;
	int consumed = 0;

	if (sscanf(text, "%x:%x:%x.%x%n", &domain, &bus, &device, &function, &consumed) == 4 &&
	    !text[consumed])
		goto found;
	domain = 0;
	function = 0;
	consumed = 0;
	if (sscanf(text, "%x:%x:%x%n", &domain, &bus, &device, &consumed) == 3 && !text[consumed])
		goto found;
	domain = 0;
	consumed = 0;
	if (sscanf(text, "%x:%x.%x%n", &bus, &device, &function, &consumed) == 3 && !text[consumed])
		goto found;
	return false;
found:
	if (domain != 0 || device != 0 || function != 0 || bus == 0 || bus > SIM_MAX_DEVICES)
		*ordinal = -1;
	else
		*ordinal = (int)bus - 1;
	return true;
}

/*
 * NVIDIA's CUDA Toolkit Release Notes, table "CUDA Toolkit and
 * Corresponding Driver Versions": the Linux x86_64 driver each toolkit's
 * GA release shipped with ("Toolkit Driver Version"). A driver of that
 * branch reports the toolkit's CUDA version through cuDriverGetVersion
 * and nvmlSystemGetCudaDriverVersion, and its own version string through
 * nvmlSystemGetDriverVersion. CUDA 12.7 was never released.
 */
static const struct {
	int cuda_version;
	const char *driver;
} driver_releases[] = {
	{ 10000, "410.48" },    { 10010, "418.39" },    { 10020, "440.33" },
	{ 11000, "450.36.06" }, { 11010, "455.23" },    { 11020, "460.27.03" },
	{ 11030, "465.19.01" }, { 11040, "470.42.01" }, { 11050, "495.29.05" },
	{ 11060, "510.39.01" }, { 11070, "515.43.04" }, { 11080, "520.61.05" },
	{ 12000, "525.60.13" }, { 12010, "530.30.02" }, { 12020, "535.54.03" },
	{ 12030, "545.23.06" }, { 12040, "550.54.14" }, { 12050, "555.42.02" },
	{ 12060, "560.28.03" }, { 12080, "570.26" },    { 12090, "575.51.03" },
	{ 13000, "580.65.06" },
};

const char *sim_driver_release(int cuda_version)
{
	for (size_t i = 0; i < sizeof(driver_releases) / sizeof(driver_releases[0]); i++)
		if (driver_releases[i].cuda_version == cuda_version)
			return driver_releases[i].driver;
	return NULL;
}

bool sim_parse_driver_version(const char *text, int *version)
{
	uint64_t value;

	if (!sim_parse_u64(text, &value) || value > INT_MAX || !sim_driver_release((int)value))
		return false;
	*version = (int)value;
	return true;
}

bool sim_parse_compute_capability(const char *text, int *major, int *minor)
{
	int a = 0;
	size_t i = 0;

	/* One or two digits, a dot, one digit: "8.0", "10.3". */
	while (i < 2 && isdigit((unsigned char)text[i]))
		a = a * 10 + (text[i++] - '0');
	if (i == 0 || a < 1 || text[i] != '.' || !isdigit((unsigned char)text[i + 1]) ||
	    text[i + 2] != '\0')
		return false;
	*major = a;
	*minor = text[i + 1] - '0';
	return true;
}
