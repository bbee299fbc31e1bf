/**
 * The emphasis cost model (src/webview/emphasisCost.ts) mirrors how marked's emphasis pass spends
 * its time, so the Markdown budget can refuse what marked would take minutes over: it holds only
 * for the marked it was calibrated on. marked is pinned to that exact version (and the model names
 * it), and the model's predictions are compared with what marked does: each kind of paragraph the
 * model calls quadratic must still cost marked quadratic time (sizes n and 16n compared with each
 * other, never with a time limit: quadratic work grows about 256 times, linear 16, and marked's
 * linear cases grow up to about 45 times with its garbage). An update of marked changes the version,
 * and one that changes its emphasis algorithm fails the comparison.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { marked } from 'marked';
import { EmphasisCost } from '../../../src/webview/emphasisCost';
import { describeGrowth, growthFrom } from '../../support/growth';

const ROOT = path.join(__dirname, '..', '..', '..');

/** The model's units for one paragraph, its delimiter runs fed as the budget scan feeds them. */
function predicted(paragraph: string): number {
  const cost = new EmphasisCost();
  for (let at = 0; at < paragraph.length;) {
    const char = paragraph.charCodeAt(at);
    if (char !== 42 && char !== 95 && char !== 126) {
      at++;
      continue;
    }
    let end = at + 1;
    while (paragraph.charCodeAt(end) === char) end++;
    cost.run(char, end - at, paragraph.charCodeAt(at - 1), paragraph.charCodeAt(end));
    at = end;
  }
  return cost.total;
}

interface Family {
  name: string;
  /** The paragraph of size `n` (in repetitions of its unit). */
  make: (n: number) => string;
  /** A size at which 16 times it takes marked long enough to time, and not too long. */
  n: number;
}

/** What the model calls quadratic: marked scans ahead from runs left unpaired. */
const QUADRATIC: Family[] = [
  { name: 'unpaired `_a_a…`', make: (n) => '_a'.repeat(n), n: 400 },
  { name: 'openers waiting `_a_a _a_a…`', make: (n) => '_a_a '.repeat(n), n: 100 },
  { name: 'openers waiting `*_a *_a…`', make: (n) => '*_a '.repeat(n), n: 100 },
  { name: 'intraword `a__a__…`', make: (n) => 'a__'.repeat(n), n: 150 },
];

/** How many times n the larger size is. */
const TIMES = 16;
/** Between linear growth (16 to about 45 times from n to 16n) and quadratic (256 times). */
const SUPERLINEAR = 64;

describe('the emphasis cost model against marked', function () {
  this.timeout(120_000);

  it('is calibrated on the marked pinned in package.json, the one installed', function () {
    const declared = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies.marked;
    const installed = (JSON.parse(readFileSync(path.join(ROOT, 'node_modules', 'marked', 'package.json'), 'utf8')) as { version: string }).version;
    assert.match(declared ?? '', /^\d+\.\d+\.\d+$/, 'package.json names an exact version of marked, not a range');
    assert.equal(installed, declared);
    const calibrated = /Calibrated on marked (\d+\.\d+\.\d+)/.exec(readFileSync(path.join(ROOT, 'src', 'webview', 'emphasisCost.ts'), 'utf8'))?.[1];
    assert.equal(calibrated, declared, 'emphasisCost.ts names the version it was calibrated on: calibrate again after updating marked');
  });

  for (const family of QUADRATIC) {
    it(`finds marked's time quadratic where the model does: ${family.name}`, async function () {
      assert.ok(predicted(family.make(TIMES * family.n)) >= 0.75 * TIMES ** 2 * predicted(family.make(family.n)), 'the model calls it quadratic');
      const growth = await growthFrom(family.n, (n) => marked.parse(family.make(n)), 3, TIMES);
      assert.ok(growth.factor > SUPERLINEAR, `marked no longer spends quadratic time here: ${describeGrowth(growth, family.n)}`);
    });
  }
});
