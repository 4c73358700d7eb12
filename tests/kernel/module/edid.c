// SPDX-License-Identifier: GPL-2.0-only
/*
 * lg_link_fault's monitor, TEST CODE: vkms gives its connector no EDID,
 * so user space cannot tell one monitor from another (linkguard keys the
 * modes a monitor did not hold by its EDID identity). Each connector gets
 * an EDID 1.4 base block of its own, read at every probe as a driver reads
 * the sink's over DDC: its connector's helper vtable is swapped for a copy
 * whose get_modes sets the EDID, then calls vkms' (the mode list stays
 * vkms'). The probe helper clears the EDID of a disconnected connector
 * before get_modes would run, so an unplug takes it away and a replug
 * brings it back, as with a real monitor.
 *
 * The monitor: manufacturer LGK, product 0x0001, serial string LF0001
 * (LF0002... for further connectors), named lg_link_fault, 700 x 390 mm,
 * DisplayPort, 8 bits a colour, sRGB; its preferred timing is the mode
 * vkms marks preferred.
 */
#include <linux/module.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <drm/drm_connector.h>
#include <drm/drm_device.h>
#include <drm/drm_edid.h>
#include <drm/drm_modes.h>
#include <drm/drm_modeset_helper_vtables.h>
#include <drm/drm_print.h>
#include <drm/drm_property.h>
#include "lg_link_fault.h"

#define LG_MAX_MONITORS 8
#define LG_WIDTH_MM 700
#define LG_HEIGHT_MM 390

/* A connector with a monitor of ours: its EDID and its swapped vtable. */
struct lg_monitor {
	struct drm_connector *connector;
	const struct drm_edid *edid;
	const struct drm_connector_helper_funcs *orig;
	struct drm_connector_helper_funcs funcs;
};

/* Set at module init, before the vtables that read them are installed. */
static struct lg_monitor monitors[LG_MAX_MONITORS];

static struct lg_monitor *find_monitor(struct drm_connector *connector)
{
	for (int i = 0; i < LG_MAX_MONITORS; i++) {
		if (monitors[i].connector == connector)
			return &monitors[i];
	}
	return NULL;
}

/* An 18-byte display descriptor holding up to 13 characters of text. */
static void put_text(u8 *d, u8 tag, const char *text)
{
	size_t len = strlen(text);

	d[3] = tag;
	memset(d + 5, ' ', 13);
	memcpy(d + 5, text, len);
	if (len < 13)
		d[5 + len] = '\n';
}

/* An 18-byte detailed timing descriptor for mode (EDID 1.4, 3.10.2). */
static void put_timing(u8 *d, const struct drm_display_mode *mode)
{
	int hblank = mode->htotal - mode->hdisplay;
	int vblank = mode->vtotal - mode->vdisplay;
	int hso = mode->hsync_start - mode->hdisplay;
	int hsw = mode->hsync_end - mode->hsync_start;
	int vso = mode->vsync_start - mode->vdisplay;
	int vsw = mode->vsync_end - mode->vsync_start;

	put_unaligned_le16(mode->clock / 10, d);
	d[2] = mode->hdisplay & 0xff;
	d[3] = hblank & 0xff;
	d[4] = (mode->hdisplay >> 8) << 4 | hblank >> 8;
	d[5] = mode->vdisplay & 0xff;
	d[6] = vblank & 0xff;
	d[7] = (mode->vdisplay >> 8) << 4 | vblank >> 8;
	d[8] = hso & 0xff;
	d[9] = hsw & 0xff;
	d[10] = (vso & 0xf) << 4 | (vsw & 0xf);
	d[11] = (hso >> 8) << 6 | (hsw >> 8) << 4 | (vso >> 4) << 2 | vsw >> 4;
	d[12] = LG_WIDTH_MM & 0xff;
	d[13] = LG_HEIGHT_MM & 0xff;
	d[14] = (LG_WIDTH_MM >> 8) << 4 | LG_HEIGHT_MM >> 8;
	// Digital separate sync and its polarities.
	d[17] = 0x18 | (mode->flags & DRM_MODE_FLAG_PVSYNC ? 0x04 : 0) |
		(mode->flags & DRM_MODE_FLAG_PHSYNC ? 0x02 : 0);
}

/* The base block of monitor number n, preferring mode. */
static void build_edid(u8 *b, const struct drm_display_mode *mode, int n)
{
	static const u8 header[] = { 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0 };
	// sRGB's primaries and D65 white point, 10 bits each.
	static const u8 chromaticity[] = {
		0xee, 0x91, 0xa3, 0x54, 0x4c, 0x99, 0x26, 0x0f, 0x50, 0x54,
	};
	char serial[14];
	u8 sum = 0;

	memset(b, 0, EDID_LENGTH);
	memcpy(b, header, sizeof(header));
	// "LGK": three letters of five bits, 'A' being 1.
	put_unaligned_be16(('L' - '@') << 10 | ('G' - '@') << 5 | ('K' - '@'), b + 8);
	put_unaligned_le16(0x0001, b + 10);
	put_unaligned_le32(n + 1, b + 12);
	b[16] = 1; // week 1 of
	b[17] = 2026 - 1990;
	b[18] = 1; // EDID 1.4
	b[19] = 4;
	b[20] = 0xa5; // digital, 8 bits a colour, DisplayPort
	b[21] = LG_WIDTH_MM / 10;
	b[22] = LG_HEIGHT_MM / 10;
	b[23] = 220 - 100; // gamma 2.2
	b[24] = 0x06; // RGB 4:4:4, sRGB, the first timing preferred
	memcpy(b + 25, chromaticity, sizeof(chromaticity));
	memset(b + 38, 0x01, 16); // no standard timings
	put_timing(b + 54, mode);
	snprintf(serial, sizeof(serial), "LF%04d", n + 1);
	put_text(b + 72, EDID_DETAIL_MONITOR_SERIAL, serial);
	put_text(b + 90, EDID_DETAIL_MONITOR_NAME, "lg_link_fault");
	b[111] = 0x10; // a dummy descriptor
	for (int i = 0; i < EDID_LENGTH - 1; i++)
		sum += b[i];
	b[EDID_LENGTH - 1] = -sum;
}

/*
 * Called with mode_config.mutex held, for a connector that is not
 * disconnected. The same monitor read again keeps its blob: a forced probe
 * changes nothing user space sees.
 */
static void set_edid(struct lg_monitor *m)
{
	struct drm_connector *connector = m->connector;
	const struct drm_property_blob *blob = connector->edid_blob_ptr;
	const struct edid *edid = drm_edid_raw(m->edid);
	int ret;

	if (blob && blob->length == EDID_LENGTH &&
	    !memcmp(blob->data, edid, EDID_LENGTH))
		return;
	ret = drm_edid_connector_update(connector, m->edid);
	if (ret)
		drm_err(connector->dev, "[CONNECTOR:%d:%s] setting the EDID failed: %d\n",
			connector->base.id, connector->name, ret);
}

static int lg_get_modes(struct drm_connector *connector)
{
	struct lg_monitor *m = find_monitor(connector);

	set_edid(m);
	return m->orig->get_modes(connector);
}

static const struct drm_display_mode *preferred_mode(struct drm_connector *connector)
{
	const struct drm_display_mode *mode;

	list_for_each_entry(mode, &connector->modes, head) {
		if (mode->type & DRM_MODE_TYPE_PREFERRED)
			return mode;
	}
	return NULL;
}

/*
 * Probed first, as user space would, for the mode vkms prefers; the
 * monitor is there from then on.
 */
static int add_monitor(struct drm_connector *connector, int n)
{
	struct lg_monitor *m = &monitors[n];
	struct drm_device *dev = connector->dev;
	const struct drm_display_mode *mode;
	u8 block[EDID_LENGTH];

	if (!connector->helper_private || !connector->helper_private->get_modes)
		return -EOPNOTSUPP;
	connector->funcs->fill_modes(connector, dev->mode_config.max_width,
				     dev->mode_config.max_height);
	mode = preferred_mode(connector);
	if (!mode)
		return -ENODEV;
	build_edid(block, mode, n);
	m->edid = drm_edid_alloc(block, sizeof(block));
	if (!m->edid)
		return -ENOMEM;
	if (!drm_edid_valid(m->edid)) {
		drm_edid_free(m->edid);
		m->edid = NULL;
		return -EINVAL;
	}
	drm_connector_get(connector);
	m->connector = connector;
	m->orig = connector->helper_private;
	m->funcs = *m->orig;
	m->funcs.get_modes = lg_get_modes;
	drm_connector_helper_add(connector, &m->funcs);
	if (connector->status != connector_status_disconnected)
		set_edid(m);
	return 0;
}

int lg_edid_init(struct drm_device *dev)
{
	int ret;

	mutex_lock(&dev->mode_config.mutex);
	ret = lg_for_each_connector(dev, LG_MAX_MONITORS, add_monitor);
	mutex_unlock(&dev->mode_config.mutex);
	if (ret)
		lg_edid_exit();
	return ret;
}

/* vkms' vtables back, and its connectors without an EDID again. */
void lg_edid_exit(void)
{
	for (int i = 0; i < LG_MAX_MONITORS; i++) {
		struct lg_monitor *m = &monitors[i];
		struct drm_connector *connector = m->connector;

		if (!connector)
			continue;
		mutex_lock(&connector->dev->mode_config.mutex);
		drm_connector_helper_add(connector, m->orig);
		drm_edid_connector_update(connector, NULL);
		mutex_unlock(&connector->dev->mode_config.mutex);
		drm_connector_put(connector);
		drm_edid_free(m->edid);
		*m = (struct lg_monitor){0};
	}
}
