/*
 * The driver's debugfs files of a connector: among them the link maximum
 * i915 and xe allow a DisplayPort connector now (Linux 6.11 and later),
 * the limits their link training fallback lowers. Readable by root only
 * on most systems.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <dp/dp.h>
#include <kms/kms.h>

ssize_t kms_debugfs_read(const char *root, dev_t card, const char *name,
		const char *file, char *buf, size_t size) {
	if (size == 0) {
		return -EINVAL;
	}
	char path[512];
	int n = snprintf(path, sizeof(path), "%s/dri/%u/%s/%s", root, minor(card),
		name, file);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		return -ENAMETOOLONG;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return -errno;
	}
	ssize_t len;
	do {
		len = read(fd, buf, size - 1);
	} while (len < 0 && errno == EINTR);
	int error = len < 0 ? -errno : 0;
	close(fd);
	if (error != 0) {
		return error;
	}
	buf[len] = '\0';
	return len;
}

/* The file holds a decimal number and a newline (DEFINE_DEBUGFS_ATTRIBUTE). */
static int read_number(const struct kms_impl *kms, void *data, const char *name,
		const char *file, uint64_t *value) {
	char buf[32];
	if (kms->read_debugfs == NULL) {
		return -ENOENT;
	}
	ssize_t len = kms->read_debugfs(data, name, file, buf, sizeof(buf));
	if (len < 0) {
		return (int)len;
	}
	if (len == 0 || buf[0] < '0' || buf[0] > '9') {
		return -EINVAL;
	}
	char *end;
	errno = 0;
	*value = strtoull(buf, &end, 10);
	if (errno != 0 || (*end != '\0' && strcmp(end, "\n") != 0)) {
		return -EINVAL;
	}
	return 0;
}

int kms_link_max_read(const struct kms_impl *kms, void *data, const char *name,
		struct lg_link_params *max) {
	uint64_t rate, lanes;
	int ret = read_number(kms, data, name, "i915_dp_max_link_rate", &rate);
	if (ret == 0) {
		ret = read_number(kms, data, name, "i915_dp_max_lane_count", &lanes);
	}
	if (ret != 0) {
		return ret;
	}
	// i915 counts rates in 10 kbit/s per lane: 270000 is HBR.
	if (rate % 100 != 0 || rate < 100 * DP_RATE_RBR ||
			rate > 100 * DP_RATE_UHBR20 ||
			(lanes != 1 && lanes != 2 && lanes != 4)) {
		return -EINVAL;
	}
	*max = (struct lg_link_params){
		.lanes = (uint32_t)lanes,
		.rate_mbps = (uint32_t)(rate / 100),
	};
	return 0;
}
