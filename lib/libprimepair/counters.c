// SPDX-License-Identifier: GPL-2.0
/*
 * counters.c - "name: value" files: primebuf's summary, and the debugfs
 * files of the drivers and of primebuf's self-test module.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libprimepair.h"

#define PP_COUNTER_NAME(name) #name,
const char *const pp_live_counters[] = {
	PP_LIVE_COUNTERS(PP_COUNTER_NAME)
	NULL
};

/*
 * Split @line into its key (trimmed, before the first ':') and numeric
 * value.  Returns false for a line without ':' or without a number after
 * it.
 */
static bool parse_counter(char *line, char **key, uint64_t *val)
{
	char *colon = strchr(line, ':'), *end, *p;
	unsigned long long v;

	if (!colon)
		return false;

	*colon = '\0';
	while (isspace((unsigned char)*line))
		line++;
	for (p = colon; p > line && isspace((unsigned char)p[-1]); p--)
		p[-1] = '\0';
	*key = line;

	p = colon + 1;
	while (isspace((unsigned char)*p))
		p++;
	if (!isdigit((unsigned char)*p))
		return false;

	errno = 0;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		v = strtoull(p + 2, &end, 16);
	else
		v = strtoull(p, &end, 10);
	if (errno || (*end && !isspace((unsigned char)*end)))
		return false;

	*val = v;
	return true;
}

static bool listed(const char *key, const char *const *only)
{
	if (!only)
		return true;
	for (; *only; only++)
		if (!strcmp(*only, key))
			return true;
	return false;
}

int pp_counter_read(const char *file, const char *key, uint64_t *val)
{
	char *line = NULL, *k;
	size_t size = 0;
	int ret = -ENOENT;
	uint64_t v;
	FILE *f;

	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (ret && getline(&line, &size, f) >= 0) {
		if (parse_counter(line, &k, &v) && !strcmp(k, key)) {
			*val = v;
			ret = 0;
		}
	}
	free(line);
	fclose(f);
	return ret;
}

int pp_counter_first_nonzero(const char *file, const char *const *only,
			     char *key, size_t len, uint64_t *val)
{
	char *line = NULL, *k;
	size_t size = 0;
	int found = 0;
	uint64_t v;
	FILE *f;

	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (!found && getline(&line, &size, f) >= 0) {
		if (parse_counter(line, &k, &v) && v && listed(k, only)) {
			snprintf(key, len, "%s", k);
			*val = v;
			found = 1;
		}
	}
	free(line);
	fclose(f);
	return found;
}
