/* SPDX-License-Identifier: MIT */
/*
 * fork-exec.cu - a CUDA program that forks and execs, as data loaders and
 * launchers do: after some device work it forks a child that does no CUDA
 * work and exits through exit() (so it runs the handlers it inherited), then
 * forks a child that execs this program again to do CUDA work of its own,
 * then does more work itself. Output and exit statuses are deterministic,
 * so that a traced run can be compared with an untraced one.
 *
 *   fork-exec               the parent (exits 0)
 *   fork-exec --exec-child  what the exec'd child runs (exits 4)
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#include "example-check.h"

#define BYTES (64 << 10)

static void device_round_trip(const char *who)
{
	char *host = (char *)malloc(BYTES);
	void *device;

	if (!host) {
		perror("malloc");
		exit(1);
	}
	memset(host, 7, BYTES);
	CHECK(cudaMalloc(&device, BYTES));
	CHECK(cudaMemcpy(device, host, BYTES, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(host, device, BYTES, cudaMemcpyDeviceToHost));
	CHECK(cudaFree(device));
	printf("%s: round trip of %d bytes, byte 0 is %d\n", who, BYTES, host[0]);
	free(host);
}

static int wait_for(pid_t pid, const char *what)
{
	int status;

	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return -1;
	}
	if (WIFEXITED(status))
		printf("parent: %s exited with status %d\n", what, WEXITSTATUS(status));
	else
		printf("parent: %s ended by signal %d\n", what, WTERMSIG(status));
	return status;
}

static pid_t start_child(void)
{
	pid_t pid;

	/* Nothing buffered may be printed twice. */
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	return pid;
}

int main(int argc, char **argv)
{
	pid_t pid;

	if (argc > 1 && strcmp(argv[1], "--exec-child") == 0) {
		device_round_trip("exec child");
		return 4;
	}
	device_round_trip("parent");

	pid = start_child();
	if (pid == 0) {
		printf("fork child: no CUDA work, exit(3)\n");
		exit(3);
	}
	wait_for(pid, "fork child");

	pid = start_child();
	if (pid == 0) {
		execl("/proc/self/exe", argv[0], "--exec-child", (char *)NULL);
		perror("execl");
		_exit(127);
	}
	wait_for(pid, "exec child");

	device_round_trip("parent again");
	printf("done\n");
	return 0;
}
