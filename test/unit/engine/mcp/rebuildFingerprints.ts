/**
 * Rebuilds referenceFingerprints.json from the reference file, which lives outside this repository
 * (tests read only what a clone holds): `npx tsx test/unit/engine/mcp/rebuildFingerprints.ts
 * <mcp-tools-v1.json>`; with `--check`, says whether the kept fingerprints are the reference's.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { referenceFingerprints, type ReferenceTool } from './referenceFingerprints';

const args = process.argv.slice(2);
const reference = args.find((arg) => arg !== '--check');
if (!reference) {
  console.error('usage: rebuildFingerprints.ts [--check] <mcp-tools-v1.json>');
  process.exit(2);
}
const kept = path.join(__dirname, 'referenceFingerprints.json');
const rebuilt = `${JSON.stringify(referenceFingerprints(JSON.parse(readFileSync(reference, 'utf8')) as { tools: ReferenceTool[] }), null, 1)}\n`;
if (!args.includes('--check')) writeFileSync(kept, rebuilt);
else if (readFileSync(kept, 'utf8') !== rebuilt) {
  console.error('referenceFingerprints.json is not the reference’s: rebuild it without --check');
  process.exit(1);
} else console.log('referenceFingerprints.json is the reference’s');
