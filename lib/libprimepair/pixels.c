// SPDX-License-Identifier: GPL-2.0
/*
 * pixels.c - CRC-32 and the reference pixel of vrender's PATTERN command.
 */
#include "libprimepair.h"

/* Built on first use; entry 1 is never 0 once built. */
static uint32_t crc32_table[256];

static void crc32_init_table(void)
{
	uint32_t i, r;
	int bit;

	for (i = 0; i < 256; i++) {
		r = i;
		for (bit = 0; bit < 8; bit++)
			r = (r >> 1) ^ (r & 1 ? 0xedb88320u : 0);
		crc32_table[i] = r;
	}
}

uint32_t pp_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!crc32_table[1])
		crc32_init_table();

	crc = ~crc;
	while (len--)
		crc = crc32_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/*
 * What the engine writes for PATTERN (drm/vrender): a checkerboard of
 * 32-pixel squares in blue that moves 4 pixels a frame, over red growing
 * with x and the frame and green growing with y and twice the frame.
 */
uint32_t pp_pattern_pixel(uint32_t x, uint32_t y, uint32_t frame)
{
	uint32_t check = (((x + frame * 4) / 32) ^ (y / 32)) & 1;
	uint32_t r = (x + frame) & 0xff;
	uint32_t g = (y + 2 * frame) & 0xff;

	return 0xff000000u | r << 16 | g << 8 | (check ? 0xff : 0);
}
