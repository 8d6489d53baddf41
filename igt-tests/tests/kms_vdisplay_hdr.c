// SPDX-License-Identifier: GPL-2.0
/*
 * kms_vdisplay_hdr - what a compositor sends an HDR monitor on vdisplay
 *
 * Every vdisplay connector has "max bpc", "Colorspace" and
 * "HDR_OUTPUT_METADATA", the properties a compositor sets to drive an HDR
 * monitor.  The sink's side is the connector's debugfs file
 * vdisplay_signal: the bits per colour of the signal (the smaller of
 * "max bpc" and the EDID's, rounded down to even), its colorimetry and
 * the HDR metadata infoframe.  These tests give a connector the EDID of
 * a 10-bit monitor that lists PQ and HLG, check what the signal carries
 * after each commit, byte for byte against an infoframe packed here, that
 * metadata changes need no mode set and leave the picture alone, and
 * that malformed metadata, colorimetries and bit depths are refused with
 * EINVAL (ENOENT where the connector has no such property), leaving the
 * signal as it was.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "igt.h"
#include "libprimepair.h"
#include "primepair.h"
#include "primepair_kms.h"

IGT_TEST_DESCRIPTION("vdisplay HDR output: max bpc, Colorspace, HDR_OUTPUT_METADATA and the signal they make");

/* DRM_MODE_COLORIMETRY_* values of the uapi's "Colorspace" enum */
#define CS_DEFAULT		0
#define CS_BT2020_RGB		9
#define CS_BT2020_YCC		10
/* CTA-861-G EOTF codes and the HDR static metadata type */
#define EOTF_SDR		0
#define EOTF_PQ			2
#define EOTF_HLG		3
#define STATIC_TYPE1		0

/* Byte offsets in the EDID base block */
#define EDID_INPUT		20
#define EDID_EXTENSIONS		126
#define EDID_CHECKSUM		127

/* Fix up the checksum of the 128-byte block at @block */
static void edid_block_sum(uint8_t *block)
{
	uint8_t sum = 0;
	int i;

	for (i = 0; i < 127; i++)
		sum += block[i];
	block[EDID_CHECKSUM] = (uint8_t)-sum;
}

/*
 * A 10-bit DisplayPort monitor with HDR: primepair_make_edid()'s base
 * block (1280x720) with 10 bits per colour, and a CTA-861 extension that
 * lists BT.2020 colorimetry and HDR static metadata type 1 with the SDR,
 * PQ and HLG EOTFs.
 */
static void make_hdr_edid(uint8_t edid[256])
{
	static const uint8_t blocks[] = {
		/* colorimetry data block: BT2020_RGB and BT2020_YCC */
		0xe3, 0x05, 0xc0, 0x00,
		/* HDR static metadata: EOTFs, type 1, luminance codes */
		0xe6, 0x06, 0x0d, 0x01, 0x78, 0x60, 0x10,
	};
	uint8_t *cta = edid + 128;

	primepair_make_edid(edid);
	edid[EDID_INPUT] = 0xb5;	/* digital, 10 bpc, DisplayPort */
	edid[EDID_EXTENSIONS] = 1;
	edid_block_sum(edid);

	memset(cta, 0, 128);
	cta[0] = 0x02;			/* CTA-861 extension */
	cta[1] = 0x03;			/* revision 3 */
	cta[2] = 4 + sizeof(blocks);	/* no detailed timings after them */
	memcpy(cta + 4, blocks, sizeof(blocks));
	edid_block_sum(cta);
}

static void write_debugfs(struct primepair_kms *kms, uint32_t id,
			  const char *file, const void *buf, size_t len)
{
	char path[256];
	int fd;

	primepair_connector_debugfs(kms, id, file, path, sizeof(path));
	fd = open(path, O_WRONLY);
	igt_require_f(fd >= 0, "no %s\n", path);
	igt_assert_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

/* The connector's vdisplay_signal file, with a newline in front */
struct signal {
	char text[2048];
};

static void read_signal(struct primepair_kms *kms, uint32_t id,
			struct signal *s)
{
	char path[256];
	ssize_t n;
	int fd;

	primepair_connector_debugfs(kms, id, "vdisplay_signal", path,
				    sizeof(path));
	fd = open(path, O_RDONLY);
	igt_assert_f(fd >= 0, "open %s: %m\n", path);
	s->text[0] = '\n';
	n = read(fd, s->text + 1, sizeof(s->text) - 2);
	igt_assert_lt(0, n);
	s->text[n + 1] = '\0';
	close(fd);
}

/* The text after "@key: " on its line, or NULL */
static const char *signal_field(const struct signal *s, const char *key)
{
	char pattern[64];
	const char *p;

	snprintf(pattern, sizeof(pattern), "\n%s: ", key);
	p = strstr(s->text, pattern);
	return p ? p + strlen(pattern) : NULL;
}

static unsigned long signal_number(const struct signal *s, const char *key)
{
	const char *p = signal_field(s, key);

	igt_assert_f(p, "no \"%s\" in vdisplay_signal:%s", key, s->text);
	return strtoul(p, NULL, 0);
}

/* The field @key reads @want up to the end of its line */
static void assert_signal_text(const struct signal *s, const char *key,
			       const char *want)
{
	const char *p = signal_field(s, key);
	size_t n = strlen(want);

	igt_assert_f(p, "no \"%s\" in vdisplay_signal:%s", key, s->text);
	igt_assert_f(!strncmp(p, want, n) && p[n] == '\n',
		     "%s: want \"%s\" in:%s", key, want, s->text);
}

/* PQ metadata for BT.2020 primaries and D65, as a mastering display gives */
static void pq_metadata(struct hdr_output_metadata *m, uint16_t max_cll)
{
	static const uint16_t primaries[3][2] = {
		{ 35400, 14600 }, { 8500, 39850 }, { 6550, 2300 },
	};
	int i;

	memset(m, 0, sizeof(*m));
	m->metadata_type = STATIC_TYPE1;
	m->hdmi_metadata_type1.eotf = EOTF_PQ;
	m->hdmi_metadata_type1.metadata_type = STATIC_TYPE1;
	for (i = 0; i < 3; i++) {
		m->hdmi_metadata_type1.display_primaries[i].x = primaries[i][0];
		m->hdmi_metadata_type1.display_primaries[i].y = primaries[i][1];
	}
	m->hdmi_metadata_type1.white_point.x = 15635;
	m->hdmi_metadata_type1.white_point.y = 16450;
	m->hdmi_metadata_type1.max_display_mastering_luminance = 1000;
	m->hdmi_metadata_type1.min_display_mastering_luminance = 50;
	m->hdmi_metadata_type1.max_cll = max_cll;
	m->hdmi_metadata_type1.max_fall = 400;
}

/*
 * The Dynamic Range and Mastering infoframe of CTA-861-G for @m, in hex:
 * type 0x87, version 1, length 26, checksum, then the payload, 16-bit
 * values little-endian.
 */
static void pack_infoframe(const struct hdr_output_metadata *m, char *hex)
{
	const struct hdr_metadata_infoframe *t = &m->hdmi_metadata_type1;
	uint16_t words[12];
	uint8_t frame[30] = { 0x87, 0x01, 26 };
	uint8_t sum = 0;
	int i;

	frame[4] = t->eotf & 7;
	frame[5] = t->metadata_type & 7;
	for (i = 0; i < 3; i++) {
		words[2 * i] = t->display_primaries[i].x;
		words[2 * i + 1] = t->display_primaries[i].y;
	}
	words[6] = t->white_point.x;
	words[7] = t->white_point.y;
	words[8] = t->max_display_mastering_luminance;
	words[9] = t->min_display_mastering_luminance;
	words[10] = t->max_cll;
	words[11] = t->max_fall;
	for (i = 0; i < 12; i++) {
		frame[6 + 2 * i] = words[i] & 0xff;
		frame[7 + 2 * i] = words[i] >> 8;
	}
	for (i = 0; i < 30; i++)
		sum += frame[i];
	frame[3] = (uint8_t)-sum;
	for (i = 0; i < 30; i++)
		sprintf(hex + 2 * i, "%02x", frame[i]);
}

/* The signal carries @m, as metadata and as its infoframe */
static void assert_signal_metadata(const struct signal *s,
				   const struct hdr_output_metadata *m)
{
	const struct hdr_metadata_infoframe *t = &m->hdmi_metadata_type1;
	char want[128];

	igt_assert_eq(signal_number(s, "hdr"), 1);
	igt_assert_eq(signal_number(s, "eotf"), t->eotf);
	snprintf(want, sizeof(want), "%u,%u %u,%u %u,%u",
		 t->display_primaries[0].x, t->display_primaries[0].y,
		 t->display_primaries[1].x, t->display_primaries[1].y,
		 t->display_primaries[2].x, t->display_primaries[2].y);
	assert_signal_text(s, "primaries", want);
	snprintf(want, sizeof(want), "%u,%u", t->white_point.x,
		 t->white_point.y);
	assert_signal_text(s, "white point", want);
	snprintf(want, sizeof(want), "%u,%u",
		 t->max_display_mastering_luminance,
		 t->min_display_mastering_luminance);
	assert_signal_text(s, "mastering luminance", want);
	igt_assert_eq(signal_number(s, "max cll"), t->max_cll);
	igt_assert_eq(signal_number(s, "max fall"), t->max_fall);
	pack_infoframe(m, want);
	assert_signal_text(s, "infoframe", want);
}

/* Commit connector property @name of @id as @value alone; 0 or -errno */
static int commit_connector_prop(struct primepair_kms *kms, uint32_t id,
				 const char *name, uint64_t value,
				 uint32_t flags)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int ret;

	igt_assert(req);
	primepair_add(kms->fd, req, id, DRM_MODE_OBJECT_CONNECTOR, name, value);
	ret = primepair_commit(kms->fd, req, flags);
	drmModeAtomicFree(req);
	return ret;
}

/* The same without a mode set */
static int set_connector_prop(struct primepair_kms *kms, uint32_t id,
			      const char *name, uint64_t value)
{
	return commit_connector_prop(kms, id, name, value, 0);
}

/* "max bpc" of @id, in a commit that may set the mode: the core's rule */
static int set_max_bpc(struct primepair_kms *kms, uint32_t id, uint64_t bpc)
{
	return commit_connector_prop(kms, id, "max bpc", bpc,
				     DRM_MODE_ATOMIC_ALLOW_MODESET);
}

/* HDR_OUTPUT_METADATA of @id from @len bytes at @data; 0 or -errno */
static int set_metadata(struct primepair_kms *kms, uint32_t id,
			const void *data, size_t len)
{
	uint32_t blob;
	int ret;

	igt_assert_eq(drmModeCreatePropertyBlob(kms->fd, data, len, &blob), 0);
	ret = set_connector_prop(kms, id, "HDR_OUTPUT_METADATA", blob);
	drmModeDestroyPropertyBlob(kms->fd, blob);
	return ret;
}

/* Light @o, no EDID, with its test mode and @fb (created here) */
static void light_plain(struct primepair_kms *kms, struct primepair_output *o,
			struct primepair_fb *fb)
{
	primepair_fb_create(kms->fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, fb);
	igt_assert_eq(primepair_modeset(kms, o, fb), 0);
}

/*
 * Give @o's connector the HDR monitor's EDID and light it with its mode
 * and @fb (created here).
 */
static void light_hdr_monitor(struct primepair_kms *kms,
			      struct primepair_output *o,
			      struct primepair_fb *fb)
{
	drmModeConnectorPtr c;
	uint8_t edid[256];

	make_hdr_edid(edid);
	write_debugfs(kms, o->connector_id, "edid_override", edid,
		      sizeof(edid));
	c = drmModeGetConnector(kms->fd, o->connector_id);
	igt_assert(c);
	igt_assert_eq(c->connection, DRM_MODE_CONNECTED);
	/* Its timing, and with the CTA block the 59.94 Hz variant */
	igt_assert_lt(0, c->count_modes);
	igt_assert_eq(c->modes[0].hdisplay, 1280);
	igt_assert_eq(c->modes[0].vdisplay, 720);
	igt_assert(c->modes[0].type & DRM_MODE_TYPE_PREFERRED);
	o->mode = c->modes[0];
	drmModeFreeConnector(c);

	primepair_fb_create(kms->fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, fb);
	for (uint32_t y = 0; y < fb->height; y++)
		for (uint32_t x = 0; x < fb->width; x++)
			((uint32_t *)((char *)fb->map + y * fb->pitch))[x] =
				(x * 255 / fb->width) << 16 | (y & 0xff) << 8 | 0x40;
	igt_assert_eq(primepair_modeset(kms, o, fb), 0);
}

static void unlight(struct primepair_kms *kms, struct primepair_output *o,
		    struct primepair_fb *fb)
{
	primepair_disable_all(kms);
	primepair_fb_destroy(kms->fd, fb);
	write_debugfs(kms, o->connector_id, "edid_override", "reset", 5);
}

static drmModePropertyPtr connector_prop(int fd, uint32_t id, const char *name,
					 uint64_t *value)
{
	drmModeObjectPropertiesPtr props;
	drmModePropertyPtr found = NULL;
	uint32_t i;

	props = drmModeObjectGetProperties(fd, id, DRM_MODE_OBJECT_CONNECTOR);
	igt_assert(props);
	for (i = 0; i < props->count_props && !found; i++) {
		drmModePropertyPtr p = drmModeGetProperty(fd, props->props[i]);

		igt_assert(p);
		if (!strcmp(p->name, name)) {
			found = p;
			*value = props->prop_values[i];
		} else {
			drmModeFreeProperty(p);
		}
	}
	drmModeFreeObjectProperties(props);
	return found;
}

static bool enum_has(drmModePropertyPtr p, const char *name, uint64_t value)
{
	int i;

	for (i = 0; i < p->count_enums; i++)
		if (!strcmp(p->enums[i].name, name))
			return p->enums[i].value == value;
	return false;
}

/*
 * Each display connector has the three properties, at their defaults;
 * writeback connectors have none of them.
 */
static void test_properties(void)
{
	struct primepair_kms kms;
	drmModePropertyPtr p;
	unsigned int i;
	uint64_t v;

	primepair_kms_open(&kms);
	for (i = 0; i < kms.noutputs; i++) {
		uint32_t id = kms.outputs[i].connector_id;

		p = connector_prop(kms.fd, id, "max bpc", &v);
		igt_assert(p);
		igt_assert(drm_property_type_is(p, DRM_MODE_PROP_RANGE));
		igt_assert_eq(p->count_values, 2);
		igt_assert_eq_u64(p->values[0], 8);
		igt_assert_eq_u64(p->values[1], 16);
		igt_assert_eq_u64(v, 16);
		drmModeFreeProperty(p);

		p = connector_prop(kms.fd, id, "Colorspace", &v);
		igt_assert(p);
		igt_assert(drm_property_type_is(p, DRM_MODE_PROP_ENUM));
		igt_assert(enum_has(p, "Default", CS_DEFAULT));
		igt_assert(enum_has(p, "BT2020_RGB", CS_BT2020_RGB));
		igt_assert(enum_has(p, "opRGB", 7));
		igt_assert(enum_has(p, "DCI-P3_RGB_D65", 11));
		igt_assert_eq_u64(v, CS_DEFAULT);
		drmModeFreeProperty(p);

		p = connector_prop(kms.fd, id, "HDR_OUTPUT_METADATA", &v);
		igt_assert(p);
		igt_assert(drm_property_type_is(p, DRM_MODE_PROP_BLOB));
		igt_assert_eq_u64(v, 0);
		drmModeFreeProperty(p);

		if (kms.outputs[i].wb_connector_id) {
			id = kms.outputs[i].wb_connector_id;
			igt_assert(!connector_prop(kms.fd, id, "max bpc", &v));
			igt_assert(!connector_prop(kms.fd, id, "Colorspace", &v));
			igt_assert(!connector_prop(kms.fd, id,
						   "HDR_OUTPUT_METADATA", &v));
		}
	}
	primepair_kms_close(&kms);
	primepair_assert_summary_zero();
}

/*
 * The signal's depth: 8 bits without an EDID, the monitor's 10 with its
 * EDID, less when "max bpc" asks for less, and never an odd number.  A
 * new "max bpc" is a mode set (the core's rule, as on hardware).
 */
static void test_bpc(void)
{
	struct primepair_kms kms;
	struct primepair_output *o;
	struct primepair_fb fb;
	struct signal s;
	static const struct {
		unsigned int max_bpc, bpc;
	} steps[] = {
		{ 8, 8 }, { 9, 8 }, { 12, 10 }, { 11, 10 }, { 16, 10 }, { 10, 10 },
	};
	unsigned int i;

	primepair_kms_open(&kms);
	o = &kms.outputs[0];
	light_plain(&kms, o, &fb);
	read_signal(&kms, o->connector_id, &s);
	igt_assert_eq(signal_number(&s, "crtc"), o->crtc_id);
	igt_assert_eq(signal_number(&s, "bpc"), 8);
	igt_assert_eq(signal_number(&s, "sink eotfs"), 0);
	igt_assert_eq(signal_number(&s, "hdr"), 0);
	primepair_disable_all(&kms);
	primepair_fb_destroy(kms.fd, &fb);
	read_signal(&kms, o->connector_id, &s);
	igt_assert_eq(signal_number(&s, "crtc"), 0);

	light_hdr_monitor(&kms, o, &fb);
	read_signal(&kms, o->connector_id, &s);
	igt_assert_eq(signal_number(&s, "crtc"), o->crtc_id);
	igt_assert_eq(signal_number(&s, "bpc"), 10);
	/* SDR, PQ and HLG: CTA-861 bits 0, 2 and 3 */
	igt_assert_eq(signal_number(&s, "sink eotfs"), 0xd);

	/* The core takes a new depth for a mode set */
	igt_assert_eq(set_connector_prop(&kms, o->connector_id, "max bpc", 8),
		      -EINVAL);
	read_signal(&kms, o->connector_id, &s);
	igt_assert_eq(signal_number(&s, "bpc"), 10);

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		igt_assert_eq(set_max_bpc(&kms, o->connector_id,
					  steps[i].max_bpc), 0);
		igt_assert_eq_u64(primepair_prop_value(kms.fd, o->connector_id,
						       DRM_MODE_OBJECT_CONNECTOR,
						       "max bpc"),
				  steps[i].max_bpc);
		read_signal(&kms, o->connector_id, &s);
		igt_assert_f(signal_number(&s, "bpc") == steps[i].bpc,
			     "max bpc %u:%s", steps[i].max_bpc, s.text);
	}

	igt_assert_eq(set_max_bpc(&kms, o->connector_id, 16), 0);
	unlight(&kms, o, &fb);
	primepair_kms_close(&kms);
	primepair_assert_summary_zero();
}

/*
 * A compositor turning HDR on and off: BT2020_RGB and PQ metadata, then
 * new MaxCLL for the next video, then SDR again.  None of it needs a
 * mode set, the infoframe follows each commit, flips go on, and the
 * picture stays the one the planes make (vdisplay does not tone-map).
 */
static void test_metadata(void)
{
	struct primepair_kms kms;
	struct primepair_output *o;
	struct hdr_output_metadata m;
	struct primepair_flip_event ev = { 0 };
	struct primepair_fb fb;
	drmModeAtomicReqPtr req;
	uint32_t crc_sdr, blob;
	struct signal s;

	primepair_kms_open(&kms);
	o = &kms.outputs[0];
	light_hdr_monitor(&kms, o, &fb);
	crc_sdr = primepair_crc_still(&kms, o, 30);

	/* Both properties in one commit, without ALLOW_MODESET */
	pq_metadata(&m, 1000);
	igt_assert_eq(drmModeCreatePropertyBlob(kms.fd, &m, sizeof(m), &blob), 0);
	req = drmModeAtomicAlloc();
	igt_assert(req);
	primepair_add(kms.fd, req, o->connector_id, DRM_MODE_OBJECT_CONNECTOR,
		      "Colorspace", CS_BT2020_RGB);
	primepair_add(kms.fd, req, o->connector_id, DRM_MODE_OBJECT_CONNECTOR,
		      "HDR_OUTPUT_METADATA", blob);
	igt_assert_eq(primepair_commit(kms.fd, req, 0), 0);
	drmModeAtomicFree(req);
	/* The connector keeps the blob after the client lets it go */
	drmModeDestroyPropertyBlob(kms.fd, blob);

	read_signal(&kms, o->connector_id, &s);
	igt_assert_eq(signal_number(&s, "colorspace"), CS_BT2020_RGB);
	igt_assert_eq(signal_number(&s, "bpc"), 10);
	assert_signal_metadata(&s, &m);
	igt_assert_eq_u32(primepair_crc_still(&kms, o, 30), crc_sdr);

	/* A flip with an event, HDR on */
	req = drmModeAtomicAlloc();
	igt_assert(req);
	primepair_add_plane(kms.fd, req, o->primary, o->crtc_id, &fb, 0, 0, 0, 0,
			    o->mode.hdisplay, o->mode.vdisplay);
	igt_assert_eq(drmModeAtomicCommit(kms.fd, req,
					  DRM_MODE_PAGE_FLIP_EVENT |
					  DRM_MODE_ATOMIC_NONBLOCK, &ev), 0);
	drmModeAtomicFree(req);
	igt_assert(primepair_read_flip_event(kms.fd, 1000));
	igt_assert_eq(ev.count, 1);
	igt_assert_eq(ev.crtc_id, o->crtc_id);

	/* The next video's light level */
	pq_metadata(&m, 4000);
	igt_assert_eq(set_metadata(&kms, o->connector_id, &m, sizeof(m)), 0);
	read_signal(&kms, o->connector_id, &s);
	assert_signal_metadata(&s, &m);

	/* HLG, the sink's other HDR EOTF */
	m.hdmi_metadata_type1.eotf = EOTF_HLG;
	igt_assert_eq(set_metadata(&kms, o->connector_id, &m, sizeof(m)), 0);
	read_signal(&kms, o->connector_id, &s);
	assert_signal_metadata(&s, &m);

	/* Back to SDR */
	igt_assert_eq(set_connector_prop(&kms, o->connector_id,
					 "HDR_OUTPUT_METADATA", 0), 0);
	igt_assert_eq(set_connector_prop(&kms, o->connector_id, "Colorspace",
					 CS_DEFAULT), 0);
	read_signal(&kms, o->connector_id, &s);
	igt_assert_eq(signal_number(&s, "hdr"), 0);
	igt_assert(!signal_field(&s, "infoframe"));
	igt_assert_eq(signal_number(&s, "colorspace"), CS_DEFAULT);
	igt_assert_eq_u32(primepair_crc_still(&kms, o, 30), crc_sdr);

	unlight(&kms, o, &fb);
	primepair_kms_close(&kms);
	primepair_assert_summary_zero();
}

/*
 * Metadata for an EOTF the sink does not list is sent as it is, as
 * hardware sends it: here PQ to a connector without an EDID.
 */
static void test_unlisted_eotf(void)
{
	struct primepair_kms kms;
	struct primepair_output *o;
	struct hdr_output_metadata m;
	struct primepair_fb fb;
	struct signal s;

	primepair_kms_open(&kms);
	o = &kms.outputs[0];
	light_plain(&kms, o, &fb);

	pq_metadata(&m, 1000);
	igt_assert_eq(set_metadata(&kms, o->connector_id, &m, sizeof(m)), 0);
	read_signal(&kms, o->connector_id, &s);
	igt_assert_eq(signal_number(&s, "sink eotfs"), 0);
	igt_assert_eq(signal_number(&s, "bpc"), 8);
	assert_signal_metadata(&s, &m);

	igt_assert_eq(set_connector_prop(&kms, o->connector_id,
					 "HDR_OUTPUT_METADATA", 0), 0);
	primepair_disable_all(&kms);
	primepair_fb_destroy(kms.fd, &fb);
	primepair_kms_close(&kms);
	primepair_assert_summary_zero();
}

/*
 * Bad input: blobs of the wrong size or that do not exist, metadata
 * types and EOTFs CTA-861-G does not define, colorimetries vdisplay does
 * not send, depths outside the range, and connectors without the
 * properties.  Each fails with its errno and leaves the signal as it was.
 */
static void test_bad_input(void)
{
	struct primepair_kms kms;
	struct primepair_output *o;
	struct hdr_output_metadata m, bad;
	struct primepair_fb fb;
	struct signal before, after;
	uint8_t big[2 * sizeof(m)];
	static const size_t sizes[] = {
		1, sizeof(m) - 1, sizeof(m) + 1, 2 * sizeof(m),
	};
	static const uint8_t bad_eotfs[] = { 4, 7, 8, 255 };
	static const uint64_t bad_bpc[] = {
		0, 6, 7, 17, 1ull << 32, ~0ull,
	};
	uint32_t blob, id, prop;
	unsigned int i;

	primepair_kms_open(&kms);
	o = &kms.outputs[0];
	id = o->connector_id;
	light_hdr_monitor(&kms, o, &fb);
	pq_metadata(&m, 1000);
	igt_assert_eq(set_metadata(&kms, id, &m, sizeof(m)), 0);
	igt_assert_eq(set_connector_prop(&kms, id, "Colorspace", CS_BT2020_RGB), 0);
	read_signal(&kms, id, &before);

	/* Sizes: the core wants exactly one struct hdr_output_metadata */
	memset(big, 0, sizeof(big));
	memcpy(big, &m, sizeof(m));
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		igt_assert_f(set_metadata(&kms, id, big, sizes[i]) == -EINVAL,
			     "blob of %zu bytes\n", sizes[i]);

	/* A blob id nobody made, and one just destroyed */
	igt_assert_eq(set_connector_prop(&kms, id, "HDR_OUTPUT_METADATA",
					 0x7fffffff), -EINVAL);
	igt_assert_eq(drmModeCreatePropertyBlob(kms.fd, &m, sizeof(m), &blob), 0);
	drmModeDestroyPropertyBlob(kms.fd, blob);
	igt_assert_eq(set_connector_prop(&kms, id, "HDR_OUTPUT_METADATA", blob),
		      -EINVAL);

	/* Metadata types: only static type 1, in both places */
	bad = m;
	bad.metadata_type = 1;
	igt_assert_eq(set_metadata(&kms, id, &bad, sizeof(bad)), -EINVAL);
	bad.metadata_type = ~0u;
	igt_assert_eq(set_metadata(&kms, id, &bad, sizeof(bad)), -EINVAL);
	bad = m;
	bad.hdmi_metadata_type1.metadata_type = 1;
	igt_assert_eq(set_metadata(&kms, id, &bad, sizeof(bad)), -EINVAL);

	/* EOTF codes 4 to 7 are reserved, larger ones do not fit */
	for (i = 0; i < ARRAY_SIZE(bad_eotfs); i++) {
		bad = m;
		bad.hdmi_metadata_type1.eotf = bad_eotfs[i];
		igt_assert_f(set_metadata(&kms, id, &bad, sizeof(bad)) == -EINVAL,
			     "EOTF %u\n", bad_eotfs[i]);
	}

	/* Colorimetries: a YCbCr one (listed before 6.5), one of no list */
	igt_assert_eq(set_connector_prop(&kms, id, "Colorspace", CS_BT2020_YCC),
		      -EINVAL);
	igt_assert_eq(set_connector_prop(&kms, id, "Colorspace", 99), -EINVAL);

	/* Depths outside 8 to 16 */
	for (i = 0; i < ARRAY_SIZE(bad_bpc); i++)
		igt_assert_f(set_max_bpc(&kms, id, bad_bpc[i]) == -EINVAL,
			     "max bpc %llu\n", (unsigned long long)bad_bpc[i]);

	/* The legacy property ioctl refuses the same */
	prop = primepair_prop_id(kms.fd, id, DRM_MODE_OBJECT_CONNECTOR,
				 "HDR_OUTPUT_METADATA");
	bad = m;
	bad.hdmi_metadata_type1.eotf = 5;
	igt_assert_eq(drmModeCreatePropertyBlob(kms.fd, &bad, sizeof(bad),
						&blob), 0);
	igt_assert_eq(drmModeConnectorSetProperty(kms.fd, id, prop, blob),
		      -EINVAL);
	drmModeDestroyPropertyBlob(kms.fd, blob);

	/* Connectors without it: writeback, and one that does not exist */
	if (o->wb_connector_id) {
		drmModeAtomicReqPtr req = drmModeAtomicAlloc();

		igt_assert(req);
		igt_assert_lt(0, drmModeAtomicAddProperty(req, o->wb_connector_id,
							  prop, 0));
		igt_assert_eq(primepair_commit(kms.fd, req, 0), -ENOENT);
		drmModeAtomicFree(req);
	}
	igt_assert_eq(drmModeConnectorSetProperty(kms.fd, 0x7ffffff0, prop, 0),
		      -ENOENT);

	/* Nothing of it reached the signal */
	read_signal(&kms, id, &after);
	igt_assert_f(!strcmp(before.text, after.text), "before:%s\nafter:%s",
		     before.text, after.text);
	igt_assert_eq_u64(primepair_prop_value(kms.fd, id,
					       DRM_MODE_OBJECT_CONNECTOR,
					       "max bpc"), 16);

	igt_assert_eq(set_connector_prop(&kms, id, "HDR_OUTPUT_METADATA", 0), 0);
	igt_assert_eq(set_connector_prop(&kms, id, "Colorspace", CS_DEFAULT), 0);
	unlight(&kms, o, &fb);
	primepair_kms_close(&kms);
	primepair_assert_summary_zero();
}

igt_main
{
	igt_describe("Display connectors have max bpc (8 to 16), Colorspace (RGB) and HDR_OUTPUT_METADATA; writeback ones none");
	igt_subtest("properties")
		test_properties();
	igt_describe("The signal has the EDID's bits per colour, or fewer as max bpc asks, rounded down to even");
	igt_subtest("bpc")
		test_bpc();
	igt_describe("HDR metadata and BT2020_RGB reach the signal's infoframe without a mode set and leave the picture alone");
	igt_subtest("metadata")
		test_metadata();
	igt_describe("Metadata for an EOTF the sink does not list is sent, as hardware sends it");
	igt_subtest("unlisted-eotf")
		test_unlisted_eotf();
	igt_describe("Bad blobs, metadata types, EOTFs, colorimetries and depths fail with EINVAL or ENOENT and change nothing");
	igt_subtest("bad-input")
		test_bad_input();

	igt_fixture {
		primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "");
		primepair_assert_summary_zero();
	}
}
