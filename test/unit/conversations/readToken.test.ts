/**
 * Read tokens as people paste them: the bare UUID or a share link ending in one.
 */
import assert from 'node:assert/strict';
import { readTokenFromInput } from '../../../src/conversations/readToken';

const TOKEN = '1c9f3b8e-4d2a-4f6b-9a1e-0b7c5d3e2f10';

describe('readTokenFromInput', () => {
  it('accepts a bare UUID', () => {
    assert.equal(readTokenFromInput(TOKEN), TOKEN);
  });

  it('accepts a bare UUID in any case and returns it in lower case, trimmed', () => {
    assert.equal(readTokenFromInput(`  ${TOKEN.toUpperCase()}\n`), TOKEN);
    assert.equal(readTokenFromInput('1C9F3B8E-4d2a-4F6B-9a1e-0B7C5D3E2F10'), TOKEN);
  });

  it('takes the token from a share link', () => {
    assert.equal(readTokenFromInput(`https://sourcegraph.example.com/deepsearch/${TOKEN}`), TOKEN);
    assert.equal(readTokenFromInput(`http://127.0.0.1:40123/deepsearch/${TOKEN}`), TOKEN);
    assert.equal(readTokenFromInput(`https://example.com/sourcegraph/deepsearch/${TOKEN.toUpperCase()}`), TOKEN);
  });

  it('takes the token from a share link with a query, a fragment or a trailing slash', () => {
    for (const link of [
      `https://sourcegraph.example.com/deepsearch/${TOKEN}?utm_source=chat`,
      `https://sourcegraph.example.com/deepsearch/${TOKEN}#answer-2`,
      `https://sourcegraph.example.com/deepsearch/${TOKEN}/`,
      `https://sourcegraph.example.com/deepsearch/${TOKEN}/?a=1#b`,
      `  https://sourcegraph.example.com/deepsearch/${TOKEN}  `,
    ]) {
      assert.equal(readTokenFromInput(link), TOKEN, link);
    }
  });

  it('rejects text and links that do not end in a UUID', () => {
    for (const input of [
      '',
      '   ',
      'not a token',
      '1c9f3b8e-4d2a-4f6b-9a1e-0b7c5d3e2f1',
      '1c9f3b8e-4d2a-4f6b-9a1e-0b7c5d3e2f10x',
      '1c9f3b8e4d2a4f6b9a1e0b7c5d3e2f10',
      'zc9f3b8e-4d2a-4f6b-9a1e-0b7c5d3e2f10',
      'https://sourcegraph.example.com/deepsearch/',
      'https://sourcegraph.example.com/deepsearch/42',
      `https://sourcegraph.example.com/deepsearch?token=${TOKEN}`,
      `https://sourcegraph.example.com/deepsearch#${TOKEN}`,
      `https://sourcegraph.example.com/${TOKEN}-extra`,
    ]) {
      assert.equal(readTokenFromInput(input), undefined, input);
    }
  });

  it('rejects links of other schemes even when they end in a UUID', () => {
    for (const input of [`ftp://example.com/deepsearch/${TOKEN}`, `file:///tmp/${TOKEN}`, `vscode://deepsearch/${TOKEN}`, `javascript:${TOKEN}`]) {
      assert.equal(readTokenFromInput(input), undefined, input);
    }
  });
});
