/* SPDX-License-Identifier: MIT */
/*
 * fork-cuda.c - a child forked without exec that does CUDA work, for
 * tests/trace/fork-cuda.sh. CUDA carries none of its state across fork()
 * (NVIDIA's CUDA C++ Guidelines for robust and safety-critical programming,
 * rule CUDA-1.6: "CUDA does not duplicate any of its internal data
 * structures or threads to other processes upon a call to fork"), nor does
 * CUPTI, so the tracer leaves such a child untraced; the trace says that
 * the child was forked, and which.
 *
 *   fork-cuda
 *
 * The parent allocates and copies, forks a child that allocates, copies
 * and frees, waits for it, and frees. Prints "child=PID status=S": the
 * child's pid and exit status (0 when all its calls succeeded). Exits 1 if
 * any call failed.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt-check.h"

#define BYTES 4096

static int check(cudaError_t status, const char *what)
{
	return rt_check("fork-cuda", status, what);
}

/* An allocation, a copy to it and its free: 0 when all succeeded. */
static int round_trip(void)
{
	static char host[BYTES];
	void *device = NULL;
	int failed = check(cudaMalloc(&device, BYTES), "cudaMalloc");

	if (failed)
		return 1;
	failed |= check(cudaMemcpy(device, host, BYTES, cudaMemcpyHostToDevice), "cudaMemcpy");
	failed |= check(cudaFree(device), "cudaFree");
	return failed;
}

int main(void)
{
	int failed = round_trip(), status = 0;
	pid_t child;

	fflush(stdout);
	child = fork();
	if (child < 0) {
		perror("fork-cuda: fork");
		return 1;
	}
	if (child == 0)
		exit(round_trip());
	if (waitpid(child, &status, 0) != child) {
		perror("fork-cuda: waitpid");
		return 1;
	}
	printf("child=%ld status=%d\n", (long)child, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	failed |= round_trip();
	return failed;
}
