// The reporter's own redaction: credentials never reach a report, whatever the harness did.
import { expect, test } from '@playwright/test';
import { readEvidence } from '../../reports/evidence.ts';
import { redactBody, redactHeaders } from '../../harness/evidence.ts';
import { redactExchange, redactText } from '../../reports/redact.ts';

test('authorization headers keep their scheme and lose the credential', () => {
  const e = redactExchange({
    request: { method: 'GET', url: 'http://x.invalid/a', headers: { Authorization: 'Bearer abc.def', Cookie: 'sid=1', 'X-Trace': 'keep' } },
    response: { status: 401, headers: { 'set-cookie': 'sid=2', 'www-authenticate': 'Bearer realm="core"' } },
  });
  expect(e.request.headers).toEqual({ Authorization: 'Bearer [redacted]', Cookie: '[redacted]', 'X-Trace': 'keep' });
  expect(e.response?.headers).toEqual({ 'set-cookie': '[redacted]', 'www-authenticate': 'Bearer realm="core"' });
});

test('secret fields in JSON and form bodies, URLs with userinfo or tokens, and free text', () => {
  const e = redactExchange({
    request: { method: 'POST', url: 'https://u:p@x.invalid/t?access_token=abc&x=1', body: 'grant_type=client_credentials&client_secret=s3cr3t' },
    response: { status: 200, body: { access_token: 'tok', nested: [{ clientSecret: 'cs' }], expires_in: 3600 } },
  });
  expect(e.request.url).toBe('https://[redacted]@x.invalid/t?access_token=[redacted]&x=1');
  expect(e.request.body).toBe('grant_type=client_credentials&client_secret=[redacted]');
  expect(e.response?.body).toEqual({ access_token: '[redacted]', nested: [{ clientSecret: '[redacted]' }], expires_in: 3600 });
  expect(redactText('expected 200 for Authorization: Basic dXNlcjpwYXNz')).toBe('expected 200 for Authorization: Basic [redacted]');
});

test('already redacted evidence stays as it is', () => {
  const once = redactExchange({ request: { method: 'GET', url: 'http://x.invalid', headers: { authorization: 'Bearer [redacted]' }, body: { client_secret: '[redacted]' } } });
  expect(redactExchange(once)).toEqual(once);
});

test('evidence attachments: the harness log shape, a bare array, and unreadable ones', () => {
  const att = (body: string) => ({ name: 'evidence', contentType: 'application/json', body: Buffer.from(body) });
  const ex = { request: { method: 'GET', url: 'http://x.invalid', headers: { authorization: 'Bearer raw' } } };
  const r = readEvidence([att(JSON.stringify({ exchanges: [ex], omitted: 4 })), att(JSON.stringify([ex])), att('{oops'), { name: 'trace', contentType: 'application/zip', body: Buffer.from('x') }]);
  expect(r.exchanges).toHaveLength(2);
  expect(r.exchanges[0]?.request.headers).toEqual({ authorization: 'Bearer [redacted]' });
  expect(r.omitted).toBe(4);
  expect(r.problems).toHaveLength(1);
});

test('free text keeps prose about schemes readable and still hides credentials in any case', () => {
  expect(redactText('the Bearer challenge carries error="invalid_token"')).toBe('the Bearer challenge carries error="invalid_token"');
  expect(redactText('WWW-Authenticate: Bearer realm="api"')).toBe('WWW-Authenticate: Bearer realm="api"');
  expect(redactText('sent bearer abc.DEF-123_xyz')).toBe('sent bearer [redacted]');
});

test('prose after "bearer" keeps the punctuation that ends its sentence and stays readable; a credential before a full stop is still hidden, the stop with it', () => {
  for (const prose of ['The Authorization header is not a well-formed bearer credential.', 'not a well-formed bearer credentials; got 401', 'a bearer-token-like value', 'Bearer Challenge.', 'the bearer well-formed']) {
    expect(redactText(prose)).toBe(prose);
  }
  expect(redactText('sent Bearer KZ7wWQ3s8zLw_9eS1Pq.')).toBe('sent Bearer [redacted]');
  expect(redactText('sent Bearer 0123456789abcdef, refused')).toBe('sent Bearer [redacted], refused');
  expect(redactText('sent Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig')).toBe('sent Bearer [redacted]');
  expect(redactText('Authorization: Basic dXNlcjpwYXNz.')).toBe('Authorization: Basic [redacted]');
});

test('the validating client and the reporter redact the same fields and headers (one list)', () => {
  const fields = ['client_secret', 'clientSecret', 'access_token', 'refresh_token', 'id_token', 'webhookSecret', 'webhook_secret', 'controlToken', 'password', 'secret', 'token'];
  const body = Object.fromEntries(fields.map((f) => [f, 'sekret-value-1']));
  const headers = { authorization: 'Bearer sekret-value-1', 'x-api-key': 'sekret-value-1', 'x-control-token': 'sekret-value-1', cookie: 'session=sekret-value-1; theme=dark' };
  const byClient = { request: { method: 'POST', url: 'http://x.invalid', headers: redactHeaders(headers), body: redactBody(body) } };
  const byReporter = redactExchange({ request: { method: 'POST', url: 'http://x.invalid', headers, body } });
  for (const shown of [byClient, byReporter]) expect(JSON.stringify(shown)).not.toContain('sekret-value-1');
  expect(byReporter.request.headers).toEqual(byClient.request.headers);
  expect(byClient.request.headers).toMatchObject({ authorization: 'Bearer [redacted]', cookie: '[redacted]' });
});
