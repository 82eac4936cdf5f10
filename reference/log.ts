import { pino, type Logger, type DestinationStream } from 'pino';

// Everything that could let a reader of the logs act as a client is censored: bearer and Basic
// credentials, client secrets, issued tokens, webhook secrets and the control token.
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'client_secret',
  'clientSecret',
  'access_token',
  'webhookSecret',
  'controlToken',
  'token',
  '*.client_secret',
  '*.clientSecret',
  '*.access_token',
  '*.webhookSecret',
  '*.controlToken',
  '*.token',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    // Logs go to stderr so that stdout carries only the one line with the base URL.
    destination ?? pino.destination(2),
  );
}
