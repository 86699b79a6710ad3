/* SPDX-License-Identifier: MIT */
/*
 * python-frames.c - the calling thread's Python stack, read from
 * CPython's frames as memory profilers do (see python-frames.h).
 *
 * Why reading is safe without the GIL: the thread reading is the one
 * whose frames are read, and it is inside a CUDA call, so none of its
 * frames can be pushed, popped or freed while we read, GIL held or not;
 * code objects and their strings are immutable and kept alive by the
 * frames. Nothing is allocated, no lock is taken and no Python function
 * is called but Py_GetVersion(), once (see running_version()): the
 * thread state comes from PyGILState_GetThisThreadState(), which reads a
 * thread-specific key, and everything else is plain loads.
 *
 * libpython is never linked: its symbols are looked up once, at the
 * first stack taken, with dlsym(RTLD_DEFAULT), where the process has them
 * (python3 exports them, or libpython is loaded globally); a program that
 * loads libpython only after its first allocation gets native stacks. The
 * running interpreter's version comes from Py_Version (3.11 and later) or
 * Py_GetVersion()'s text (before); an interpreter this file does not know
 * (3.8 and older, a debug, trace-refs or free-threaded build, a later
 * version) gives no Python frames and the stack stays native.
 * Every code object is checked to be one (its ob_type is &PyCode_Type),
 * in 3.9 and 3.10 every frame too (&PyFrame_Type), its strings to be str
 * and its line table bytes, and the walk is bounded, so a layout mistaken
 * for another stops the walk rather than reading far.
 *
 * The layouts below are the offsets of CPython's own headers, taken with
 * offsetof() from each version's Include/. Each version was verified by
 * tests/unit/test-python-frames, which checks the frames read against the
 * interpreter's own (sys._getframe), built against pyenv's 3.9.18,
 * 3.10.13, 3.11.7, 3.12.1 and 3.13.0 (its header says how); make check
 * runs it against the version installed.
 *
 * 3.9 and 3.10, a chain of frame objects:
 *  - Include/cpython/pystate.h: PyThreadState.frame, the innermost frame.
 *  - Include/cpython/frameobject.h: PyFrameObject's f_back, f_code and
 *    f_lasti (the last instruction started, -1 before the first: a byte
 *    offset in 3.9, an index in code units in 3.10).
 *  - Include/cpython/code.h: PyCodeObject's co_filename, co_name (there
 *    is no qualified name before 3.11), co_firstlineno and the line table,
 *    co_lnotab (3.9) or co_linetable (3.10, PEP 626), whose formats
 *    Objects/lnotab_notes.txt of each version describes.
 *
 * 3.11 to 3.13, a chain of interpreter frames:
 *  - Include/cpython/pystate.h: PyThreadState.cframe (3.11, 3.12), a
 *    _PyCFrame whose current_frame is the innermost frame;
 *    PyThreadState.current_frame (3.13).
 *  - Include/internal/pycore_frame.h: _PyInterpreterFrame's f_code
 *    (f_executable in 3.13), previous, prev_instr (instr_ptr in 3.13,
 *    the instruction being run rather than the one before: either way
 *    the instruction index is the pointer minus the code's first unit),
 *    owner (FRAME_OWNED_BY_GENERATOR 1; FRAME_OWNED_BY_CSTACK 3, the
 *    interpreter's entry shims in 3.12 and 3.13, are skipped).
 *  - Include/cpython/code.h: PyCodeObject's co_filename, co_qualname,
 *    co_linetable (Objects/locations.md), co_firstlineno,
 *    _co_firsttraceable and co_code_adaptive (the instructions, 2-byte
 *    code units).
 * A frame not yet started (_PyFrame_IsIncomplete: its instruction before
 * _co_firsttraceable, and not a generator's) is skipped, as CPython's
 * own tracebacks do.
 *
 * All versions:
 *  - Include/cpython/unicodeobject.h: PyASCIIObject (its size is where
 *    an ASCII string's bytes start), PyCompactUnicodeObject (the same for
 *    the others), the state bits kind (2-4), compact (5), ascii (6).
 *  - Include/cpython/bytesobject.h: PyBytesObject.ob_sval.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "python-frames.h"

/* How a version maps an instruction to its line. */
enum line_table {
	LNOTAB,    /* 3.9: co_lnotab, offsets in bytes */
	LINETABLE, /* 3.10: co_linetable (PEP 626), offsets in bytes */
	LOCATIONS, /* 3.11 and later: co_linetable, Objects/locations.md */
};

struct py_layout {
	unsigned minor;     /* 3.MINOR */
	bool frame_objects; /* 3.9, 3.10: a chain of PyFrameObject */
	enum line_table table;
	int tstate_cframe;  /* -1: the frame is in the thread state itself */
	int cframe_current; /* the innermost frame, in the cframe or the thread state */
	int frame_code, frame_previous, frame_instr, frame_owner;
	int frame_lasti; /* PyFrameObject.f_lasti (3.9, 3.10) */
	int code_filename;
	int code_name; /* co_qualname, co_name before 3.11 (no qualified name) */
	int code_linetable, code_firstlineno;
	int code_firsttraceable, code_units;
	int ascii_size, compact_size; /* where a compact string's characters start */
};

static const struct py_layout layouts[] = {
	{ .minor = 9,
	  .frame_objects = true,
	  .table = LNOTAB,
	  .tstate_cframe = -1,
	  .cframe_current = 24,
	  .frame_code = 32,
	  .frame_previous = 24,
	  .frame_lasti = 104,
	  .code_filename = 104,
	  .code_name = 112,
	  .code_linetable = 120,
	  .code_firstlineno = 40,
	  .ascii_size = 48,
	  .compact_size = 72 },
	{ .minor = 10,
	  .frame_objects = true,
	  .table = LINETABLE,
	  .tstate_cframe = -1,
	  .cframe_current = 24,
	  .frame_code = 32,
	  .frame_previous = 24,
	  .frame_lasti = 96,
	  .code_filename = 104,
	  .code_name = 112,
	  .code_linetable = 120,
	  .code_firstlineno = 40,
	  .ascii_size = 48,
	  .compact_size = 72 },
	{ .minor = 11,
	  .table = LOCATIONS,
	  .tstate_cframe = 56,
	  .cframe_current = 8,
	  .frame_code = 32,
	  .frame_previous = 48,
	  .frame_instr = 56,
	  .frame_owner = 69,
	  .code_filename = 112,
	  .code_name = 128,
	  .code_linetable = 136,
	  .code_firstlineno = 72,
	  .code_firsttraceable = 168,
	  .code_units = 184,
	  .ascii_size = 48,
	  .compact_size = 72 },
	{ .minor = 12,
	  .table = LOCATIONS,
	  .tstate_cframe = 56,
	  .cframe_current = 0,
	  .frame_code = 0,
	  .frame_previous = 8,
	  .frame_instr = 56,
	  .frame_owner = 70,
	  .code_filename = 112,
	  .code_name = 128,
	  .code_linetable = 136,
	  .code_firstlineno = 68,
	  .code_firsttraceable = 176,
	  .code_units = 192,
	  .ascii_size = 40,
	  .compact_size = 56 },
	{ .minor = 13,
	  .table = LOCATIONS,
	  .tstate_cframe = -1,
	  .cframe_current = 72,
	  .frame_code = 0,
	  .frame_previous = 8,
	  .frame_instr = 56,
	  .frame_owner = 70,
	  .code_filename = 112,
	  .code_name = 128,
	  .code_linetable = 136,
	  .code_firstlineno = 68,
	  .code_firsttraceable = 184,
	  .code_units = 200,
	  .ascii_size = 40,
	  .compact_size = 56 },
};

#define OB_TYPE             8  /* PyObject.ob_type */
#define OB_SIZE             16 /* PyVarObject.ob_size: a bytes object's length */
#define BYTES_SVAL          32 /* PyBytesObject.ob_sval */
#define STR_LENGTH          16 /* PyASCIIObject.length, in code points */
#define STR_STATE           32 /* PyASCIIObject.state */
#define OWNED_BY_GENERATOR  1
#define OWNED_BY_CSTACK     3
#define NAME_MAX_BYTES      512 /* a longer file or function name is cut */
#define LINETABLE_MAX_BYTES (1 << 20)

static struct {
	const struct py_layout *layout; /* NULL: no Python frames */
	void *(*this_thread_state)(void);
	const void *code_type, *frame_type, *str_type, *bytes_type;
} py;

bool python_frames_none;

static pthread_once_t py_once = PTHREAD_ONCE_INIT;

static const struct py_layout *layout_of(unsigned long version)
{
	unsigned major = (unsigned)(version >> 24) & 0xff, minor = (unsigned)(version >> 16) & 0xff;

	if (major != 3)
		return NULL;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].minor == minor)
			return &layouts[i];
	return NULL;
}

/* A build whose objects are laid out otherwise: a debug build
 * (Py_REF_DEBUG), Py_TRACE_REFS's two extra pointers, free threading. */
static bool other_build(void)
{
	static const char *const marks[] = {
		"_Py_NegativeRefcount",
		"_Py_PrintReferences",
		"_Py_DecRefShared",
	};

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (dlsym(RTLD_DEFAULT, marks[i]))
			return true;
	return false;
}

/* The running interpreter's version as PY_VERSION_HEX, 0 when unknown.
 * Before 3.11 only Py_GetVersion() tells ("3.10.13 (main, ..."); it
 * formats into a static buffer with snprintf, allocating nothing and
 * taking no lock, and is called once. */
static unsigned long running_version(void)
{
	const unsigned long *version = dlsym(RTLD_DEFAULT, "Py_Version");
	const char *(*get_version)(void);
	const char *text;
	unsigned long major = 0, minor = 0;

	if (version)
		return *version;
	get_version = (const char *(*)(void))dlsym(RTLD_DEFAULT, "Py_GetVersion");
	if (!get_version || !(text = get_version()))
		return 0;
	for (; *text >= '0' && *text <= '9' && major < 100; text++)
		major = major * 10 + (unsigned long)(*text - '0');
	if (*text++ != '.')
		return 0;
	for (; *text >= '0' && *text <= '9' && minor < 100; text++)
		minor = minor * 10 + (unsigned long)(*text - '0');
	return *text == '.' && major < 256 && minor < 256 ? major << 24 | minor << 16 : 0;
}

static void find_layout(void)
{
	const struct py_layout *layout = layout_of(running_version());

	if (!layout)
		return; /* no Python, or one this file does not know */
	py.this_thread_state =
	    (void *(*)(void))dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
	py.code_type = dlsym(RTLD_DEFAULT, "PyCode_Type");
	py.frame_type = dlsym(RTLD_DEFAULT, "PyFrame_Type");
	py.str_type = dlsym(RTLD_DEFAULT, "PyUnicode_Type");
	py.bytes_type = dlsym(RTLD_DEFAULT, "PyBytes_Type");
	if (!py.this_thread_state || !py.code_type || !py.str_type || !py.bytes_type ||
	    (layout->frame_objects && !py.frame_type) || other_build())
		return;
	py.layout = layout;
}

static void resolve(void)
{
	find_layout();
	if (!py.layout)
		__atomic_store_n(&python_frames_none, true, __ATOMIC_RELAXED);
}

static const void *load_ptr(const void *base, int offset)
{
	const void *p;

	memcpy(&p, (const char *)base + offset, sizeof(p));
	return p;
}

static bool plausible(const void *p)
{
	return (uintptr_t)p >= 4096 && (uintptr_t)p % sizeof(void *) == 0;
}

static bool is_a(const void *object, const void *type)
{
	return plausible(object) && load_ptr(object, OB_TYPE) == type;
}

struct out {
	char *at, *end;
};

static bool put(struct out *o, const char *s, size_t n)
{
	if ((size_t)(o->end - o->at) < n)
		return false;
	memcpy(o->at, s, n);
	o->at += n;
	return true;
}

/* Code point C as UTF-8, a tab or newline as '?': a frame is one line. */
static bool put_char(struct out *o, uint32_t c)
{
	char b[4];

	if (c == '\t' || c == '\n')
		c = '?';
	if (c < 0x80)
		return put(o, (char[]){ (char)c }, 1);
	if (c < 0x800) {
		b[0] = (char)(0xc0 | c >> 6);
		b[1] = (char)(0x80 | (c & 0x3f));
		return put(o, b, 2);
	}
	if (c < 0x10000) {
		b[0] = (char)(0xe0 | c >> 12);
		b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[2] = (char)(0x80 | (c & 0x3f));
		return put(o, b, 3);
	}
	b[0] = (char)(0xf0 | (c >> 18 & 0x7));
	b[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	b[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	b[3] = (char)(0x80 | (c & 0x3f));
	return put(o, b, 4);
}

/* A compact str's characters (code objects hold no other kind), at most
 * NAME_MAX_BYTES of them; false when it is not one or does not fit. */
static bool put_str(struct out *o, const void *s)
{
	int64_t length;
	uint32_t state;
	unsigned kind;
	const char *chars;

	if (!is_a(s, py.str_type))
		return false;
	memcpy(&length, (const char *)s + STR_LENGTH, sizeof(length));
	memcpy(&state, (const char *)s + STR_STATE, sizeof(state));
	kind = (state >> 2) & 7;
	if (length < 0 || !(state & (1u << 5)) || (kind != 1 && kind != 2 && kind != 4))
		return false;
	if (length > NAME_MAX_BYTES)
		length = NAME_MAX_BYTES;
	if (state & (1u << 6)) { /* ASCII, the usual case: copied whole */
		char *at = o->at;

		if (!put(o, (const char *)s + py.layout->ascii_size, (size_t)length))
			return false;
		for (; at < o->at; at++)
			if (*at == '\t' || *at == '\n')
				*at = '?';
		return true;
	}
	chars = (const char *)s + py.layout->compact_size;
	for (int64_t i = 0; i < length; i++) {
		uint32_t c = 0;

		memcpy(&c, chars + i * kind, kind); /* little-endian, as x86-64 and arm64 */
		if (!put_char(o, c))
			return false;
	}
	return true;
}

/*
 * The line of the instruction at byte OFFSET from 3.9's co_lnotab
 * (Objects/lnotab_notes.txt of 3.9): pairs of an unsigned address
 * increment and a signed line increment, summed until the address passes
 * OFFSET, as 3.9's PyCode_Addr2Line.
 */
static int64_t line_of_lnotab(const uint8_t *p, const uint8_t *end, int64_t line, int64_t offset)
{
	int64_t addr = 0;

	for (; end - p >= 2; p += 2) {
		addr += p[0];
		if (addr > offset)
			break;
		line += (int8_t)p[1];
	}
	return line;
}

/*
 * The same from 3.10's co_linetable (PEP 626, Objects/lnotab_notes.txt
 * of 3.10): pairs of an unsigned length in bytes and a signed line
 * change, -128 for a range without a line; the line of the non-empty
 * range holding OFFSET, as 3.10's PyCode_Addr2Line, -1 when none does.
 */
static int64_t line_of_linetable(const uint8_t *p, const uint8_t *end, int64_t line, int64_t offset)
{
	int64_t addr = 0;

	for (; end - p >= 2; p += 2) {
		bool no_line = (int8_t)p[1] == -128;

		addr += p[0];
		if (!no_line)
			line += (int8_t)p[1];
		if (offset < addr) /* the range [addr - p[0], addr) holds it */
			return no_line ? -1 : line;
	}
	return -1;
}

/* A varint of the location table (Objects/locations.md): 6-bit chunks,
 * least significant first, 0x40 when another follows. */
static const uint8_t *read_varint(const uint8_t *p, const uint8_t *end, uint32_t *out)
{
	uint32_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (p >= end || shift > 24)
			return NULL;
		b = *p++;
		v |= (uint32_t)(b & 0x3f) << shift;
		shift += 6;
	} while (b & 0x40);
	*out = v;
	return p;
}

/*
 * The same from the location table of 3.11 and later
 * (Objects/locations.md), INDEX in code units: entries of a first byte
 * 1CCCCLLL (code C, L+1 code units) and what code C needs; codes 13 (no
 * column) and 14 (long form) start with the line's change as a signed
 * varint, 10 to 12 change it by C-10, 15 has no line, the others keep
 * it. -1 when there is no line.
 */
static int64_t line_of_locations(const uint8_t *p, const uint8_t *end, int64_t line, int64_t index)
{
	int64_t addr = 0;

	while (p < end && (*p & 0x80)) {
		unsigned kind = (*p >> 3) & 15;
		int64_t units = (*p & 7) + 1;
		uint32_t delta = 0;

		if ((kind == 13 || kind == 14) && !read_varint(p + 1, end, &delta))
			return -1;
		if (kind == 13 || kind == 14)
			line += (delta & 1) ? -(int64_t)(delta >> 1) : (int64_t)(delta >> 1);
		else if (kind >= 10 && kind <= 12)
			line += (int64_t)kind - 10;
		if (index < addr + units)
			return kind == 15 ? -1 : line;
		addr += units;
		do
			p++;
		while (p < end && !(*p & 0x80));
	}
	return -1;
}

/*
 * The line of instruction INDEX (in 2-byte code units, -1 for a frame
 * not started) of CODE, from its line table in the running version's
 * format. As PyCode_Addr2Line: 0 when there is no line; the first line
 * for a frame not started (3.9, 3.10).
 */
static uint32_t line_of(const void *code, int64_t index)
{
	const void *table = load_ptr(code, py.layout->code_linetable);
	int64_t size, line;
	int32_t first_line;
	const uint8_t *p;

	if (!is_a(table, py.bytes_type))
		return 0;
	memcpy(&size, (const char *)table + OB_SIZE, sizeof(size));
	memcpy(&first_line, (const char *)code + py.layout->code_firstlineno, sizeof(first_line));
	if (size < 0 || size > LINETABLE_MAX_BYTES)
		return 0;
	p = (const uint8_t *)table + BYTES_SVAL;
	/* 64 bits: no sum of a corrupt table's deltas overflows */
	if (index < 0)
		line = py.layout->table == LOCATIONS ? -1 : first_line;
	else if (py.layout->table == LNOTAB)
		line = line_of_lnotab(p, p + size, first_line, 2 * index);
	else if (py.layout->table == LINETABLE)
		line = line_of_linetable(p, p + size, first_line, 2 * index);
	else
		line = line_of_locations(p, p + size, first_line, index);
	return line < 0 || line > UINT32_MAX ? 0 : (uint32_t)line;
}

/* One frame, "LINE\tFUNCTION\tFILE\n"; false when it does not fit. */
static bool put_frame(struct out *o, const void *code, uint32_t line)
{
	char digits[12];
	int n = 0;

	do
		digits[sizeof(digits) - 1 - n++] = (char)('0' + line % 10);
	while ((line /= 10) && n < (int)sizeof(digits));
	return put(o, digits + sizeof(digits) - n, (size_t)n) && put(o, "\t", 1) &&
	       put_str(o, load_ptr(code, py.layout->code_name)) && put(o, "\t", 1) &&
	       put_str(o, load_ptr(code, py.layout->code_filename)) && put(o, "\n", 1);
}

/*
 * What a walk does with each frame: CODE, its code object (checked), and
 * INDEX, the instruction it is at in code units (-1: not started, 3.9
 * and 3.10). False stops the walk.
 */
typedef bool (*frame_visit)(void *arg, const void *code, int64_t index);

/*
 * 3.11 and later: the thread's _PyInterpreterFrame chain, from
 * FRAME. Shims and frames not started are skipped, at most 4 for each
 * frame visited.
 */
static void walk_interpreter_frames(const void *frame, unsigned depth, frame_visit visit, void *arg)
{
	const struct py_layout *l = py.layout;
	unsigned visited = 0;

	for (unsigned seen = 0; plausible(frame) && visited < depth && seen < 5 * depth; seen++) {
		const void *code = load_ptr(frame, l->frame_code);
		const char *instr = load_ptr(frame, l->frame_instr);
		const char *units = (const char *)code + l->code_units;
		char owner = *((const char *)frame + l->frame_owner);
		int32_t first_traceable;

		if (owner == OWNED_BY_CSTACK) { /* a shim, whose f_executable may be None */
			frame = load_ptr(frame, l->frame_previous);
			continue;
		}
		if (!is_a(code, py.code_type))
			break;
		memcpy(&first_traceable, (const char *)code + l->code_firsttraceable,
		       sizeof(first_traceable));
		if (owner == OWNED_BY_GENERATOR || instr >= units + 2 * (int64_t)first_traceable) {
			if (!visit(arg, code, (instr - units) / 2))
				break;
			visited++;
		}
		frame = load_ptr(frame, l->frame_previous);
	}
}

/*
 * 3.9 and 3.10: the thread's PyFrameObject chain (f_back), from FRAME,
 * each frame checked to be one. f_lasti is the last instruction started,
 * -1 before the first: in bytes in 3.9, in code units in 3.10.
 */
static void walk_frame_objects(const void *frame, unsigned depth, frame_visit visit, void *arg)
{
	const struct py_layout *l = py.layout;

	for (unsigned visited = 0; is_a(frame, py.frame_type) && visited < depth; visited++) {
		const void *code = load_ptr(frame, l->frame_code);
		int32_t lasti;

		if (!is_a(code, py.code_type))
			break;
		memcpy(&lasti, (const char *)frame + l->frame_lasti, sizeof(lasti));
		if (!visit(arg, code, lasti < 0 ? -1 : l->table == LNOTAB ? lasti / 2 : lasti))
			break;
		frame = load_ptr(frame, l->frame_previous);
	}
}

/* Visits the calling thread's frames, innermost first, at most DEPTH;
 * false when it runs no Python this file can read. */
static bool walk_frames(unsigned depth, frame_visit visit, void *arg)
{
	const struct py_layout *l;
	const void *tstate, *frame;

	pthread_once(&py_once, resolve);
	l = py.layout;
	if (!l || !(tstate = py.this_thread_state()))
		return false;
	frame = tstate;
	if (l->tstate_cframe >= 0 && !plausible(frame = load_ptr(tstate, l->tstate_cframe)))
		return false;
	frame = load_ptr(frame, l->cframe_current);
	if (l->frame_objects)
		walk_frame_objects(frame, depth, visit, arg);
	else
		walk_interpreter_frames(frame, depth, visit, arg);
	return true;
}

/* One frame written (walk_frames): all of it, or the walk stops. */
static bool format_frame(void *arg, const void *code, int64_t index)
{
	struct out *o = arg;
	char *mark = o->at;

	if (put_frame(o, code, line_of(code, index)))
		return true;
	o->at = mark; /* the frames that fit, whole */
	return false;
}

size_t python_frames_format(char *buf, size_t len, unsigned depth)
{
	struct out o = { .at = buf, .end = buf + len };

	if (!walk_frames(depth, format_frame, &o))
		return 0;
	return (size_t)(o.at - buf);
}

struct frames_key {
	uint64_t hash;
	unsigned frames;
};

/* One frame mixed into the key (FNV-1a over its code object's address and
 * its instruction): no line is computed. */
static bool key_frame(void *arg, const void *code, int64_t index)
{
	struct frames_key *k = arg;
	uint64_t words[2] = { (uint64_t)(uintptr_t)code, (uint64_t)index };
	const unsigned char *b = (const unsigned char *)words;

	for (size_t i = 0; i < sizeof(words); i++) {
		k->hash ^= b[i];
		k->hash *= 0x100000001b3ULL;
	}
	k->frames++;
	return true;
}

uint64_t python_frames_key(unsigned depth)
{
	struct frames_key k = { .hash = 0xcbf29ce484222325ULL };

	if (!walk_frames(depth, key_frame, &k) || !k.frames)
		return 0;
	return k.hash ? k.hash : 1;
}
