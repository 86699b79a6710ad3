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
 * is called: the thread state comes from PyGILState_GetThisThreadState(),
 * which reads a thread-specific key, and everything else is plain loads.
 *
 * libpython is never linked: its symbols are looked up once, at the
 * first stack taken, with dlsym(RTLD_DEFAULT), where the process has them
 * (python3 exports them, or libpython is loaded globally); a program that
 * loads libpython only after its first allocation gets native stacks. The running interpreter's version
 * comes from Py_Version (3.11 and later); an interpreter this file does
 * not know (3.10 and older, a debug, trace-refs or free-threaded build, a
 * later version) gives no Python frames and the stack stays native.
 * Every code object is checked to be one (its ob_type is &PyCode_Type),
 * its strings to be str and its line table bytes, and the walk is
 * bounded, so a layout mistaken for another stops the walk rather than
 * reading far.
 *
 * The layouts below are the offsets of CPython's own headers, taken with
 * offsetof() from each version's Include/ (tests/unit/test-python-frames
 * checks the frames read against the interpreter's own in the version
 * installed):
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
 *    co_linetable, co_firstlineno, _co_firsttraceable and
 *    co_code_adaptive (the instructions, 2-byte code units).
 *  - Include/cpython/unicodeobject.h: PyASCIIObject (its size is where
 *    an ASCII string's bytes start), PyCompactUnicodeObject (the same for
 *    the others), the state bits kind (2-4), compact (5), ascii (6).
 *  - Include/cpython/bytesobject.h: PyBytesObject.ob_sval.
 * A frame not yet started (_PyFrame_IsIncomplete: its instruction before
 * _co_firsttraceable, and not a generator's) is skipped, as CPython's
 * own tracebacks do.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "python-frames.h"

struct py_layout {
	unsigned minor;     /* 3.MINOR */
	int tstate_cframe;  /* -1: the frame is in the thread state itself */
	int cframe_current; /* the innermost frame, in the cframe or the thread state */
	int frame_code, frame_previous, frame_instr, frame_owner;
	int code_filename, code_qualname, code_linetable, code_firstlineno;
	int code_firsttraceable, code_units;
	int ascii_size, compact_size; /* where a compact string's characters start */
};

static const struct py_layout layouts[] = {
	{ .minor = 11,
	  .tstate_cframe = 56,
	  .cframe_current = 8,
	  .frame_code = 32,
	  .frame_previous = 48,
	  .frame_instr = 56,
	  .frame_owner = 69,
	  .code_filename = 112,
	  .code_qualname = 128,
	  .code_linetable = 136,
	  .code_firstlineno = 72,
	  .code_firsttraceable = 168,
	  .code_units = 184,
	  .ascii_size = 48,
	  .compact_size = 72 },
	{ .minor = 12,
	  .tstate_cframe = 56,
	  .cframe_current = 0,
	  .frame_code = 0,
	  .frame_previous = 8,
	  .frame_instr = 56,
	  .frame_owner = 70,
	  .code_filename = 112,
	  .code_qualname = 128,
	  .code_linetable = 136,
	  .code_firstlineno = 68,
	  .code_firsttraceable = 176,
	  .code_units = 192,
	  .ascii_size = 40,
	  .compact_size = 56 },
	{ .minor = 13,
	  .tstate_cframe = -1,
	  .cframe_current = 72,
	  .frame_code = 0,
	  .frame_previous = 8,
	  .frame_instr = 56,
	  .frame_owner = 70,
	  .code_filename = 112,
	  .code_qualname = 128,
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
	const void *code_type, *str_type, *bytes_type;
} py;

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

static void resolve(void)
{
	const unsigned long *version = dlsym(RTLD_DEFAULT, "Py_Version");

	if (!version)
		return; /* no Python, or one older than 3.11 */
	py.this_thread_state =
	    (void *(*)(void))dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
	py.code_type = dlsym(RTLD_DEFAULT, "PyCode_Type");
	py.str_type = dlsym(RTLD_DEFAULT, "PyUnicode_Type");
	py.bytes_type = dlsym(RTLD_DEFAULT, "PyBytes_Type");
	if (!py.this_thread_state || !py.code_type || !py.str_type || !py.bytes_type ||
	    other_build())
		return;
	py.layout = layout_of(*version);
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
 * The line of instruction INDEX (in code units) of CODE, from its
 * location table (3.11 and later, Objects/locations.md): entries of a
 * first byte 1CCCCLLL (code C, L+1 code units) and what code C needs;
 * codes 13 (no column) and 14 (long form) start with the line's change as
 * a signed varint, 10 to 12 change it by C-10, 15 has no line, the others
 * keep it. As PyCode_Addr2Line: 0 when there is no line.
 */
static uint32_t line_of(const void *code, int64_t index)
{
	const void *table = load_ptr(code, py.layout->code_linetable);
	int64_t size, addr = 0, line;
	int32_t first_line;
	const uint8_t *p, *end;

	if (!is_a(table, py.bytes_type) || index < 0)
		return 0;
	memcpy(&size, (const char *)table + OB_SIZE, sizeof(size));
	memcpy(&first_line, (const char *)code + py.layout->code_firstlineno, sizeof(first_line));
	line = first_line; /* 64 bits: no sum of a corrupt table's deltas overflows */
	if (size <= 0 || size > LINETABLE_MAX_BYTES)
		return 0;
	p = (const uint8_t *)table + BYTES_SVAL;
	end = p + size;
	while (p < end && (*p & 0x80)) {
		unsigned kind = (*p >> 3) & 15;
		int64_t units = (*p & 7) + 1;
		uint32_t delta = 0;

		if ((kind == 13 || kind == 14) && !read_varint(p + 1, end, &delta))
			return 0;
		if (kind == 13 || kind == 14)
			line += (delta & 1) ? -(int64_t)(delta >> 1) : (int64_t)(delta >> 1);
		else if (kind >= 10 && kind <= 12)
			line += (int64_t)kind - 10;
		if (index < addr + units)
			return kind == 15 || line < 0 || line > UINT32_MAX ? 0 : (uint32_t)line;
		addr += units;
		do
			p++;
		while (p < end && !(*p & 0x80));
	}
	return 0;
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
	       put_str(o, load_ptr(code, py.layout->code_qualname)) && put(o, "\t", 1) &&
	       put_str(o, load_ptr(code, py.layout->code_filename)) && put(o, "\n", 1);
}

size_t python_frames_format(char *buf, size_t len, unsigned depth)
{
	struct out o = { .at = buf, .end = buf + len };
	const struct py_layout *l;
	const void *tstate, *frame;
	unsigned written = 0;

	pthread_once(&py_once, resolve);
	l = py.layout;
	if (!l || !(tstate = py.this_thread_state()))
		return 0;
	frame = tstate;
	if (l->tstate_cframe >= 0 && !plausible(frame = load_ptr(tstate, l->tstate_cframe)))
		return 0;
	frame = load_ptr(frame, l->cframe_current);
	/* at most 4 frames skipped for each one written: shims, frames not started */
	for (unsigned seen = 0; plausible(frame) && written < depth && seen < 5 * depth; seen++) {
		const void *code = load_ptr(frame, l->frame_code);
		const char *instr = load_ptr(frame, l->frame_instr);
		const char *units = (const char *)code + l->code_units;
		char owner = *((const char *)frame + l->frame_owner);
		int32_t first_traceable;
		char *mark = o.at;

		if (owner == OWNED_BY_CSTACK) { /* a shim, whose f_executable may be None */
			frame = load_ptr(frame, l->frame_previous);
			continue;
		}
		if (!is_a(code, py.code_type))
			break;
		memcpy(&first_traceable, (const char *)code + l->code_firsttraceable,
		       sizeof(first_traceable));
		if (owner == OWNED_BY_GENERATOR || instr >= units + 2 * (int64_t)first_traceable) {
			if (!put_frame(&o, code, line_of(code, (instr - units) / 2))) {
				o.at = mark; /* the frames that fit, whole */
				break;
			}
			written++;
		}
		frame = load_ptr(frame, l->frame_previous);
	}
	return (size_t)(o.at - buf);
}
