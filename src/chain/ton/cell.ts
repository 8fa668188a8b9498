// The TON family's cell toolkit in one import: cells and slices (cell-tree.ts), the Builder
// (builder.ts) and the bag-of-cells wire format (boc.ts). Pure code, no SDK: every hash and every
// byte the driver signs or reads comes from here.
export { bitAt, Cell, decodeUtf8, EXOTIC, MAX_CELL_BITS, MAX_CELL_REFS, Slice, type TonAddress, TonCellError } from './cell-tree.ts';
export { beginCell, Builder } from './builder.ts';
export { type BocLimits, bocFromBase64, bocToBase64, crc32c, DEFAULT_BOC_LIMITS, parseBoc, parseSingleRootBoc, serializeBoc } from './boc.ts';
