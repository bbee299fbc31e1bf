import assert from 'node:assert/strict';
import { emptyStats } from '../../src/model/conversation';
import { elapsedSince, formatCount, formatCredits, formatDuration, statsParts } from '../../src/format';

describe('shared format', () => {
  it('formats durations compactly', () => {
    assert.equal(formatDuration(0), '0s');
    assert.equal(formatDuration(999), '0s');
    assert.equal(formatDuration(42_500), '42s');
    assert.equal(formatDuration(65_000), '1m 05s');
    assert.equal(formatDuration(3_599_000), '59m 59s');
    assert.equal(formatDuration(3_720_000), '1h 02m');
    assert.equal(formatDuration(-5), '0s');
    assert.equal(formatDuration(Number.NaN), '0s');
  });

  it('measures elapsed time against the host clock and never goes negative', () => {
    const createdAt = '2025-06-01T12:00:00.000Z';
    assert.equal(elapsedSince(createdAt, Date.parse(createdAt) + 65_000), 65_000);
    assert.equal(elapsedSince(createdAt, Date.parse(createdAt) - 1_000), 0);
    assert.equal(elapsedSince('not a date', 1_000), 0);
  });

  it('abbreviates counts', () => {
    assert.equal(formatCount(0), '0');
    assert.equal(formatCount(950), '950');
    assert.equal(formatCount(1_000), '1k');
    assert.equal(formatCount(1_250), '1.2k');
    assert.equal(formatCount(12_345), '12.3k');
    assert.equal(formatCount(123_456), '123k');
    assert.equal(formatCount(3_400_000), '3.4M');
    assert.equal(formatCount(-1), '0');
  });

  it('shows credits with at most two decimals', () => {
    assert.equal(formatCredits(3), '3');
    assert.equal(formatCredits(0.125), '0.13');
    assert.equal(formatCredits(1.5), '1.5');
  });

  it('lists only the stats the server filled in', () => {
    assert.deepEqual(statsParts(emptyStats()), []);
    assert.deepEqual(
      statsParts({ ...emptyStats(), timeMillis: 42_500, toolCalls: 1, totalTokens: 12_345, credits: 2 }).map((part) => part.text),
      ['42s', '1 tool call', '12.3k tokens', '2 credits'],
    );
  });
});
