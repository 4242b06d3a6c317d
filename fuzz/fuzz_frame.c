/*
 * fuzz_frame.c - libFuzzer target for the frame decoder: common/wire.c's
 * header decoding and lib/transport/stream.c's reassembly of frames from
 * a byte stream.
 *
 * The fuzz input is the byte stream a peer sends.  Its first byte picks
 * how the stream is cut into reads (a different short-read pattern per
 * value) and whether a handshake gate comes first; the rest is what the
 * fake transport's read() returns, a piece at a time, until it reports
 * the end of the stream.  Every frame handed to the sink must have a
 * header that encodes back to itself and a body of exactly f->len bytes
 * (ASan checks the reads of it).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bufcache.h"
#include "transport/registry.h"
#include "transport/stream.h"

struct feed {
	const uint8_t *data;
	size_t len, pos;
	unsigned pattern;	/* drives the read sizes */
	unsigned step;
	size_t gate_take;	/* bytes the gate swallows */
	int gated;
};

static struct feed feed;

static ssize_t feed_read(int fd, void *buf, size_t len)
{
	size_t n, left = feed.len - feed.pos;

	(void)fd;
	if (!left)
		return 0;
	/* every fourth read of some patterns: "nothing yet" */
	if ((feed.pattern & 0x80) && (feed.step++ & 3) == 3) {
		errno = EAGAIN;
		return -1;
	}
	n = 1 + (feed.pattern * 7 + feed.step * 13) % 97;
	if (feed.pattern & 0x40)
		n = left;
	if (n > len)
		n = len;
	if (n > left)
		n = left;
	memcpy(buf, feed.data + feed.pos, n);
	feed.pos += n;
	return (ssize_t)n;
}

static int sink_frame(void *arg, const struct pvmi_frame *f,
		      unsigned char *body)
{
	unsigned char hdr[PVMI_FRAME_HDR_LEN];
	struct pvmi_frame g;
	volatile unsigned sum = 0;
	uint32_t i;

	(void)arg;
	pvmi_frame_encode(f, hdr);
	if (pvmi_frame_decode(hdr, &g) || memcmp(&g, f, sizeof(g)))
		abort();	/* a decoded header must round-trip */
	for (i = 0; i < f->len; i += 4096)
		sum += body[i];
	if (f->len)
		sum += body[f->len - 1];
	pvmi_buf_free(body);
	return f->kind == PVMI_KIND_DAEMON && f->tag == -1 ? -1 : 0;
}

static long sink_gate(void *arg, const unsigned char *data, size_t len)
{
	struct pvmi_pipe *p = arg;
	size_t take = len < feed.gate_take ? len : feed.gate_take;

	(void)data;
	feed.gate_take -= take;
	if (!feed.gate_take)
		p->gated = 0;
	return (long)take;
}

static const struct pvmi_pipe_sink sink = {
	.frame = sink_frame,
	.gate = sink_gate,
};

static const struct pvmi_transport fake = {
	.name = "fuzz",
	.progress = pvmi_stream_progress,
	.close = pvmi_stream_close,
	.read = feed_read,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pvmi_pipe p;
	struct pvmi_frame f;
	int rc, rounds = 0;

	if (size < 1)
		return 0;
	if (size > PVMI_FRAME_HDR_LEN) {
		unsigned char hdr[PVMI_FRAME_HDR_LEN];

		/* the decoder alone, on the first header */
		if (!pvmi_frame_decode(data + 1, &f)) {
			pvmi_frame_encode(&f, hdr);
			if (memcmp(hdr, data + 1, sizeof(hdr)))
				abort();
		}
	}
	memset(&feed, 0, sizeof(feed));
	feed.pattern = data[0];
	feed.data = data + 1;
	feed.len = size - 1;
	feed.gate_take = (data[0] & 0x20) ? (data[0] & 0x1f) : 0;

	pvmi_pipe_init(&p, -1, &fake, &sink, &p);
	p.gated = feed.gate_take > 0;
	do {
		rc = pvmi_stream_progress(&p);
	} while (rc >= 0 && ++rounds < 100000);
	if (rc >= 0)
		abort();	/* the stream ended, yet no end reported */
	pvmi_stream_close(&p);
	return 0;
}
