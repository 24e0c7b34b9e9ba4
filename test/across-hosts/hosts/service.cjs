// Host c's HTTP service, which the consumer and the workers on host b call: express with Ambient, its requests
// continuing the caller's chain and trace from the headers the caller's outgoing propagation set.
const { log, exitOnTerm } = require('./telemetry.cjs');
const http = require('node:http');
const express = require('express');
const { expressContext } = require('@ambient/express-context');

const { ADDRESS, PORT } = process.env;
const app = express();
app.use(expressContext());
app.get('/stock/:order', (req, res) => {
  log('stock checked', { order: Number(req.params.order) });
  res.json({ inStock: true });
});
const server = http.createServer(app).listen(Number(PORT), ADDRESS, () => console.log(`serving at ${ADDRESS}:${PORT}`));
exitOnTerm(() => new Promise((resolve) => server.close(resolve)));
