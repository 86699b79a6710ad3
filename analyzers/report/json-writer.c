/* SPDX-License-Identifier: MIT */
/*
 * json-writer.c - the report as JSON (json-c): the document tree as it is.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <json-c/json.h>

#include "common/log.h"
#include "writer.h"

/*
 * A new JSON value for NODE (children included) in *OUT; json-c's null is
 * the NULL pointer, so failure is the return value: 0, or -1 when out of
 * memory.
 */
static int to_json(const struct ct_node *node, json_object **out);

static json_object *new_value(const struct ct_node *node)
{
	switch (node->type) {
	case CT_NODE_U64:
		return json_object_new_uint64(node->value.u64);
	case CT_NODE_I64:
		return json_object_new_int64(node->value.i64);
	case CT_NODE_DOUBLE:
		return json_object_new_double(node->value.dbl);
	case CT_NODE_STRING:
		return json_object_new_string(node->value.str);
	case CT_NODE_BOOL:
	default:
		return json_object_new_boolean(node->value.boolean);
	}
}

static int to_json(const struct ct_node *node, json_object **out)
{
	json_object *obj = NULL;

	*out = NULL;
	switch (node->type) {
	case CT_NODE_NULL:
		return 0;
	case CT_NODE_DOUBLE:
		/* JSON has no NaN or infinity */
		if (!isfinite(node->value.dbl))
			return 0;
		break;
	case CT_NODE_OBJECT:
		obj = json_object_new_object();
		for (size_t i = 0; obj && i < ct_node_count(node); i++) {
			const struct ct_node *c = ct_node_child(node, i);
			json_object *child;

			if (to_json(c, &child) < 0 ||
			    json_object_object_add(obj, c->key, child) != 0) {
				json_object_put(child);
				goto error;
			}
		}
		*out = obj;
		return obj ? 0 : -1;
	case CT_NODE_ARRAY:
		obj = json_object_new_array();
		for (size_t i = 0; obj && i < ct_node_count(node); i++) {
			const struct ct_node *c = ct_node_child(node, i);
			json_object *child;

			if (to_json(c, &child) < 0 || json_object_array_add(obj, child) != 0) {
				json_object_put(child);
				goto error;
			}
		}
		*out = obj;
		return obj ? 0 : -1;
	default:
		break;
	}
	*out = new_value(node);
	return *out ? 0 : -1;
error:
	json_object_put(obj);
	return -1;
}

static int write_json(const struct ct_node *root, const struct ct_writer_options *opts, FILE *out)
{
	json_object *obj;
	const char *text;
	int ret = -1;

	if (to_json(root, &obj) < 0 || !obj) {
		ct_log_error("out of memory while writing JSON");
		return -1;
	}
	text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY |
	                                               JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text) {
		ct_log_error("out of memory while writing JSON");
		goto end;
	}
	if (fputs(text, out) == EOF || fputc('\n', out) == EOF) {
		ct_writer_done(out, errno);
		goto end;
	}
	ret = 0;
end:
	json_object_put(obj);
	return ret;
}

const struct ct_writer_class ct_json_writer = {
	.name = "json",
	.write = write_json,
};
