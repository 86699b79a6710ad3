# SPDX-License-Identifier: MIT
#
# cuda-meta.awk - what the generators (gen-stubs.sh, gen-twins.sh) read of
# the CUDA toolkit's CUPTI headers, as awk functions that fill global
# arrays. Load it with -f before the program that calls them.

# load_cbids(FILE, KIND): the callback ids of cupti_driver_cbid.h or
# cupti_runtime_cbid.h (KIND driver or runtime), by exported name:
# cbid[NAME] is the enumerator, cbid_suffix[NAME] its name without the
# CUPTI_*_TRACE_CBID_ prefix. Runtime names carry a _vNNNNN suffix, the
# highest of which is the current one.
function load_cbids(file, kind,    line, full, version, base) {
	while ((getline line < file) > 0) {
		if (line !~ /CUPTI_(DRIVER|RUNTIME)_TRACE_CBID_[A-Za-z0-9_]+ *=/)
			continue
		sub(/^ */, "", line)
		sub(/ *=.*/, "", line)
		full = line
		sub(/^CUPTI_(DRIVER|RUNTIME)_TRACE_CBID_/, "", line)
		if (kind == "runtime") {
			if (!match(line, /_v[0-9]+$/))
				continue
			version = substr(line, RSTART + 2) + 0
			base = substr(line, 1, RSTART - 1)
			if (!(base in cbid) || version > cbid_version[base]) {
				cbid[base] = full
				cbid_version[base] = version
				cbid_suffix[base] = line
			}
		} else {
			cbid[line] = full
			cbid_suffix[line] = line
		}
	}
	close(file)
}

# load_params(FILE): the params structs of generated_cuda_meta.h or
# generated_cuda_runtime_api_meta.h, the member lines between
# "typedef struct X_params_st {" and "} X_params;", one declaration each:
# nmembers[X] and member[X, 1..nmembers[X]] ("CUstream hStream").
function load_params(file,    line, name, current) {
	current = ""
	while ((getline line < file) > 0) {
		if (match(line, /^typedef struct [A-Za-z0-9_]+_params_st \{/)) {
			name = line
			sub(/^typedef struct /, "", name)
			sub(/_params_st.*/, "", name)
			nmembers[name] = 0
			current = name
			continue
		}
		if (current == "")
			continue
		if (line ~ /^\}/) {
			current = ""
			continue
		}
		sub(/^ +/, "", line)
		sub(/; *$/, "", line)
		if (line == "")
			continue
		member[current, ++nmembers[current]] = line
	}
	close(file)
}

# The name a member declaration declares: "hStream" of "CUstream hStream".
function member_name(decl,    n) {
	n = decl
	sub(/.*[ *]/, "", n)
	return n
}
