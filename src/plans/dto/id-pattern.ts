import { Matches } from 'class-validator';
import { IdPrefix } from '../../common/ids';

/** A string with the shape of an id of this prefix (it may still not exist): 400 otherwise. */
export function IsIdShape(prefix: IdPrefix, what: string): PropertyDecorator {
  return Matches(new RegExp(`^${prefix}_[0-9A-Za-z]{16,40}$`), {
    message: `must be ${what} id such as ${prefix}_01JD3Y2Q6J8C4N1V9W5X7Z0ABC`,
  });
}
