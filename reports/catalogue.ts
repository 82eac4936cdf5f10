// The requirement catalogue as the reporting layer reads it: the harness's loader
// (harness/catalogue.ts), whose format errors become InputErrors so the CLIs print them and
// exit 2.
import { CatalogueError, loadCatalogue as loadChecked } from '../harness/catalogue.ts';
import { InputError } from './errors.ts';
import type { Catalogue } from './types.ts';

export { REQUIREMENT_ID } from '../harness/catalogue.ts';

export function loadCatalogue(file: string): Catalogue {
  try {
    return loadChecked(file);
  } catch (e) {
    if (e instanceof CatalogueError) throw new InputError(e.message);
    throw e;
  }
}
