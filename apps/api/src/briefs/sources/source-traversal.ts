// the traversal is shared with Knowledge Health (brief_stale): its definition lives in the domain
export * from '@strata/domain/briefs/source-traversal';
