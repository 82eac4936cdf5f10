// One error class for every "your input is wrong" case (bad catalogue, baseline, key, report
// file). CLIs print its message alone and exit 2; anything else is a bug and keeps its stack.
export class InputError extends Error {
  override name = 'InputError';
}
