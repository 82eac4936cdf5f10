import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { OpenAPIV3_1 } from 'openapi-types';
import { parse } from 'yaml';
import { itemsAt, type OperationId } from './config.ts';
import type { RequirementId } from './requirement-ids.ts';

export const OPENAPI_PATH = fileURLToPath(new URL('../spec/openapi.yaml', import.meta.url));
const DOC_ID = 'openapi.json';

/**
 * Which requirement each way of breaking the OpenAPI document breaks: the one table the
 * validator judges by (test/harness/violation-rules.test.ts checks every ID against
 * spec/requirements.yaml).
 */
export const VIOLATION_RULES = {
  /** The token endpoint answers 404 or 405 at its path: a router that does not serve it there (section 9). */
  tokenNotServed: 'VER-001',
  /** A status the token operation does not allow. */
  tokenStatusNotAllowed: 'TOKEN-006',
  /** A token answer with a 5xx status: token errors are client errors (section 7.1). */
  tokenServerError: 'TOKEN-010',
  /** A status a core operation does not allow. */
  coreStatusNotAllowed: 'ERR-002',
  /** Not application/json, a body that does not parse, or bytes that are not UTF-8. */
  notJson: 'ERR-004',
  /** A token answer with a 2xx status whose body is an OAuth error: an error that is not a client error. */
  tokenErrorWithSuccessStatus: 'TOKEN-010',
  /** A token response without its fields. */
  tokenResponse: 'TOKEN-002',
  /** A token error body that is not the OAuth shape. */
  tokenErrorBody: 'TOKEN-006',
  /** A core error body that is not the CORE wrapper. */
  coreErrorBody: 'ERR-001',
  /** error.code outside the document's codes. */
  coreErrorCode: 'ERR-002',
  /** A 502 whose error.details lacks the provider status. */
  upstreamErrorDetails: 'SEARCH-002',
  /** Success bodies, by operation. */
  whoamiBody: 'CTX-001',
  numbersBody: 'NUM-001',
  searchBody: 'SEARCH-001',
  updateBody: 'UPD-001',
  sendBody: 'SEND-009',
  /** The numbers list is not an array at the configured envelope, or an item lacks its numberId. */
  numbersEnvelope: 'NUM-001',
  /** A number's other fields: names and types. */
  numberFields: 'NUM-005',
} as const satisfies Record<string, RequirementId>;

const SUCCESS_BODY: Record<Exclude<OperationId, 'token'>, RequirementId> = {
  whoami: VIOLATION_RULES.whoamiBody,
  numbers: VIOLATION_RULES.numbersBody,
  search: VIOLATION_RULES.searchBody,
  update: VIOLATION_RULES.updateBody,
  send: VIOLATION_RULES.sendBody,
};

/** One way a response breaks the OpenAPI document, with the requirement it breaks. */
export interface Violation {
  requirement: RequirementId;
  message: string;
}

export interface ObservedResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body's bytes are not UTF-8 (harness/transport.ts). */
  notUtf8?: true;
}

/**
 * Validates every response against spec/openapi.yaml: the status must be one the operation
 * allows (exact, then its class like 2XX), the body must be JSON, and the JSON must match the
 * schema for that status. The document is lenient where the interface leaves a choice open,
 * so this holds a target to the interface document only, never to the reference profile.
 */
export class ResponseValidator {
  private readonly doc: OpenAPIV3_1.Document;
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly operations = new Map<OperationId, OpenAPIV3_1.OperationObject>();

  constructor(doc: OpenAPIV3_1.Document = parse(readFileSync(OPENAPI_PATH, 'utf8'))) {
    this.doc = doc;
    // The OpenAPI document is registered whole, so the $refs inside it resolve in place.
    // validateSchema off: test/spec/schemas-meta.test.ts checks every schema of the document against the meta-schema once.
    this.ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true, validateSchema: false });
    addFormats.default(this.ajv);
    this.ajv.addSchema(doc as object, DOC_ID);
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
        const op = item?.[method];
        if (op?.operationId) this.operations.set(op.operationId as OperationId, { ...op, ['x-path' as never]: path, ['x-method' as never]: method });
      }
    }
  }

  validate(operationId: OperationId, response: ObservedResponse, numbersItemsPath?: string | null): Violation[] {
    const op = this.operations.get(operationId);
    if (!op) throw new Error(`operation ${operationId} is not in spec/openapi.yaml`);
    const responses = op.responses ?? {};
    const key = [String(response.status), `${Math.floor(response.status / 100)}XX`, 'default'].find((k) => k in responses);
    // The token endpoint has no resource to be missing: a 404 or 405 there is a router that
    // does not serve it at this path (section 9), whatever its body looks like.
    if (operationId === 'token' && (response.status === 404 || response.status === 405)) {
      return [{ requirement: VIOLATION_RULES.tokenNotServed, message: `the token endpoint is not served here: status ${response.status}` }];
    }
    const errorsReq = operationId !== 'token' ? VIOLATION_RULES.coreStatusNotAllowed : response.status >= 500 ? VIOLATION_RULES.tokenServerError : VIOLATION_RULES.tokenStatusNotAllowed;
    if (!key) {
      return [{ requirement: errorsReq, message: `status ${response.status} is not one operation ${operationId} allows (allowed: ${Object.keys(responses).join(', ')})` }];
    }
    const contentType = response.headers['content-type'] ?? '';
    if (response.status === 204 || (response.text === '' && key.startsWith('2') && operationId === 'update')) return [];
    if (!/^application\/(.+\+)?json\b/i.test(contentType)) {
      return [{ requirement: VIOLATION_RULES.notJson, message: `Content-Type is '${contentType || '(none)'}', expected application/json` }];
    }
    // RFC 8259 8.1: JSON text exchanged between systems is UTF-8; a body in another encoding is
    // not JSON to the client, however its ASCII looks (bytes of ISO-8859-1 outside ASCII are not).
    if (response.notUtf8) {
      return [{ requirement: VIOLATION_RULES.notJson, message: `the body's bytes are not UTF-8 (RFC 8259 8.1), read as ${JSON.stringify(response.text.slice(0, 120))}` }];
    }
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch {
      return [{ requirement: VIOLATION_RULES.notJson, message: `body is not JSON: ${JSON.stringify(response.text.slice(0, 120))}` }];
    }
    const pointer = this.schemaPointer(op, key);
    const violations = pointer ? this.check(pointer, body, operationId, response.status) : [];
    if (operationId === 'numbers' && response.status < 300 && violations.length === 0) {
      violations.push(...this.checkNumberItems(body, numbersItemsPath));
    }
    return violations;
  }

  private check(pointer: string, body: unknown, operationId: OperationId, status: number): Violation[] {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
      this.compiled.set(pointer, validate);
    }
    if (validate(body)) return [];
    const requirement = this.requirementForSchemaFailure(operationId, status, body);
    return (validate.errors ?? []).slice(0, 5).map((e) => ({
      requirement:
        e.instancePath === '/error/code' && e.keyword === 'const' ? VIOLATION_RULES.coreErrorCode
        : status === 502 && e.instancePath.startsWith('/error/details') ? VIOLATION_RULES.upstreamErrorDetails
        : requirement,
      message: `${e.instancePath || '(body)'} ${e.message}${e.params && 'allowedValue' in e.params ? ` (${JSON.stringify(e.params.allowedValue)})` : ''}`,
    }));
  }

  /**
   * A broken error body breaks the error contract; a broken success body, the operation's own
   * rule, unless the "success" is an OAuth error body sent with a 2xx status: that is a token
   * error that is not a client error (TOKEN-010), not a token response missing its fields.
   */
  private requirementForSchemaFailure(operationId: OperationId, status: number, body: unknown): RequirementId {
    if (operationId === 'token' && status < 300) {
      return typeof (body as { error?: unknown } | null)?.error === 'string' ? VIOLATION_RULES.tokenErrorWithSuccessStatus : VIOLATION_RULES.tokenResponse;
    }
    if (operationId === 'token') return VIOLATION_RULES.tokenErrorBody;
    if (status >= 400) return VIOLATION_RULES.coreErrorBody;
    return SUCCESS_BODY[operationId];
  }

  private checkNumberItems(body: unknown, itemsPath: string | null | undefined): Violation[] {
    const items = itemsAt(body, itemsPath);
    if (!Array.isArray(items)) {
      return [{ requirement: VIOLATION_RULES.numbersEnvelope, message: itemsPath ? `property '${itemsPath}' (the configured envelope) is not an array` : 'the answer is not an array (configured with no envelope)' }];
    }
    const violations: Violation[] = [];
    items.forEach((item, i) => {
      // NUM-001 asks for each number's numberId string; NUM-005 for the other fields' names and types.
      if (typeof (item as { numberId?: unknown } | null)?.numberId !== 'string') {
        violations.push({ requirement: VIOLATION_RULES.numbersEnvelope, message: `item ${i}: numberId is missing or not a string` });
        return;
      }
      for (const v of this.check('/components/schemas/Number', item, 'numbers', 200)) {
        violations.push({ requirement: VIOLATION_RULES.numberFields, message: `item ${i}: ${v.message}` });
      }
    });
    return violations;
  }

  private schemaPointer(op: OpenAPIV3_1.OperationObject, key: string): string | undefined {
    const path = (op as Record<string, string>)['x-path']!;
    const method = (op as Record<string, string>)['x-method']!;
    let response = op.responses![key] as OpenAPIV3_1.ResponseObject | OpenAPIV3_1.ReferenceObject;
    let pointer = `/paths/${escape(path)}/${method}/responses/${escape(key)}`;
    if ('$ref' in response) {
      pointer = response.$ref.slice(1);
      response = this.resolve(pointer) as OpenAPIV3_1.ResponseObject;
    }
    if (!(response as OpenAPIV3_1.ResponseObject).content?.['application/json']) return undefined;
    return `${pointer}/content/application~1json/schema`;
  }

  private resolve(pointer: string): unknown {
    return pointer
      .split('/')
      .slice(1)
      .reduce<unknown>((node, part) => (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
  }
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
