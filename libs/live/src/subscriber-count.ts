/**
 * A count of open live connections, told of each one opened and closed: a metrics gauge's
 * child fits (`StrataMetrics.liveSubscribers.labels('sse')`), so the streams need no metrics.
 */
export interface SubscriberCount {
  inc(): void;
  dec(): void;
}
