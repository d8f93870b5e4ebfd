import type { MirroredProjectionDefinition } from '../registry/projection-definition';
import { ACCOUNT_STREAM_PREFIXES } from './account-streams';
import { AccountsProjection } from './accounts.projection';

export const ACCOUNTS_PROJECTION: MirroredProjectionDefinition = { name: 'accounts', servers: 'mirror', streams: ACCOUNT_STREAM_PREFIXES, create: (db) => new AccountsProjection(db) };
