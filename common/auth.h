/*
 * auth.h - the handshake that opens every TCP connection of a copvm
 * virtual machine (daemon to daemon, task to task): both ends prove that
 * they hold the machine's secret, without revealing it, before a single
 * frame is accepted.
 *
 * The machine's secret is 32 random bytes made by the master pvmd.  A
 * slave pvmd gets it on its standard input when the master starts it
 * (never on a command line); a task gets it from its own pvmd at
 * REGISTER, over the owner-only unix socket.
 *
 * Messages, in this order (the connecting side is the initiator I, the
 * accepting side the acceptor A):
 *   I -> A  HELLO  "CPVH", version, role, kind, id, 32-byte nonce
 *   A -> I  HELLO  the same, with A's role, kind, id and a fresh nonce
 *   I -> A  PROOF  "CPVP", HMAC(secret, "copvm-auth-1 I" | HELLO_I | HELLO_A)
 *   A -> I  PROOF  "CPVP", HMAC(secret, "copvm-auth-1 A" | HELLO_I | HELLO_A)
 * HELLO is PVMI_AUTH_HELLO_LEN bytes, PROOF PVMI_AUTH_PROOF_LEN bytes;
 * integers are big-endian.  Frames (wire.h) follow the last PROOF.  The
 * acceptor sends nothing before a well-formed HELLO, and its PROOF only
 * once the initiator's checked out, so a stranger learns only a nonce.
 * Fresh nonces on both sides make a recorded proof useless, and the role
 * inside both the HELLO and the MAC input stops a proof from being
 * reflected back to its sender.
 *
 * `kind' says what an end is (PVMI_AUTH_DAEMON: id = its host index;
 * PVMI_AUTH_TASK: id = its tid); it is covered by the proofs, so once the
 * handshake is done each side knows who is at the other end.
 *
 * The state machine does no I/O: the caller reads exactly
 * pvmi_auth_want() bytes, passes them to pvmi_auth_feed(), and sends the
 * bytes the state holds in out[0..outlen) (then sets outlen to 0).
 */
#ifndef COPVM_AUTH_H
#define COPVM_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define PVMI_SECRET_LEN		32
#define PVMI_AUTH_NONCE_LEN	32
#define PVMI_AUTH_HELLO_LEN	48
#define PVMI_AUTH_PROOF_LEN	36
#define PVMI_AUTH_VERSION	1

enum pvmi_auth_role { PVMI_AUTH_INITIATOR = 0, PVMI_AUTH_ACCEPTOR = 1 };
enum pvmi_auth_kind { PVMI_AUTH_DAEMON = 0, PVMI_AUTH_TASK = 1 };

/* What pvmi_auth_feed() returns. */
enum pvmi_auth_status {
	PVMI_AUTH_FAIL = -1,	/* drop the connection */
	PVMI_AUTH_MORE = 0,	/* send out[], read want() more bytes */
	PVMI_AUTH_DONE = 1,	/* send out[] (if any); frames follow */
};

struct pvmi_auth {
	unsigned char key[PVMI_SECRET_LEN];
	int role;
	int state;				/* private */
	unsigned char hello[2][PVMI_AUTH_HELLO_LEN]; /* [role] */
	unsigned char out[PVMI_AUTH_HELLO_LEN + PVMI_AUTH_PROOF_LEN];
	size_t outlen;				/* bytes to send now */
	int peer_kind;				/* valid once DONE */
	int32_t peer_id;
};

/* Prepares a handshake for one end; an initiator finds its HELLO in out[]
 * at once.  Returns 0, or -1 when no random nonce could be had. */
int pvmi_auth_init(struct pvmi_auth *a, const unsigned char *key, int role,
		   int kind, int32_t id);
/* How many bytes the next message has (0 once DONE or failed). */
size_t pvmi_auth_want(const struct pvmi_auth *a);
/* Takes the next message (pvmi_auth_want() bytes at `msg'); returns a
 * pvmi_auth_status.  After a failure the state stays failed. */
int pvmi_auth_feed(struct pvmi_auth *a, const unsigned char *msg);
/* Wipes the key and the transcript. */
void pvmi_auth_clear(struct pvmi_auth *a);

/* Fills `n' bytes with kernel randomness; 0 or -1. */
int pvmi_random(void *p, size_t n);
/* Writes the secret as 64 lowercase hex digits and a NUL (65 bytes). */
void pvmi_secret_to_hex(const unsigned char *key, char *hex);
/* Parses 64 hex digits into a secret; 0, or -1 when malformed. */
int pvmi_secret_from_hex(const char *hex, unsigned char *key);

#endif /* COPVM_AUTH_H */
