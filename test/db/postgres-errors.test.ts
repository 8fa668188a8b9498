// Which PostgreSQL client errors mean "the database is unreachable" (503, retry later) and which
// are the query's own fault (500): node-postgres reports a connection that ends under a query with
// a bare message and no SQLSTATE, sometimes before the client's 'error' event.
import { describe, expect, it } from 'vitest';
import { classify } from '../../src/db/postgres.ts';
import { DatabaseUnavailableError } from '../../src/errors.ts';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('PostgreSQL error classification', () => {
  it.each([
    ['a connection that ended under the query', new Error('Connection terminated unexpectedly')],
    ['a connection ended on purpose', new Error('Connection terminated')],
    ['a client already broken', new Error('Client has encountered a connection error and is not queryable')],
    ['a closed client', new Error('Client was closed and is not queryable')],
    ['a connect timeout', new Error('timeout exceeded when trying to connect')],
    ['an administrator shutdown', withCode('terminating connection due to administrator command', '57P01')],
    ['a server starting up', withCode('the database system is starting up', '57P03')],
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a connection exception class', withCode('connection failure', '08006')],
  ])('%s is an outage', (_what, err) => {
    expect(classify(err, null)).toBeInstanceOf(DatabaseUnavailableError);
  });

  it.each([
    ['a unique violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['a syntax error', withCode('syntax error at or near "selec"', '42601')],
    ['a plain bug', new TypeError('x is not a function')],
  ])('%s is not', (_what, err) => {
    expect(classify(err, null)).toBe(err);
  });
});
