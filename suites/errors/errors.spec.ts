import { answerOf, type ApiClient, type ApiResponse } from '../../harness/api-client.ts';
import { expect, notTestable, test } from '../../harness/fixtures.ts';
import { readNumbers } from '../../harness/known-numbers.ts';
import { HarnessStop } from '../../harness/judgement.ts';
import { scratchNumber } from '../support/settings.ts';
import { ACCEPTED_BY, BODY_OPERATIONS, CORE_OPERATIONS, acceptedRequestFor, noOpPatchOf, requestFor } from '../support/core-routes.ts';
import { deliveredRecipients, expectQueuedFor, send, smsNumber, smsPayload } from '../support/sends.ts';
import { MALFORMED_JSON } from '../support/malformed-json.ts';
import { ERROR_PROBES, malformedRequest, NO_SUCH_CORE_PATH } from './error-probes.ts';
import { JSON_MEDIA_TYPE_SPELLINGS } from '../../generators/json-spelling.ts';

// Section 7.2 (the CORE wrapper and its status table) and 7.3 (malformed JSON is a request
// defect), over errors provoked on every core route. Which 4xx a route picks where the
// document is silent is left open: these tests read the form of the answer.

/** Section 7.2's table: each status and the code it goes with. */
const TABLE: Readonly<Record<number, string>> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  500: 'SERVER_ERROR',
  502: 'UPSTREAM_ERROR',
};

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A probe the target did not refuse has no error to read: the rule the probe breaks is judged
 * by its own requirement (AUTH-001, SEND-006, ...), not by the form of errors.
 */
function notRefused(res: ApiResponse, what: string): void {
  if (res.status < 400) notTestable(`${what} was not refused (${res.describe()}); its own requirement judges that, and there is no error to read`);
}

function expectWrapper(res: ApiResponse, id: string, what: string): void {
  const body = res.body;
  const shown = res.text.slice(0, 300);
  expect(res.status, `${id}: ${what} is answered with an error status; got ${res.describe()}`).toBeGreaterThanOrEqual(400);
  expect(isPlainObject(body), `${id}: ${what}: the body is a JSON object; body ${shown}`).toBe(true);
  expect(isPlainObject(body.error), `${id}: ${what}: error is an object; body ${shown}`).toBe(true);
  expect.soft(typeof body.error.code === 'string' && body.error.code !== '', `${id}: ${what}: error.code is a non-empty string; body ${shown}`).toBe(true);
  expect.soft(typeof body.error.message, `${id}: ${what}: error.message is a string; body ${shown}`).toBe('string');
  expect.soft(isPlainObject(body.error.details), `${id}: ${what}: error.details is an object (it may be empty); body ${shown}`).toBe(true);
  expect.soft(typeof body.requestId === 'string' && body.requestId !== '', `${id}: ${what}: requestId is a non-empty string; body ${shown}`).toBe(true);
}

test.describe('7.2 The CORE error wrapper', () => {
  for (const probe of ERROR_PROBES) {
    test(`${probe.name} is answered in the CORE wrapper`, { tag: ['@ERR-001'] }, async ({ api, target, knownNumbers, newKey }) => {
      const res = await api.call(probe.op, await probe.build({ api, target, knownNumbers, newKey }));
      notRefused(res, probe.name);
      expectWrapper(res, 'ERR-001', probe.name);
    });
  }
});

test.describe('7.2 The CORE wrapper on a route\'s path written with a trailing slash', () => {
  // The neighbour of a route's path: the same path with a "/" after it. A server may take it for
  // the route, redirect it, or refuse it; a refusal is an /api/core error like any other, in the
  // wrapper (a router's own 404 page is the usual slip), and without a token nothing is served.
  for (const op of ['whoami', 'numbers'] as const) {
    test(`${op}'s path written with a trailing slash is answered as its route, redirected, or refused in the CORE wrapper, and never served without a token`, { tag: ['@ERR-001', '@AUTH-001'] }, async ({ api, target }) => {
      // With the route's own method (routes.whoami may be POST, a choice the document leaves open).
      const { method } = target.routes[op];
      const path = `${target.routes[op].path}/`;
      const [withToken, without] = await Promise.all([api.call(op, { path }), api.call(op, { path, as: 'none' })]);
      if (withToken.status >= 400) expectWrapper(withToken, 'ERR-001', `${method} ${path}, with a token`);
      expect(without.status < 200 || without.status >= 300, `AUTH-001: ${method} ${path} without a bearer token is not served; got ${without.describe()}`).toBe(true);
      if (without.status >= 400) expectWrapper(without, 'ERR-001', `${method} ${path}, without a bearer token`);
    });
  }
});

test.describe('7.2 The CORE wrapper on a refusal before the route reads the body', () => {
  // A body too large is often refused by the HTTP layer, not the route: a framework default
  // answers it in its own format. Section 7 has every /api/core error in the wrapper. 1.5 MiB
  // is above the common defaults (100 kB, 1 MiB); an unknown member carries it on an update that
  // otherwise sets a field to the value it has.
  test('an update whose body is larger than the server takes is refused in the CORE wrapper', { tag: ['@ERR-001'] }, async ({ api, knownNumbers, settings }) => {
    const numberId = scratchNumber(knownNumbers);
    const record = (await readNumbers(api)).find((n) => n.numberId === numberId);
    if (record) settings.remember(record, 'primary');
    const body = { ...noOpPatchOf(record), conformancePadding: 'x'.repeat(1_572_864) };
    // A connection closed on the body is no answer to judge (a proxy may do that): not testable.
    let answered: Awaited<ReturnType<typeof answerOf>>;
    try {
      answered = await answerOf(api.call('update', { params: { numberId }, json: body }));
    } catch (e) {
      if (e instanceof HarnessStop) throw e;
      notTestable(`the target gave no answer to an update body of ${JSON.stringify(body).length} bytes: ${(e as Error).message.split('\n')[0]}`);
    }
    const { res, violation } = answered!;
    if (res.status >= 200 && res.status < 300) notTestable(`the target took an update body of ${JSON.stringify(body).length} bytes; no larger one is tried`);
    // The wrapper first (ERR-001), then what else the answer breaks (a text/plain body: ERR-004).
    expectWrapper(res, 'ERR-001', `an update body of ${JSON.stringify(body).length} bytes`);
    if (violation) throw violation;
  });
});

test.describe('7.2 The CORE wrapper on a method the route does not serve', () => {
  // A method a route does not take is refused by the router (404, 405), often in a framework's
  // own format; section 4 has every /api/core route answer its errors in the wrapper. The method
  // asked is GET: safe (RFC 9110 9.2.1), so a server that serves it changes nothing, and its 2xx
  // is not judged here. HEAD would bring no body to read; a method the route does not name is
  // never one that could remove or replace what the path names.
  for (const op of ['search', 'update', 'send'] as const) {
    test(`${op}'s path asked with GET, where the route takes another method, is answered in the CORE wrapper, and a 405 names the methods it takes`, { tag: ['@ERR-001', '@ERR-104'] }, async ({ api, target, knownNumbers, newKey }) => {
      if (target.routes[op].method === 'GET') notTestable(`the ${op} route is GET itself (routes.${op})`);
      const { json: _json, body: _body, ...request } = await requestFor(op, { api, target, knownNumbers, newKey });
      const res = await api.call(op, { ...request, method: 'GET' });
      notRefused(res, `GET on the path of ${op}`);
      expectWrapper(res, 'ERR-001', `GET on the path of ${op} (${target.routes[op].method} route)`);
      expectAllow(res, op, target.routes[op].method);
    });
  }

  // The client context is no resource a client removes: DELETE on its path changes nothing
  // whatever a server makes of it, and is a method its route does not take (section 4.2).
  test("whoami's path asked with DELETE is answered in the CORE wrapper, and a 405 names the methods it takes", { tag: ['@ERR-001', '@ERR-104'] }, async ({ api, target }) => {
    if (target.routes.whoami.method === 'DELETE') notTestable('the whoami route is DELETE itself (routes.whoami)');
    const res = await api.call('whoami', { method: 'DELETE' });
    notRefused(res, 'DELETE on the path of whoami');
    if (res.status >= 400) expectWrapper(res, 'ERR-001', `DELETE on the path of whoami (${target.routes.whoami.method} route)`);
    await expectAllowNamesHead(api, res, 'whoami', expectAllow(res, 'whoami', target.routes.whoami.method));
  });

  // The numbers list's path, whose route takes one method (section 4.3 leaves it open): DELETE
  // removes nothing a client owns there either. A 405's Allow names the methods the resource
  // takes, so each it names besides HEAD, GET or POST asked again with an empty JSON object is
  // taken, not refused 405: a server that lists the methods of a framework's route table, not the
  // resource's, names one it refuses.
  test("the numbers list's path asked with DELETE is answered in the CORE wrapper, and a 405 names the methods it takes, each of them taken", { tag: ['@ERR-001', '@ERR-104'] }, async ({ api, target }) => {
    if (target.routes.numbers.method === 'DELETE') notTestable('the numbers route is DELETE itself (routes.numbers)');
    const res = await api.call('numbers', { method: 'DELETE' });
    notRefused(res, 'DELETE on the path of the numbers list');
    if (res.status >= 400) expectWrapper(res, 'ERR-001', `DELETE on the path of the numbers list (${target.routes.numbers.method} route)`);
    const allowed = expectAllow(res, 'numbers', target.routes.numbers.method);
    await expectAllowNamesHead(api, res, 'numbers', allowed);
    const named = allowed.filter((m) => (m === 'GET' || m === 'POST') && m !== target.routes.numbers.method.toUpperCase());
    const answers = await Promise.all(named.map((method) => api.call('numbers', { method, ...(method === 'POST' ? { json: {} } : {}) })));
    for (const again of answers) expect.soft(again.status, `ERR-104: ${again.request.method}, which the 405's Allow names (Allow: ${res.headers['allow']}), is taken on the path of the numbers list, not refused 405`).not.toBe(405);
  });
});

test.describe('RFC 9110 15.5.6: a 405 is for a resource that exists', () => {
  // A path under /api/core/ that names no route has no resource whose methods a 405 could list:
  // whatever status the server gives it, a 405 naming the very method it refused (a router's
  // table of every method it takes anywhere) is no Allow of a resource.
  test('a path under /api/core/ that names no route, if answered 405, does not name the method it refused', { tag: ['@ERR-104'] }, async ({ api }) => {
    const answers = await Promise.all(['GET', 'POST'].map((method) => api.call('whoami', { path: NO_SUCH_CORE_PATH, method, ...(method === 'POST' ? { json: {} } : {}) })));
    for (const res of answers.filter((r) => r.status === 405)) {
      const allow = (res.headers['allow'] ?? '').split(',').map((m) => m.trim().toUpperCase());
      expect.soft(allow, `ERR-104: ${res.describe()}, a path that names no route, answered 405 with Allow: ${res.headers['allow'] ?? '(none)'}, naming ${res.request.method}, the method it refused`).not.toContain(res.request.method);
    }
  });
});

/**
 * RFC 9110 15.5.6: a 405 carries Allow, which lists the methods the resource takes (the route's
 * own among them, spelt as methods are: case-sensitive), never the method it just refused.
 */
function expectAllow(res: ApiResponse, op: string, method: string): string[] {
  // Method names are case-sensitive (RFC 9110 9.1): "post" in Allow is another method than POST.
  const allow = (res.headers['allow'] ?? '').split(',').map((m) => m.trim()).filter((m) => m !== '');
  if (res.status === 405) {
    expect.soft(allow, `ERR-104: the 405 on the path of ${op} carries Allow naming ${method}, the method its route takes; got ${res.headers['allow'] === undefined ? 'no Allow header' : `Allow: ${res.headers['allow']}`}`).toContain(method.toUpperCase());
    expect.soft(allow, `ERR-104: the 405 to ${res.request.method} on the path of ${op} does not name ${res.request.method} among the methods the resource takes (Allow: ${res.headers['allow'] ?? ''})`).not.toContain(res.request.method.toUpperCase());
  }
  return res.status === 405 ? allow : [];
}

/**
 * RFC 9110 15.5.6 and 9.3.2: the Allow of a 405 on a GET route's path names HEAD too, when the
 * route answers HEAD (with the client's token) as it answers GET: HEAD is then one of the
 * resource's currently supported methods. A server that lists its route table's GET alone is
 * right on every method but the one it serves implicitly.
 */
async function expectAllowNamesHead(api: ApiClient, res: ApiResponse, op: 'whoami' | 'numbers', allow: readonly string[]): Promise<void> {
  if (res.status === 405 && allow.includes('GET')) {
    const head = await api.call(op, { method: 'HEAD' });
    if (head.status >= 200 && head.status < 300) {
      expect.soft(allow, `ERR-104: the 405 on the path of ${op} names GET, and HEAD is answered ${head.status} there, so its Allow names HEAD too (Allow: ${res.headers['allow']})`).toContain('HEAD');
    }
  }
}

test.describe('7.2 Status and error.code agree with the table', () => {
  for (const probe of ERROR_PROBES) {
    test(`${probe.name}: the status and error.code agree with the section 7.2 table`, { tag: ['@ERR-002'] }, async ({ api, target, knownNumbers, newKey }) => {
      const res = await api.call(probe.op, await probe.build({ api, target, knownNumbers, newKey }));
      notRefused(res, probe.name);
      const code: unknown = res.body?.error?.code;
      const expectedCode = TABLE[res.status];
      if (expectedCode !== undefined) {
        expect(code, `ERR-002: status ${res.status} goes with error.code ${expectedCode}`).toBe(expectedCode);
      }
      const statusOfCode = Object.entries(TABLE).find(([, c]) => c === code)?.[0];
      if (statusOfCode !== undefined) {
        expect(res.status, `ERR-002: error.code ${String(code)} goes with status ${statusOfCode}`).toBe(Number(statusOfCode));
      }
      // A status outside the table with a code outside it is allowed: the codes are patterns and
      // a route need not emit every one, so only the table's pairs are held together.
    });
  }
});

// Section 7.2: requestId is "to be recorded for support", so it names one request: a support
// desk given it must find that failure and no other.
test.describe('7.2 Each error names its own request', () => {
  test('every error answer carries a requestId no other answer carries, even for the same request sent twice', { tag: ['@ERR-006'] }, async ({ api, target, knownNumbers, newKey }) => {
    const seen = new Map<string, string>();
    for (const probe of ERROR_PROBES) {
      for (const attempt of ['first', 'second']) {
        const res = await api.call(probe.op, await probe.build({ api, target, knownNumbers, newKey }));
        const requestId: unknown = res.body?.requestId;
        if (typeof requestId !== 'string') continue; // Its form is ERR-001's to judge.
        const what = `${probe.name} (${attempt})`;
        expect(seen.get(requestId), `ERR-006: ${what} carries requestId ${requestId}, already given to another answer`).toBeUndefined();
        seen.set(requestId, what);
      }
    }
    expect(seen.size, 'ERR-006: the error answers carry requestIds to compare').toBeGreaterThan(1);
  });
});

test.describe('7.3 Malformed JSON is a request defect', () => {
  for (const op of BODY_OPERATIONS) {
    for (const { name, spoil } of MALFORMED_JSON) {
      test(`${op} answers ${name} as a request defect in the CORE wrapper, never a 5xx`, { tag: ['@ERR-003'] }, async ({ api, target, knownNumbers, newKey }) => {
        // ERR-003 first, then what else the answer breaks (a body that is not JSON: ERR-004), so a
        // 500 in plain text fails the rule it breaks, not only the form of its body.
        const { res, violation } = await answerOf(api.call(op, await malformedRequest(op, { api, target, knownNumbers, newKey }, spoil)));
        expect.soft(res).toBeRequestDefect(`ERR-003: ${op} with ${name}`);
        expectWrapper(res, 'ERR-003', `${op} with ${name}`);
        if (violation) throw violation;
      });
    }
    // Nothing at all, labelled JSON: no JSON text (RFC 8259 2), which many frameworks read as an
    // empty object instead. Either is the client's request, refused as a defect or answered as
    // `{}` would be; neither is the server's failure. A server whose reader fails on no input
    // answers 5xx.
    test(`${op} answers an empty body labelled as JSON as a request defect or as an empty object, never a 5xx`, { tag: ['@ERR-003'] }, async ({ api, target, knownNumbers, newKey }) => {
      const { res, violation } = await answerOf(api.call(op, await malformedRequest(op, { api, target, knownNumbers, newKey }, () => '')));
      expect.soft(res.status < 500, `ERR-003: ${op} with an empty body labelled as JSON is refused as a request defect or answered as an empty object would be; got ${res.describe()} ${res.text.slice(0, 200)}`).toBe(true);
      if (res.status >= 400) expectWrapper(res, 'ERR-003', `${op} with an empty body labelled as JSON`);
      if (violation) throw violation;
    });
    // JSON text is UTF-8 (RFC 8259 8.1); bytes that are not are no JSON text, which a parser may
    // refuse or read as it can (RFC 8259 9: a parser MAY accept non-JSON forms). Either way the
    // request is the client's, never the server's failure: refused, it is a request defect; a 5xx
    // sends the client to retry what will fail again. The bytes sit in a member of their own, so a
    // server that reads them as U+FFFD answers the request as it would without them.
    test(`${op} answers a body whose bytes are not UTF-8, or that escapes a lone surrogate, as a request defect or as the request it reads, never a 5xx`, { tag: ['@ERR-003'] }, async ({ api, target, knownNumbers, newKey }) => {
      // Its neighbour in valid UTF-8: an escaped lone surrogate, which JSON's grammar allows and
      // whose reading RFC 8259 8.2 leaves to the parser.
      const ways: Array<[string, (before: string, after: string) => string | Uint8Array]> = [
        ['bytes that are not UTF-8 (ff fe c3 28) in a string', (before, after) => Buffer.concat([Buffer.from(before, 'utf8'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from(after, 'utf8')])],
        ['a lone surrogate escaped in a string (\\ud800)', (before, after) => `${before}\\ud800${after}`],
      ];
      for (const [what, spell] of ways) {
        // A request of its own each (a send its own Idempotency-Key: the two are different payloads).
        const { json, ...rest } = await requestFor(op, { api, target, knownNumbers, newKey });
        const [before, after] = JSON.stringify({ ...(json as Record<string, unknown>), conformanceNote: 'BAD' }).split('BAD') as [string, string];
        const body = spell(before, after);
        const { res, violation } = await answerOf(api.call(op, { ...rest, headers: { ...rest.headers, 'content-type': 'application/json' }, body }));
        expect.soft(res.status < 500, `ERR-003: ${op} with ${what} is refused as a request defect or answered as the request it reads; got ${res.describe()} ${res.text.slice(0, 200)}`).toBe(true);
        if (res.status >= 400) {
          expect.soft(res).toBeRequestDefect(`ERR-003: ${op} with ${what}, refused`);
          expectWrapper(res, 'ERR-003', `${op} with ${what}`);
        }
        if (violation) throw violation;
      }
    });
    test(`${op} answers malformed JSON labelled with a charset parameter as a request defect too`, { tag: ['@ERR-003'] }, async ({ api, target, knownNumbers, newKey }) => {
      // The label's parameter changes nothing (ERR-008): a body cut short is the same defect under either label.
      const request = await malformedRequest(op, { api, target, knownNumbers, newKey }, MALFORMED_JSON[0]!.spoil);
      const { res, violation } = await answerOf(api.call(op, { ...request, headers: { ...request.headers, 'content-type': 'application/json; charset=utf-8' } }));
      expect.soft(res).toBeRequestDefect(`ERR-003: ${op} with JSON cut short, labelled application/json; charset=utf-8`);
      expectWrapper(res, 'ERR-003', `${op} with JSON cut short, labelled with a charset`);
      if (violation) throw violation;
    });
  }
});

// The neighbour of a malformed body: a well-formed one under the wrong label, or none. Section 4
// makes request bodies JSON, so such a body is the client's request as written: refused as a
// request defect (415, 400) or read as the JSON it is (RFC 9110 8.3 lets a recipient that finds
// no Content-Type guess), never the server's failure. A server whose body reader splits a header
// that is not there answers 5xx on one route and is right on the others; each is sent.
const LABELS_OTHER_THAN_JSON: ReadonlyArray<[string, string | undefined]> = [
  ['no Content-Type', undefined],
  ['Content-Type text/plain', 'text/plain'],
  ['Content-Type application/octet-stream', 'application/octet-stream'],
  ['Content-Type application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
];

test.describe('4, 7.3: a JSON body labelled otherwise, or not labelled, is the client\'s request', () => {
  for (const op of BODY_OPERATIONS) {
    test(`${op} answers a JSON body with no Content-Type, or another than JSON, as a request defect or as the JSON it is, never a 5xx`, { tag: ['@ERR-010'] }, async ({ api, target, knownNumbers, newKey }) => {
      const answers = await Promise.all(
        LABELS_OTHER_THAN_JSON.map(async ([what, label]) => {
          // A request of its own each (a send its own Idempotency-Key), its body the JSON text as written.
          const { json, headers, ...rest } = await requestFor(op, { api, target, knownNumbers, newKey });
          const { 'content-type': _, ...others } = headers ?? {};
          return { what, ...(await answerOf(api.call(op, { ...rest, headers: { ...others, ...(label !== undefined && { 'content-type': label }) }, body: JSON.stringify(json) }))) };
        }),
      );
      for (const { what, res } of answers) {
        expect.soft(res.status < 500, `ERR-010: ${op} with a JSON body and ${what} is refused as a request defect or read as JSON; got ${res.describe()} ${res.text.slice(0, 200)}`).toBe(true);
        if (res.status >= 400 && res.status < 500) {
          expect.soft(res).toBeRequestDefect(`ERR-010: ${op} with a JSON body and ${what}, refused`);
          expectWrapper(res, 'ERR-010', `${op} with a JSON body and ${what}`);
        }
      }
      // ERR-010 first, then what else an answer breaks (a 500 in plain text: ERR-004).
      const violation = answers.find((a) => a.violation !== null)?.violation;
      if (violation) throw violation;
    });
  }
});

// Values of the right type that a store or a parser may choke on (section 7.3: a 5xx is the
// server's transient failure, retried by the client for ever). Each is accepted or refused as a
// request defect; a server that reads a zip as a number, or stores text in a column that refuses
// NUL, is right on every ordinary value. Each goes out at once, a send under its own key.
test.describe('4.4, 4.6, 7.3: a string the document allows is never a server failure', () => {
  test('sends whose text holds a NUL or another control character are accepted or refused as a request defect, never 5xx', { tag: ['@ERR-011'] }, async ({ api, target, knownNumbers, newKey }) => {
    const texts: Array<[string, string]> = [
      ['a NUL', 'Conformance check \u0000 nul'],
      ['a BEL and an ESC', 'Conformance check \u0007\u001b controls'],
      ['a DEL and a C1 control', 'Conformance check \u007f\u0085 controls'],
    ];
    const answers = await Promise.all(texts.map(async ([what, text]) => ({ what, res: await send(api, newKey(), { ...smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'control-text'), text }) })));
    for (const { what, res } of answers) {
      expect.soft(res.status < 500, `ERR-011: an SMS whose text holds ${what} is accepted or refused as a request defect; got ${res.describe()} ${res.text.slice(0, 200)}`).toBe(true);
      if (res.status >= 400) expect.soft(res).toBeRequestDefect(`ERR-011: an SMS whose text holds ${what}, refused`);
    }
  });

  test('searches whose criteria are strings of other forms (letters in a zipCode, a ZIP+4, an empty string, a NUL) are answered or refused as a request defect, never 5xx', { tag: ['@ERR-011'] }, async ({ api }) => {
    const criteria: Array<Record<string, string>> = [{ zipCode: '2000A' }, { zipCode: '20001-1234' }, { zipCode: '' }, { npa: '20A' }, { npa: '' }, { city: 'Washington\u0000' }, { rateCenter: '' }];
    const answers = await Promise.all(criteria.map(async (body) => ({ body, res: await api.call('search', { json: body }) })));
    for (const { body, res } of answers) {
      // A 502 is section 4.4's answer to the provider's failure (SEARCH-002 judges it), not this rule's.
      if (res.status === 502) continue;
      expect.soft(res.status < 500, `ERR-011: a search for ${JSON.stringify(body)} is answered or refused as a request defect; got ${res.describe()} ${res.text.slice(0, 200)}`).toBe(true);
      if (res.status >= 400) expect.soft(res).toBeRequestDefect(`ERR-011: a search for ${JSON.stringify(body)}, refused`);
    }
  });
});

test.describe('4: response bodies are JSON', () => {
  function expectJson(res: ApiResponse, what: string): void {
    if (res.text === '') return; // No body (a 204, or an update that answers with none) has no media type to check.
    expect(res.headers['content-type'] ?? '', `ERR-004: ${what}: Content-Type is application/json; got ${res.describe()}`).toMatch(/^application\/(?:[\w.+-]+\+)?json\b/i);
    expect(() => JSON.parse(res.text), `ERR-004: ${what}: the body parses as JSON`).not.toThrow();
  }

  for (const op of CORE_OPERATIONS) {
    test(`a successful answer of ${op} is JSON`, { tag: ['@ERR-004'] }, async ({ api, target, knownNumbers, newKey }) => {
      const res = await api.call(op, await acceptedRequestFor(op, { api, target, knownNumbers, newKey }));
      expect(res).toSucceed(`${ACCEPTED_BY[op]}: precondition: ${op} answers a valid request 2xx`);
      expectJson(res, `${op} success`);
    });

    test(`an error answer of ${op} is JSON`, { tag: ['@ERR-004'] }, async ({ api, target, knownNumbers, newKey }) => {
      const res = await api.call(op, { ...(await requestFor(op, { api, target, knownNumbers, newKey })), as: 'none' });
      expect(res.status, `ERR-004: precondition: ${op} without a token is an error; got ${res.describe()}`).toBeGreaterThanOrEqual(400);
      expectJson(res, `${op} without a token`);
    });
  }

  // Another spelling of the same answer: one that holds characters beyond ASCII. JSON text is
  // UTF-8 (RFC 8259 8.1); a server that writes its answers in another encoding, or escapes them
  // by hand, is right while every value is ASCII. A value set by an update (a campaignregId the
  // target accepted) is in the numbers list it answers. (The validating client reads every
  // answer's bytes as UTF-8 and fails ERR-004 where they are not.)
  test('the numbers list is JSON in UTF-8 while a value in it holds characters beyond ASCII', { tag: ['@ERR-004'] }, async ({ api, knownNumbers, settings }) => {
    const numberId = scratchNumber(knownNumbers);
    const value = 'CR-é中\u{1F600}';
    const set = await settings.change(numberId, { campaignregId: value });
    // A target that takes only registrations it knows refuses it: that refusal, which may repeat
    // the value, is JSON too, and no list holds it.
    expectJson(set, `the update of campaignregId to ${JSON.stringify(value)}`);
    if (set.status < 200 || set.status >= 300) {
      test.info().annotations.push({ type: 'note', description: `the target refused campaignregId ${JSON.stringify(value)} (${set.status}): no list held a value beyond ASCII` });
    } else {
      const list = await api.call('numbers', {});
      expect(list).toSucceed('NUM-001: precondition: the numbers list is answered');
      expectJson(list, `the numbers list holding campaignregId ${JSON.stringify(value)}`);
      expect(list.text.includes(value) || list.text.includes(JSON.stringify(value).slice(1, -1)), `ERR-004: the numbers list carries ${JSON.stringify(value)} as UTF-8 (or escaped), as the update set it`).toBe(true);
    }
  });

  // An error answer that repeats what the request carried (an unsupported grant_type in its
  // error_description, an unknown client, a number ID) holds whatever characters that held: a
  // quote, a backslash, a control character, characters beyond ASCII. A server that writes the
  // value into its JSON unescaped is right on every plain value.
  const ECHOED = ['a"quote', 'a\\backslash', 'a\nline feed', 'a\ttab', 'é中\u{1F600}', '</script>'];
  test('an error answer is JSON whatever characters the values it may repeat hold', { tag: ['@ERR-004'] }, async ({ api, target, knownNumbers, newKey }) => {
    const { clientId, clientSecret } = target.clients.primary;
    for (const odd of ECHOED) {
      const what = JSON.stringify(odd);
      expectJson(await api.call('token', { json: { grant_type: odd, client_id: clientId, client_secret: clientSecret } }), `a token request with grant_type ${what}`);
      expectJson(await api.call('token', { form: { grant_type: odd, client_id: clientId, client_secret: clientSecret } }), `a form token request with grant_type ${what}`);
      expectJson(await api.call('token', { json: { grant_type: 'client_credentials', client_id: odd, client_secret: clientSecret } }), `a token request with client_id ${what}`);
      expectJson(await api.call('update', { params: { numberId: odd }, json: { smsEnabled: true } }), `an update of number ${what}`);
      expectJson(await api.call('send', { headers: { 'idempotency-key': newKey() }, json: smsPayload(odd, deliveredRecipients(target), 'err-004-echo') }), `a send from ${what}`);
      expectJson(await api.call('send', { headers: { 'idempotency-key': newKey() }, json: smsPayload(smsNumber(knownNumbers), [odd], 'err-004-echo') }), `a send to ${what}`);
    }
  });
});

// Section 4: request bodies are JSON. RFC 9110 8.3.1 lets a media type carry parameters, and
// RFC 8259 11 defines none for application/json: a charset parameter "really has no effect on
// compliant recipients". Many client libraries label their JSON so; a request the server accepts
// without the parameter it accepts with it. Document level: the body is still the JSON (or the
// form) section 4 asks for (ERR-008).
const JSON_WITH_CHARSET = 'application/json; charset=utf-8';

const FORM_WITH_CHARSET = 'application/x-www-form-urlencoded; charset=UTF-8';

test.describe('4 (with RFC 8259 11, RFC 9110 8.3.1): a charset parameter on the body\'s media type changes nothing', () => {
  test(`the token endpoint reads form fields labelled "${FORM_WITH_CHARSET}" as form fields`, { tag: ['@ERR-008'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const form = { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret };
    expect(await api.call('token', { form })).toSucceed('TOKEN-004: precondition: the form token request without the parameter issues a token');
    const res = await api.call('token', { form, headers: { 'content-type': FORM_WITH_CHARSET } });
    expect(res).toSucceed(`ERR-008: the same token request labelled "${FORM_WITH_CHARSET}" issues a token, as without the parameter`);
  });

  test(`the token endpoint reads a JSON body labelled "${JSON_WITH_CHARSET}" as JSON`, { tag: ['@ERR-008'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const json = { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret };
    expect(await api.call('token', { json })).toSucceed('TOKEN-003: precondition: the JSON token request without the parameter issues a token');
    const res = await api.call('token', { json, headers: { 'content-type': JSON_WITH_CHARSET } });
    expect(res).toSucceed(`ERR-008: the same token request labelled "${JSON_WITH_CHARSET}" issues a token, as without the parameter`);
  });

  for (const op of BODY_OPERATIONS) {
    test(`${op} reads a JSON body labelled "${JSON_WITH_CHARSET}" as JSON`, { tag: ['@ERR-008'] }, async ({ api, target, knownNumbers, newKey }) => {
      const request = await acceptedRequestFor(op, { api, target, knownNumbers, newKey });
      const plain = await api.call(op, request);
      if (op === 'send') expectQueuedFor(plain, 'ERR-008', 'the send without the parameter');
      else expect(plain).toSucceed(`${ACCEPTED_BY[op]}: precondition: the ${op} without the parameter is accepted`);
      // The send with the parameter is a new operation, under its own key.
      const again = op === 'send' ? { ...request, headers: { ...request.headers, 'idempotency-key': newKey() } } : request;
      const res = await api.call(op, { ...again, headers: { ...again.headers, 'content-type': JSON_WITH_CHARSET } });
      expect(res).toSucceed(`ERR-008: the same ${op} labelled "${JSON_WITH_CHARSET}" is accepted, as without the parameter`);
    });
  }
});

// RFC 9110 8.3.1: the type and subtype of a media type are case-insensitive, and so are a
// parameter's name and the charset's value (8.3.2); 5.6.6 lets a parameter follow the ";" with
// or without a space, its value quoted or not. Document level, as ERR-008: a body so labelled is
// still the JSON (or the form) section 4 asks for (ERR-009).
const JSON_IN_CAPITALS = JSON_MEDIA_TYPE_SPELLINGS[0];
const FORM_IN_CAPITALS = 'Application/X-WWW-Form-Urlencoded';
const JSON_LABELS_SPELT_OTHERWISE = JSON_MEDIA_TYPE_SPELLINGS;

test.describe('4 (with RFC 9110 8.3.1): a media type is read whatever the case of its letters', () => {
  test(`the token endpoint reads form fields labelled "${FORM_IN_CAPITALS}" as form fields`, { tag: ['@ERR-009'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const form = { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret };
    expect(await api.call('token', { form })).toSucceed('TOKEN-004: precondition: the form token request labelled application/x-www-form-urlencoded issues a token');
    const res = await api.call('token', { form, headers: { 'content-type': FORM_IN_CAPITALS } });
    expect(res).toSucceed(`ERR-009: the same token request labelled "${FORM_IN_CAPITALS}" issues a token`);
  });

  test(`the token endpoint reads a JSON body labelled "${JSON_IN_CAPITALS}", or with its charset parameter spelt otherwise, as JSON`, { tag: ['@ERR-009'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const json = { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret };
    expect(await api.call('token', { json })).toSucceed('TOKEN-003: precondition: the JSON token request labelled application/json issues a token');
    const answers = await Promise.all(JSON_LABELS_SPELT_OTHERWISE.map(async (label) => ({ label, res: await api.call('token', { json, headers: { 'content-type': label } }) })));
    for (const { label, res } of answers) expect.soft(res).toSucceed(`ERR-009: the same token request labelled "${label}" issues a token`);
  });

  for (const op of BODY_OPERATIONS) {
    test(`${op} reads a JSON body labelled "${JSON_IN_CAPITALS}", or with its charset parameter spelt otherwise, as JSON`, { tag: ['@ERR-009'] }, async ({ api, target, knownNumbers, newKey }) => {
      const request = await acceptedRequestFor(op, { api, target, knownNumbers, newKey });
      const plain = await api.call(op, request);
      expect(plain).toSucceed(`${ACCEPTED_BY[op]}: precondition: the ${op} labelled application/json is accepted`);
      for (const label of JSON_LABELS_SPELT_OTHERWISE) {
        // A send under each label is a new operation, under its own key.
        const again = op === 'send' ? { ...request, headers: { ...request.headers, 'idempotency-key': newKey() } } : request;
        const res = await api.call(op, { ...again, headers: { ...again.headers, 'content-type': label } });
        expect.soft(res).toSucceed(`ERR-009: the same ${op} labelled "${label}" is accepted`);
      }
    });
  }
});
