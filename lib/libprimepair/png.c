// SPDX-License-Identifier: GPL-2.0
/*
 * png.c - writing captured frames as PNG, with libpng.  In its own object
 * file so that only the programs that write PNGs need -lpng.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <png.h>

#include "libprimepair.h"

/*
 * libpng reports errors by longjmp() to the setjmp() below; png and info
 * are not changed after it, so they are valid there.
 */
static int write_rows(FILE *f, const uint8_t *pixels, uint32_t width,
		      uint32_t height, uint32_t pitch, uint8_t *row)
{
	png_structp png;
	png_infop info = NULL;
	uint32_t x, y;

	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	if (!png)
		return -ENOMEM;
	info = png_create_info_struct(png);
	if (!info || setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		return -EIO;
	}
	png_init_io(png, f);
	png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
		     PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	for (y = 0; y < height; y++) {
		const uint32_t *src = (const uint32_t *)(pixels +
							  (size_t)y * pitch);

		for (x = 0; x < width; x++) {
			row[x * 3 + 0] = src[x] >> 16;
			row[x * 3 + 1] = src[x] >> 8;
			row[x * 3 + 2] = src[x];
		}
		png_write_row(png, row);
	}
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	return 0;
}

int pp_png_write_xrgb(const char *path, const void *pixels, uint32_t width,
		      uint32_t height, uint32_t pitch)
{
	uint8_t *row;
	FILE *f;
	int ret;

	row = malloc((size_t)width * 3);
	if (!row)
		return -ENOMEM;
	f = fopen(path, "wbe");
	if (!f) {
		ret = -errno;
		free(row);
		return ret;
	}
	ret = write_rows(f, pixels, width, height, pitch, row);
	if (fclose(f) && !ret)
		ret = -errno;
	free(row);
	return ret;
}
