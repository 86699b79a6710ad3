/* SPDX-License-Identifier: MIT */
/*
 * loaded-objects.h - the shared objects the traced process has loaded,
 * as the dynamic linker lists them (dl_iterate_phdr): one library_load
 * event each, with its path, soname, build id, the version the library
 * itself reports and the device code it carries. No interposition: the
 * list is read again when something may have loaded more (module loads,
 * the other resource callbacks, the session watcher's ticks).
 */
#ifndef CUDATRACE_LOADED_OBJECTS_H
#define CUDATRACE_LOADED_OBJECTS_H

/* Read the list, and emit library_load for each object not seen before.
 * Cheap when nothing was loaded since the last time; skipped when
 * another thread is at it. */
void loaded_objects_scan(void);

/* Emit library_load again for every object seen (a session that started
 * late), then the new ones. */
void loaded_objects_announce(void);

#endif /* CUDATRACE_LOADED_OBJECTS_H */
