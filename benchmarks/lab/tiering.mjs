// Checks the suite's shortcut to steady code (harness.mjs's countedV8: V8 tiers up after a tenth of its usual
// calls, so a server is warm after 5,000 requests): the same servers counted with V8's own thresholds after
// 25,000 requests, as deployed V8 reaches steady code, beside the suite's count.
//   node benchmarks/lab/tiering.mjs [framework ...]
import { serverInstructions } from '../apps.mjs';
import { fixed, printTable, twoAtATime } from '../harness.mjs';

const frameworks = process.argv.length > 2 ? process.argv.slice(2) : ['express', 'koa', 'fastify'];
const jobs = frameworks.flatMap((framework) =>
  ['hand-written', 'ambient'].flatMap((variant) => [
    [framework, variant, 'suite'],
    [framework, variant, 'default'],
  ]),
);
const counts = await twoAtATime(jobs, ([framework, variant, how]) =>
  serverInstructions(framework, variant, how === 'suite' ? {} : { connections: 25, nodeFlags: ['--predictable'] }),
);
const of = (framework, variant, how) =>
  counts[jobs.findIndex((job) => job.join() === [framework, variant, how].join())];
printTable(`Node ${process.version}: instructions a request, compiling left out`, [
  ['', 'suite (5,000 requests, low thresholds)', "V8's thresholds, 25,000 requests", 'difference'],
  ...jobs
    .filter(([, , how]) => how === 'suite')
    .map(([framework, variant]) => {
      const [suite, deployed] = [of(framework, variant, 'suite'), of(framework, variant, 'default')];
      const difference = `${((suite.perUnit / deployed.perUnit - 1) * 100).toFixed(2)}%`;
      return [`${framework} ${variant}`, fixed(suite.perUnit), fixed(deployed.perUnit), difference];
    }),
]);
for (const framework of frameworks) {
  const ratio = (how) => of(framework, 'ambient', how).perUnit / of(framework, 'hand-written', how).perUnit;
  console.log(
    `  ${framework}: Ambient over hand-written ${ratio('suite').toFixed(3)}x (suite), ${ratio('default').toFixed(3)}x (V8's thresholds)`,
  );
}
