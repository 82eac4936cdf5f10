// Ed25519 signatures over the exact bytes of report.json, kept in a detached file
// report.json.sig so the report itself stays the plain JSON its schema describes:
//
//   { "format": "messaging-conformance-signature/1", "algorithm": "Ed25519",
//     "sha256": "<hex digest of report.json>", "publicKey": "<SPKI PEM>",
//     "fingerprint": "SHA256:<base64 of SHA-256 over the DER public key>",
//     "signature": "<base64>" }
//
// Only the report bytes are signed. The embedded public key is a convenience: it proves
// nothing until its fingerprint matches one the signer publishes (or --pubkey is given).
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { InputError } from './errors.ts';

export const SIGNATURE_FORMAT = 'messaging-conformance-signature/1';

export interface SignatureFile {
  format: typeof SIGNATURE_FORMAT;
  algorithm: 'Ed25519';
  sha256: string;
  publicKey: string;
  fingerprint: string;
  signature: string;
}

function ed25519(key: KeyObject, what: string): KeyObject {
  if (key.asymmetricKeyType !== 'ed25519') throw new InputError(`${what} is an ${key.asymmetricKeyType ?? 'unknown'} key; an Ed25519 key is needed`);
  return key;
}

export function privateKeyFrom(pem: string, what = 'the private key'): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new InputError(`${what} is not a PEM private key (expected "-----BEGIN PRIVATE KEY-----", e.g. from npm run sign -- --new-key NAME)`);
  }
  return ed25519(key, what);
}

export function publicKeyFrom(pem: string, what = 'the public key'): KeyObject {
  if (/PRIVATE KEY/.test(pem)) throw new InputError(`${what} is a private key; give the public key (NAME.pub.pem)`);
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new InputError(`${what} is not a PEM public key (expected "-----BEGIN PUBLIC KEY-----")`);
  }
  return ed25519(key, what);
}

/** SSH-style fingerprint of a public key: what a signer publishes and a customer compares. */
export function fingerprintOf(key: KeyObject): string {
  const der = key.export({ type: 'spki', format: 'der' });
  return `SHA256:${createHash('sha256').update(der).digest('base64').replace(/=+$/, '')}`;
}

export function newKeyPair(): { privateKeyPem: string; publicKeyPem: string; fingerprint: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    fingerprint: fingerprintOf(publicKey),
  };
}

export function signBytes(bytes: Buffer, privateKey: KeyObject): SignatureFile {
  const publicKey = createPublicKey(privateKey);
  return {
    format: SIGNATURE_FORMAT,
    algorithm: 'Ed25519',
    sha256: createHash('sha256').update(bytes).digest('hex'),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    fingerprint: fingerprintOf(publicKey),
    signature: sign(null, bytes, privateKey).toString('base64'),
  };
}

export function parseSignatureFile(text: string, file: string): SignatureFile {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new InputError(`${file} is not JSON; expected a signature file written by npm run sign`);
  }
  const s = v as Partial<SignatureFile> | null;
  if (!s || typeof s !== 'object' || s.format !== SIGNATURE_FORMAT) throw new InputError(`${file} is not a ${SIGNATURE_FORMAT} file`);
  if (s.algorithm !== 'Ed25519') throw new InputError(`${file}: algorithm ${String(s.algorithm)} is not supported (Ed25519 only)`);
  for (const k of ['sha256', 'publicKey', 'fingerprint', 'signature'] as const) {
    if (typeof s[k] !== 'string' || s[k] === '') throw new InputError(`${file}: "${k}" is missing`);
  }
  return s as SignatureFile;
}

export interface SignatureCheck {
  valid: boolean;
  /** Fingerprint of the key the check used. */
  fingerprint: string;
  /** True when the caller supplied the key; false when the file's own embedded key was used. */
  trustedKey: boolean;
  /** Set when a trusted key was given and the file embeds a different one. */
  embeddedMismatch: boolean;
}

export function checkSignature(bytes: Buffer, sig: SignatureFile, trusted?: KeyObject): SignatureCheck {
  const embedded = publicKeyFrom(sig.publicKey, 'the public key embedded in the signature file');
  const key = trusted ?? embedded;
  let valid = false;
  try {
    valid = verify(null, bytes, key, Buffer.from(sig.signature, 'base64'));
  } catch {
    valid = false; // a mangled signature is simply not valid
  }
  return {
    valid,
    fingerprint: fingerprintOf(key),
    trustedKey: trusted !== undefined,
    embeddedMismatch: trusted !== undefined && fingerprintOf(embedded) !== fingerprintOf(trusted),
  };
}
