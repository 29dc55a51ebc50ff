import { FieldError, ValidationFailedError } from '../common/errors';
import { EVENT_SELECTORS, SELECTOR_MESSAGE } from './dto/create-webhook-endpoint.dto';

const SELECTORS = new Set(EVENT_SELECTORS);

/**
 * The entries of `enabledEvents`, once the body's rules have found an array of 1-100: each a
 * string that is an event type, a prefix such as `plan.*`, or `*`, and none twice (the second is
 * named). Every problem names its entry (`enabledEvents[2]`), as a plan's `prices[i]` do, and
 * all are reported at once. Returns the list.
 */
export function checkEnabledEvents(list: unknown[], path = 'enabledEvents'): string[] {
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  list.forEach((selector, i) => {
    const field = `${path}[${i}]`;
    if (typeof selector !== 'string') {
      errors.push({ field, code: 'invalid_type', message: 'must be a string' });
    } else if (!SELECTORS.has(selector)) {
      errors.push({ field, code: 'invalid_value', message: SELECTOR_MESSAGE });
    } else if (seen.has(selector)) {
      errors.push({
        field,
        code: 'duplicate_item',
        message: `names "${selector}" again (${path}[${seen.get(selector)}])`,
      });
    } else {
      seen.set(selector, i);
    }
  });
  if (errors.length > 0) throw new ValidationFailedError(errors);
  return list as string[];
}
