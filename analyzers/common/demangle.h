/* SPDX-License-Identifier: MIT */
/*
 * demangle.h - C++ names as people read them ("at::native::empty(...)"
 * for "_ZN2at6native5emptyE..."): kernel names, and the functions of a
 * call stack's C++ frames.
 */
#ifndef CUDATRACE_ANALYZERS_DEMANGLE_H
#define CUDATRACE_ANALYZERS_DEMANGLE_H

/*
 * NAME demangled, in a string the caller frees with free(); NULL when NAME
 * is not a C++ name (no "_Z" prefix), cannot be demangled, or no
 * demangler is found. The demangler is the C++ runtime's own
 * (__cxa_demangle in libstdc++.so.6), loaded at the first call that needs
 * it and kept. Safe from any thread.
 */
char *ct_demangle(const char *name);

#endif
