import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import { operations } from './openapi-locations.ts';
import { isObject, OPENAPI_PATH, PROFILE_PATH, readYaml, type JsonObject } from './spec-files.ts';

/**
 * Specmatic reads only exact statuses and `default` (its rule OAS0031; specmatic/specmatic#696).
 * spec/openapi.yaml needs ranges: "2XX" is how it leaves a success status the document does not
 * show open, and "4XX"/"5XX" catch statuses outside the section 7.2 table. So Specmatic is given
 * a derived copy, the reference-profile view: each "2XX" becomes the status the profile chose,
 * and "4XX"/"5XX" become one `default`. Nothing else changes. The view is for the tool only; the
 * harness always reads spec/openapi.yaml.
 */

/** Where each operation's success status is written down. */
export const SUCCESS_STATUS_SOURCE: Record<string, { choice: string } | { standard: string; status: string }> = {
  token: { standard: 'RFC 6749 5.1 (TOKEN-101)', status: '200' },
  whoami: { choice: 'whoami.route' },
  numbers: { choice: 'numbers.route' },
  search: { choice: 'search.route' },
  update: { choice: 'update.route' },
  send: { choice: 'send.successStatus' },
};

/** The first HTTP status in a profile choice's `chose` text ("GET /api/core/whoami, 200"). */
export function chosenStatus(profile: JsonObject, choice: string): string {
  const entry = isObject(profile.choices) ? profile.choices[choice] : undefined;
  const status = isObject(entry) ? /\b[1-5]\d\d\b/.exec(String(entry.chose))?.[0] : undefined;
  if (!status) throw new Error(`profile.yaml choice ${choice} names no HTTP status`);
  return status;
}

export function specmaticView(doc: JsonObject, profile: JsonObject): JsonObject {
  const view = structuredClone(doc);
  for (const { operationId, operation } of operations(view)) {
    const responses = operation.responses;
    if (!isObject(responses)) continue;
    const source = SUCCESS_STATUS_SOURCE[operationId];
    if (!source) throw new Error(`no success status known for operation ${operationId}`);
    const success = 'status' in source ? source.status : chosenStatus(profile, source.choice);
    const rewritten: JsonObject = {};
    for (const [key, response] of Object.entries(responses)) {
      if (key === '2XX') rewritten[success] = response;
      else if (key === '4XX' || key === '5XX') {
        // Both ranges must name the same answer, or folding them into one `default` loses one.
        if ('default' in rewritten && JSON.stringify(rewritten.default) !== JSON.stringify(response)) {
          throw new Error(`${operationId}: 4XX and 5XX differ, they cannot share one default`);
        }
        rewritten.default = response;
      } else rewritten[key] = response;
    }
    operation.responses = rewritten;
  }
  if (isObject(view.info)) view.info['x-derived'] = 'Reference-profile view of spec/openapi.yaml for Specmatic (test/spec/specmatic-view.ts); do not edit.';
  return view;
}

// `tsx test/spec/specmatic-view.ts OUT.yaml` writes the view (scripts/spec-tools.sh does).
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const out = process.argv[2];
  if (!out) throw new Error('usage: tsx test/spec/specmatic-view.ts OUT.yaml');
  mkdirSync(dirname(out), { recursive: true });
  // lineWidth 0: keep descriptions on their lines, so the view reads like the document.
  writeFileSync(out, stringify(specmaticView(readYaml(OPENAPI_PATH), readYaml(PROFILE_PATH)), { lineWidth: 0 }));
}
