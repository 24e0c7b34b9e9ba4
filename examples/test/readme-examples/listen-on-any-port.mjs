// Preloaded (`node --import`) into every README example the test runs: a server that asks for port 3000 gets a
// free port on 127.0.0.1 instead, so examples run side by side with anything else on the machine, and the test
// learns which port through file descriptor 3 (one JSON line per listening server).
import { writeSync } from 'node:fs';
import net from 'node:net';

const listen = net.Server.prototype.listen;

net.Server.prototype.listen = function listenOnAnyPort(...args) {
  const callback = typeof args.at(-1) === 'function' ? args.at(-1) : undefined;
  this.once('listening', () => {
    try {
      writeSync(3, `${JSON.stringify({ port: this.address().port })}\n`);
    } catch {
      // Run by hand, without the test's pipe on fd 3: nobody to tell.
    }
  });
  return callback === undefined ? listen.call(this, 0, '127.0.0.1') : listen.call(this, 0, '127.0.0.1', callback);
};
