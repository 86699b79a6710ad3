/* SPDX-License-Identifier: MIT */
/*
 * driver-vmm.c - virtual memory management: address reservations,
 * physical allocations from the device heap, and mappings of one into the
 * other with mmap(MAP_FIXED) of the device's memfd, in the order the driver
 * requires (cuda.h:12720-13262).
 *
 * A reservation is an anonymous PROT_NONE range. A mapping replaces part
 * of it with the physical block's pages of the memfd, still PROT_NONE: as
 * on a GPU, a new mapping has no access until cuMemSetAccess.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "driver-memory.h"

#define VMM_GRANULARITY SIM_HEAP_GRANULARITY

/* cuMemCreate's physical memory, known by its handle. */
struct vmm_physical {
	struct sim_range handle; /* base = the handle value, size 1 */
	CUmemAllocationProp prop;
	struct sim_mem_record ledger; /* what its ledger lines say */
	unsigned int refs;            /* handles not yet released */
	unsigned int maps;            /* mappings using it */
};

struct vmm_reservation {
	struct sim_range range;
};

/* A mapping: a record in the memory table, of kind SIM_MEM_VMM. */
struct vmm_mapping {
	struct sim_mem_record rec;
	struct vmm_reservation *reservation;
	struct vmm_physical *physical;
	CUmemAccess_flags access[SIM_MAX_DEVICES];
};

/* Under the memory lock. */
static struct sim_range_tree reservations = { NULL, 0, 2463534242u };
static struct sim_range_tree handles = { NULL, 0, 2463534242u };
static uint64_t next_handle = 1;

static bool granule_aligned(uint64_t value)
{
	return value % VMM_GRANULARITY == 0;
}

/* A live handle: created or retained and not yet released. */
static struct vmm_physical *physical_from_handle(CUmemGenericAllocationHandle handle)
{
	struct sim_range *node = sim_range_find(&handles, (uintptr_t)handle);
	struct vmm_physical *physical;

	if (!node || node->base != handle)
		return NULL;
	physical = container_of(node, struct vmm_physical, handle);
	return physical->refs ? physical : NULL;
}

static struct vmm_mapping *mapping_at(uintptr_t addr)
{
	struct sim_mem_record *rec = sim_mem_table_find(addr);

	return rec && rec->kind == SIM_MEM_VMM ? rec->owner : NULL;
}

/* Free the physical block once it is neither mapped nor held. */
static void physical_maybe_free(struct vmm_physical *physical)
{
	if (physical->refs || physical->maps)
		return;
	sim_range_remove(&handles, &physical->handle);
	sim_mem_ledger_free(&physical->ledger, false);
	sim_heap_free(sim_device_heap(physical->ledger.device), physical->ledger.range.base, NULL);
	free(physical);
}

/* The mappings that exactly tile [ptr, ptr + size), in address order. */
static CUresult mappings_tiling(uintptr_t ptr, size_t size, struct vmm_mapping ***out,
                                size_t *count)
{
	struct vmm_mapping **list = NULL, **grown;
	size_t used = 0, capacity = 0;
	uintptr_t cursor = ptr;

	while (cursor - ptr < size) {
		struct vmm_mapping *mapping = mapping_at(cursor);
		if (!mapping || mapping->rec.range.base != cursor ||
		    mapping->rec.range.size > size - (cursor - ptr))
			goto invalid;
		if (used == capacity) {
			capacity = capacity ? capacity * 2 : 8;
			grown = realloc(list, capacity * sizeof(*list));
			if (!grown)
				goto invalid;
			list = grown;
		}
		list[used++] = mapping;
		cursor += mapping->rec.range.size;
	}
	if (used == 0)
		goto invalid;
	*out = list;
	*count = used;
	return CUDA_SUCCESS;
invalid:
	free(list);
	return CUDA_ERROR_INVALID_VALUE;
}

bool sim_vmm_lookup(const struct sim_mem_record *rec, uintptr_t ptr, size_t bytes,
                    struct sim_mem_region *region)
{
	const struct vmm_mapping *mapping = rec->owner;
	uintptr_t cursor = ptr, end;

	region->kind = SIM_MEM_VMM;
	region->device = rec->device;
	region->base = mapping->reservation->range.base;
	region->size = mapping->reservation->range.size;
	if (bytes > UINTPTR_MAX - ptr)
		return false;
	end = ptr + (bytes ? bytes : 1);
	/* Every byte must be mapped with access: adjacent mappings of one
	 * reservation read as one range, as they do on the GPU. */
	while (cursor < end) {
		const struct vmm_mapping *here = mapping_at(cursor);
		if (!here || here->reservation != mapping->reservation)
			return false;
		if (here->access[here->rec.device] == CU_MEM_ACCESS_FLAGS_PROT_NONE)
			return false;
		cursor = here->rec.range.base + here->rec.range.size;
	}
	return true;
}

/* ------------------------------------------------------------ granularity */

static CUresult check_prop(const CUmemAllocationProp *prop)
{
	if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
		return CUDA_ERROR_INVALID_VALUE;
	if (prop->location.type == CU_MEM_LOCATION_TYPE_HOST ||
	    prop->location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA)
		return CUDA_ERROR_NOT_SUPPORTED; /* host VMM memory is not simulated */
	if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_ERROR_INVALID_VALUE;
	if (!sim_device_valid(prop->location.id))
		return CUDA_ERROR_INVALID_DEVICE;
	return CUDA_SUCCESS;
}

static CUresult get_granularity(size_t *granularity, const CUmemAllocationProp *prop,
                                CUmemAllocationGranularity_flags option)
{
	CUresult status = sim_init_status();

	if (status != CUDA_SUCCESS)
		return status;
	if (!granularity || !prop ||
	    (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
	     option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
		return CUDA_ERROR_INVALID_VALUE;
	status = check_prop(prop);
	if (status == CUDA_ERROR_INVALID_DEVICE)
		status = CUDA_ERROR_INVALID_VALUE; /* cuda.h:13212 lists no other */
	if (status != CUDA_SUCCESS)
		return status;
	/* MINIMUM = RECOMMENDED = 2 MiB on discrete GPUs, as real ones
	 * print it (torch_memory_saver#82) */
	*granularity = VMM_GRANULARITY;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuMemGetAllocationGranularity(size_t *granularity,
                                                          const CUmemAllocationProp *prop,
                                                          CUmemAllocationGranularity_flags option)
{
	cuMemGetAllocationGranularity_params params = { granularity, prop, option };
	SIM_DRIVER_CALL(cuMemGetAllocationGranularity, params,
	                get_granularity(granularity, prop, option));
}

/* ------------------------------------------------------------ reservations */

/* Reserve size bytes of address space aligned to alignment, at hint if it
 * is free and aligned. */
static void *reserve_va(size_t size, size_t alignment, uintptr_t hint)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
	uint8_t *area, *aligned;
	size_t span;

	if (hint && hint % alignment == 0) {
		area = mmap((void *)hint, size, PROT_NONE, flags | MAP_FIXED_NOREPLACE, -1, 0);
		if (area == (uint8_t *)hint)
			return area;
		if (area != MAP_FAILED)
			munmap(area, size); /* an old kernel placed it elsewhere */
	}
	if (size > SIZE_MAX - alignment)
		return NULL;
	span = size + alignment;
	area = mmap(NULL, span, PROT_NONE, flags, -1, 0);
	if (area == MAP_FAILED)
		return NULL;
	aligned = (uint8_t *)(((uintptr_t)area + alignment - 1) / alignment * alignment);
	if (aligned > area)
		munmap(area, (size_t)(aligned - area));
	if (aligned + size < area + span)
		munmap(aligned + size, (size_t)(area + span - (aligned + size)));
	return aligned;
}

static CUresult address_reserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                                unsigned long long flags)
{
	CUresult status = sim_init_status();
	struct vmm_reservation *reservation;
	void *va;

	if (status != CUDA_SUCCESS)
		return status;
	/* cuda.h:12722-12726: size and addr multiples of the host page size,
	 * alignment 0 or a power of two, flags 0 */
	if (!ptr || size == 0 || size % sim_page_size() || addr % sim_page_size() ||
	    (alignment & (alignment - 1)) || flags)
		return CUDA_ERROR_INVALID_VALUE;
	/* device ranges start on the allocation granularity */
	if (alignment < VMM_GRANULARITY)
		alignment = VMM_GRANULARITY;
	reservation = calloc(1, sizeof(*reservation));
	va = reservation ? reserve_va(size, alignment, (uintptr_t)addr) : NULL;
	if (!va) {
		free(reservation);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	reservation->range.base = (uintptr_t)va;
	reservation->range.size = size;
	sim_mem_lock();
	sim_range_insert(&reservations, &reservation->range);
	sim_mem_unlock();
	*ptr = (CUdeviceptr)(uintptr_t)va;
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                                CUdeviceptr addr, unsigned long long flags)
{
	cuMemAddressReserve_params params = { ptr, size, alignment, addr, flags };
	SIM_DRIVER_CALL(cuMemAddressReserve, params,
	                address_reserve(ptr, size, alignment, addr, flags));
}

static CUresult address_free(CUdeviceptr ptr, size_t size)
{
	CUresult status = sim_init_status();
	struct sim_range *range;

	if (status != CUDA_SUCCESS)
		return status;
	sim_mem_lock();
	range = sim_range_find(&reservations, (uintptr_t)ptr);
	/* cuda.h:12752: ptr and size as cuMemAddressReserve gave them; and
	 * what is still mapped must be unmapped first */
	if (!range || range->base != ptr || range->size != size ||
	    sim_mem_table_overlap(range->base, range->size)) {
		sim_mem_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	sim_range_remove(&reservations, range);
	sim_mem_unlock();
	munmap((void *)range->base, range->size);
	free(container_of(range, struct vmm_reservation, range));
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
	cuMemAddressFree_params params = { ptr, size };
	SIM_DRIVER_CALL(cuMemAddressFree, params, address_free(ptr, size));
}

/* ------------------------------------------------------------ physical memory */

static CUresult mem_create(CUmemGenericAllocationHandle *handle, size_t size,
                           const CUmemAllocationProp *prop, unsigned long long flags)
{
	CUresult status = sim_init_status();
	struct vmm_physical *physical;
	struct sim_heap_block block;
	struct sim_heap *heap;

	if (status != CUDA_SUCCESS)
		return status;
	if (!handle || !prop || flags)
		return CUDA_ERROR_INVALID_VALUE;
	status = check_prop(prop);
	if (status != CUDA_SUCCESS)
		return status;
	if (prop->requestedHandleTypes & ~(unsigned int)CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		return CUDA_ERROR_NOT_SUPPORTED;
	/* cuda.h:12794: a multiple of the minimum granularity */
	if (size == 0 || !granule_aligned(size))
		return CUDA_ERROR_INVALID_VALUE;
	heap = sim_device_heap(prop->location.id);
	physical = calloc(1, sizeof(*physical));
	sim_mem_lock();
	if (!heap || !physical || sim_heap_alloc_granules(heap, size, &block) != 0) {
		sim_mem_ledger_alloc_failed("vmm_physical", prop->location.id, size,
		                            CUDA_ERROR_OUT_OF_MEMORY);
		sim_mem_unlock();
		free(physical);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	physical->handle.base = (uintptr_t)next_handle++;
	physical->handle.size = 1;
	physical->prop = *prop;
	physical->refs = 1;
	physical->ledger.range.base = block.base;
	physical->ledger.range.size = size;
	physical->ledger.kind = SIM_MEM_VMM;
	physical->ledger.ledger_kind = "vmm_physical";
	physical->ledger.device = prop->location.id;
	physical->ledger.reserved = block.reserved;
	sim_range_insert(&handles, &physical->handle);
	sim_mem_ledger_alloc(&physical->ledger, false);
	*handle = (CUmemGenericAllocationHandle)physical->handle.base;
	sim_mem_unlock();
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                                        const CUmemAllocationProp *prop, unsigned long long flags)
{
	cuMemCreate_params params = { handle, size, prop, flags };
	SIM_DRIVER_CALL(cuMemCreate, params, mem_create(handle, size, prop, flags));
}

static CUresult mem_release(CUmemGenericAllocationHandle handle)
{
	CUresult status = sim_init_status();
	struct vmm_physical *physical;

	if (status != CUDA_SUCCESS)
		return status;
	sim_mem_lock();
	physical = physical_from_handle(handle);
	if (!physical) {
		sim_mem_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	/* cuda.h:12846: allowed while mapped; the memory goes once it is
	 * unmapped and every handle is released */
	physical->refs--;
	physical_maybe_free(physical);
	sim_mem_unlock();
	return CUDA_SUCCESS;
}

SIM_EXPORT CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle)
{
	cuMemRelease_params params = { handle };
	SIM_DRIVER_CALL(cuMemRelease, params, mem_release(handle));
}

static CUresult get_properties(CUmemAllocationProp *prop, CUmemGenericAllocationHandle handle)
{
	CUresult status = sim_init_status();
	struct vmm_physical *physical;

	if (status != CUDA_SUCCESS)
		return status;
	if (!prop)
		return CUDA_ERROR_INVALID_VALUE;
	sim_mem_lock();
	physical = physical_from_handle(handle);
	if (physical)
		*prop = physical->prop;
	sim_mem_unlock();
	return physical ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult CUDAAPI cuMemGetAllocationPropertiesFromHandle(
    CUmemAllocationProp *prop, CUmemGenericAllocationHandle handle)
{
	cuMemGetAllocationPropertiesFromHandle_params params = { prop, handle };
	SIM_DRIVER_CALL(cuMemGetAllocationPropertiesFromHandle, params,
	                get_properties(prop, handle));
}

static CUresult retain_handle(CUmemGenericAllocationHandle *handle, void *addr)
{
	CUresult status = sim_init_status();
	struct vmm_mapping *mapping;

	if (status != CUDA_SUCCESS)
		return status;
	if (!handle)
		return CUDA_ERROR_INVALID_VALUE;
	sim_mem_lock();
	/* cuda.h:13245: any address inside a mapping; one more handle to
	 * release */
	mapping = mapping_at((uintptr_t)addr);
	if (mapping) {
		mapping->physical->refs++;
		*handle = (CUmemGenericAllocationHandle)mapping->physical->handle.base;
	}
	sim_mem_unlock();
	return mapping ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult CUDAAPI cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle,
                                                        void *addr)
{
	cuMemRetainAllocationHandle_params params = { handle, addr };
	SIM_DRIVER_CALL(cuMemRetainAllocationHandle, params, retain_handle(handle, addr));
}

static CUresult export_handle(void)
{
	CUresult status = sim_init_status();

	/* no other process can import simulated memory */
	return status != CUDA_SUCCESS ? status : CUDA_ERROR_NOT_SUPPORTED;
}

SIM_EXPORT CUresult CUDAAPI cuMemExportToShareableHandle(void *shareableHandle,
                                                         CUmemGenericAllocationHandle handle,
                                                         CUmemAllocationHandleType handleType,
                                                         unsigned long long flags)
{
	cuMemExportToShareableHandle_params params = { shareableHandle, handle, handleType, flags };
	SIM_DRIVER_CALL(cuMemExportToShareableHandle, params, export_handle());
}

/* ------------------------------------------------------------ mappings */

static CUresult map_checked(uintptr_t ptr, size_t size, struct vmm_physical *physical)
{
	struct sim_range *range = sim_range_find(&reservations, ptr);
	struct sim_heap *heap = sim_device_heap(physical->ledger.device);
	struct vmm_mapping *mapping;
	void *mapped;

	/* cuda.h:12881: inside one reservation, onto no existing mapping */
	if (!range || size > range->size - (ptr - range->base) || sim_mem_table_overlap(ptr, size))
		return CUDA_ERROR_INVALID_VALUE;
	mapping = calloc(1, sizeof(*mapping));
	if (!mapping || !heap)
		goto out_of_memory;
	mapped = mmap((void *)ptr, size, PROT_NONE, MAP_SHARED | MAP_FIXED, sim_heap_fd(heap),
	              (off_t)sim_heap_offset(heap, physical->ledger.range.base));
	if (mapped == MAP_FAILED)
		goto out_of_memory;
	mapping->rec.range.base = ptr;
	mapping->rec.range.size = size;
	mapping->rec.kind = SIM_MEM_VMM;
	mapping->rec.ledger_kind = "vmm_map";
	mapping->rec.device = physical->ledger.device;
	mapping->rec.owner = mapping;
	mapping->reservation = container_of(range, struct vmm_reservation, range);
	mapping->physical = physical;
	physical->maps++;
	sim_mem_table_insert(&mapping->rec);
	/* not memory of its own: the vmm_physical line carries the bytes */
	sim_mem_ledger_alloc(&mapping->rec, false);
	return CUDA_SUCCESS;
out_of_memory:
	free(mapping);
	return CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult mem_map(CUdeviceptr ptr, size_t size, size_t offset,
                        CUmemGenericAllocationHandle handle, unsigned long long flags)
{
	CUresult status = sim_init_status();
	struct vmm_physical *physical;

	if (status != CUDA_SUCCESS)
		return status;
	/* cuda.h:12875-12905: granularity multiples, offset currently 0,
	 * flags 0 */
	if (size == 0 || !granule_aligned(ptr) || !granule_aligned(size) || offset != 0 || flags)
		return CUDA_ERROR_INVALID_VALUE;
	sim_mem_lock();
	physical = physical_from_handle(handle);
	if (!physical || size > physical->ledger.range.size)
		status = CUDA_ERROR_INVALID_VALUE;
	else
		status = map_checked((uintptr_t)ptr, size, physical);
	sim_mem_unlock();
	return status;
}

SIM_EXPORT CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                                     CUmemGenericAllocationHandle handle, unsigned long long flags)
{
	cuMemMap_params params = { ptr, size, offset, handle, flags };
	SIM_DRIVER_CALL(cuMemMap, params, mem_map(ptr, size, offset, handle, flags));
}

/* Back to a bare reservation: PROT_NONE anonymous pages over the range. */
static void unmap_one(struct vmm_mapping *mapping)
{
	struct vmm_physical *physical = mapping->physical;

	sim_mem_table_remove(&mapping->rec);
	(void)mmap((void *)mapping->rec.range.base, mapping->rec.range.size, PROT_NONE,
	           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	sim_mem_ledger_free(&mapping->rec, false);
	physical->maps--;
	physical_maybe_free(physical);
	free(mapping);
}

static CUresult mem_unmap(CUdeviceptr ptr, size_t size)
{
	CUresult status = sim_init_status();
	struct vmm_mapping **mappings = NULL;
	bool device_used[SIM_MAX_DEVICES] = { false };
	size_t count = 0;

	if (status != CUDA_SUCCESS)
		return status;
	if (size == 0 || !granule_aligned(ptr) || !granule_aligned(size))
		return CUDA_ERROR_INVALID_VALUE;
	sim_mem_lock();
	status = mappings_tiling((uintptr_t)ptr, size, &mappings, &count);
	for (size_t i = 0; status == CUDA_SUCCESS && i < count; i++)
		device_used[mappings[i]->rec.device] = true;
	sim_mem_unlock();
	free(mappings);
	/* cuda.h:13065: "the entire contiguous address range that was
	 * mapped", never part of a mapping */
	if (status != CUDA_SUCCESS)
		return status;
	/* \note_sync: the GPU's work on the range ends first */
	for (int device = 0; device < SIM_MAX_DEVICES; device++) {
		if (device_used[device])
			sim_wait_until(sim_device_tail(device));
	}
	sim_mem_lock();
	status = mappings_tiling((uintptr_t)ptr, size, &mappings, &count);
	for (size_t i = 0; status == CUDA_SUCCESS && i < count; i++)
		unmap_one(mappings[i]);
	sim_mem_unlock();
	free(mappings);
	return status;
}

SIM_EXPORT CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	cuMemUnmap_params params = { ptr, size };
	SIM_DRIVER_CALL(cuMemUnmap, params, mem_unmap(ptr, size));
}

/* ------------------------------------------------------------ access */

static CUresult check_access(const CUmemAccessDesc *desc)
{
	if (desc->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    !sim_device_valid(desc->location.id))
		return CUDA_ERROR_INVALID_DEVICE;
	if (!sim_access_flags_valid(desc->flags))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/* The host stands in for the devices: the pages allow the most that any
 * device was granted. */
static int mapping_protection(const struct vmm_mapping *mapping)
{
	int prot = PROT_NONE;

	for (int device = 0; device < SIM_MAX_DEVICES; device++) {
		if (mapping->access[device] == CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
			return PROT_READ | PROT_WRITE;
		if (mapping->access[device] == CU_MEM_ACCESS_FLAGS_PROT_READ)
			prot = PROT_READ;
	}
	return prot;
}

static CUresult set_access(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
	CUresult status = sim_init_status();
	struct vmm_mapping **mappings = NULL;
	size_t mapped = 0;

	if (status != CUDA_SUCCESS)
		return status;
	if (!desc || count == 0 || size == 0)
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < count; i++) {
		status = check_access(&desc[i]);
		if (status != CUDA_SUCCESS)
			return status;
	}
	sim_mem_lock();
	/* cuda.h:13090: a fully mapped range of whole mappings */
	status = mappings_tiling((uintptr_t)ptr, size, &mappings, &mapped);
	for (size_t m = 0; status == CUDA_SUCCESS && m < mapped; m++) {
		for (size_t i = 0; i < count; i++)
			mappings[m]->access[desc[i].location.id] = desc[i].flags;
		if (mprotect((void *)mappings[m]->rec.range.base, mappings[m]->rec.range.size,
		             mapping_protection(mappings[m])) != 0)
			status = CUDA_ERROR_OUT_OF_MEMORY;
	}
	sim_mem_unlock();
	free(mappings);
	return status;
}

SIM_EXPORT CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size,
                                           const CUmemAccessDesc *desc, size_t count)
{
	cuMemSetAccess_params params = { ptr, size, desc, count };
	SIM_DRIVER_CALL(cuMemSetAccess, params, set_access(ptr, size, desc, count));
}

static CUresult get_access(unsigned long long *flags, const CUmemLocation *location,
                           CUdeviceptr ptr)
{
	CUresult status = sim_init_status();
	struct vmm_mapping *mapping;

	if (status != CUDA_SUCCESS)
		return status;
	if (!flags || !location)
		return CUDA_ERROR_INVALID_VALUE;
	if (location->type != CU_MEM_LOCATION_TYPE_DEVICE || !sim_device_valid(location->id))
		return CUDA_ERROR_INVALID_DEVICE;
	sim_mem_lock();
	mapping = mapping_at((uintptr_t)ptr);
	if (mapping)
		*flags = (unsigned long long)mapping->access[location->id];
	sim_mem_unlock();
	return mapping ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult CUDAAPI cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location,
                                           CUdeviceptr ptr)
{
	cuMemGetAccess_params params = { flags, location, ptr };
	SIM_DRIVER_CALL(cuMemGetAccess, params, get_access(flags, location, ptr));
}
