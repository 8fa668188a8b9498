// LiteSVM's transaction errors in the JSON a Solana RPC node answers for meta.err and
// getSignatureStatuses (serde's externally tagged enums): "AccountNotFound",
// {"InstructionError": [0, {"Custom": 1}]}, {"InstructionError": [0, "InvalidArgument"]},
// {"InsufficientFundsForRent": {"account_index": 2}}, {"DuplicateInstruction": 0}.
// The names are the runtime's enum variants in LiteSVM's order (its binding exports them as numbers).
import {
  InstructionErrorCustom,
  TransactionErrorDuplicateInstruction,
  TransactionErrorInstructionError,
  TransactionErrorInsufficientFundsForRent,
} from 'litesvm/dist/internal.js';

const TX_ERRORS = (
  'AccountInUse AccountLoadedTwice AccountNotFound ProgramAccountNotFound InsufficientFundsForFee InvalidAccountForFee ' +
  'AlreadyProcessed BlockhashNotFound CallChainTooDeep MissingSignatureForFee InvalidAccountIndex SignatureFailure ' +
  'InvalidProgramForExecution SanitizeFailure ClusterMaintenance AccountBorrowOutstanding WouldExceedMaxBlockCostLimit ' +
  'UnsupportedVersion InvalidWritableAccount WouldExceedMaxAccountCostLimit WouldExceedAccountDataBlockLimit ' +
  'TooManyAccountLocks AddressLookupTableNotFound InvalidAddressLookupTableOwner InvalidAddressLookupTableData ' +
  'InvalidAddressLookupTableIndex InvalidRentPayingAccount WouldExceedMaxVoteCostLimit WouldExceedAccountDataTotalLimit ' +
  'MaxLoadedAccountsDataSizeExceeded ResanitizationNeeded InvalidLoadedAccountsDataSizeLimit UnbalancedTransaction ' +
  'ProgramCacheHitMaxLimit CommitCancelled'
).split(' ');

const IX_ERRORS = (
  'GenericError InvalidArgument InvalidInstructionData InvalidAccountData AccountDataTooSmall InsufficientFunds ' +
  'IncorrectProgramId MissingRequiredSignature AccountAlreadyInitialized UninitializedAccount UnbalancedInstruction ' +
  'ModifiedProgramId ExternalAccountLamportSpend ExternalAccountDataModified ReadonlyLamportChange ReadonlyDataModified ' +
  'DuplicateAccountIndex ExecutableModified RentEpochModified NotEnoughAccountKeys AccountDataSizeChanged ' +
  'AccountNotExecutable AccountBorrowFailed AccountBorrowOutstanding DuplicateAccountOutOfSync InvalidError ' +
  'ExecutableDataModified ExecutableLamportChange ExecutableAccountNotRentExempt UnsupportedProgramId CallDepth ' +
  'MissingAccount ReentrancyNotAllowed MaxSeedLengthExceeded InvalidSeeds InvalidRealloc ComputationalBudgetExceeded ' +
  'PrivilegeEscalation ProgramEnvironmentSetupFailure ProgramFailedToComplete ProgramFailedToCompile Immutable ' +
  'IncorrectAuthority AccountNotRentExempt InvalidAccountOwner ArithmeticOverflow UnsupportedSysvar IllegalOwner ' +
  'MaxAccountsDataAllocationsExceeded MaxAccountsExceeded MaxInstructionTraceLengthExceeded ' +
  'BuiltinProgramsMustConsumeComputeUnits'
).split(' ');

function instructionError(e: unknown): unknown {
  if (e instanceof InstructionErrorCustom) return { Custom: e.code };
  if (typeof e === 'number') return IX_ERRORS[e] ?? 'GenericError';
  const msg = (e as { msg?: unknown }).msg;
  return { BorshIoError: typeof msg === 'string' ? msg : '' };
}

export function errorJson(e: unknown): unknown {
  if (e instanceof TransactionErrorInstructionError) return { InstructionError: [e.index, instructionError(e.err())] };
  if (e instanceof TransactionErrorDuplicateInstruction) return { DuplicateInstruction: e.index };
  if (e instanceof TransactionErrorInsufficientFundsForRent) return { InsufficientFundsForRent: { account_index: e.accountIndex } };
  if (typeof e === 'number') return TX_ERRORS[e] ?? 'SanitizeFailure';
  const idx = (e as { accountIndex?: unknown }).accountIndex;
  return { ProgramExecutionTemporarilyRestricted: { account_index: typeof idx === 'number' ? idx : 0 } };
}

/** The preflight message a node writes for a simulation failure, e.g. "Error processing Instruction 0: custom program error: 0x1". */
export function describeError(err: unknown): string {
  if (typeof err === 'string') {
    if (err === 'AlreadyProcessed') return 'This transaction has already been processed';
    if (err === 'BlockhashNotFound') return 'Blockhash not found';
    if (err === 'InsufficientFundsForFee') return 'Insufficient funds for fee';
    if (err === 'AccountNotFound') return 'Attempt to debit an account but found no record of a prior credit.';
    return err;
  }
  const ie = (err as { InstructionError?: [number, unknown] }).InstructionError;
  if (ie) {
    const [i, inner] = ie;
    const what = typeof inner === 'object' && inner !== null && 'Custom' in inner ? `custom program error: 0x${Number((inner as { Custom: number }).Custom).toString(16)}` : JSON.stringify(inner);
    return `Error processing Instruction ${i}: ${what}`;
  }
  return JSON.stringify(err);
}
