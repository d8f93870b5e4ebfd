// The conformance suite and test clients (./testing) are not exported: tests import them by path.
export * from './log-subscription.port';
export { CommitSignal } from './embedded/commit-signal';
export type { CommitSource } from './embedded/commit-signal';
export { EmbeddedLogSubscriptions } from './embedded/embedded-log-subscriptions';
export { KurrentDbLogSubscriptions } from './kurrentdb/kurrentdb-log-subscriptions';
export { ConnectionCaps, credentialKey } from './connection-caps';
export { ManualTimers, systemTimers } from './timers';
export type { Timers, TimerHandle } from './timers';
export { formatSseComment, formatSseFrame } from './sse/sse-frame';
export type { SseFrame } from './sse/sse-frame';
export { SseConnection } from './sse/sse-connection';
export { SseLogStreams, resumeIdOf } from './sse/log-event-stream';
export type { SseStreamSpec, SseStreamsOptions } from './sse/log-event-stream';
export { WsLogHub } from './ws/ws-log-hub';
export type { WsAuth, WsChannelSpec, WsHubOptions } from './ws/ws-log-hub';
export { WsCloseCode } from './ws/ws-close-codes';
export { WsMessageError, parseClientMessage } from './ws/ws-client-message';
export { LOG_SUBSCRIPTIONS_PROVIDER, logSubscriptionsFor } from './live.providers';
