// The client on host c: COUNT orders posted to the gateway on host a, CONCURRENCY at a time, numbered from FIRST
// (so that no two rounds share an order), each naming its chain in x-correlation-id (`<ROUND>-<n>`). Prints
// `{"started":true}`, then `{"done":k}` every 50 answers, so the test can strike while traffic flows, and at the
// end writes every answer to RESULTS.
import { writeFileSync } from 'node:fs';
import http from 'node:http';

const { GATEWAY, ROUND, FIRST, COUNT, CONCURRENCY, SLOW, RESULTS } = process.env;
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(CONCURRENCY) });

function post(n) {
  return new Promise((resolve) => {
    const request = http.request(
      `${GATEWAY}/orders/${n}${SLOW === '1' ? '?slow=1' : ''}`,
      { method: 'POST', agent, headers: { 'x-correlation-id': `${ROUND}-${n}` }, timeout: 60_000 },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () =>
          resolve({
            n,
            round: ROUND,
            status: response.statusCode,
            ...(response.statusCode === 200 ? JSON.parse(body) : {}),
          }),
        );
      },
    );
    request.on('timeout', () => request.destroy(new Error('no answer in 60 s')));
    request.on('error', (error) => resolve({ n, round: ROUND, failure: error.message }));
    request.end();
  });
}

const results = [];
let next = Number(FIRST);
const end = Number(FIRST) + Number(COUNT);
console.log(JSON.stringify({ started: true }));
async function lane() {
  while (next < end) {
    results.push(await post(next++));
    if (results.length % 50 === 0) console.log(JSON.stringify({ done: results.length }));
  }
}
await Promise.all(Array.from({ length: Number(CONCURRENCY) }, lane));
writeFileSync(RESULTS, JSON.stringify(results));
console.log(JSON.stringify({ finished: results.length }));
agent.destroy();
