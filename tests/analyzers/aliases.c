/* SPDX-License-Identifier: MIT */
/*
 * aliases.c - libaliases.so, built without DWARF for test-symbolizer.c:
 * functions named by symbols of each binding at one address, the way
 * C libraries alias their entry points, so that a lookup by the symbol
 * table must pick the name libdw picks (the global one, then the weak).
 */
static int twice(int x)
{
	return 2 * x + (x >> 3);
}

int ct_aliases_weak_first(int x) __attribute__((weak, alias("twice")));
int ct_aliases_global(int x) __attribute__((alias("twice")));

static int thrice(int x)
{
	return 3 * x - (x >> 2);
}

int ct_aliases_weak(int x) __attribute__((weak, alias("thrice")));
