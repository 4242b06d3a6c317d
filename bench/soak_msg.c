/*
 * soak_msg.c - the data messages of bench/soak: the patterns they are
 * cut from, their sizes, encodings and types, their checks at the
 * receiver (sequence number, type, length, checksum), and the counts a
 * worker reports to the master.
 */
#include <string.h>

#include "pvm3.h"
#include "soak.h"

static const int encodings[] = { PvmDataDefault, PvmDataRaw, PvmDataInPlace };

/* Patterns the messages are cut from (read-only once made). */
static uint64_t pat_words[PATTERN_WORDS + SLACK_WORDS];
static double pat_doubles[PATTERN_WORDS + SLACK_WORDS];
static char pat_str[PATTERN_WORDS * 8 + SLACK_WORDS * 8];

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* The checksum of `n' bytes: a 64-bit multiply-xor over words and tail. */
static uint64_t checksum(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ull, w;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, b + i, 8);
		h = (h ^ w) * 1099511628211ull;
	}
	for (; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h ^ n;
}

/* Fills the patterns the messages are cut from; once per process, before
 * any send_data.
 */
void make_patterns(void)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	size_t i;

	for (i = 0; i < PATTERN_WORDS + SLACK_WORDS; i++) {
		pat_words[i] = xorshift(&s);
		pat_doubles[i] = (double)(pat_words[i] >> 11) / 3.0 - 1e15;
	}
	for (i = 0; i < sizeof(pat_str); i++)
		pat_str[i] = (char)('a' + pat_words[i / 8] % 26 + (i & 1));
}

/* Adds v to the list of *n values (at most MAX_LIST), unless it is
 * there already.
 */
void add_list(int *list, int *n, int v)
{
	int i;

	for (i = 0; i < *n; i++)
		if (list[i] == v)
			return;
	if (*n < MAX_LIST)
		list[(*n)++] = v;
}

/* A message size: 90 % up to 256 B, 9 % up to 16 KiB, 0.9 % up to
 * 256 KiB, 0.1 % up to `max'. */
static size_t pick_size(uint64_t *rng, size_t max)
{
	unsigned r = (unsigned)(xorshift(rng) % 1000);
	uint64_t x = xorshift(rng);
	size_t lo, hi;

	if (r < 900) {
		lo = 0;
		hi = 256;
	} else if (r < 990) {
		lo = 257;
		hi = 16384;
	} else if (r < 999) {
		lo = 16385;
		hi = 262144;
	} else {
		lo = 262145;
		hi = max;
	}
	if (hi > max)
		hi = max;
	if (lo > hi)
		lo = hi;
	return lo + (size_t)(x % (hi - lo + 1));
}

/*
 * Packs and sends one data message to `p': header (sequence number,
 * type, element count, checksum halves), then the elements.
 */
int send_data(struct peer *p, uint64_t *rng, size_t max, char *strbuf,
	      struct counts *c)
{
	size_t size = pick_size(rng, max), off = xorshift(rng) % SLACK_WORDS;
	int kind = (int)(p->sent % K_KINDS);
	/* strings cannot be packed in place (PvmNotImpl, as in PVM 3.4) */
	int enc = encodings[(p->sent / K_KINDS) % (kind == K_STR ? 2 : 3)];
	int hdr[5], n, rc;
	uint64_t sum;
	const void *data;

	switch (kind) {
	case K_INT:
		n = (int)(size / sizeof(int));
		data = (const int *)(pat_words + off);
		sum = checksum(data, (size_t)n * sizeof(int));
		break;
	case K_DOUBLE:
		n = (int)(size / sizeof(double));
		data = pat_doubles + off;
		sum = checksum(data, (size_t)n * sizeof(double));
		break;
	case K_STR:
		n = size > 65536 ? 65536 : (int)size;
		memcpy(strbuf, pat_str + off * 8, (size_t)n);
		strbuf[n] = '\0';
		data = strbuf;
		sum = checksum(data, (size_t)n);
		break;
	default:
		n = (int)size;
		data = (const char *)pat_words + off * 8;
		sum = checksum(data, size);
		break;
	}
	hdr[0] = (int)p->sent;
	hdr[1] = kind;
	hdr[2] = n;
	hdr[3] = (int)(uint32_t)sum;
	hdr[4] = (int)(uint32_t)(sum >> 32);
	if (pvm_initsend(enc) < 0 || pvm_pkint(hdr, 5, 1) < 0)
		return -1;
	switch (kind) {
	case K_INT:
		pvm_pkint((int *)data, n, 1);
		break;
	case K_DOUBLE:
		pvm_pkdouble((double *)data, n, 1);
		break;
	case K_STR:
		pvm_pkstr((char *)data);
		break;
	default:
		pvm_pkbyte((char *)data, n, 1);
		break;
	}
	rc = pvm_send(p->tid, TAG_DATA);
	if (rc == PvmNoHost) {
		/* its host left (the TaskExit notify follows): no more */
		p->credit = 0;
		return 0;
	}
	if (rc < 0)
		return -1;
	p->sent++;
	p->credit--;
	c->sent++;
	c->bytes += (long)size;
	return 0;
}

/* Unpacks and checks the data message from p now in the receive buffer
 * into buf, counting it in c; acknowledges every want_ack messages.
 */
void recv_data(struct peer *p, char *buf, int want_ack, struct counts *c)
{
	int hdr[5], n, kind;
	size_t len = 0;
	uint64_t sum;

	if (pvm_upkint(hdr, 5, 1) < 0) {
		c->corrupt++;
		return;
	}
	kind = hdr[1];
	n = hdr[2];
	if (n < 0 || n > PATTERN_WORDS * 8 || kind < 0 || kind >= K_KINDS) {
		c->corrupt++;
		return;
	}
	switch (kind) {
	case K_INT:
		len = (size_t)n * sizeof(int);
		if (len > PATTERN_WORDS * 8 || pvm_upkint((int *)buf, n, 1) < 0)
			len = (size_t)-1;
		break;
	case K_DOUBLE:
		len = (size_t)n * sizeof(double);
		if (len > PATTERN_WORDS * 8 || pvm_upkdouble((double *)buf, n, 1) < 0)
			len = (size_t)-1;
		break;
	case K_STR:
		len = pvm_upkstr(buf) < 0 ? (size_t)-1 : strlen(buf);
		break;
	default:
		len = (size_t)n;
		if (pvm_upkbyte(buf, n, 1) < 0)
			len = (size_t)-1;
		break;
	}
	sum = (uint64_t)(uint32_t)hdr[3] | (uint64_t)(uint32_t)hdr[4] << 32;
	if (len == (size_t)-1 || checksum(buf, len) != sum)
		c->corrupt++;
	if (hdr[0] == p->recvd)
		;
	else if (hdr[0] < p->recvd)
		c->dup++;
	else if (hdr[0] > p->recvd)
		c->lost += hdr[0] - p->recvd;
	if (hdr[0] >= p->recvd)
		p->recvd = hdr[0] + 1L;
	c->recvd++;
	if (++p->since_ack >= want_ack && !p->dead) {
		int k = (int)p->since_ack;

		p->since_ack = 0;
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&k, 1, 1);
		pvm_send(p->tid, TAG_ACK);
	}
}

/* Packs counts c into the send buffer (the master's unpack_counts reads
 * them).
 */
void pack_counts(const struct counts *c)
{
	long v[7] = { c->sent, c->recvd, c->bytes, c->corrupt, c->lost,
		      c->dup, c->badfinal };

	pvm_pklong(v, 7, 1);
	pvm_pkint((int *)&c->nexit, 1, 1);
	pvm_pkint((int *)c->exits, c->nexit, 1);
	pvm_pkint((int *)&c->nhdel, 1, 1);
	pvm_pkint((int *)c->hdels, c->nhdel, 1);
}

/* Unpacks counts into c from the receive buffer, as pack_counts packed
 * them; lists of a bad length are taken as empty.
 */
void unpack_counts(struct counts *c)
{
	long v[7];

	memset(c, 0, sizeof(*c));
	pvm_upklong(v, 7, 1);
	c->sent = v[0];
	c->recvd = v[1];
	c->bytes = v[2];
	c->corrupt = v[3];
	c->lost = v[4];
	c->dup = v[5];
	c->badfinal = v[6];
	pvm_upkint(&c->nexit, 1, 1);
	if (c->nexit < 0 || c->nexit > MAX_LIST)
		c->nexit = 0;
	pvm_upkint(c->exits, c->nexit, 1);
	pvm_upkint(&c->nhdel, 1, 1);
	if (c->nhdel < 0 || c->nhdel > MAX_LIST)
		c->nhdel = 0;
	pvm_upkint(c->hdels, c->nhdel, 1);
}
