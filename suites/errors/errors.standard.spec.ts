import type { ApiResponse, CallOptions } from '../../harness/api-client.ts';
import { expect, notTestable, test } from '../../harness/fixtures.ts';
import { CASES_AT_ONCE } from '../../harness/property.ts';
import { applyFieldDefect, fieldDefects, SEARCH_FIELDS, SEND_FIELDS, UPDATE_FIELDS, type FieldTable } from '../../generators/field-type-defects.ts';
import { ACCEPTED_BY, CORE_OPERATIONS, acceptedRequestFor, requestFor, type CoreOperation, type RouteContext } from '../support/core-routes.ts';
import { anyOwnNumber } from '../support/sends.ts';
import { ERROR_PROBES, NO_SUCH_CORE_PATH, type ErrorProbe } from './error-probes.ts';
import { rawExchange } from '../../harness/raw-http.ts';

// Standards guide, "Errors and tenancy": error bodies never carry stack traces or internals.
// Level standard. The ordinary error probes are joined by hostile ones, the inputs most likely
// to reach an unhandled path (deep nesting, odd identifiers, numbers no parser expects).

/** What a leaked internal looks like in a body (inside JSON a newline is the two characters \n). */
const LEAKS: ReadonlyArray<[string, RegExp]> = [
  ['a stack frame with a file position', /\bat (?:async )?[^\s"]*\s?\(?(?:file:\/\/|node:|\/|[A-Za-z]:\\)[^)\s"]*:\d+:\d+\)?/],
  ['a stack trace line', /(?:\n|\\n)\s*at\s+[\w$.<>[\]]+/],
  ['a node_modules path', /node_modules/],
  ['a source file with a line number', /[\w./\\-]+\.(?:[cm]?js|ts|py|rb|java|go|php|cs|kt)(?::\d+){1,2}\b/],
  ['a Python traceback', /Traceback \(most recent call last\)/],
  ['a Java or .NET exception frame', /\bat [\w$.]+\([\w$]+\.(?:java|cs|kt|scala):\d+\)/],
  ['a database error', /\b(?:SQLITE_[A-Z]+|SQLSTATE|ORA-\d{5}|syntax error at or near)\b/],
  ['an absolute file-system path', /(?:^|[\s"'(=])\/(?:home|usr|var|opt|srv|app|root|tmp|work|Users)\/[\w.-]+/],
];

/** A raw JSON body on one route, with every other part of the request right. */
function rawBody(op: CoreOperation, text: string, name: string, contentType = 'application/json'): ErrorProbe {
  return {
    name,
    op,
    build: async (ctx: RouteContext): Promise<CallOptions> => {
      const { json: _json, ...rest } = await requestFor(op, ctx);
      return { ...rest, headers: { ...rest.headers, 'content-type': contentType }, body: text };
    },
  };
}

/** An update of a numberId that cannot exist, with a no-op body. */
function oddNumberId(numberId: string, name: string): ErrorProbe {
  return { name, op: 'update', build: async () => ({ params: { numberId }, json: { smsEnabled: true } }) };
}

const HOSTILE_PROBES: readonly ErrorProbe[] = [
  // 256 levels: past common parser depth limits (serde_json stops at 128), yet shallow enough
  // for the evidence in report.json to stay readable by ordinary JSON tools.
  rawBody('search', `{"npa":${'['.repeat(256)}${']'.repeat(256)}}`, 'search with a body nested 256 arrays deep'),
  rawBody('search', '{"npa":"\\ud800"}', 'search with a lone surrogate in a string'),
  rawBody('search', '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}', 'search with __proto__ and constructor keys'),
  rawBody('search', '[]', 'search with a JSON array as the body'),
  rawBody('search', 'null', 'search with JSON null as the body'),
  rawBody('update', '{"smsEnabled":1e400}', 'update with a number beyond double range'),
  rawBody('send', '{"sendFrom":"x"}', 'send with a JSON body sent as text/plain', 'text/plain'),
  rawBody('send', '', 'send with an empty JSON body'),
  oddNumberId('../../../etc/passwd', 'update of a path-traversal numberId'),
  oddNumberId("' OR '1'='1", 'update of a numberId carrying SQL'),
  oddNumberId('%00%ff', 'update of a numberId with escaped NUL and 0xFF'),
  {
    name: 'update with a numberId followed by a trailing slash and more',
    op: 'update',
    build: async (ctx) => ({ params: { numberId: `${anyOwnNumber(ctx.knownNumbers)}/x/y` }, json: { smsEnabled: true } }),
  },
];

/**
 * Soft: every leak of one answer is reported, each naming what it is. One assertion per answer,
 * not per pattern: a run asks this of a few hundred answers.
 */
function expectNoLeak(text: string, what: string): void {
  const leaks = LEAKS.flatMap(([kind, pattern]) => {
    const leak = pattern.exec(text)?.[0];
    return leak === undefined ? [] : [`${kind}: ${JSON.stringify(leak)}`];
  });
  expect.soft(leaks, `ERR-101: ${what}: the body carries ${leaks.join('; ') || 'no internals'}`).toEqual([]);
}

test.describe('Errors and tenancy: no stack traces or internals in error bodies', () => {
  for (const probe of [...ERROR_PROBES, ...HOSTILE_PROBES]) {
    test(`the answer to ${probe.name} carries no stack trace or internals`, { tag: ['@ERR-101'] }, async ({ api, target, knownNumbers, newKey }) => {
      const res = await api.call(probe.op, await probe.build({ api, target, knownNumbers, newKey }));
      expectNoLeak(res.text, `${probe.name} (${res.describe()})`);
    });
  }
});

/**
 * Every single-field type defect of a route's body (generators/field-type-defects.ts), and for
 * the send recipients of another JSON type inside `to`: the values a server is likeliest to
 * meet with an unguarded path (`recipient.startsWith is not a function`). Whatever the route
 * answers, and whatever the document says of the defect (the fields suites judge that), the
 * body carries no internals.
 */
const TYPED_FIELDS: ReadonlyArray<[CoreOperation, FieldTable]> = [
  ['send', SEND_FIELDS],
  ['update', UPDATE_FIELDS],
  ['search', SEARCH_FIELDS],
];
const RECIPIENTS_OF_ANOTHER_TYPE: readonly unknown[] = [12025550100, null, true, {}, ['+12025550100']];

test.describe('Errors and tenancy: no internals in the answer to a body field of another JSON type', () => {
  for (const [op, table] of TYPED_FIELDS) {
    test(`no answer to a ${op} whose body has a field of another JSON type carries a stack trace or internals`, { tag: ['@ERR-101'] }, async ({ api, target, knownNumbers, newKey }) => {
      const valid = await requestFor(op, { api, target, knownNumbers, newKey });
      const base = valid.json as Record<string, unknown>;
      const bodies = fieldDefects(table, base).map((defect) => ({ label: defect.label, body: applyFieldDefect(base, defect) }));
      if (op === 'send') bodies.push(...RECIPIENTS_OF_ANOTHER_TYPE.map((element) => ({ label: `to: ${JSON.stringify([element])} (a recipient of another JSON type)`, body: { ...base, to: [element] } })));
      // A few at a time, each with its own Idempotency-Key: every answer is judged on its own.
      for (let i = 0; i < bodies.length; i += CASES_AT_ONCE) {
        const batch = bodies.slice(i, i + CASES_AT_ONCE);
        const answers = await Promise.all(batch.map(({ body }) => api.call(op, { ...valid, ...(op === 'send' && { headers: { ...valid.headers, 'idempotency-key': newKey() } }), json: body })));
        answers.forEach((res, j) => expectNoLeak(res.text, `${op} with ${batch[j]!.label} (${res.describe()})`));
      }
    });
  }
});

test.describe('RFC 3986 3.4: a query string leaves the route where it is', () => {
  test('whoami, the numbers list and the token endpoint with a query parameter they do not know are not answered 404 or 405', { tag: ['@ERR-106'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const query = { conformance: '1' };
    const answers = await Promise.all([
      api.call('whoami', { query }),
      api.call('numbers', { query }),
      api.call('token', { form: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }, query }),
    ]);
    for (const res of answers) expect.soft([404, 405], `ERR-106: ${res.describe()}: a query parameter the route does not know does not take the request off its route`).not.toContain(res.status);
  });
});

test.describe('RFC 9110 9.3.2: HEAD where GET is not served', () => {
  // HEAD is GET without the content: on the path of a route that takes another method, HEAD is
  // answered with the status GET gets there (a 405 both, say), never served where GET is refused
  // nor answered 404 where GET's 405 says the path names a resource. Each path is asked, with the
  // client's token, as a framework that registers HEAD beside every route (or beside none) is
  // right on one path and wrong on another.
  test('on the paths of the token endpoint, search, update and send, HEAD is answered with the status GET gets', { tag: ['@ERR-105'] }, async ({ api, target, knownNumbers, newKey }) => {
    const ops = (['token', 'search', 'update', 'send'] as const).filter((op) => target.routes[op].method !== 'GET');
    const pairs = await Promise.all(
      ops.map(async (op) => {
        const { params } = op === 'token' ? { params: undefined } : await requestFor(op, { api, target, knownNumbers, newKey });
        const [get, head] = await Promise.all(['GET', 'HEAD'].map((method) => api.call(op, { method, ...(params && { params }) })));
        return { op, get: get!, head: head! };
      }),
    );
    for (const { op, get, head } of pairs) {
      expect.soft(head.status, `ERR-105: HEAD on the path of ${op} (a ${target.routes[op].method} route) is answered as GET is there (${get.describe()}); got ${head.describe()}`).toBe(get.status);
    }
  });
});

test.describe('RFC 9110 9.1 and 9.3.2: HEAD where GET is served', () => {
  // A resource served by GET is served by HEAD too: the same status, no content. A framework that
  // registers only the methods a route names answers HEAD 405 (or 404) where GET is 200.
  for (const op of ['whoami', 'numbers'] as const) {
    test(`${op}'s path asked with HEAD, where its route is GET, is answered as GET is, without a body, and without a token refused as GET is`, { tag: ['@ERR-105'] }, async ({ api, target, tokens }) => {
      if (target.routes[op].method !== 'GET') notTestable(`the ${op} route is ${target.routes[op].method}, not GET (routes.${op})`);
      const [get, head] = await Promise.all([api.call(op, {}), api.call(op, { method: 'HEAD' })]);
      expect(get).toSucceed(`ERR-105: precondition: GET on the path of ${op} succeeds`);
      expect(head.status, `ERR-105: HEAD on the path of ${op} is answered as GET is (${get.status}); got ${head.describe()}`).toBe(get.status);
      expect(head.text, `ERR-105: the answer to HEAD on the path of ${op} has no body`).toBe('');
      // RFC 9110 8.6: a Content-Length on the answer to HEAD is the length GET's content would
      // have. The context, unlike the list, does not move while other tests run.
      const length = head.headers['content-length'];
      if (op === 'whoami' && length !== undefined) expect(Number(length), `ERR-105: the Content-Length of the answer to HEAD on the path of ${op} is the ${Buffer.byteLength(get.text)} octets GET's content has`).toBe(Buffer.byteLength(get.text));
      // RFC 9110 9.3.2: the same header fields as GET, but those whose value only generating the
      // content determines. Content-Type is known before: a HEAD answered without it tells a
      // client checking a resource's type that it has none.
      expect(head.headers['content-type'], `ERR-105: the answer to HEAD on the path of ${op} carries the Content-Type GET's does (${get.headers['content-type']})`).toBe(get.headers['content-type']);
      // No content follows the head on the wire either (RFC 9110 9.3.2): a client library that
      // knows HEAD has none never reads bytes sent after it, which then corrupt the next answer on
      // the connection; read as bytes, they show.
      const raw = await rawExchange(target.baseUrl, 'HEAD', target.routes[op].path, { authorization: `Bearer ${await tokens.primary!.token()}` });
      expect(raw.after.length, `ERR-105: the answer to HEAD on the path of ${op} sends no content after its head; ${raw.after.length} bytes followed "${raw.head.split('\r\n')[0]}": ${JSON.stringify(raw.after.subarray(0, 120).toString('utf8'))}`).toBe(0);
      // HEAD is GET without the content: without a bearer token it is refused as GET is (401,
      // section 5). That HEAD serves nothing without a token, on every route, is AUTH-001's (bearer.spec.ts).
      const anonymous = await api.call(op, { method: 'HEAD', as: 'none' });
      expect(anonymous.status, `ERR-105: HEAD on the path of ${op} without a bearer token is answered 401, as GET without one is; got ${anonymous.describe()}`).toBe(401);
    });
  }
});

// RFC 9110 6.6.1: an origin server with a clock sends Date on every 2xx, 3xx and 4xx answer. Each
// kind of answer is asked, at once: a token issued and one refused, each core route's success and
// its refusal without a token, and a path that names no route, as a server that writes some answers
// past its framework leaves Date out of those alone.
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

// RFC 9110 12.5.1: Accept written other ways than the harness's own application/json, each
// admitting JSON: the wildcards, a parameter, a weight, a list. A server that compares the
// header to one string refuses clients that write it otherwise (15.5.7: 406 is for a request no
// representation satisfies). Each route in turn, the send under a new key each time.
const ACCEPTS_JSON = ['*/*', 'application/*', 'application/json; charset=utf-8', 'application/json;q=0.9', 'text/html, application/json;q=0.8, */*;q=0.1'];

test.describe('RFC 9110 12.5.1: an Accept that admits JSON is answered as application/json is', () => {
  test(`the token endpoint and each core route answer a request whose Accept is ${ACCEPTS_JSON.map((a) => `"${a}"`).join(', ')} as they answer it with application/json, never 406`, { tag: ['@ERR-108'] }, async ({ api, target, knownNumbers, newKey }) => {
    const ctx = { api, target, knownNumbers, newKey };
    const { clientId, clientSecret } = target.clients.primary;
    const token = { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } };
    expect(await api.call('token', token)).toSucceed('TOKEN-001: precondition: a token request with Accept: application/json issues a token');
    for (const accept of ACCEPTS_JSON) {
      const issued = await api.call('token', { ...token, headers: { accept } });
      expect.soft(issued).toSucceed(`ERR-108: a token request with Accept: ${accept} issues a token, as with application/json`);
    }
    for (const op of CORE_OPERATIONS) {
      const request = await acceptedRequestFor(op, ctx);
      const plain = await api.call(op, request);
      expect(plain).toSucceed(`${ACCEPTED_BY[op]}: precondition: ${op} answers a valid request with Accept: application/json 2xx`);
      for (const accept of ACCEPTS_JSON) {
        const again = op === 'send' ? await acceptedRequestFor(op, ctx) : request;
        const res = await api.call(op, { ...again, headers: { ...again.headers, accept } });
        expect.soft(res).toSucceed(`ERR-108: ${op} with Accept: ${accept} is answered as with application/json (${plain.status})`);
      }
    }
  });
});

test.describe('RFC 9110 6.6.1: every answer carries Date', () => {
  test('every 2xx and 4xx answer, of the token endpoint and of each core route, carries Date in the IMF-fixdate form', { tag: ['@ERR-107'] }, async ({ api, target, knownNumbers, newKey }) => {
    const ctx = { api, target, knownNumbers, newKey };
    const { clientId, clientSecret } = target.clients.primary;
    const asked: Array<[string, Promise<ApiResponse>]> = [
      ['a token issued', api.call('token', { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } })],
      // An unknown grant type, which no credential check is reached for (a wrong secret would count against the client's failed attempts).
      ['a token refused for an unsupported grant_type', api.call('token', { json: { grant_type: 'conformance_unknown_grant', client_id: clientId, client_secret: clientSecret } })],
      ['a path under /api/core/ that names no route', api.call('whoami', { path: NO_SUCH_CORE_PATH })],
    ];
    for (const op of CORE_OPERATIONS) {
      asked.push([`${op}, accepted`, acceptedRequestFor(op, ctx).then((request) => api.call(op, request))]);
      asked.push([`${op} without a bearer token`, requestFor(op, ctx).then((request) => api.call(op, { ...request, as: 'none' }))]);
    }
    const answers = await Promise.all(asked.map(async ([what, answer]) => ({ what, res: await answer })));
    let judged = 0;
    for (const { what, res } of answers.filter(({ res }) => res.status >= 200 && res.status < 500)) {
      judged++;
      expect.soft(res.headers['date'], `ERR-107: the answer to ${what} (${res.status}) carries Date in the IMF-fixdate form; got ${res.headers['date'] === undefined ? 'no Date' : `Date: ${res.headers['date']}`}`).toMatch(IMF_FIXDATE);
    }
    expect(judged, 'ERR-107: answers of 2xx or 4xx to judge').toBeGreaterThan(0);
  });
});
