#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linkguard/mode.h>

bool lg_mode_same_timing(const struct lg_mode *a, const struct lg_mode *b) {
	return a->width == b->width && a->height == b->height &&
		a->refresh_mhz == b->refresh_mhz;
}

bool lg_mode_equal(const struct lg_mode *a, const struct lg_mode *b) {
	return lg_mode_same_timing(a, b) && a->clock_khz == b->clock_khz &&
		a->interlaced == b->interlaced;
}

const char *lg_mode_format(const struct lg_mode *mode, char *buf, size_t size) {
	snprintf(buf, size, "%" PRId32 "x%" PRId32 "@%" PRId32 ".%03" PRId32 "%s",
		mode->width, mode->height, mode->refresh_mhz / 1000,
		mode->refresh_mhz % 1000, mode->interlaced ? "i" : "");
	return buf;
}

void lg_mode_list_init(struct lg_mode_list *list) {
	*list = (struct lg_mode_list){0};
}

void lg_mode_list_finish(struct lg_mode_list *list) {
	free(list->modes);
	lg_mode_list_init(list);
}

void lg_mode_list_clear(struct lg_mode_list *list) {
	list->len = 0;
}

static bool mode_list_reserve(struct lg_mode_list *list, size_t cap) {
	if (cap <= list->cap) {
		return true;
	}
	size_t new_cap = list->cap > 0 ? list->cap : 8;
	while (new_cap < cap) {
		new_cap *= 2;
	}
	struct lg_mode *modes = realloc(list->modes, new_cap * sizeof(*modes));
	if (modes == NULL) {
		return false;
	}
	list->modes = modes;
	list->cap = new_cap;
	return true;
}

bool lg_mode_list_append(struct lg_mode_list *list, const struct lg_mode *mode) {
	if (!mode_list_reserve(list, list->len + 1)) {
		return false;
	}
	list->modes[list->len++] = *mode;
	return true;
}

bool lg_mode_list_copy(struct lg_mode_list *dst, const struct lg_mode_list *src) {
	if (!mode_list_reserve(dst, src->len)) {
		return false;
	}
	if (src->len > 0) {
		memcpy(dst->modes, src->modes, src->len * sizeof(*src->modes));
	}
	dst->len = src->len;
	return true;
}

bool lg_mode_list_equal(const struct lg_mode_list *a, const struct lg_mode_list *b) {
	if (a->len != b->len) {
		return false;
	}
	for (size_t i = 0; i < a->len; i++) {
		if (!lg_mode_equal(&a->modes[i], &b->modes[i])) {
			return false;
		}
	}
	return true;
}

ssize_t lg_mode_list_find(const struct lg_mode_list *list,
		const struct lg_mode *mode) {
	for (size_t i = 0; i < list->len; i++) {
		if (lg_mode_equal(&list->modes[i], mode)) {
			return (ssize_t)i;
		}
	}
	return -1;
}
