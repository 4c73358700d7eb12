#ifndef LINKGUARD_MODE_H
#define LINKGUARD_MODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/**
 * A display mode as the kernel reports it: exact timings, never a generated
 * CVT mode. Two modes are the same mode only when size, refresh and pixel
 * clock all match (lg_mode_equal()).
 */
struct lg_mode {
	int32_t width, height;
	int32_t refresh_mhz; // vertical refresh in mHz
	uint32_t clock_khz; // pixel clock; 0 when unknown
	bool preferred; // DRM_MODE_TYPE_PREFERRED
	bool interlaced; // DRM_MODE_FLAG_INTERLACE
};

/** A growable list of modes, owned by whoever holds it. */
struct lg_mode_list {
	struct lg_mode *modes;
	size_t len, cap;
};

bool lg_mode_equal(const struct lg_mode *a, const struct lg_mode *b);
/** Same width, height and refresh; the clock is ignored (for wlr_output's view). */
bool lg_mode_same_timing(const struct lg_mode *a, const struct lg_mode *b);
/** Formats e.g. "3840x2160@60.000" into buf; returns buf. */
const char *lg_mode_format(const struct lg_mode *mode, char *buf, size_t size);

void lg_mode_list_init(struct lg_mode_list *list);
void lg_mode_list_finish(struct lg_mode_list *list);
bool lg_mode_list_append(struct lg_mode_list *list, const struct lg_mode *mode);
bool lg_mode_list_copy(struct lg_mode_list *dst, const struct lg_mode_list *src);
void lg_mode_list_clear(struct lg_mode_list *list);
/** The same modes in the same order. */
bool lg_mode_list_equal(const struct lg_mode_list *a, const struct lg_mode_list *b);
/** Index of a mode equal to mode, or -1. */
ssize_t lg_mode_list_find(const struct lg_mode_list *list, const struct lg_mode *mode);

#endif
