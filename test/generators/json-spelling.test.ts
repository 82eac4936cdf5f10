// The JSON spellings the invariance checks send (generators/json-spelling.ts): every spelling
// of a value is the same JSON value, and each spelling writes the text it says it writes.
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { jsonSpelling, PLAIN_SPELLING, spell } from '../../generators/json-spelling.ts';

test('every spelling of a JSON value parses back to that value (RFC 8259: the same JSON)', () => {
  fc.assert(
    fc.property(fc.jsonValue(), jsonSpelling(), (value, spelling) => {
      expect(JSON.parse(spell(value, spelling))).toEqual(JSON.parse(JSON.stringify(value)));
    }),
    { numRuns: 500 },
  );
});

test('the plain spelling is JSON.stringify; each escape mode escapes what it names and nothing else', () => {
  const value = { to: ['+12025550100'], messageType: 'SMS', media: [{ url: 'https://a.example/x.png' }] };
  expect(spell(value, PLAIN_SPELLING)).toBe(JSON.stringify(value));
  const symbols = spell(value, { ...PLAIN_SPELLING, escapes: 'symbols' });
  expect(symbols).toContain('"to"');
  expect(symbols).toContain('"\\u002b12025550100"');
  expect(symbols).toContain('"media"');
  const firstLetter = spell(value, { ...PLAIN_SPELLING, escapes: 'first-letter' });
  expect(firstLetter).toContain('"\\u006dedia"');
  expect(firstLetter).toContain('"+12025550100"');
  const all = spell({ to: 'a+' }, { ...PLAIN_SPELLING, escapes: 'all' });
  expect(all).toBe('{"\\u0074\\u006f":"\\u0061\\u002b"}');
});
