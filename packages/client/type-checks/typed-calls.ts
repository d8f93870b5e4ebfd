import { createStrataClient } from '../src';

/*
 * Compile-time checks of the generated types (never run): each `@ts-expect-error` fails the
 * package's type check when the line it marks starts to compile, so a document that stops
 * declaring bodies, actions or answers shows up as a failing test, not as an untyped client.
 */
export async function typedCalls(): Promise<void> {
  const strata = createStrataClient('http://127.0.0.1:0', 'strata_x');
  // @ts-expect-error label is required on POST /node
  await strata.POST('/node', { body: { node_type: 'Person' } });
  // @ts-expect-error `action` takes only the route's actions
  await strata.POST('/epistemic/inquiry', { body: { action: 'no_such_action', label: 'x' } });
  const usage = (await strata.GET('/v1/usage')).data!;
  const nodes: number = usage.nodes.used;
  // @ts-expect-error usage has no such figure
  void usage.no_such_figure;
  // the §2.8 aliases are accepted by the types too (deprecated, not removed)
  await strata.POST('/agent/plan', { body: { action: 'update_status', task_uid: 'u', status: 'done' } });
  const created = (await strata.POST('/node', { body: { node_type: 'Person', label: 'Ada' } })).data!;
  const uid: string = created.uid;
  void [nodes, uid];
}
