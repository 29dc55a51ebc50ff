import { ConflictError } from '../common/errors';

/** 409: the same account (country, routing and account number) twice in one organization. */
export class DuplicateExternalAccountError extends ConflictError {
  constructor() {
    super(
      'DUPLICATE_EXTERNAL_ACCOUNT',
      'Your organization already has an external account with this country, routing number and account number',
    );
  }
}
