// The errors every chain driver throws, whatever its family. Callers decide what to do with a
// failure by its class (`instanceof`), never by a name string or a node's wording, so a new family
// plugs in by throwing these and nothing above the chain layer learns its vocabulary.

/** Anything a chain driver reports as a failure of its own. */
export class ChainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The node answered, with an error (a JSON-RPC error object, an HTTP error). */
export class NodeError extends ChainError {
  constructor(
    readonly method: string,
    readonly code: number | null,
    message: string,
    readonly data?: unknown,
  ) {
    super(`${method}: ${message}`);
  }
}

/** The node could not be reached or did not answer in time: nothing is known, try again later. */
export class NodeUnreachableError extends NodeError {}

/** Why a send was refused for good. */
export type RejectionCode = 'invalid' | 'reverted' | 'rejected';

/**
 * The send can never succeed as asked (a malformed request, a call the chain reverts, a
 * transaction the node refused): nothing was signed, stored or broadcast, so the payment fails
 * and its funds return.
 */
export class SendRejectedError extends ChainError {
  constructor(
    readonly code: RejectionCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The hot wallet cannot cover this payment now (the coin or token itself, or the fee in the
 * native coin). Nothing was signed; the payment may go out once the wallet is topped up.
 */
export class HotWalletShortError extends ChainError {
  readonly code = 'insufficient_funds';
  constructor(
    /** The currency the wallet lacks (the native coin when it is the fee). */
    readonly currency: string,
    message: string,
  ) {
    super(message);
  }
}

/** Another process kept the network's scanner lock longer than a caller could wait. */
export class ScanBusyError extends ChainError {
  constructor(network: string) {
    super(`${network}: another process is scanning this network`);
  }
}

/** The node is not the chain the configuration names: nothing is scanned or signed. */
export class WrongChainError extends ChainError {}

/** The driver was closed: it scans and sends nothing more. */
export class DriverClosedError extends ChainError {
  constructor(network: string) {
    super(`${network}: driver closed`);
  }
}

/**
 * The node answered, but with something no sane node says: a height that is not a safe integer or
 * is implausibly far from the last head, a hash or an amount out of its format, an answer larger
 * than the configured cap. Nothing of that answer is used or saved; the network is reported
 * faulty until its node answers sanely again (src/chain/node-faults.ts). A NodeError, so every
 * caller that retries on a node failure retries on this one too.
 */
export class FaultyNodeError extends NodeError {
  constructor(method: string, message: string) {
    super(method, null, message);
  }
}

/** What a merchant supplied as receiving material cannot be used; the message names the problem
 * (and never repeats a secret). `problem`: a short code (`private_key`, `wrong_network`, ...). */
export class CustodyInputError extends Error {
  constructor(
    readonly problem: string,
    message: string,
  ) {
    super(message);
    this.name = 'CustodyInputError';
  }
}

/** A watch-only network was asked for a merchant's deposit address, and the merchant has supplied
 * no receiving material for it. */
export class CustodyMissingError extends Error {
  constructor(readonly network: string) {
    super(`No receiving material for ${network}`);
    this.name = 'CustodyMissingError';
  }
}
