// The transaction and savepoint statements a Kysely driver sends, the same on SQLite and PostgreSQL
// but for how a transaction begins (SQLite: BEGIN IMMEDIATE, see sqlite.ts).
import { CompiledQuery, type DatabaseConnection, type Driver } from 'kysely';

export abstract class TransactionDriver implements Driver {
  /** The statement that opens a transaction. */
  protected abstract readonly beginStatement: string;

  abstract acquireConnection(): Promise<DatabaseConnection>;
  abstract releaseConnection(c: DatabaseConnection): Promise<void>;
  abstract destroy(): Promise<void>;

  async init(): Promise<void> {}
  async beginTransaction(c: DatabaseConnection): Promise<void> {
    await c.executeQuery(CompiledQuery.raw(this.beginStatement));
  }
  async commitTransaction(c: DatabaseConnection): Promise<void> {
    await c.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(c: DatabaseConnection): Promise<void> {
    await c.executeQuery(CompiledQuery.raw('rollback'));
  }
  async savepoint(c: DatabaseConnection, name: string): Promise<void> {
    await c.executeQuery(CompiledQuery.raw(`savepoint "${name}"`));
  }
  async rollbackToSavepoint(c: DatabaseConnection, name: string): Promise<void> {
    await c.executeQuery(CompiledQuery.raw(`rollback to "${name}"`));
  }
  async releaseSavepoint(c: DatabaseConnection, name: string): Promise<void> {
    await c.executeQuery(CompiledQuery.raw(`release "${name}"`));
  }
}
