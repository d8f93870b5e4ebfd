/** False while the service catches up its projections at start-up, or drains at shutdown. */
export class Readiness {
  ready = false;
  draining = false;
}
