import type { Database, Statement } from 'better-sqlite3';
import { AccountEventTypes as T } from '@strata/domain/accounts';
import { RecordedEvent, isAccountEvent, unhandled } from '@strata/domain/events';
import { CredentialChange } from '@strata/auth/accounts-directory.port';
import { PlannedProjection } from '../projection';
import { monthPeriod } from '@strata/auth/plans/plan-limits';
import { ACCOUNTS_DDL, ACCOUNT_TABLES } from './accounts-schema';
import { prepared } from '../sqlite/prepared';

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/**
 * The accounts read model: users, organizations, memberships, API keys, refresh tokens,
 * credit usage and language-model tokens, from the account events. Deterministic (only event data and positions), so a
 * rebuild gives the same rows. Listeners hear about changes that make cached credentials
 * stale (revocation, rotation, plan, membership) as they are applied.
 */
export class AccountsProjection implements PlannedProjection {
  readonly name = 'accounts';
  readonly version = 1;
  /** a replay skips node and edge streams for it: nothing here reads them (keep it so) */
  readonly replayPlanner = 'outsideGraphObjects';
  private readonly listeners: ((c: CredentialChange) => void)[] = [];
  private readonly stmts = new Map<string, Statement>();

  constructor(readonly db: Database) {
    db.exec(ACCOUNTS_DDL);
  }

  onChange(listener: (c: CredentialChange) => void): void {
    this.listeners.push(listener);
  }

  private emit(c: CredentialChange): void {
    for (const l of this.listeners) l(c);
  }

  private run(sql: string, ...params: unknown[]): void {
    prepared(this.stmts, this.db, sql).run(...params);
  }

  apply(e: RecordedEvent): void {
    this.applyEvent(e);
    this.trackRevision(e);
  }

  applyPlanned(): void {
    throw new Error('the accounts projection is only ever planned as whole events');
  }

  /** the stream revision each aggregate row was decided from (expected revision of the next write) */
  private trackRevision(e: RecordedEvent): void {
    const dash = e.stream.indexOf('-');
    const category = e.stream.slice(0, dash);
    const id = e.stream.slice(dash + 1);
    if (category === 'org') this.run('UPDATE acct_orgs SET revision = ? WHERE org_id = ?', e.revision, id);
    else if (category === 'apikey') this.run('UPDATE acct_keys SET revision = ? WHERE key_id = ?', e.revision, id);
    else if (category === 'user') this.run('UPDATE acct_users SET revision = ? WHERE user_id = ?', e.revision, id);
  }

  private applyEvent(e: RecordedEvent): void {
    if (!isAccountEvent(e)) return;
    switch (e.type) {
      case T.UserSignedUp: {
        const d = e.data;
        this.run(
          'INSERT OR REPLACE INTO acct_users(user_id, email, email_norm, name, password_hash, created_at) VALUES (?,?,?,?,?,?)',
          d.user_id, d.email, d.email_norm, d.name, d.password_hash, d.created_at,
        );
        return;
      }
      case T.OrganizationCreated: {
        const d = e.data;
        this.run('INSERT OR REPLACE INTO acct_orgs(org_id, name, plan, created_by, created_at) VALUES (?,?,?,?,?)', d.org_id, d.name, d.plan, d.created_by, d.created_at);
        return;
      }
      case T.MemberAdded: {
        const d = e.data;
        this.run('INSERT OR REPLACE INTO acct_members(org_id, user_id, role, joined_at, position) VALUES (?,?,?,?,?)', d.org_id, d.user_id, d.role, d.at, e.position);
        this.emit({ kind: 'user', user_id: d.user_id });
        return;
      }
      case T.MemberRoleChanged: {
        const d = e.data;
        this.run('UPDATE acct_members SET role = ? WHERE org_id = ? AND user_id = ?', d.to, d.org_id, d.user_id);
        this.emit({ kind: 'user', user_id: d.user_id });
        return;
      }
      case T.MemberRemoved: {
        const d = e.data;
        this.run('DELETE FROM acct_members WHERE org_id = ? AND user_id = ?', d.org_id, d.user_id);
        this.emit({ kind: 'user', user_id: d.user_id });
        return;
      }
      case T.PlanChanged: {
        const d = e.data;
        this.run('UPDATE acct_orgs SET plan = ?, plan_changed_at = ? WHERE org_id = ?', d.to, d.at, d.org_id);
        this.emit({ kind: 'org', org_id: d.org_id });
        return;
      }
      case T.ApiKeyCreated: {
        const d = e.data;
        this.run(
          `INSERT OR REPLACE INTO acct_keys(key_id, org_id, name, prefix, secret_sha256, scopes, expires_at, space_uids, project_uids,
             agent_id, created_by, created_at, rotated_from, position) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
          d.key_id, d.org_id, d.name, d.prefix, d.secret_sha256, JSON.stringify(d.scopes), d.expires_at, json(d.space_uids),
          json(d.project_uids), d.agent_id, d.created_by, d.created_at, d.rotated_from, e.position,
        );
        return;
      }
      case T.ApiKeyRotated: {
        const d = e.data;
        this.run('UPDATE acct_keys SET replaced_by = ?, overlap_until = ? WHERE key_id = ?', d.replaced_by, d.overlap_until, d.key_id);
        this.emit({ kind: 'key', key_id: d.key_id });
        return;
      }
      case T.ApiKeyRevoked: {
        const d = e.data;
        this.run('UPDATE acct_keys SET revoked_at = ?, revoked_by = ? WHERE key_id = ?', d.at, d.revoked_by, d.key_id);
        this.emit({ kind: 'key', key_id: d.key_id });
        return;
      }
      case T.RefreshTokenIssued: {
        const d = e.data;
        // expired tokens can only be refused; dropping them keeps the table bounded
        this.run('DELETE FROM acct_refresh_tokens WHERE user_id = ? AND expires_at <= ?', d.user_id, d.issued_at);
        this.run(
          'DELETE FROM acct_refresh_families WHERE user_id = ? AND family_id NOT IN (SELECT family_id FROM acct_refresh_tokens WHERE user_id = ?)',
          d.user_id, d.user_id,
        );
        this.run('INSERT OR IGNORE INTO acct_refresh_families(family_id, user_id, started_at) VALUES (?,?,?)', d.family_id, d.user_id, d.issued_at);
        this.run(
          'INSERT OR REPLACE INTO acct_refresh_tokens(token_id, family_id, user_id, token_sha256, issued_at, expires_at) VALUES (?,?,?,?,?,?)',
          d.token_id, d.family_id, d.user_id, d.token_sha256, d.issued_at, d.expires_at,
        );
        return;
      }
      case T.RefreshTokenUsed: {
        const d = e.data;
        this.run('UPDATE acct_refresh_tokens SET used_at = ?, replaced_by = ? WHERE token_id = ?', d.at, d.replaced_by, d.token_id);
        return;
      }
      case T.RefreshFamilyRevoked: {
        const d = e.data;
        this.run('UPDATE acct_refresh_families SET revoked_at = ?, revoke_reason = ? WHERE family_id = ?', d.at, d.reason, d.family_id);
        return;
      }
      case T.CreditsConsumed: {
        const d = e.data;
        // agent credits are their own meter (the agents read model counts them)
        if (d.meter === 'agent') return;
        this.run(
          `INSERT INTO acct_credits(org_id, period, used) VALUES (?,?,?)
           ON CONFLICT(org_id, period) DO UPDATE SET used = used + excluded.used`,
          d.org_id, monthPeriod(d.at), d.amount,
        );
        return;
      }
      case T.LlmUsageRecorded: {
        const d = e.data;
        this.run(
          `INSERT INTO acct_llm_usage(org_id, period, calls, input_tokens, output_tokens) VALUES (?,?,1,?,?)
           ON CONFLICT(org_id, period) DO UPDATE SET calls = calls + 1, input_tokens = input_tokens + excluded.input_tokens,
             output_tokens = output_tokens + excluded.output_tokens`,
          d.org_id, monthPeriod(d.at), d.input_tokens, d.output_tokens,
        );
        return;
      }
      default:
        return unhandled(e);
    }
  }

  reset(): void {
    for (const t of ACCOUNT_TABLES) this.db.prepare(`DELETE FROM ${t}`).run();
  }
}
