// A refusal from the gateway's own JSON API, as both apps show it: the HTTP status, the message of
// the failure envelope, and the field errors of a 422 when there are some.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors: Record<string, string[]> | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
