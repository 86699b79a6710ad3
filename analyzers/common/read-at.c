/* SPDX-License-Identifier: MIT */
/*
 * read-at.c - whole reads at an offset of a file (see read-at.h).
 */
#include <errno.h>
#include <unistd.h>

#include "read-at.h"

int ct_read_at(int fd, void *buf, size_t len, off_t offset)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, offset + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = EINVAL;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}
