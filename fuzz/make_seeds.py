#!/usr/bin/env python3
# make_seeds.py - writes the seed corpora fuzz/corpus/<target>/ (a few
# valid inputs per target, in the layout each fuzz_*.c documents).  Run
# from anywhere; rewrites the seed files it names, leaves others (such
# as committed regression inputs) alone.
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

def put(target, name, data):
    d = os.path.join(HERE, 'corpus', target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)

def pad4(b):
    return b + b'\0' * (-len(b) % 4)

# XDR items (common/wire.h): type, count, elements.
def x_ints(*v):
    return struct.pack('>II', 3, len(v)) + b''.join(struct.pack('>i', x) for x in v)

def x_str(s):
    b = s.encode() + b'\0'
    return struct.pack('>II', 0, len(b)) + pad4(b)

def x_bytes(b):
    return struct.pack('>II', 1, len(b)) + pad4(b)

def x_double(*v):
    return struct.pack('>II', 6, len(v)) + b''.join(struct.pack('>d', x) for x in v)

def x_long(*v):
    return struct.pack('>II', 8, len(v)) + b''.join(struct.pack('>q', x) for x in v)

def x_short(*v):
    return struct.pack('>II', 2, len(v)) + b''.join(struct.pack('>i', x) for x in v)

def x_mesg(enc, tag, ctx, src, body, datalen=None):
    # enc, tag, ctx, src, body length, dst, wid, crc, stock's data length
    if datalen is None:
        datalen = len(body)
    return (struct.pack('>II', 12, 1) +
            struct.pack('>iiiiiiiii', enc, tag, ctx, src, len(body), src, 0,
                        0, datalen) + pad4(body))

# fuzz_codec: [script length] script body; script op = byte & 3
put('fuzz_codec', 'int_str_bytes',
    bytes([3, 0, 2, 3]) + x_ints(42) + x_str('hello') + x_bytes(b'\x01\x02\x03'))
put('fuzz_codec', 'ints3', bytes([1, 1 | (2 << 2)]) + x_ints(1, -2, 3))
put('fuzz_codec', 'spawn_request',
    bytes([5, 2, 0, 0, 1 | (1 << 2), 0]) + x_str('a.out') + x_ints(0) + x_ints(1)
    + x_ints(7, 8) + x_ints(-1))

# fuzz_frame: [read pattern] frames; header: magic len src dst tag ctx enc wid kind
def frame(body, src=0x40001, dst=0x40002, tag=1, ctx=0, enc=0, wid=0, kind=0):
    return struct.pack('>IIiiiiiiI', 0x43505632, len(body), src, dst, tag, ctx,
                       enc, wid, kind) + body

put('fuzz_frame', 'one_user', bytes([0]) + frame(x_ints(1, 2, 3), wid=7))
put('fuzz_frame', 'two_request_reply', bytes([0x45]) + frame(x_str('x'), kind=1)
    + frame(b'', kind=2, tag=3))
put('fuzz_frame', 'gated', bytes([0x24]) + b'AUTH' + frame(b'abc' * 40, kind=3))
put('fuzz_frame', 'split_reads', bytes([0x83]) + frame(bytes(range(256)) * 3))

# fuzz_unpack: [enc] [script length] script body; op = byte & 15,
# count = (byte >> 4) % 8, stride = 1 + (byte >> 6)
def op(o, cnt):
    return o | (cnt << 4)

put('fuzz_unpack', 'xdr_mix', bytes([0, 4, op(3, 2), op(0, 0), op(1, 3), op(5, 1)])
    + x_ints(5, 6) + x_str('word') + x_bytes(b'abc') + x_double(2.5))
put('fuzz_unpack', 'xdr_mesg', bytes([0, 1, op(12, 1)])
    + x_mesg(0, 7, 0, 0x40001, x_ints(99), datalen=4))
put('fuzz_unpack', 'xdr_long_short', bytes([0, 2, op(6, 2), op(2, 1)])
    + x_long(1, -1) + x_short(7))
put('fuzz_unpack', 'raw_int', bytes([1, 1, op(3, 2)])
    + struct.pack('<II', 3, 2) + struct.pack('<ii', 10, 20))

# fuzz_unpackf: [enc] [format length] format body
def pf(fmt, body, enc=0):
    return bytes([enc, len(fmt)]) + fmt.encode() + body

put('fuzz_unpackf', 'd_s', pf('%d %s', x_ints(3) + x_str('abc')))
put('fuzz_unpackf', 'counts', pf('%3d%2.2lf', x_ints(1, 2, 3) + x_double(1.0, 2.0)))
put('fuzz_unpackf', 'bytes_short', pf('%4c %hd', x_bytes(b'wxyz') + x_short(5)))

# fuzz_console: console lines
put('fuzz_console', 'alias_use', b'alias ll ps -a\nll\nunalias ll\nconf\n')
put('fuzz_console', 'quotes', b'spawn -> "a b" \'c d\' e\\ f\n# comment\nkill t40001\n')
put('fuzz_console', 'alias_loop', b'alias a b\nalias b a\na\nalias c c x\nc\n')

# fuzz_hostfile: hostfile text
put('fuzz_hostfile', 'basic', b'# hosts\n* ep=/usr/bin wd=/tmp\nlocalhost sp=2000\n'
    b'node1 lo=alice dx=/usr/sbin/pvmd ip=10.0.0.2\n&node2 so=ms\nnode2\n')
put('fuzz_hostfile', 'bad', b'bad;name\nnode3 lo=a;b\nnode4 so=pw\n=node5 sp=0\n')

# fuzz_shm_ring: [flags] head producer_closed cons_armed prod_armed ring
# ring version 2: a 16-byte header, the part field {total, offset} unless
# the record is a whole message (flags 3), records padded to 64 bytes
def rec(seq, payload, tag=5, flags=3, total=None, offset=0):
    total = len(payload) if total is None else total
    b = struct.pack('<IIII', seq, len(payload), tag, flags)
    if flags != 3:
        b += struct.pack('<QQ', total, offset)
    b += payload
    return b + b'\0' * (-len(b) % 64)

def ring(recs, closed=0, flags=0):
    body = b''.join(recs)
    return bytes([flags]) + struct.pack('<IIII', len(body), closed, 0, 0) + body

put('fuzz_shm_ring', 'one_message', ring([rec(1, b'hello')]))
put('fuzz_shm_ring', 'two_chunks', ring([rec(1, b'a' * 40, flags=1, total=50),
                                         rec(2, b'b' * 10, flags=2, total=50,
                                             offset=40)]))
put('fuzz_shm_ring', 'closed_after', ring([rec(1, b'x'), rec(2, b'yz')], closed=1))
put('fuzz_shm_ring', 'single_copy', ring([rec(1, struct.pack('<QQ', 4096, 8),
                                              flags=7, total=8)], flags=1))

# fuzz_dispatch: frames of [op (bit 5: USER)] [body length / 4] body
OP = dict(REGISTER=1, EXIT=2, TASKS=6, CONFIG=7, MSTAT=8, PSTAT=9, NOTIFY=10,
          MBOX_PUT=11, MBOX_GET=12, MBOX_DEL=13, MBOX_LIST=14, NEWCTX=15,
          FREECTX=16, HOSTSYNC=18, TIDTOHOST=21, ROUTE=22, COSCHED=23)

def req(op, body):
    assert len(body) % 4 == 0 and len(body) // 4 < 256
    return bytes([op, len(body) // 4]) + body

reg = req(OP['REGISTER'], x_ints(1234) + x_ints(0) + x_str('a.out'))
put('fuzz_dispatch', 'register_tasks_config', reg + req(OP['TASKS'], x_ints(0))
    + req(OP['CONFIG'], b'') + req(OP['MSTAT'], x_str('fuzzhost')))
put('fuzz_dispatch', 'register_mbox', reg
    + req(OP['MBOX_PUT'], x_str('name') + x_ints(0) + x_ints(0) + x_bytes(b'data'))
    + req(OP['MBOX_LIST'], x_str('*')) + req(OP['MBOX_GET'], x_str('name') + x_ints(0) + x_ints(0))
    + req(OP['MBOX_DEL'], x_str('name') + x_ints(0)))
put('fuzz_dispatch', 'register_ctx_notify', reg + req(OP['NEWCTX'], b'')
    + req(OP['FREECTX'], x_ints(1)) + req(OP['NOTIFY'], x_ints(1, 5, 1) + x_ints(0x40001))
    + req(OP['TIDTOHOST'], x_ints(0x40001)) + req(OP['PSTAT'], x_ints(0x40001))
    + req(OP['EXIT'], b''))
put('fuzz_dispatch', 'register_cosched', reg + req(OP['COSCHED'], x_ints(0))
    + req(OP['COSCHED'], x_ints(0x40000)) + req(OP['COSCHED'], x_ints(0x80000))
    + req(OP['COSCHED'], b''))
put('fuzz_dispatch', 'user_message', reg + bytes([32 | 7, 3]) + x_ints(1))
put('fuzz_dispatch', 'unregistered', req(OP['TASKS'], x_ints(0)) + req(30, b''))

# fuzz_kmod_args: [flags: bit 0 slices] [base nice byte] limits register
# report boost watch users, little-endian as the uapi structs (kmod/uapi).
def k_limits(floor=-5, rt=0, box=20_000_000, share_max=500_000,
             win=100_000_000, sample=2_000_000, user=100_000, node=100_000):
    return struct.pack('<iIQIIQQIIQ', floor, rt, box, share_max, 0, win,
                       sample, user, node, 0)

def k_register(abi=2, tid=0x40001, share=0):
    return struct.pack('<IIiiIiQIIQ', abi, 0, tid, 0, 0, 0, 0, share, 0, 0)

# REPORT's two unused words (once its correspondents) are ignored.
def k_report(freq=5000, unused=(0, 0), level=2, nice=-5, box=20_000_000):
    return struct.pack('<QQIiiIQQQ', freq, unused[0], unused[1], level, nice,
                       0, box, 0, 0)

def k_boost(pid=1234, level=3, nice=0, box=10_000_000):
    return struct.pack('<iiiIQQQ', pid, level, nice, 0, box, 0, 0)

def k_watch(fd=3, op=1, level=1, nice=0, box=5_000_000):
    return struct.pack('<iIiiQQ', fd, op, level, nice, box, 0)

def k_users(n=2):
    return struct.pack('<I', n)

put('fuzz_kmod_args', 'defaults_nice', bytes([0, 20]) + k_limits() + k_register()
    + k_report() + k_boost() + k_watch() + k_users(1))
put('fuzz_kmod_args', 'rt_allowed_slice', bytes([1, 30])
    + k_limits(floor=-10, rt=1, node=400_000, user=1_000_000)
    + k_register(share=1_000_000) + k_report(level=1, box=5_000_000)
    + k_boost(level=3, box=1 << 40) + k_watch(level=3, box=20_000_000)
    + k_users(3))
put('fuzz_kmod_args', 'bad_fields', bytes([0, 0]) + k_limits(share_max=0, node=2_000_000)
    + k_register(abi=1) + k_report(unused=(0xdead, 9), level=4)
    + k_boost(pid=-1, level=2, nice=-21, box=0) + k_watch(op=3) + k_users(0))
