import { JobStore } from '../store/job-store.port';

/** One job store for several API replicas in a test, as MongoDB is: a replica stopping does not close it. */
export function sharedJobs(store: JobStore): JobStore {
  return {
    save: (org, job) => store.save(org, job),
    get: (org, id) => store.get(org, id),
    ofOrg: (org) => store.ofOrg(org),
    active: () => store.active(),
    removeOrg: (org) => store.removeOrg(org),
    removeFinishedBefore: (cutoff) => store.removeFinishedBefore(cutoff),
    close: async () => undefined,
  };
}
