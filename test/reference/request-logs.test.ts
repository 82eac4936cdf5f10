import { expect, test } from '@playwright/test';
import { Writable } from 'node:stream';
import { buildApp } from '../../reference/app.ts';
import { createLogger } from '../../reference/log.ts';

// Request logs: each line of a request carries its request id, and credentials stay redacted,
// though the request's logger is only made once something is logged at an enabled level.

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger(level, sink), lines };
}

test('at info level every request line names its request id, the one the answer carries', async () => {
  const { logger, lines } = capture('info');
  const app = await buildApp({ logger });
  try {
    const response = await app.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization: 'Bearer not-a-token' } });
    const requestId = response.headers['x-request-id'];
    const ofRequest = lines.filter((line) => line.reqId === requestId);
    expect(ofRequest.map((line) => line.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    expect(JSON.stringify(lines)).not.toContain('not-a-token');
  } finally {
    await app.close();
  }
});

test('at warn level a request that logs nothing leaves no line, and a request logger still logs at enabled levels', async () => {
  const { logger, lines } = capture('warn');
  const app = await buildApp({ logger });
  app.get('/_probe', async (request) => {
    request.log.info('not at this level');
    request.log.warn({ authorization: 'Bearer sekrit' }, 'probe warning');
    return { level: request.log.level };
  });
  try {
    await app.inject({ method: 'GET', url: '/api/core/whoami' });
    expect(lines).toEqual([]);
    const response = await app.inject({ method: 'GET', url: '/_probe' });
    expect(response.json()).toEqual({ level: 'warn' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'probe warning', reqId: expect.stringMatching(/^req_/), authorization: '[redacted]' });
  } finally {
    await app.close();
  }
});

test('a secret sent in the URL query never reaches the log: the query of every logged URL is replaced', async () => {
  const { logger, lines } = capture('info');
  const app = await buildApp({ logger });
  try {
    const refused = await app.inject({
      method: 'POST',
      url: '/api/auth/token?client_secret=secret-in-the-uri',
      payload: { grant_type: 'client_credentials', client_id: 'demo-primary', client_secret: 'demo-primary-secret' },
    });
    expect(refused.statusCode).toBe(400);
    const issued = await app.inject({
      method: 'POST',
      url: '/api/auth/token',
      payload: { grant_type: 'client_credentials', client_id: 'demo-primary', client_secret: 'demo-primary-secret' },
    });
    const token = issued.json().access_token as string;
    await app.inject({ method: 'GET', url: `/api/core/whoami?access_token=${token}`, headers: { authorization: `Bearer ${token}` } });
    const log = JSON.stringify(lines);
    expect(log).toContain('"url":"/api/auth/token?[redacted]"');
    expect(log).toContain('"url":"/api/core/whoami?[redacted]"');
    expect(log).not.toContain('secret-in-the-uri');
    expect(log).not.toContain(token);
  } finally {
    await app.close();
  }
});
