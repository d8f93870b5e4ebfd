import cytoscape from 'cytoscape';
import type { Core, ElementDefinition, NodeSingular } from 'cytoscape';

/**
 * The neighborhood drawing, on Cytoscape.js: nodes coloured by layer, edges labelled with
 * their type, laid out by Cytoscape's force-directed `cose` layout (no animation, so nothing
 * moves under the pointer while it settles). Tapping a node expands its neighborhood; the
 * caller decides what expanding fetches. The canvas is not reachable by keyboard or screen
 * reader, so the same nodes are listed beside it as buttons (Enter or Space expands).
 */
export interface GNode {
  uid: string;
  label: string;
  node_type: string;
  layer: string;
}
export interface GEdge {
  uid: string;
  from: string;
  to: string;
  edge_type: string;
}
export interface GraphView {
  el: HTMLElement;
  add(nodes: GNode[], edges: GEdge[]): void;
  has(uid: string): boolean;
  size(): { nodes: number; edges: number };
}

const LAYER_COLORS: Record<string, string> = {
  reality: '#1f77b4',
  epistemic: '#9467bd',
  intent: '#2ca02c',
  action: '#d62728',
  memory: '#8c564b',
  agent: '#e377c2',
  ontology: '#17becf',
};

/**
 * Cytoscape adds a one-rule <style> element (its container's `position: relative`) unless an
 * element with this id exists; the strict CSP refuses inline styles, so the rule lives in
 * app.css and this marker tells Cytoscape it is there.
 */
const STYLESHEET_MARKER = '__________cytoscape_stylesheet';

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

const short = (label: string) => (label.length > 28 ? label.slice(0, 27) + '…' : label);

export function graphView(opts: { start: string; onExpand(uid: string): Promise<void>; onSelect(node: GNode): void }): GraphView {
  if (!document.getElementById(STYLESHEET_MARKER)) {
    const marker = document.createElement('meta');
    marker.id = STYLESHEET_MARKER;
    marker.name = 'cytoscape-container-style';
    marker.content = 'in app.css';
    document.head.appendChild(marker);
  }
  const el = document.createElement('div');
  el.className = 'graph';
  const canvas = document.createElement('div');
  canvas.className = 'graph-canvas';
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', 'Neighborhood graph; the same nodes are listed below as buttons');
  const list = document.createElement('ul');
  list.className = 'graph-list';
  list.setAttribute('aria-label', 'Nodes in the drawing: activate one to expand it');
  el.append(canvas, list);

  const nodes = new Map<string, { n: GNode; expanded: boolean; button: HTMLButtonElement }>();
  let edgeCount = 0;
  const fg = cssVar('--fg', '#1b1f24');
  const muted = cssVar('--muted', '#5b6570');
  const card = cssVar('--card', '#fff');
  const focus = cssVar('--focus', '#f59e0b');

  // made on the first add, once the caller has put `el` in the page: Cytoscape sizes its
  // canvas from the container's box, which a detached element does not have
  const create = (): Core => cytoscape({
    container: canvas,
    minZoom: 0.2,
    maxZoom: 1.4,
    style: [
      {
        selector: 'node',
        style: {
          'background-color': card,
          'border-width': 3,
          'border-color': (n: NodeSingular) => LAYER_COLORS[n.data('layer') as string] ?? muted,
          label: 'data(short)',
          color: fg,
          'font-size': 11,
          'text-valign': 'bottom',
          'text-margin-y': 4,
          width: 26,
          height: 26,
        },
      },
      { selector: 'node.start', style: { 'background-color': (n: NodeSingular) => LAYER_COLORS[n.data('layer') as string] ?? muted } },
      { selector: 'node.expanded', style: { 'border-width': 6 } },
      { selector: 'node.busy', style: { 'border-style': 'dashed' } },
      { selector: 'node:selected', style: { 'overlay-color': focus, 'overlay-opacity': 0.35, 'overlay-padding': 6 } },
      {
        selector: 'edge',
        style: {
          width: 1.3,
          'line-color': muted,
          'target-arrow-color': muted,
          'target-arrow-shape': 'triangle',
          'curve-style': 'bezier',
          label: 'data(edge_type)',
          'font-size': 9,
          color: muted,
          'text-rotation': 'autorotate',
          'text-margin-y': -6,
        },
      },
    ],
  }).on('tap', 'node', (e) => activate(e.target.id() as string));
  let instance: Core | null = null;

  const relayout = (cy: Core) => {
    cy.layout({ name: 'cose', animate: false, randomize: false, fit: true, padding: 30, nodeRepulsion: () => 60000, idealEdgeLength: () => 150, nodeOverlap: 40 }).run();
  };

  const activate = (uid: string) => {
    const entry = nodes.get(uid);
    const cy = instance;
    if (!entry || !cy) return;
    cy.$(':selected').unselect();
    cy.getElementById(uid).select();
    opts.onSelect(entry.n);
    if (entry.expanded) return;
    entry.expanded = true;
    const cyNode = cy.getElementById(uid);
    cyNode.addClass('busy');
    entry.button.setAttribute('aria-busy', 'true');
    void opts.onExpand(uid).finally(() => {
      cyNode.removeClass('busy').addClass('expanded');
      entry.button.removeAttribute('aria-busy');
      markExpanded(entry);
    });
  };

  const markExpanded = (entry: { n: GNode; expanded: boolean; button: HTMLButtonElement }) => {
    entry.button.classList.toggle('expanded', entry.expanded);
    entry.button.setAttribute('aria-label', `${entry.n.label} (${entry.n.node_type})${entry.expanded ? ', expanded' : ', activate to expand'}`);
  };

  return {
    el,
    has: (uid) => nodes.has(uid),
    size: () => ({ nodes: nodes.size, edges: edgeCount }),
    add(newNodes, newEdges) {
      const cy = (instance ??= create());
      const elements: ElementDefinition[] = [];
      for (const n of newNodes) {
        if (nodes.has(n.uid)) continue;
        // a new node starts beside the node it hangs from, so the layout only settles it in
        const anchor = newEdges.map((e) => (e.from === n.uid ? e.to : e.to === n.uid ? e.from : null)).find((u) => u && nodes.has(u));
        const at = anchor ? cy.getElementById(anchor).position() : { x: 0, y: 0 };
        const i = nodes.size;
        const expanded = n.uid === opts.start;
        elements.push({
          group: 'nodes',
          data: { id: n.uid, short: short(n.label), layer: n.layer },
          classes: [n.uid === opts.start ? 'start' : '', expanded ? 'expanded' : ''].filter(Boolean),
          position: { x: at.x + Math.cos(i * 2.399963) * 60, y: at.y + Math.sin(i * 2.399963) * 60 },
        });
        const button = document.createElement('button');
        button.type = 'button';
        button.className = `graph-node layer-${n.layer.replace(/[^a-z]/gi, '')}`;
        button.dataset.uid = n.uid;
        button.textContent = short(n.label);
        const type = document.createElement('span');
        type.className = 'muted';
        type.textContent = ` ${n.node_type}`;
        button.appendChild(type);
        button.addEventListener('click', () => activate(n.uid));
        const li = document.createElement('li');
        li.appendChild(button);
        list.appendChild(li);
        const entry = { n, expanded, button };
        nodes.set(n.uid, entry);
        markExpanded(entry);
      }
      cy.add(elements);
      const fresh: ElementDefinition[] = [];
      for (const e of newEdges) {
        if (cy.getElementById(e.uid).nonempty() || !nodes.has(e.from) || !nodes.has(e.to)) continue;
        fresh.push({ group: 'edges', data: { id: e.uid, source: e.from, target: e.to, edge_type: e.edge_type } });
      }
      cy.add(fresh);
      edgeCount = cy.edges().length;
      relayout(cy);
    },
  };
}
