// A refusal from the gateway's own JSON API, as both apps show it: the HTTP status, the message of
// the failure envelope, the field errors of a 422 when there are some (the dashboard's forms), and
// the code of the refusal when the server gives one (the payment page says it in the payer's
// language, falling back to the message for a code it does not know).
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: Record<string, string[]> | null = null,
    readonly code: string | null = null,
    /** The values the code's sentence names (a dashboard refusal of user input). */
    readonly params: Record<string, string | number> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
