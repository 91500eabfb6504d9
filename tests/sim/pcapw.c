/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libpcap writer (see pcapw.h).  All header fields are written explicitly
 * little-endian: the file reads the same on any host.
 */
#include "pcapw.h"

static void le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

FILE *pcapw_open(const char *path)
{
    uint8_t h[24] = { 0 };
    FILE *f = fopen(path, "wb");

    if (!f) {
        return NULL;
    }
    le32(h, PCAPW_MAGIC_NS);
    h[4] = 2;                   /* version 2.4 */
    h[6] = 4;
    le32(h + 16, PCAPW_SNAPLEN);
    le32(h + 20, PCAPW_LINKTYPE_ETHERNET);
    if (fwrite(h, 1, sizeof(h), f) != sizeof(h)) {
        fclose(f);
        return NULL;
    }
    return f;
}

bool pcapw_frame(FILE *f, uint64_t ts_ns, const void *frame, size_t len)
{
    uint8_t h[16];
    size_t cap = len > PCAPW_SNAPLEN ? PCAPW_SNAPLEN : len;

    le32(h, (uint32_t)(ts_ns / 1000000000u));
    le32(h + 4, (uint32_t)(ts_ns % 1000000000u));
    le32(h + 8, (uint32_t)cap);
    le32(h + 12, (uint32_t)len);
    return fwrite(h, 1, sizeof(h), f) == sizeof(h) &&
           fwrite(frame, 1, cap, f) == cap;
}

int pcapw_close(FILE *f)
{
    int bad = ferror(f);

    return (fclose(f) || bad) ? -1 : 0;
}
