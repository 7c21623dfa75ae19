// Evaluates IAM requests with @cloud-copilot/iam-simulate, a real policy
// evaluator (identity and resource policies, conditions, same- and
// cross-account rules). Test tool of trainq's permission suite; not shipped.
//
// Usage: node simulate.mjs MODULE_DIR < requests.json > results.json
// requests.json: [{"id": "...", "simulation": <iam-simulate Simulation>}, ...]
// results.json:  [{"id": "...", "overallResult": "Allowed" | "ImplicitlyDenied" |
//                  "ExplicitlyDenied", "error": "..."}, ...]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const moduleDir = process.argv[2];
const entry = join(moduleDir, 'node_modules', '@cloud-copilot', 'iam-simulate', 'dist', 'esm', 'index.js');
const { runSimulation } = await import(pathToFileURL(entry).href);

const requests = JSON.parse(readFileSync(0, 'utf8'));
const results = [];
for (const { id, simulation } of requests) {
  try {
    const r = await runSimulation(simulation, {});
    if (r.resultType === 'error') {
      results.push({ id, error: JSON.stringify(r.errors) });
    } else if (r.resultType === 'single' || r.resultType === 'wildcard') {
      // 'wildcard': a request on "*" (an action without resource types).
      results.push({ id, overallResult: r.overallResult });
    } else {
      results.push({ id, error: 'unexpected result type ' + r.resultType + ': ' + JSON.stringify(r).slice(0, 2000) });
    }
  } catch (e) {
    results.push({ id, error: String(e && e.stack || e) });
  }
}
process.stdout.write(JSON.stringify(results));
