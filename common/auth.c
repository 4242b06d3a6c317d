/*
 * auth.c - the connection handshake of auth.h.
 *
 * States: an initiator starts having queued its HELLO and waits for the
 * acceptor's HELLO, answers with its PROOF and waits for the acceptor's
 * PROOF.  An acceptor waits for a HELLO, answers with its own, waits for
 * the initiator's PROOF and, when it checks out, queues its PROOF and is
 * done.  Any message that does not parse, has the wrong version or role,
 * or whose MAC does not match ends the handshake for good.
 */
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "auth.h"
#include "be.h"
#include "sha256.h"

#define HELLO_MAGIC	"CPVH"
#define PROOF_MAGIC	"CPVP"
#define MAC_LABEL	"copvm-auth-1 "

enum {
	ST_WANT_HELLO,
	ST_WANT_PROOF,
	ST_DONE,
	ST_FAILED,
};

/* Fills `n' bytes with kernel randomness; 0 or -1. */
int pvmi_random(void *p, size_t n)
{
	unsigned char *c = p;
	ssize_t k;

	while (n > 0) {
		k = getrandom(c, n, 0);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/* HELLO layout: magic[4] version[2] role[1] kind[1] id[4] nonce[32]
 * reserved[4] (zero). */
static int make_hello(unsigned char *h, int role, int kind, int32_t id)
{
	memset(h, 0, PVMI_AUTH_HELLO_LEN);
	memcpy(h, HELLO_MAGIC, 4);
	h[4] = 0;
	h[5] = PVMI_AUTH_VERSION;
	h[6] = (unsigned char)role;
	h[7] = (unsigned char)kind;
	put_be32(h + 8, (uint32_t)id);
	return pvmi_random(h + 12, PVMI_AUTH_NONCE_LEN);
}

static int hello_ok(const unsigned char *h, int want_role)
{
	unsigned i;

	if (memcmp(h, HELLO_MAGIC, 4) || h[4] != 0 ||
	    h[5] != PVMI_AUTH_VERSION || h[6] != want_role ||
	    (h[7] != PVMI_AUTH_DAEMON && h[7] != PVMI_AUTH_TASK))
		return 0;
	for (i = 44; i < PVMI_AUTH_HELLO_LEN; i++)
		if (h[i])
			return 0;
	return 1;
}

/* The MAC a side of role `role' must show for this transcript. */
static void proof_mac(const struct pvmi_auth *a, int role, unsigned char *mac)
{
	char label[sizeof(MAC_LABEL) + 1];
	const void *parts[3];
	size_t lens[3];

	memcpy(label, MAC_LABEL, sizeof(MAC_LABEL) - 1);
	label[sizeof(MAC_LABEL) - 1] = role == PVMI_AUTH_INITIATOR ? 'I' : 'A';
	parts[0] = label;
	lens[0] = sizeof(MAC_LABEL);
	parts[1] = a->hello[PVMI_AUTH_INITIATOR];
	lens[1] = PVMI_AUTH_HELLO_LEN;
	parts[2] = a->hello[PVMI_AUTH_ACCEPTOR];
	lens[2] = PVMI_AUTH_HELLO_LEN;
	pvmi_hmac_sha256(a->key, PVMI_SECRET_LEN, 3, parts, lens, mac);
}

static void queue_proof(struct pvmi_auth *a)
{
	unsigned char *p = a->out + a->outlen;

	memcpy(p, PROOF_MAGIC, 4);
	proof_mac(a, a->role, p + 4);
	a->outlen += PVMI_AUTH_PROOF_LEN;
}

/* Prepares one end; an initiator's HELLO is queued in out[]. */
int pvmi_auth_init(struct pvmi_auth *a, const unsigned char *key, int role,
		   int kind, int32_t id)
{
	memset(a, 0, sizeof(*a));
	memcpy(a->key, key, PVMI_SECRET_LEN);
	a->role = role;
	a->state = ST_WANT_HELLO;
	a->peer_kind = -1;
	if (make_hello(a->hello[role], role, kind, id) < 0) {
		a->state = ST_FAILED;
		return -1;
	}
	if (role == PVMI_AUTH_INITIATOR) {
		memcpy(a->out, a->hello[role], PVMI_AUTH_HELLO_LEN);
		a->outlen = PVMI_AUTH_HELLO_LEN;
	}
	return 0;
}

/* How many bytes the next message has. */
size_t pvmi_auth_want(const struct pvmi_auth *a)
{
	switch (a->state) {
	case ST_WANT_HELLO:
		return PVMI_AUTH_HELLO_LEN;
	case ST_WANT_PROOF:
		return PVMI_AUTH_PROOF_LEN;
	default:
		return 0;
	}
}

static int fail(struct pvmi_auth *a)
{
	a->state = ST_FAILED;
	a->outlen = 0;
	return PVMI_AUTH_FAIL;
}

/* Takes the next message; see auth.h. */
int pvmi_auth_feed(struct pvmi_auth *a, const unsigned char *msg)
{
	unsigned char want[PVMI_SHA256_LEN];
	int peer = !a->role;

	switch (a->state) {
	case ST_WANT_HELLO:
		if (!hello_ok(msg, peer))
			return fail(a);
		memcpy(a->hello[peer], msg, PVMI_AUTH_HELLO_LEN);
		/* a peer echoing our own nonce is replaying us */
		if (pvmi_ct_equal(a->hello[peer] + 12, a->hello[a->role] + 12,
				  PVMI_AUTH_NONCE_LEN))
			return fail(a);
		a->peer_kind = msg[7];
		a->peer_id = (int32_t)get_be32(msg + 8);
		if (a->role == PVMI_AUTH_ACCEPTOR) {
			memcpy(a->out + a->outlen, a->hello[a->role],
			       PVMI_AUTH_HELLO_LEN);
			a->outlen += PVMI_AUTH_HELLO_LEN;
		} else {
			queue_proof(a);
		}
		a->state = ST_WANT_PROOF;
		return PVMI_AUTH_MORE;
	case ST_WANT_PROOF:
		if (memcmp(msg, PROOF_MAGIC, 4))
			return fail(a);
		proof_mac(a, peer, want);
		if (!pvmi_ct_equal(want, msg + 4, PVMI_SHA256_LEN))
			return fail(a);
		if (a->role == PVMI_AUTH_ACCEPTOR)
			queue_proof(a);
		a->state = ST_DONE;
		return PVMI_AUTH_DONE;
	case ST_DONE:
		return PVMI_AUTH_DONE;
	default:
		return PVMI_AUTH_FAIL;
	}
}

/* Wipes the key and the transcript. */
void pvmi_auth_clear(struct pvmi_auth *a)
{
	int state = a->state, kind = a->peer_kind;
	int32_t id = a->peer_id;

	memset(a, 0, sizeof(*a));
	a->state = state == ST_DONE ? ST_DONE : ST_FAILED;
	a->peer_kind = kind;
	a->peer_id = id;
}

/* Writes the secret as 64 lowercase hex digits and a NUL. */
void pvmi_secret_to_hex(const unsigned char *key, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < PVMI_SECRET_LEN; i++) {
		hex[2 * i] = digits[key[i] >> 4];
		hex[2 * i + 1] = digits[key[i] & 15];
	}
	hex[2 * PVMI_SECRET_LEN] = '\0';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parses 64 hex digits (nothing else) into a secret; 0 or -1. */
int pvmi_secret_from_hex(const char *hex, unsigned char *key)
{
	int i, hi, lo;

	for (i = 0; i < PVMI_SECRET_LEN; i++) {
		hi = hexval(hex[2 * i]);
		if (hi < 0)
			return -1;
		lo = hexval(hex[2 * i + 1]);
		if (lo < 0)
			return -1;
		key[i] = (unsigned char)(hi << 4 | lo);
	}
	return hex[2 * PVMI_SECRET_LEN] == '\0' ? 0 : -1;
}
