/*
 * check_auth.c - unit tests of common/sha256.c and common/auth.c: the
 * SHA-256 vectors of FIPS 180-4 (and the usual long-message ones), the
 * HMAC-SHA256 vectors of RFC 4231, and the connection handshake: two
 * ends that share the secret agree and learn each other's identity; a
 * wrong secret, a tampered, truncated, replayed or reflected message, a
 * wrong role or version, and garbage all fail, and stay failed.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "sha256.h"

static void hex(const unsigned char *p, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

static void check_digest(const unsigned char *d, size_t n, const char *want)
{
	char got[2 * PVMI_SHA256_LEN + 1];

	hex(d, n, got);
	ck_assert_str_eq(got, want);
}

static void sha_str(const char *s, const char *want)
{
	unsigned char d[PVMI_SHA256_LEN];

	pvmi_sha256(s, strlen(s), d);
	check_digest(d, sizeof(d), want);
}

START_TEST(sha256_vectors)
{
	sha_str("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha_str("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha_str("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	sha_str("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
		"hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
		"cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}
END_TEST

/* One million 'a', fed in uneven pieces to exercise the buffering. */
START_TEST(sha256_million_a)
{
	struct pvmi_sha256 s;
	unsigned char d[PVMI_SHA256_LEN], buf[1000];
	size_t done = 0, k = 1;

	memset(buf, 'a', sizeof(buf));
	pvmi_sha256_init(&s);
	while (done < 1000000) {
		if (k > 1000000 - done)
			k = 1000000 - done;
		pvmi_sha256_update(&s, buf, k);
		done += k;
		k = k % 997 + 1;
	}
	pvmi_sha256_final(&s, d);
	check_digest(d, sizeof(d),
		     "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

/* Every split of a 130-byte message gives the one-shot digest. */
START_TEST(sha256_splits)
{
	unsigned char msg[130], one[PVMI_SHA256_LEN], two[PVMI_SHA256_LEN];
	struct pvmi_sha256 s;
	size_t i;

	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (unsigned char)(i * 7 + 3);
	pvmi_sha256(msg, sizeof(msg), one);
	for (i = 0; i <= sizeof(msg); i++) {
		pvmi_sha256_init(&s);
		pvmi_sha256_update(&s, msg, i);
		pvmi_sha256_update(&s, msg + i, sizeof(msg) - i);
		pvmi_sha256_final(&s, two);
		ck_assert(memcmp(one, two, sizeof(one)) == 0);
	}
}
END_TEST

static void hmac_case(const unsigned char *key, size_t klen, const void *data,
		      size_t dlen, const char *want, size_t wantlen)
{
	unsigned char d[PVMI_SHA256_LEN];
	const void *parts[1] = { data };
	size_t lens[1] = { dlen };

	pvmi_hmac_sha256(key, klen, 1, parts, lens, d);
	check_digest(d, wantlen, want);
}

START_TEST(hmac_rfc4231)
{
	unsigned char key[131], data[50];
	static const char big1[] =
		"Test Using Larger Than Block-Size Key - Hash Key First";
	static const char big2[] =
		"This is a test using a larger than block-size key and a larger "
		"than block-size data. The key needs to be hashed before being "
		"used by the HMAC algorithm.";
	size_t i;

	memset(key, 0x0b, 20);
	hmac_case(key, 20, "Hi There", 8,
		  "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", 32);
	hmac_case((const unsigned char *)"Jefe", 4,
		  "what do ya want for nothing?", 28,
		  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", 32);
	memset(key, 0xaa, 20);
	memset(data, 0xdd, 50);
	hmac_case(key, 20, data, 50,
		  "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe", 32);
	for (i = 0; i < 25; i++)
		key[i] = (unsigned char)(i + 1);
	memset(data, 0xcd, 50);
	hmac_case(key, 25, data, 50,
		  "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b", 32);
	memset(key, 0x0c, 20);
	hmac_case(key, 20, "Test With Truncation", 20,
		  "a3b6167473100ee06e0c796c2955552b", 16);
	memset(key, 0xaa, 131);
	hmac_case(key, 131, big1, strlen(big1),
		  "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54", 32);
	hmac_case(key, 131, big2, strlen(big2),
		  "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2", 32);
}
END_TEST

/* The data may come in several parts: same MAC as in one piece. */
START_TEST(hmac_parts)
{
	const void *parts[3] = { "what do ya ", "want for ", "nothing?" };
	size_t lens[3] = { 11, 9, 8 };
	unsigned char d[PVMI_SHA256_LEN];

	pvmi_hmac_sha256("Jefe", 4, 3, parts, lens, d);
	check_digest(d, sizeof(d),
		     "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	ck_assert(pvmi_ct_equal("abc", "abc", 3));
	ck_assert(!pvmi_ct_equal("abc", "abd", 3));
}
END_TEST

/* ---- the handshake ---- */

static unsigned char key1[PVMI_SECRET_LEN], key2[PVMI_SECRET_LEN];

static void setup_keys(void)
{
	ck_assert_int_eq(pvmi_random(key1, sizeof(key1)), 0);
	memcpy(key2, key1, sizeof(key2));
	key2[7] ^= 0x10;
}

/* Moves the pending output of `from' into `to'; returns what `to' said
 * about the last message, or PVMI_AUTH_MORE when nothing was pending. */
static int deliver(struct pvmi_auth *from, struct pvmi_auth *to)
{
	unsigned char buf[sizeof(from->out)];
	size_t n = from->outlen, off = 0, want;
	int st = PVMI_AUTH_MORE;

	memcpy(buf, from->out, n);
	from->outlen = 0;
	while (off < n) {
		want = pvmi_auth_want(to);
		ck_assert_uint_gt(want, 0);
		ck_assert_uint_le(off + want, n);
		st = pvmi_auth_feed(to, buf + off);
		off += want;
		if (st == PVMI_AUTH_FAIL)
			break;
	}
	return st;
}

START_TEST(handshake_ok)
{
	struct pvmi_auth i, a;

	ck_assert_int_eq(pvmi_auth_init(&i, key1, PVMI_AUTH_INITIATOR,
					PVMI_AUTH_TASK, 0x80003), 0);
	ck_assert_int_eq(pvmi_auth_init(&a, key1, PVMI_AUTH_ACCEPTOR,
					PVMI_AUTH_DAEMON, 2), 0);
	/* the acceptor says nothing first */
	ck_assert_uint_eq(a.outlen, 0);
	ck_assert_uint_eq(i.outlen, PVMI_AUTH_HELLO_LEN);
	ck_assert_int_eq(deliver(&i, &a), PVMI_AUTH_MORE);
	ck_assert_uint_eq(a.outlen, PVMI_AUTH_HELLO_LEN);
	ck_assert_int_eq(deliver(&a, &i), PVMI_AUTH_MORE);
	ck_assert_uint_eq(i.outlen, PVMI_AUTH_PROOF_LEN);
	ck_assert_int_eq(deliver(&i, &a), PVMI_AUTH_DONE);
	ck_assert_uint_eq(a.outlen, PVMI_AUTH_PROOF_LEN);
	ck_assert_int_eq(deliver(&a, &i), PVMI_AUTH_DONE);
	ck_assert_int_eq(i.peer_kind, PVMI_AUTH_DAEMON);
	ck_assert_int_eq(i.peer_id, 2);
	ck_assert_int_eq(a.peer_kind, PVMI_AUTH_TASK);
	ck_assert_int_eq(a.peer_id, 0x80003);
	ck_assert_uint_eq(pvmi_auth_want(&i), 0);
	ck_assert_uint_eq(pvmi_auth_want(&a), 0);
	pvmi_auth_clear(&i);
	ck_assert_int_eq(i.peer_id, 2);
	ck_assert_int_eq(pvmi_auth_feed(&i, (const unsigned char *)"x"),
			 PVMI_AUTH_DONE);
}
END_TEST

/* A wrong secret on either side: whoever checks a proof first fails and
 * the other end never gets a proof of its own to check. */
START_TEST(handshake_wrong_key)
{
	struct pvmi_auth i, a;

	pvmi_auth_init(&i, key2, PVMI_AUTH_INITIATOR, PVMI_AUTH_DAEMON, 3);
	pvmi_auth_init(&a, key1, PVMI_AUTH_ACCEPTOR, PVMI_AUTH_DAEMON, 1);
	deliver(&i, &a);
	deliver(&a, &i);
	ck_assert_int_eq(deliver(&i, &a), PVMI_AUTH_FAIL);
	ck_assert_uint_eq(a.outlen, 0);
	ck_assert_uint_eq(pvmi_auth_want(&a), 0);

	/* the other way round: a server with the wrong key is found out by
	 * the initiator */
	pvmi_auth_init(&i, key1, PVMI_AUTH_INITIATOR, PVMI_AUTH_DAEMON, 3);
	pvmi_auth_init(&a, key2, PVMI_AUTH_ACCEPTOR, PVMI_AUTH_DAEMON, 1);
	deliver(&i, &a);
	deliver(&a, &i);
	ck_assert_int_eq(deliver(&i, &a), PVMI_AUTH_FAIL);
}
END_TEST

/* Flip each byte of each message in turn: every change is caught (the
 * reserved bytes and every field of HELLO are covered by the proofs, or
 * checked directly). */
START_TEST(handshake_tampering)
{
	struct pvmi_auth i, a;
	unsigned char msg[PVMI_AUTH_HELLO_LEN];
	size_t pos, k;
	int stage, st;

	for (stage = 0; stage < 4; stage++) {
		k = stage < 2 ? PVMI_AUTH_HELLO_LEN : PVMI_AUTH_PROOF_LEN;
		for (pos = 0; pos < k; pos++) {
			pvmi_auth_init(&i, key1, PVMI_AUTH_INITIATOR,
				       PVMI_AUTH_TASK, 7);
			pvmi_auth_init(&a, key1, PVMI_AUTH_ACCEPTOR,
				       PVMI_AUTH_TASK, 8);
			st = PVMI_AUTH_MORE;
			/* stages: 0 = I's HELLO, 1 = A's HELLO... */
			if (stage >= 1)
				deliver(&i, &a);
			if (stage >= 2)
				deliver(&a, &i);
			if (stage >= 3)
				deliver(&i, &a);
			if (stage % 2 == 0) {
				memcpy(msg, i.out, k);
				i.outlen = 0;
				msg[pos] ^= 0x01;
				st = pvmi_auth_feed(&a, msg);
				if (st != PVMI_AUTH_FAIL) {
					/* a changed nonce or id passes HELLO
					 * but breaks the proof later */
					deliver(&a, &i);
					st = deliver(&i, &a);
				}
			} else {
				memcpy(msg, a.out, k);
				a.outlen = 0;
				msg[pos] ^= 0x80;
				st = pvmi_auth_feed(&i, msg);
				if (st != PVMI_AUTH_FAIL)
					st = deliver(&i, &a) == PVMI_AUTH_DONE ?
					     pvmi_auth_feed(&i, a.out) :
					     PVMI_AUTH_FAIL;
			}
			ck_assert_msg(st == PVMI_AUTH_FAIL,
				      "stage %d byte %zu accepted", stage, pos);
		}
	}
}
END_TEST

/* Sending an end its own messages back (reflection), or an old proof
 * from a previous handshake (replay), fails. */
START_TEST(handshake_reflect_replay)
{
	struct pvmi_auth i, a, i2, a2;
	unsigned char hello[PVMI_AUTH_HELLO_LEN], proof[PVMI_AUTH_PROOF_LEN];

	/* an initiator's own HELLO has the wrong role for it */
	pvmi_auth_init(&i, key1, PVMI_AUTH_INITIATOR, PVMI_AUTH_TASK, 5);
	memcpy(hello, i.out, sizeof(hello));
	ck_assert_int_eq(pvmi_auth_feed(&i, hello), PVMI_AUTH_FAIL);

	/* an acceptor's HELLO with the role byte changed to its peer's
	 * role carries the acceptor's nonce: rejected as an echo */
	pvmi_auth_init(&i, key1, PVMI_AUTH_INITIATOR, PVMI_AUTH_TASK, 5);
	pvmi_auth_init(&a, key1, PVMI_AUTH_ACCEPTOR, PVMI_AUTH_TASK, 6);
	deliver(&i, &a);
	memcpy(hello, a.out, sizeof(hello));
	hello[6] = PVMI_AUTH_INITIATOR;
	pvmi_auth_init(&a2, key1, PVMI_AUTH_ACCEPTOR, PVMI_AUTH_TASK, 6);
	memcpy(a2.hello[PVMI_AUTH_ACCEPTOR], a.hello[PVMI_AUTH_ACCEPTOR],
	       PVMI_AUTH_HELLO_LEN);
	ck_assert_int_eq(pvmi_auth_feed(&a2, hello), PVMI_AUTH_FAIL);

	/* replay: record a good initiator's messages, start a fresh
	 * acceptor, play them again: the acceptor's new nonce breaks it */
	pvmi_auth_init(&i, key1, PVMI_AUTH_INITIATOR, PVMI_AUTH_TASK, 5);
	pvmi_auth_init(&a, key1, PVMI_AUTH_ACCEPTOR, PVMI_AUTH_TASK, 6);
	memcpy(hello, i.out, sizeof(hello));
	deliver(&i, &a);
	deliver(&a, &i);
	memcpy(proof, i.out, sizeof(proof));
	ck_assert_int_eq(deliver(&i, &a), PVMI_AUTH_DONE);
	pvmi_auth_init(&a2, key1, PVMI_AUTH_ACCEPTOR, PVMI_AUTH_TASK, 6);
	ck_assert_int_eq(pvmi_auth_feed(&a2, hello), PVMI_AUTH_MORE);
	ck_assert_int_eq(pvmi_auth_feed(&a2, proof), PVMI_AUTH_FAIL);

	/* an acceptor's proof is not an initiator's: a man in the middle
	 * cannot hand one end's proof to the other */
	pvmi_auth_init(&i2, key1, PVMI_AUTH_INITIATOR, PVMI_AUTH_TASK, 5);
	pvmi_auth_init(&a2, key1, PVMI_AUTH_ACCEPTOR, PVMI_AUTH_TASK, 6);
	deliver(&i2, &a2);
	deliver(&a2, &i2);
	memcpy(proof, i2.out, sizeof(proof));
	/* give the initiator its own proof as if it came from A */
	ck_assert_int_eq(pvmi_auth_feed(&i2, proof), PVMI_AUTH_FAIL);
}
END_TEST

START_TEST(handshake_garbage)
{
	struct pvmi_auth a;
	unsigned char junk[PVMI_AUTH_HELLO_LEN];
	int n;

	for (n = 0; n < 200; n++) {
		ck_assert_int_eq(pvmi_random(junk, sizeof(junk)), 0);
		if (n == 0)
			memcpy(junk, "GET / HTTP/1.0\r\n\r\n", 18);
		if (n == 1)
			memcpy(junk, "CPVH", 4);	/* magic, then junk */
		pvmi_auth_init(&a, key1, PVMI_AUTH_ACCEPTOR, PVMI_AUTH_DAEMON,
			       1);
		ck_assert_int_eq(pvmi_auth_feed(&a, junk), PVMI_AUTH_FAIL);
		ck_assert_uint_eq(a.outlen, 0);
		ck_assert_uint_eq(pvmi_auth_want(&a), 0);
		ck_assert_int_eq(pvmi_auth_feed(&a, junk), PVMI_AUTH_FAIL);
	}
}
END_TEST

START_TEST(secret_hex)
{
	char h[2 * PVMI_SECRET_LEN + 1], bad[2 * PVMI_SECRET_LEN + 2];
	unsigned char back[PVMI_SECRET_LEN];

	pvmi_secret_to_hex(key1, h);
	ck_assert_uint_eq(strlen(h), 64);
	ck_assert_int_eq(pvmi_secret_from_hex(h, back), 0);
	ck_assert(memcmp(back, key1, sizeof(back)) == 0);
	strcpy(bad, h);
	bad[10] = 'g';
	ck_assert_int_eq(pvmi_secret_from_hex(bad, back), -1);
	strcpy(bad, h);
	strcat(bad, "0");
	ck_assert_int_eq(pvmi_secret_from_hex(bad, back), -1);
	bad[63] = '\0';
	ck_assert_int_eq(pvmi_secret_from_hex(bad, back), -1);
}
END_TEST

static Suite *auth_suite(void)
{
	Suite *s = suite_create("auth");
	TCase *tc = tcase_create("sha256");

	tcase_add_test(tc, sha256_vectors);
	tcase_add_test(tc, sha256_million_a);
	tcase_add_test(tc, sha256_splits);
	tcase_add_test(tc, hmac_rfc4231);
	tcase_add_test(tc, hmac_parts);
	suite_add_tcase(s, tc);
	tc = tcase_create("handshake");
	tcase_add_checked_fixture(tc, setup_keys, NULL);
	tcase_add_test(tc, handshake_ok);
	tcase_add_test(tc, handshake_wrong_key);
	tcase_add_test(tc, handshake_tampering);
	tcase_add_test(tc, handshake_reflect_replay);
	tcase_add_test(tc, handshake_garbage);
	tcase_add_test(tc, secret_hex);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(auth_suite());
	int nf;

	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
