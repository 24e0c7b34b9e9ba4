// In-memory sockets that answer pg and mysql2 as a PostgreSQL or MySQL server would, for one statement
// (`SELECT 1 AS x`): the drivers' whole client code runs (connection handshake, protocol parser, pool, callbacks),
// and nothing leaves the process. What a query costs in-process is then what the driver and any guard or
// instrumentation around it do, without the kernel's loopback and the database's scheduling, which move by more
// than the guard itself costs. Replies come on a later turn of the event loop (setImmediate), as a
// socket's data does, so a pool hands connections over from one request's callback to the next, as it does on a
// real server. A reply arrives in the context the socket was opened in, as a TCP socket's data does (its handle
// keeps the context of its creation), not in the context of the write that caused it: a guard that restores
// its caller then pays for the switch here as it does on a real socket. Benchmarks only: the servers understand
// nothing but what these drivers send for that statement.
import { AsyncResource } from 'node:async_hooks';
import { Duplex } from 'node:stream';

/** A duplex that answers what the driver writes through `reply(chunk)`, one event-loop turn later. */
class InMemorySocket extends Duplex {
  #pending = Buffer.alloc(0);
  #answer;
  /** The context the socket was opened in: where its replies arrive. */
  #opened = new AsyncResource('InMemorySocket');

  constructor(answer) {
    super();
    this.#answer = answer;
  }

  _write(chunk, _encoding, done) {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const { replies, rest } = this.#answer(this.#pending);
    this.#pending = rest;
    if (replies.length === 0) return done();
    const reply = replies.length === 1 ? replies[0] : Buffer.concat(replies);
    setImmediate(() => this.#opened.runInAsyncScope(() => this.push(reply)));
    done();
  }

  _read() {}

  _final(done) {
    this.push(null);
    done();
  }

  // What pg and mysql2 call on a net.Socket.
  connect() {
    process.nextTick(() => this.emit('connect'));
    return this;
  }
  setNoDelay() {
    return this;
  }
  setKeepAlive() {
    return this;
  }
  ref() {
    return this;
  }
  unref() {
    return this;
  }
}

// PostgreSQL's protocol 3: a backend message is a type byte, an int32 length (itself included), the body.
function pgMessage(type, body) {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}
const int16 = (value) => Buffer.from([(value >> 8) & 0xff, value & 0xff]);
const int32 = (value) => {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
};
const pgReady = pgMessage('Z', Buffer.from('I'));
const pgStartupReply = Buffer.concat([pgMessage('R', int32(0)), pgReady]);
const pgSelectOneReply = Buffer.concat([
  // RowDescription: one int4 column `x` in text format.
  pgMessage(
    'T',
    Buffer.concat([int16(1), Buffer.from('x\0'), int32(0), int16(0), int32(23), int16(4), int32(-1), int16(0)]),
  ),
  pgMessage('D', Buffer.concat([int16(1), int32(1), Buffer.from('1')])),
  pgMessage('C', Buffer.from('SELECT 1\0')),
  pgReady,
]);

/** `stream` for pg's Client or Pool config: a fresh in-memory PostgreSQL connection per client. */
export function pgStream() {
  let started = false;
  return new InMemorySocket((pending) => {
    const replies = [];
    let offset = 0;
    while (pending.length - offset >= 5) {
      // The startup message has no type byte: its int32 length comes first.
      const length = started ? pending.readInt32BE(offset + 1) + 1 : pending.readInt32BE(offset);
      if (pending.length - offset < length) break;
      const type = started ? String.fromCharCode(pending[offset]) : 'startup';
      offset += length;
      if (type === 'startup') {
        started = true;
        replies.push(pgStartupReply);
      } else if (type === 'Q') replies.push(pgSelectOneReply);
      else if (type !== 'X') throw new Error(`in-memory PostgreSQL: no answer for message ${type}`);
    }
    return { replies, rest: pending.subarray(offset) };
  });
}

// MySQL's protocol: a packet is a 3-byte little-endian length, a sequence id, the payload.
function mysqlPacket(sequence, payload) {
  const header = Buffer.from([payload.length & 0xff, (payload.length >> 8) & 0xff, payload.length >> 16, sequence]);
  return Buffer.concat([header, payload]);
}
const lengthEncoded = (text) => Buffer.concat([Buffer.from([Buffer.byteLength(text)]), Buffer.from(text)]);
const uint16 = (value) => Buffer.from([value & 0xff, value >> 8]);
const uint32 = (value) => {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value);
  return buffer;
};
// CLIENT_LONG_PASSWORD | FOUND_ROWS | LONG_FLAG | CONNECT_WITH_DB | PROTOCOL_41 | TRANSACTIONS |
// SECURE_CONNECTION | MULTI_RESULTS | PLUGIN_AUTH: no DEPRECATE_EOF, so result sets end in EOF packets.
const mysqlCapabilities = 0x1 | 0x2 | 0x4 | 0x8 | 0x200 | 0x2000 | 0x8000 | 0x20000 | 0x80000;
const mysqlGreeting = mysqlPacket(
  0,
  Buffer.concat([
    Buffer.from([10]),
    Buffer.from('8.0.0-in-memory\0'),
    uint32(1),
    Buffer.from('abcdefgh'),
    Buffer.from([0]),
    uint16(mysqlCapabilities & 0xffff),
    Buffer.from([45]),
    uint16(0x0002),
    uint16(mysqlCapabilities >>> 16),
    Buffer.from([21]),
    Buffer.alloc(10),
    Buffer.from('ijklmnopqrst\0'),
    Buffer.from('mysql_native_password\0'),
  ]),
);
const mysqlOk = (sequence) => mysqlPacket(sequence, Buffer.from([0, 0, 0, 0x02, 0, 0, 0]));
const mysqlEof = (sequence) => mysqlPacket(sequence, Buffer.from([0xfe, 0, 0, 0x02, 0]));
const mysqlSelectOneReply = Buffer.concat([
  mysqlPacket(1, Buffer.from([1])),
  // Column definition 41: catalog, schema, table, org_table, name, org_name, then the fixed-length fields:
  // charset binary (63), length 1, type LONGLONG (8), flags NOT_NULL | BINARY, no decimals.
  mysqlPacket(
    2,
    Buffer.concat([
      ...['def', '', '', '', 'x', ''].map(lengthEncoded),
      Buffer.from([0x0c]),
      uint16(63),
      uint32(1),
      Buffer.from([8]),
      uint16(0x81),
      Buffer.from([0, 0, 0]),
    ]),
  ),
  mysqlEof(3),
  mysqlPacket(4, lengthEncoded('1')),
  mysqlEof(5),
]);

/** `stream` for mysql2's createConnection or createPool config: a fresh in-memory MySQL connection each time. */
export function mysqlStream() {
  let authenticated = false;
  const socket = new InMemorySocket((pending) => {
    const replies = [];
    let offset = 0;
    while (pending.length - offset >= 4) {
      const length = pending[offset] | (pending[offset + 1] << 8) | (pending[offset + 2] << 16);
      if (pending.length - offset < 4 + length) break;
      const command = pending[offset + 4];
      offset += 4 + length;
      if (!authenticated) {
        authenticated = true;
        replies.push(mysqlOk(2));
      } else if (command === 0x03) replies.push(mysqlSelectOneReply);
      else if (command === 0x0e) replies.push(mysqlOk(1));
      else if (command !== 0x01) throw new Error(`in-memory MySQL: no answer for command ${command}`);
    }
    return { replies, rest: pending.subarray(offset) };
  });
  // A server speaks first.
  setImmediate(() => socket.push(mysqlGreeting));
  return socket;
}
