/* SPDX-License-Identifier: MIT */
/*
 * writer.c - what the report writers share: the end of a write, a
 * document's values as text. The list of writers is the registry's
 * (registry/formats.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <glib.h>

#include "common/format.h"
#include "common/log.h"
#include "writer.h"

int ct_writer_done(FILE *out, int failed)
{
	if (!failed && !ferror(out))
		return 0;
	ct_log_error("cannot write the report: %s", strerror(failed ? failed : errno));
	return -1;
}

char *ct_format_raw(const struct ct_node *node, char *buf, size_t len)
{
	switch (node->type) {
	case CT_NODE_U64:
		snprintf(buf, len, "%" PRIu64, node->value.u64);
		break;
	case CT_NODE_I64:
		snprintf(buf, len, "%" PRId64, node->value.i64);
		break;
	case CT_NODE_DOUBLE:
		snprintf(buf, len, "%.17g", node->value.dbl);
		break;
	case CT_NODE_STRING:
		snprintf(buf, len, "%s", node->value.str);
		break;
	case CT_NODE_BOOL:
		snprintf(buf, len, "%s", node->value.boolean ? "true" : "false");
		break;
	default:
		snprintf(buf, len, "%s", "");
		break;
	}
	return buf;
}

char *ct_format_value(const struct ct_node *node, int64_t origin_ns, char *buf, size_t len)
{
	double v = ct_node_number(node);

	if (node->type == CT_NODE_NULL) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (node->type == CT_NODE_STRING)
		return ct_format_text(node->value.str, buf, len);
	if (node->type == CT_NODE_BOOL)
		return ct_format_raw(node, buf, len);
	switch (node->unit) {
	case CT_UNIT_BYTES:
		return ct_format_bytes(v, buf, len);
	case CT_UNIT_DURATION:
		return ct_format_duration(v, buf, len);
	case CT_UNIT_TIME:
		if (node->type != CT_NODE_I64)
			return ct_format_raw(node, buf, len);
		return ct_format_time(node->value.i64, origin_ns, buf, len);
	case CT_UNIT_ADDRESS:
		snprintf(buf, len, "0x%" PRIx64, node->value.u64);
		return buf;
	case CT_UNIT_RATIO:
		snprintf(buf, len, "%.1f %%", v * 100.0);
		return buf;
	case CT_UNIT_BANDWIDTH:
		return ct_format_bandwidth(v, buf, len);
	case CT_UNIT_NONE:
		if (node->type == CT_NODE_DOUBLE) {
			snprintf(buf, len, "%.4g", v);
			return buf;
		}
		return ct_format_raw(node, buf, len);
	default:
		return ct_format_raw(node, buf, len);
	}
}
