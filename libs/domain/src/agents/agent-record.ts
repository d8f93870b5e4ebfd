/**
 * A managed agent (REFERENCE §16.3): configuration the service runs, not a process. Times are
 * Unix seconds like every event; the /v1 routes present them as ISO 8601.
 */
export interface AgentScope {
  space_uids?: string[];
  project_uids?: string[];
}

export type AgentStatus = 'active' | 'paused' | 'archived';

export interface AgentRecord {
  id: string;
  org_id: string;
  name: string;
  description: string | null;
  template_type: TemplateType;
  instructions: string;
  model: string;
  daily_credit_budget: number;
  max_steps: number;
  tools: string[];
  scope: AgentScope;
  paused: boolean;
  status: AgentStatus;
  /** the Agent node in the graph that stands for it */
  node_uid: string;
  created_by: string;
  created_at: number;
  updated_at: number;
  archived_at: number | null;
}

/** The built-in graph tools of Strata's MCP server (REFERENCE §15.11), as agents are offered them. */
export const BUILTIN_GRAPH_TOOLS = [
  'strata_capture',
  'strata_reason',
  'strata_commit',
  'strata_plan',
  'strata_remember',
  'strata_retrieve',
  'strata_traverse',
  'strata_get_node',
  'strata_evolve',
  'strata_ingest',
  'strata_write_article',
] as const;
export const READ_GRAPH_TOOLS = ['strata_retrieve', 'strata_traverse', 'strata_get_node'] as const;
export const ASK_USER_TOOL = 'ask_user';
/** Every name an agent's `tools` may hold. */
export const AGENT_TOOL_NAMES: readonly string[] = [...BUILTIN_GRAPH_TOOLS, ASK_USER_TOOL];

export const TEMPLATE_TYPES = ['researcher', 'briefing', 'curator', 'monitor', 'custom'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

export interface AgentTemplate {
  template_type: TemplateType;
  name: string;
  description: string;
  instructions: string;
  tools: string[];
  daily_credit_budget: number;
  suggested_schedules: { name: string; cron: string; timezone: string; message_template: string }[];
}

const READ = [...READ_GRAPH_TOOLS];

/** The five templates (REFERENCE §16.3); "all" is every built-in graph tool plus `ask_user`. */
export const AGENT_TEMPLATES: readonly AgentTemplate[] = [
  {
    template_type: 'researcher',
    name: 'Researcher',
    description: 'Investigates a question across the graph, records what it finds and cites the nodes it used.',
    instructions:
      'You are a research agent. Investigate the question you are given using the graph: retrieve and traverse before concluding, record new findings as observations, claims and evidence, and cite the node uids you relied on.',
    tools: [...AGENT_TOOL_NAMES],
    daily_credit_budget: 200,
    suggested_schedules: [],
  },
  {
    template_type: 'briefing',
    name: 'Briefing writer',
    description: 'Writes a regular briefing article from what changed in the graph.',
    instructions:
      'You write briefings. Find what is new or changed in the graph since the last briefing, summarise it as an article with citations to node uids, and remember what you covered.',
    tools: [...READ, 'strata_write_article', 'strata_remember'],
    daily_credit_budget: 100,
    suggested_schedules: [{ name: 'Weekday briefing', cron: '0 7 * * 1-5', timezone: 'UTC', message_template: 'Write the briefing for {{date}}.' }],
  },
  {
    template_type: 'curator',
    name: 'Curator',
    description: 'Keeps the graph tidy: merges duplicates, links related knowledge, retires what is stale.',
    instructions:
      'You curate the knowledge graph. Look for duplicates, missing links and stale or contradicted knowledge; fix what you can with the tools you have and explain every change you make.',
    tools: [...READ, 'strata_capture', 'strata_reason', 'strata_evolve', 'strata_remember'],
    daily_credit_budget: 100,
    suggested_schedules: [{ name: 'Nightly curation', cron: '0 2 * * *', timezone: 'UTC', message_template: 'Curate the graph for {{date}}.' }],
  },
  {
    template_type: 'monitor',
    name: 'Monitor',
    description: 'Watches for conditions in the graph and asks a person when something needs a decision.',
    instructions:
      'You monitor the graph for the conditions you are told about. Report what you find, remember what you checked, and ask the user when a decision is needed.',
    tools: [...READ, 'strata_remember', ASK_USER_TOOL],
    daily_credit_budget: 50,
    suggested_schedules: [],
  },
  {
    template_type: 'custom',
    name: 'Custom agent',
    description: 'An agent configured from scratch.',
    instructions: 'You are a helpful agent working on the organization\u2019s knowledge graph. Use the tools you have and cite the node uids you rely on.',
    tools: [...AGENT_TOOL_NAMES],
    daily_credit_budget: 100,
    suggested_schedules: [],
  },
];

export function templateOf(type: TemplateType): AgentTemplate {
  return AGENT_TEMPLATES.find((t) => t.template_type === type)!;
}

/** The props of the Agent node that stands for an agent in the graph (REFERENCE §16.3). */
export function agentNodeProps(a: AgentRecord): Record<string, unknown> {
  return { name: a.name, agent_type: 'llm', model_id: a.model, capabilities: a.tools, status: a.status };
}
