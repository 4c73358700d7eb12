/*
 * libFuzzer target: what a sink's AUX device can return, through the DPCD
 * reader (backend/drm/aux.c) and decoder (src/dpcd.c). The input scripts
 * the device: a DPCD image and, per read, how the read ends (complete,
 * short, or an error). Checks the reader's and the decoder's contracts.
 */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <core/dpcd.h>
#include <kms/aux.h>

struct device {
	const uint8_t *data;
	size_t size;
	size_t reads;
};

/* Byte i of the script: how read i ends; the DPCD follows the script. */
#define SCRIPT 3

static ssize_t fake_pread(void *data, int fd, void *buf, size_t len,
		off_t address) {
	struct device *dev = data;
	uint8_t how = dev->reads < SCRIPT && dev->reads < dev->size ?
		dev->data[dev->reads] : 0;
	dev->reads++;
	if (how >= 0xf0) {
		return -EIO;
	}
	size_t n = len - (how < len ? how : len);
	for (size_t i = 0; i < n; i++) {
		size_t at = SCRIPT + ((size_t)address + i) % 64;
		((uint8_t *)buf)[i] = at < dev->size ? dev->data[at] : 0;
	}
	return (ssize_t)n;
}

static const struct aux_impl fake_impl = { .pread = fake_pread };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	struct device dev = { .data = data, .size = size };
	struct dpcd_regs regs;
	memset(&regs, 0xa5, sizeof(regs));
	int ret = aux_read(&fake_impl, &dev, 0, &regs);
	assert(ret == 0 || ret == -EIO || ret == -ENODATA);
	assert(dev.reads >= 1 && dev.reads <= 3);
	if (ret != 0) {
		return 0;
	}
	struct lg_sink_status status;
	if (!dpcd_decode(&regs, &status)) {
		assert(status.link.lanes == 0 && status.lanes_locked == 0);
		return 0;
	}
	uint32_t lanes = status.link.lanes;
	assert(lanes == 0 || lanes == 1 || lanes == 2 || lanes == 4);
	assert((status.lanes_locked >> lanes) == 0);
	assert((status.errors_valid >> lanes) == 0);
	assert(status.sink_count <= 127);
	for (int lane = 0; lane < 4; lane++) {
		assert(status.errors[lane] <= DPCD_ERROR_COUNT_MASK);
	}
	if (lg_sink_status_locked(&status)) {
		assert(!status.uhbr && status.aligned && lanes > 0);
	}
	return 0;
}
