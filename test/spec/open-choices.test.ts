import { test, expect } from '@playwright/test';
import { toPointer, walk } from './pointer.ts';
import { isObject, OPENAPI_PATH, PROFILE_PATH, readYaml, type Json } from './spec-files.ts';

// Open choices stay visibly apart from the document's rules: openapi.yaml marks each one with
// `x-open-choice` (what is open, what the document does say), and profile.yaml records the
// reference profile's answer with its reason.
const doc = readYaml(OPENAPI_PATH);
const profile = readYaml(PROFILE_PATH);

const choices: { pointer: string; value: Json }[] = [];
walk(doc, (node, segments) => {
  if (isObject(node) && 'x-open-choice' in node) choices.push({ pointer: toPointer(segments), value: node['x-open-choice'] ?? null });
});

const nonEmpty = expect.stringMatching(/\S/);

test('every x-open-choice says what is open and what the document says', () => {
  expect(choices.length).toBeGreaterThan(0);
  for (const { pointer, value } of choices) {
    expect(value, pointer).toMatchObject({ what: nonEmpty, document: nonEmpty });
    // `profile` and `standard` are the optional answers; nothing else, so readers know the shape.
    expect(Object.keys(isObject(value) ? value : {}).filter((k) => !['what', 'document', 'profile', 'standard'].includes(k)), pointer).toEqual([]);
  }
});

// Everything issue 2 lists as "not shown" by the interface document.
const MUST_BE_MARKED: Record<string, string> = {
  '/paths/~1api~1auth~1token/post/responses/4XX': 'token error statuses (4.1, 7.1)',
  '/paths/~1api~1core~1whoami/get': 'whoami method (4.2)',
  '/paths/~1api~1core~1numbers/get': 'numbers method and envelope (4.3)',
  '/components/schemas/NumberList': 'numbers envelope schema (4.3)',
  '/paths/~1api~1core~1numbers~1search/post': 'search path and method (4.4)',
  '/paths/~1api~1core~1numbers~1{numberId}/patch': 'update method and prefix (4.5)',
  '/paths/~1api~1core~1messages~1send/post': 'send success status and unsafe-retry status (4.6)',
  '/components/schemas/MediaItem': 'media item fields (2)',
  '/components/schemas/SendResult': 'result item fields (2)',
  '/components/schemas/SendError': 'error item fields (2)',
  '/components/schemas/ClientContext/properties/apiClientStatus': 'apiClientStatus values (2)',
  '/components/schemas/ClientContext/properties/capabilities': 'capabilities element shape (2)',
  '/components/schemas/ClientContext/properties/assignedNumbers': 'assignedNumbers fields (2)',
  '/components/schemas/SearchResult/properties/groups': 'group element fields (2)',
  '/webhooks/delivery/post': 'delivery webhook events and signing (6)',
  '/webhooks/inbound/post': 'inbound webhook events and signing (6)',
};

for (const [pointer, what] of Object.entries(MUST_BE_MARKED)) {
  test(`marked as open: ${what}`, () => {
    expect(choices.map((c) => c.pointer)).toContain(pointer);
  });
}

test('the send operation names the unsafe-retry status and the success status as open', () => {
  const send = choices.find((c) => c.pointer === '/paths/~1api~1core~1messages~1send/post')?.value;
  expect(isObject(send) ? String(send.what) : '').toMatch(/success status/);
  expect(isObject(send) ? String(send.what) : '').toMatch(/unsafe-retry status/);
});

test('every profile.yaml choice records what was open, what was chosen and why', () => {
  const entries = Object.entries(isObject(profile.choices) ? profile.choices : {});
  expect(entries.length).toBeGreaterThan(0);
  for (const [key, choice] of entries) {
    expect(choice, key).toMatchObject({ open: nonEmpty, chose: nonEmpty, why: nonEmpty });
  }
});
