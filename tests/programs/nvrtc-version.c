/* SPDX-License-Identifier: MIT */
/*
 * nvrtc-version.c - a stand-in for one release of NVIDIA's NVRTC with
 * nothing but nvrtcVersion (nvrtc.h: "sets the output parameters major
 * and minor with the CUDA Runtime Compilation version number"), so that
 * a test can load two releases of one CUDA library into a process, as a
 * program that mixes toolkits does. tests/Makefile.am builds it as
 * programs/nvrtc-12/libnvrtc.so.12 (12.4) and programs/nvrtc-13/
 * libnvrtc.so.13 (13.0).
 */
#ifndef NVRTC_MAJOR
#error "NVRTC_MAJOR and NVRTC_MINOR name the release"
#endif

/* nvrtcResult: NVRTC_SUCCESS = 0, NVRTC_ERROR_INVALID_INPUT = 3. */
__attribute__((visibility("default"))) int nvrtcVersion(int *major, int *minor)
{
	if (!major || !minor)
		return 3;
	*major = NVRTC_MAJOR;
	*minor = NVRTC_MINOR;
	return 0;
}
