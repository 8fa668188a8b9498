// Errors of the dashboard's session-authed API; src/http/dashboard maps each class to its status.
import type { InputErrorCode } from '../contracts/dashboard/codes.ts';


/** No valid session: 401. */
export class SessionRequiredError extends Error {
  constructor() {
    super('Sign in to continue.');
  }
}

/** Signed in, but the role may not do this (a viewer asking for an owner's action): 403. */
export class RoleForbiddenError extends Error {
  constructor(message = 'Your role cannot do this.') {
    super(message);
  }
}

/** A state-changing request without the right Origin or CSRF token: 403. */
export class CsrfError extends Error {
  constructor() {
    super('The request was refused (cross-site request check failed). Reload the page and try again.');
  }
}

/** Too many failed sign-ins for this account or address: 429 with Retry-After. */
export class LoginThrottledError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('Too many failed sign-ins. Try again later.');
  }
}

/** Wrong email or password (never says which): 401. */
export class BadCredentialsError extends Error {
  constructor() {
    super('The email or password is not right.');
  }
}

/** A set-password link that is unknown, used or expired: 410. */
export class LinkExpiredError extends Error {
  constructor() {
    super('This link has expired or was already used. Ask the owner or operator for a new one.');
  }
}

/**
 * Bad input to a user operation (CLI or dashboard): 422 with the message, and with `code` and
 * `params` (src/contracts/dashboard/codes.ts) so that the dashboard says it in the user's language;
 * the CLI prints the message.
 */
export class UserInputError extends Error {
  constructor(
    message: string,
    readonly code: InputErrorCode | null = null,
    readonly params: Record<string, string | number> = {},
  ) {
    super(message);
  }
}

/** The email belongs to a dashboard user already (of `merchantId`; null: an instance admin): 422. */
export class EmailTakenError extends UserInputError {
  constructor(
    readonly email: string,
    readonly merchantId: string | null,
  ) {
    super(`A user with the email ${email} already exists.`, 'email_taken', { email });
  }
}

/** A key rotation that lost to another one (two tabs, a double click): 409, nothing changed. */
export class KeyChangedError extends Error {
  constructor() {
    super('The key was rotated meanwhile (another tab or user). Reload to see the key in force.');
  }
}

/** The password asked again before a dangerous change is missing or wrong: 403, nothing changed. */
export class PasswordRecheckError extends Error {
  /** `password_missing` when none was given, else `password_wrong` (the dashboard's error code). */
  readonly code: 'password_missing' | 'password_wrong';
  constructor(missing = false) {
    super(missing ? 'Enter your password to confirm this change: nothing was changed.' : 'The password is not right: nothing was changed.');
    this.code = missing ? 'password_missing' : 'password_wrong';
  }
}
