/* SPDX-License-Identifier: MIT */
/*
 * field-values.h - values as the narrow fields of the events hold them
 * (contract/events.def: devices are uint8, grid y and z, block sizes and
 * static shared memory uint16, registers uint8).
 */
#ifndef CUDATRACE_FIELD_VALUES_H
#define CUDATRACE_FIELD_VALUES_H

#include <stdint.h>

#include "contract/events.h"

_Static_assert(CT_DEVICE_NONE <= UINT8_MAX, "devices are uint8 in the events");

/* A CUPTI device id as the uint8 of the events. */
static inline uint8_t device8(uint32_t device)
{
	return device >= CT_DEVICE_NONE ? (uint8_t)CT_DEVICE_NONE : (uint8_t)device;
}

/* Values CUDA keeps under 65536 (or 256), as the narrow integers of the
 * events: saturated, should one ever not fit. */
static inline uint16_t u16_sat(uint64_t value)
{
	return value > UINT16_MAX ? UINT16_MAX : (uint16_t)value;
}

static inline uint8_t u8_sat(uint64_t value)
{
	return value > UINT8_MAX ? UINT8_MAX : (uint8_t)value;
}

#endif /* CUDATRACE_FIELD_VALUES_H */
